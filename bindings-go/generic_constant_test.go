package gcf

import (
	"errors"
	"strings"
	"testing"
)

// The constant-column and grouped-table error categories, and the expansion
// budget, reach Go with their line and column.
func TestGenericConstantErrors(t *testing.T) {
	const head = "GCF profile=generic\n"
	// A 64 KiB constant over 2,000 one-digit rows: 128 MiB of copies, past
	// the default budget (64 MiB + 64 x input length). Each row costs the
	// constant and its 56-byte map entry (64-bit targets).
	const big, rows = 64 * 1024, 2000
	hostile := head + "## [2000]{a,b=\"" + strings.Repeat("x", big) + "\"}\n" + strings.Repeat("1\n", rows)
	crossing := ((64<<20)+64*len(hostile))/(big+56) + 1
	if crossing >= rows {
		t.Fatalf("the vector must cross the budget, row %d", crossing)
	}
	cases := []struct {
		input, category string
		line, column    int
	}{
		{head + "## [1]{a,b=}\n1\n", "invalid_const_value", 2, 12},
		{head + "## [1]{a=1,b=2}\n1\n", "no_bare_column", 2, 7},
		{head + "## [1]{id,g} group=g\ng=a [1]\n1\n", "invalid_group_header", 2, 14},
		{head + "## [2]{@id,g} group=g\ng=a [1]\n1\ng=a [1]\n2\n", "duplicate_group", 5, 1},
		{hostile, "limit_exceeded", 2 + crossing, 1},
	}
	for _, c := range cases {
		_, err := DecodeGenericJSON(c.input)
		var e *Error
		if !errors.As(err, &e) || e.Category() != c.category || e.Line() != c.line ||
			e.Column() != c.column || e.Status() != StatusDataError {
			t.Errorf("%s: got %v, want line %d column %d", c.category, err, c.line, c.column)
		}
	}
	// Factored and grouped forms decode.
	v, err := DecodeGeneric(head + "## [2]{@id,g,k=on} group=g\ng=a [2]\n1\n2\n")
	if err != nil || len(v.([]any)) != 2 {
		t.Fatalf("got %v, %v", v, err)
	}
}
