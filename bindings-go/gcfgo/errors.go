package gcf

import (
	"errors"
	"fmt"

	native "github.com/blackwell-systems/gcf-go/internal/native"
)

// Error is every error this package returns. gcf-go v1.7.1 returns plain
// fmt errors whose text begins with the category; this one's text does too,
// and the parts are available through errors.As:
//
//	var e *gcf.Error
//	if errors.As(err, &e) { fmt.Println(e.Category(), e.Line(), e.Column()) }
type Error struct {
	class    string
	category string
	message  string
	line     int
	column   int
	prefix   string // "gcf: " for graph Decode, as gcf-go writes it
	cause    error
}

// Category is the conformance suite's snake_case error category
// ("count_mismatch", "unknown_edge_reference", "root_mismatch", ...).
func (e *Error) Category() string { return e.category }

// Class is the error's class in the error model every gcf-native binding
// shares: "syntax", "limit", "reference", "delta", "input", "state", "sink",
// "json", "io", "usage" or "panic".
func (e *Error) Class() string { return e.class }

// Message is the explanation without category or position.
func (e *Error) Message() string { return e.message }

// Line is the 1-based input line, or 0 when unknown.
func (e *Error) Line() int { return e.line }

// Column is the 1-based input column (in characters), or 0 when unknown.
func (e *Error) Column() int { return e.column }

// Unwrap gives the underlying cause (an io.Writer's error behind a "sink"
// error, or the native package's error).
func (e *Error) Unwrap() error { return e.cause }

func (e *Error) Error() string {
	switch {
	case e.line > 0 && e.column > 0:
		return fmt.Sprintf("%s%s: %s (line %d, column %d)", e.prefix, e.category, e.message, e.line, e.column)
	case e.line > 0:
		return fmt.Sprintf("%s%s: %s (line %d)", e.prefix, e.category, e.message, e.line)
	default:
		return fmt.Sprintf("%s%s: %s", e.prefix, e.category, e.message)
	}
}

// newError is an error found on the Go side, before libgcf is called.
func newError(class, category, format string, args ...any) *Error {
	return &Error{class: class, category: category, message: fmt.Sprintf(format, args...)}
}

// wrap converts the native package's error; prefix is "gcf: " for graph
// Decode and "" elsewhere.
func wrap(err error, prefix string) error {
	if err == nil {
		return nil
	}
	var ne *native.Error
	if errors.As(err, &ne) {
		return &Error{class: ne.Class(), category: ne.Category(), message: ne.Message(),
			line: ne.Line(), column: ne.Column(), prefix: prefix, cause: err}
	}
	var e *Error
	if errors.As(err, &e) {
		if prefix != "" && e.prefix == "" {
			c := *e
			c.prefix = prefix
			return &c
		}
		return err
	}
	return &Error{class: "io", category: "io", message: err.Error(), prefix: prefix, cause: err}
}

// category is err's category, or "" when err is not one of ours.
func category(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.category
	}
	return ""
}
