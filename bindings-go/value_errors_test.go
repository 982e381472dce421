package gcf

import (
	"errors"
	"strings"
	"testing"
)

// Errors in JSON this package marshaled from the caller's values name the
// caller's field and carry no position (there is no text of the caller's
// to point into); the same error in JSON text the caller gave keeps its
// line and column.
func TestValueErrorsNameTheFieldWithoutAPosition(t *testing.T) {
	big := uint64(1) << 63
	const detail = "rows[0].id: integer 9223372036854775808 is outside the int64 range"
	check := func(name string, err error, category, prefix string) {
		t.Helper()
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: got %v", name, err)
		}
		if e.Category() != category || !strings.HasPrefix(e.Message(), prefix) || e.Line() != 0 || e.Column() != 0 ||
			strings.Contains(e.Error(), "(line") {
			t.Fatalf("%s: got %q (category %s, line %d, column %d)", name, e.Error(), e.Category(), e.Line(), e.Column())
		}
	}
	_, err := EncodeGenericChecked(map[string]any{"rows": []any{map[string]any{"id": big}}})
	check("EncodeGenericChecked", err, "out_of_range", detail)
	_, err = EncodeGenericGrouped([]map[string]any{{"id": big, "g": "a"}}, "id", "g")
	check("EncodeGenericGrouped", err, "out_of_range", "[0].id: integer 9223372036854775808")
	set := &KeyedSet{Key: "id", Fields: []string{"id"}, Rows: []map[string]any{{"id": big}}}
	_, err = GenericPackRoot(set)
	check("GenericPackRoot", err, "out_of_range", detail)
	_, err = EncodeGenericFull(set, "t")
	check("EncodeGenericFull", err, "out_of_range", detail)
	var v any = 1
	for i := 0; i < 130; i++ {
		v = []any{v}
	}
	_, err = EncodeGenericChecked(v)
	check("EncodeGenericChecked, deep", err, "limit_exceeded", "[0][0]")

	// The caller's own JSON text: the position stays.
	_, err = EncodeGenericJSON([]byte(`{"rows":[{"id":9223372036854775808}]}`))
	var e *Error
	if !errors.As(err, &e) || e.Category() != "out_of_range" || e.Line() != 1 || e.Column() < 1 {
		t.Fatalf("EncodeGenericJSON: got %v", err)
	}
}
