package gcf

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Encode hands libgcf an edge endpoint as the symbol's own copy when the
// endpoint's Go bytes are the symbol name's bytes (same address, same
// length), and as a copy of its own otherwise. Every mix must give the bytes
// the JSON path gives, which shares nothing by address.
func TestEncodeEndpointSharing(t *testing.T) {
	const n = 300
	p := &Payload{Tool: "t"}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("pkg.Func%03dX", i)
		p.Symbols = append(p.Symbols, Symbol{QualifiedName: name, Kind: "function", Score: float64(i%10) / 10,
			Provenance: "lsp", Distance: i % 3})
	}
	// A symbol whose name is a prefix of another's bytes: same address,
	// shorter length, a different name.
	long := p.Symbols[0].QualifiedName
	p.Symbols = append(p.Symbols, Symbol{QualifiedName: long[:len(long)-1], Kind: "type", Score: 0.5, Provenance: "lsp"})
	// A duplicate name in fresh bytes (resolves to its last occurrence in
	// emission order, by content).
	dup := cloneString(p.Symbols[5].QualifiedName)
	p.Symbols = append(p.Symbols, Symbol{QualifiedName: dup, Kind: "var", Score: 0.95, Provenance: "ast"})
	for i := 0; i < n; i++ {
		src := p.Symbols[i].QualifiedName
		dst := p.Symbols[(i*7+1)%n].QualifiedName
		switch i % 4 {
		case 1:
			src = cloneString(src) // same text, other bytes
		case 2:
			dst = long[:len(long)-1] // the prefix symbol, by shared bytes
		case 3:
			dst = dup
		}
		p.Edges = append(p.Edges, Edge{Source: src, Target: dst, EdgeType: []string{"calls", "imports"}[i%2]})
	}
	js, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want, err := EncodeJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	got, err := EncodeChecked(p)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("struct path and JSON path differ:\n%s\n----\n%s", got, want)
	}
	if !strings.Contains(got, "type pkg.Func000 ") {
		t.Fatal("the prefix symbol is missing")
	}
}

func TestAddrTable(t *testing.T) {
	a := "abcdef"
	tab := newAddrTable(4, 100)
	tab.put(a, 10)
	tab.put(a[:3], 20)
	tab.put(a, 30) // a later copy of the same bytes wins
	if off, ok := tab.get(a); !ok || off != 30 {
		t.Fatalf("get(a) = %d, %v", off, ok)
	}
	if off, ok := tab.get(a[:3]); !ok || off != 20 {
		t.Fatalf("get(a[:3]) = %d, %v", off, ok)
	}
	if _, ok := tab.get(cloneString(a)); ok {
		t.Fatal("equal text in other bytes must miss")
	}
	if _, ok := tab.get(a[1:]); ok {
		t.Fatal("other bytes must miss")
	}
	off := newAddrTable(4, 1<<32)
	off.put(a, 1)
	if _, ok := off.get(a); ok {
		t.Fatal("a table over 4 GiB of text stays empty")
	}
}

// cloneString is the text of s in new bytes (strings.Clone needs Go 1.20).
func cloneString(s string) string {
	return string(append([]byte(nil), s...))
}

// Decode reads libgcf's packed result; the JSON result of the same decoder
// is the reference, on payloads that put text in the arena (kinds in full
// form, an unescaped quoted path), borrow it from the input, and set every
// header field.
func TestDecodePackedMatchesJSON(t *testing.T) {
	inputs := []string{
		"GCF profile=graph symbols=0\n",
		"GCF profile=graph tool=t budget=5000 tokens=1847 pack_root=sha256:" + strings.Repeat("ab", 32) + " symbols=3 edges=2\n" +
			"## targets\n@0 fn pkg.A 0.50 lsp\n@1 widget pkg.B 0.40 ast\n## related\n@2 iface pkg.C 0.30 lsp\n" +
			"## edges [2]\n@0<@1 calls\n@2<@0 implements +\n## loc [?]\n@0 \"dir with space/a\\\"b.go\" 3 4\n@1 b.go 1 2 5 6\n" +
			"##! summary symbols=3 edges=2 counts=targets:2,related:1,edges:2 loc=2\n",
		"GCF profile=graph session=true symbols=2\n## targets\n@4 fn pkg.S 0.10 x\n@2  # previously transmitted\n",
		"GCF profile=graph unchanged=true pack_root=sha256:" + strings.Repeat("cd", 32) + "\n",
		Encode(benchPayload(2000)),
	}
	for i, in := range inputs {
		want, werr := decodeViaJSON(in)
		got, gerr := Decode(in)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("input %d: errors differ: %v / %v", i, gerr, werr)
		}
		if werr != nil {
			t.Logf("input %d: %v", i, werr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("input %d: packed and JSON decode differ:\n%#v\n%#v", i, got, want)
		}
	}
	for _, bad := range []string{"GCF profile=graph\n## targets\n@0 fn a\xff 0.50 x\n", "GCF profile=graph symbols=2\n## targets\n@0 fn a 0.5 x\n"} {
		_, werr := decodeViaJSON(bad)
		_, gerr := Decode(bad)
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Fatalf("%q: errors differ: %v / %v", bad, gerr, werr)
		}
		var e *Error
		if !errors.As(gerr, &e) || e.Line() == 0 {
			t.Fatalf("%q: no line in %v", bad, gerr)
		}
	}
}

// A result that does not fit is refused, never read out of bounds.
func TestUnpackRejectsBadResults(t *testing.T) {
	in := "GCF profile=graph symbols=1\n## targets\n@0 fn pkg.A 0.50 lsp\n"
	if _, err := Decode(in); err != nil {
		t.Fatal(err)
	}
	good := packedOf(t, in)
	if _, ok := unpackPayload(good, in); !ok {
		t.Fatal("the real result must unpack")
	}
	for cut := 0; cut < len(good); cut += 8 {
		if _, ok := unpackPayload(good[:cut], in); ok {
			t.Fatalf("a result cut at %d unpacked", cut)
		}
	}
	// A span past the input's end.
	bad := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(bad[13*8:], uint64(len(in)))
	if _, ok := unpackPayload(bad, in); ok {
		t.Fatal("a span past the input unpacked")
	}
	// A symbol count no result of this size can hold.
	bad = append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(bad[8*8:], 1<<40)
	if _, ok := unpackPayload(bad, in); ok {
		t.Fatal("a huge count unpacked")
	}
}

func packedOf(t *testing.T, input string) []byte {
	t.Helper()
	b, err := packedResult(input)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
