package gcf

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	native "github.com/blackwell-systems/gcf-go/internal/native"
)

// DecodeGeneric reads libgcf's packed value; its JSON output read by the
// JSON parser DecodeGeneric used before is the reference.
func TestDecodeGenericPackedMatchesJSON(t *testing.T) {
	inputs := []string{
		EncodeGeneric(benchRecords(500)),
		EncodeGeneric(map[string]any{"a": []any{}, "b": map[string]any{}, "c": nil, "d": -0.0, "e": int64(-9223372036854775808),
			"f": 1e300, "g": "tab\there \"q\" \u00e9\u4e2d", "h": []any{int64(1), 2.5, true, false, nil, "x", []any{[]any{}}},
			"i": []any{map[string]any{"k": "a", "v": int64(1)}, map[string]any{"k": "b", "v": int64(2)}}}),
		EncodeGeneric([]any{}),
		EncodeGeneric("just a string"),
		EncodeGeneric(nil),
		EncodeGeneric(map[string]any{"x": strings.Repeat("long ", 100)}),
	}
	// Every generic decode fixture's input, too.
	files, _ := filepath.Glob(filepath.Join(conformanceDir(t), "*", "*.json"))
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var f fixture
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		if s := str(f.Input); s != "" && (f.Operation == "decode" || f.Operation == "errors" || f.Operation == "roundtrip-wire") {
			inputs = append(inputs, s)
		}
	}
	if len(inputs) < 40 {
		t.Fatalf("only %d inputs", len(inputs))
	}
	for i, in := range inputs {
		want, werr := decodeGenericViaJSON(in)
		got, gerr := DecodeGeneric(in)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("input %d: errors differ: %v / %v", i, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("input %d: packed and JSON decode differ:\n%#v\n%#v\n%s", i, got, want, in)
		}
	}
}

// A result that does not fit is refused, never read out of bounds.
func TestUnpackGenericRejectsBadResults(t *testing.T) {
	packed, err := native.GenericDecodePacked(EncodeGeneric(map[string]any{"a": []any{int64(1), "xy", 2.5}, "b": true}))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := unpackGeneric(packed); !ok {
		t.Fatal("the real result must unpack")
	}
	for cut := 0; cut < len(packed); cut++ {
		if _, ok := unpackGeneric(packed[:cut]); ok {
			t.Fatalf("a result cut at %d unpacked", cut)
		}
	}
	for _, bad := range []string{
		"\x01\x09",                     // unknown tag
		"\x01\x06\xff\xff\xff\xff\x0f", // a count past the end
		"\x01\x05\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", // a length of more than 64 bits
		"\x01\x00\x00", // bytes after the value
		"\x02\x00",     // another version
	} {
		if _, ok := unpackGeneric(bad); ok {
			t.Fatalf("%q unpacked", bad)
		}
	}
}
