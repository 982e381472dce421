package gcf

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand"
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

// EncodeGeneric hands libgcf its packed value form; the JSON form it used
// before is the reference: the same bytes and the same errors, for every
// kind of Go value EncodeGeneric takes and for random nested values.
func TestEncodeGenericPackedMatchesJSON(t *testing.T) {
	type inner struct {
		Name  string
		Score float32
		Tags  []string
		skip  int
	}
	om := NewOrderedMap()
	om.Set("z", int64(1))
	om.Set("a", []any{om2(), nil})
	values := []any{
		benchRecords(300),
		[]any{0.0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1e-7, 1e-6, 0.5, 3.0, -3.0,
			9007199254740991.0, 9007199254740992.0, 9007199254740994.0, 1e300, -2.5e-300, float32(0.1), float32(3)},
		[]any{int8(-8), int16(300), int32(-70000), int64(math.MinInt64), uint8(255), uint16(65535), uint32(1 << 31),
			uint64(math.MaxInt64), uint(7), uintptr(9)},
		[]any{"ok", "bad \xff byte", "\xe2\x82", "é中\t\"\\", ""},
		map[int]string{3: "c", 1: "a", 20: "t"},
		[]inner{{Name: "n", Score: 0.25, Tags: []string{"x"}}, {Name: "m", Tags: nil}},
		&inner{Name: "p"},
		[]*inner{nil, {Name: "q"}},
		om,
		map[string]any{"nilslice": []int(nil), "empty": []any{}, "obj": map[string]any{}, "ptr": (*int)(nil)},
		[]any{uint64(math.MaxInt64) + 1},
		map[string]any{"deep": []any{uint(math.MaxUint64)}},
		struct{ C complex128 }{1 + 2i},
	}
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 2000; i++ {
		values = append(values, randomValue(rng, 4))
	}
	for i, v := range values {
		want, werr := encodeGenericViaJSON(v)
		got, gerr := EncodeGenericChecked(v)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("value %d: errors differ: %v / %v", i, gerr, werr)
		}
		if got != want {
			t.Fatalf("value %d (%#v): packed and JSON encode differ:\n%s\n----\n%s", i, v, got, want)
		}
	}
}

func om2() *OrderedMap {
	m := NewOrderedMap()
	m.Set("k", "v")
	m.Set("b", 2.5)
	return m
}

// randomValue is a random nested value of the kinds records carry.
func randomValue(rng *rand.Rand, depth int) any {
	switch k := rng.Intn(10); {
	case depth <= 0 || k < 5:
		switch rng.Intn(7) {
		case 0:
			return nil
		case 1:
			return rng.Intn(2) == 0
		case 2:
			return int64(rng.Uint64())
		case 3:
			return float64(rng.Intn(2000)-1000) / 8
		case 4:
			return math.Float64frombits(rng.Uint64()&^(0x7ff<<52) | uint64(rng.Intn(2046)+1)<<52)
		case 5:
			return []string{"a", "b c", "x|y", "-", "", "é", "1", "true"}[rng.Intn(8)]
		default:
			return rng.Intn(100)
		}
	case k < 7:
		n := rng.Intn(4)
		arr := make([]any, n)
		for i := range arr {
			arr[i] = randomValue(rng, depth-1)
		}
		return arr
	case k < 9:
		// Arrays of records with one shape: the tables most values become.
		n, keys := 1+rng.Intn(4), []string{"id", "name", "v", "w"}[:1+rng.Intn(4)]
		rows := make([]any, n)
		for i := range rows {
			m := map[string]any{}
			for _, key := range keys {
				m[key] = randomValue(rng, depth-2)
			}
			rows[i] = m
		}
		return rows
	default:
		m := NewOrderedMap()
		for i, n := 0, rng.Intn(4); i < n; i++ {
			m.Set([]string{"a", "b", "c>d", "e f", ""}[rng.Intn(5)], randomValue(rng, depth-1))
		}
		return m
	}
}

// A malformed packed value is refused with an invalid_input error, never
// read out of bounds.
func TestEncodePackedRejectsMalformedValues(t *testing.T) {
	for _, bad := range []string{"", "\x09", "\x03\x01", "\x06\x05\x00", "\x05\x02a", "\x05\x01\xff", "\x00\x00",
		"\x07\x01\x01a", "\x04\x00\x00\x00\x00\x00\x00\xf0\x7f"} {
		_, err := native.EncodeGenericPacked([]byte(bad), false, true)
		var e *native.Error
		if !errors.As(err, &e) || e.Category() == "" {
			t.Fatalf("%q: %v", bad, err)
		}
	}
	deep := strings.Repeat("\x06\x01", 100000) + "\x00"
	if _, err := native.EncodeGenericPacked([]byte(deep), false, true); err == nil || !strings.Contains(err.Error(), "limit_exceeded") {
		t.Fatalf("deep: %v", err)
	}
}
