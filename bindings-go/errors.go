package gcf

/*
#include <gcf.h>
*/
import "C"

import (
	"fmt"
	"strings"
)

// Status is libgcf's numeric result code (gcf_status in gcf.h).
type Status uint32

// The statuses; the numbers never change meaning.
const (
	StatusOK              Status = 0
	StatusDataError       Status = 1
	StatusInvalidArgument Status = 2
	StatusSinkError       Status = 3
	StatusPanic           Status = 4
	StatusInvalidState    Status = 5
	StatusJSONError       Status = 6
)

// Error is every error this package returns.
//
// Category is the stable snake_case name of the GCF conformance suite
// ("count_mismatch", "invalid_utf8", "unknown_edge_reference", ..., "sink"
// when the io.Writer failed); Line and Column are 1-based positions in the
// input, 0 when unknown.
type Error struct {
	status   Status
	class    string
	category string
	message  string
	line     int
	column   int
	cause    error
}

// Class is the error's class in the error model every GCF binding shares
// (the CLI's exit code and the C status derive from it too): "syntax",
// "limit", "reference", "delta", "input", "state", "sink", "json", "io",
// "usage" or "panic".
func (e *Error) Class() string { return e.class }

// Category is the error's category name.
func (e *Error) Category() string { return e.category }

// Message is the explanation without position.
func (e *Error) Message() string { return e.message }

// Line is the 1-based input line, or 0.
func (e *Error) Line() int { return e.line }

// Column is the 1-based input column (in characters), or 0.
func (e *Error) Column() int { return e.column }

// Status is libgcf's status code for the failure.
func (e *Error) Status() Status { return e.status }

// Unwrap gives the io.Writer's error behind a "sink" error.
func (e *Error) Unwrap() error { return e.cause }

func (e *Error) Error() string {
	switch {
	case e.line > 0 && e.column > 0:
		return fmt.Sprintf("gcf: %s: %s (line %d, column %d)", e.category, e.message, e.line, e.column)
	case e.line > 0:
		return fmt.Sprintf("gcf: %s: %s (line %d)", e.category, e.message, e.line)
	default:
		return fmt.Sprintf("gcf: %s: %s", e.category, e.message)
	}
}

// takeError converts and frees a libgcf error.
func takeError(status C.gcf_status, cerr *C.gcf_error) *Error {
	e := &Error{status: Status(status)}
	if cerr == nil {
		e.category = "unknown"
		e.message = fmt.Sprintf("libgcf status %d", uint32(status))
		return e
	}
	defer C.gcf_error_free(cerr)
	e.class = C.GoString(C.gcf_error_class(cerr))
	e.category = C.GoString(C.gcf_error_category(cerr))
	e.message = C.GoString(C.gcf_error_message(cerr))
	e.line = int(C.gcf_error_line(cerr))
	e.column = int(C.gcf_error_column(cerr))
	return e
}

// ofValue is for libgcf's errors on JSON this package marshaled from the
// caller's Go values: a line and column there point into text the caller
// never saw, so they are dropped, as is the C argument's name that leads
// the message ("json: "); the path of the caller's field stays
// ("rows[0].id: integer ... outside the int64 range"). A failure to read
// that JSON at all (category "json", which json.Marshal's output cannot
// cause) is the caller's input, "invalid_input". Errors in GCF text the
// caller gave keep their positions.
func ofValue(err error, arg string) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	e.line, e.column = 0, 0
	e.message = strings.TrimPrefix(e.message, arg+": ")
	if e.category == "json" {
		e.category = "invalid_input"
	}
	return e
}
