package gcf

import (
	"encoding/json"
	"fmt"
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
