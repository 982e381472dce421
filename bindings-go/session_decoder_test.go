package gcf

import (
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"testing"
)

// sessionPayload is a payload of the named symbols, each symbol's fields
// following from its name (a bare reference stands for the symbol as sent
// before, so it must not change between payloads).
func sessionPayload(names []string, edges [][2]string) *Payload {
	p := &Payload{Tool: "t", TokenBudget: 100, TokensUsed: 1}
	for _, n := range names {
		h := 0
		for _, c := range n {
			h += int(c)
		}
		p.Symbols = append(p.Symbols, Symbol{QualifiedName: n, Kind: "function", Score: float64(h%100) / 100, Provenance: "lsp", Distance: len(n) % 2})
	}
	for _, e := range edges {
		p.Edges = append(p.Edges, Edge{Source: e[0], Target: e[1], EdgeType: "calls"})
	}
	return p
}

func symbolKeys(p *Payload) []string {
	var out []string
	for _, s := range p.Symbols {
		out = append(out, fmt.Sprintf("%s %s %.2f %s", s.QualifiedName, s.Kind, s.Score, s.Provenance))
	}
	sort.Strings(out)
	return out
}

func edgeKeys(p *Payload) []string {
	var out []string
	for _, e := range p.Edges {
		out = append(out, e.Source+">"+e.Target)
	}
	sort.Strings(out)
	return out
}

func TestSessionDecoderResolvesBareReferences(t *testing.T) {
	s := NewSession()
	defer s.Close()
	d := NewSessionDecoder()
	defer d.Close()
	first := sessionPayload([]string{"a.A", "a.B", "a.C"}, [][2]string{{"a.A", "a.B"}})
	if _, err := d.Decode(EncodeWithSession(first, s)); err != nil {
		t.Fatal(err)
	}
	second := sessionPayload([]string{"a.B", "a.C", "a.D"}, [][2]string{{"a.D", "a.B"}, {"a.C", "a.D"}})
	text := EncodeWithSession(second, s)
	var e *Error
	// Decode has no session: it refuses a bare reference at its line (as
	// gcf-go does), rather than dropping the symbol.
	if _, err := Decode(text); !errors.As(err, &e) || e.Category() != "invalid_node_line" {
		t.Fatalf("plain Decode of bare references: %v", err)
	}
	back, err := d.Decode(text)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(symbolKeys(back)) != fmt.Sprint(symbolKeys(second)) || fmt.Sprint(edgeKeys(back)) != fmt.Sprint(edgeKeys(second)) {
		t.Fatalf("got %v %v, want %v %v", symbolKeys(back), edgeKeys(back), symbolKeys(second), edgeKeys(second))
	}
	if !back.Session || d.Len() != 4 {
		t.Fatalf("session %v, remembered %d", back.Session, d.Len())
	}
	d.Reset()
	if d.Len() != 0 {
		t.Fatal("Reset kept symbols")
	}
	if _, err := d.Decode(text); !errors.As(err, &e) || e.Category() != "unknown_edge_reference" || e.Line() < 2 {
		t.Fatalf("after Reset: %v", err)
	}
	if d.Len() != 0 {
		t.Fatal("a refused payload was remembered")
	}
}

func TestSessionDecoderLimitsAndRetention(t *testing.T) {
	text := EncodeWithSession(sessionPayload([]string{"a.very.long.name.Here", "b.B"}, nil), NewSession())
	strict, err := NewSessionDecoderWithLimits(Limits{MaxLineLen: 20}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var e *Error
	if _, err := strict.Decode(text); !errors.As(err, &e) || e.Category() != "limit_exceeded" {
		t.Fatalf("limits: %v", err)
	}
	bounded, err := NewSessionDecoderWithLimits(Limits{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bounded.Decode(text); err != nil || bounded.Len() != 0 {
		t.Fatalf("retention: %v, %d", err, bounded.Len())
	}
	if _, err := NewSessionDecoderWithLimits(Limits{}, -1); !errors.As(err, &e) || e.Category() != "invalid_input" {
		t.Fatalf("negative bound: %v", err)
	}
}

func TestSessionDecoderRandomSessions(t *testing.T) {
	seed := rand.Int63()
	r := rand.New(rand.NewSource(seed))
	var pool []string
	for i := 0; i < 40; i++ {
		pool = append(pool, fmt.Sprintf("pkg/m%d.S%d", i%5, i))
	}
	for round := 0; round < 30; round++ {
		s, d := NewSession(), NewSessionDecoder()
		for k := 0; k < 10; k++ {
			seen := map[string]bool{}
			var names []string
			for i, n := 0, 1+r.Intn(14); i < n; i++ {
				if q := pool[r.Intn(len(pool))]; !seen[q] {
					seen[q] = true
					names = append(names, q)
				}
			}
			var edges [][2]string
			for i, n := 0, r.Intn(2*len(names)); i < n; i++ {
				edges = append(edges, [2]string{names[r.Intn(len(names))], names[r.Intn(len(names))]})
			}
			p := sessionPayload(names, edges)
			back, err := d.Decode(EncodeWithSession(p, s))
			if err != nil {
				t.Fatalf("seed %d round %d payload %d: %v", seed, round, k, err)
			}
			if fmt.Sprint(symbolKeys(back)) != fmt.Sprint(symbolKeys(p)) || fmt.Sprint(edgeKeys(back)) != fmt.Sprint(edgeKeys(p)) {
				t.Fatalf("seed %d round %d payload %d: got %v %v, want %v %v", seed, round, k, symbolKeys(back), edgeKeys(back), symbolKeys(p), edgeKeys(p))
			}
		}
		s.Close()
		d.Close()
	}
}
