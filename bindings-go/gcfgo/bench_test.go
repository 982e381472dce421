package gcf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"

	native "github.com/blackwell-systems/gcf-go/internal/native"
)

// The same data through this package and through encoding/json:
//
//	go test -run '^$' -bench . -benchtime 300ms
var benchSizes = []int{100, 10000, 100000}

var kinds = []string{"function", "type", "method", "interface", "var"}

func benchPayload(n int) *Payload {
	p := &Payload{Tool: "context_for_task", TokenBudget: 5000, Symbols: make([]Symbol, n), Edges: make([]Edge, n)}
	for i := range p.Symbols {
		p.Symbols[i] = Symbol{QualifiedName: fmt.Sprintf("github.com/acme/svc/pkg%d.Func%d", i%97, i),
			Kind: kinds[i%len(kinds)], Score: float64(i%100) / 100, Provenance: "lsp_resolved", Distance: i % 3}
	}
	for i := range p.Edges {
		p.Edges[i] = Edge{Source: p.Symbols[i].QualifiedName, Target: p.Symbols[(i*7+1)%n].QualifiedName, EdgeType: "calls"}
	}
	return p
}

func benchRecords(n int) []any {
	depts := []string{"engineering", "sales", "support", "finance"}
	rows := make([]any, n)
	for i := range rows {
		rows[i] = map[string]any{"id": int64(i), "name": fmt.Sprintf("user%d", i), "email": fmt.Sprintf("user%d@example.com", i),
			"active": i%3 != 0, "score": float64(i%1000) / 8, "dept": depts[i%len(depts)]}
	}
	return rows
}

func BenchmarkGraph(b *testing.B) {
	for _, n := range benchSizes {
		p := benchPayload(n)
		text := Encode(p)
		if text == "" {
			b.Fatal("encode failed")
		}
		js, _ := json.Marshal(p)
		b.Run(fmt.Sprintf("Encode/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Encode(p)
			}
		})
		b.Run(fmt.Sprintf("EncodeJSON/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				json.Marshal(p)
			}
		})
		b.Run(fmt.Sprintf("NativeStreamEncoder/%d", n), func(b *testing.B) {
			// The native package's streaming path over the same symbols and
			// edges: native Symbol/Edge values already built, as a native
			// caller has them.
			syms, edges := toNativeSymbols(p.Symbols), toNativeEdges(p.Edges)
			for i := 0; i < b.N; i++ {
				enc := native.NewStreamEncoder(io.Discard, p.Tool, native.StreamOptions{TokenBudget: p.TokenBudget})
				for _, s := range syms {
					enc.WriteSymbol(s)
				}
				for _, e := range edges {
					enc.WriteEdge(e)
				}
				if err := enc.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("Decode/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Decode(text); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("DecodeJSON/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var q Payload
				if err := json.Unmarshal(js, &q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGeneric(b *testing.B) {
	for _, n := range benchSizes {
		rows := benchRecords(n)
		text := EncodeGeneric(rows)
		js, _ := json.Marshal(rows)
		b.Run(fmt.Sprintf("EncodeGeneric/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				EncodeGeneric(rows)
			}
		})
		b.Run(fmt.Sprintf("EncodeJSON/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				json.Marshal(rows)
			}
		})
		b.Run(fmt.Sprintf("DecodeGeneric/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := DecodeGeneric(text); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("DecodeJSON/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var v any
				if err := json.Unmarshal(js, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBenchDataRoundTrips keeps the benchmark data honest: both encodings
// carry the same value.
func TestBenchDataRoundTrips(t *testing.T) {
	p := benchPayload(1000)
	back, err := Decode(Encode(p))
	if err != nil || len(back.Symbols) != 1000 || len(back.Edges) != 1000 {
		t.Fatalf("graph: %v", err)
	}
	rows := benchRecords(1000)
	v, err := DecodeGeneric(EncodeGeneric(rows))
	if err != nil || len(v.([]any)) != 1000 {
		t.Fatalf("generic: %v", err)
	}
	var buf bytes.Buffer
	enc := NewStreamEncoder(&buf, p.Tool, StreamOptions{})
	for _, s := range p.Symbols[:10] {
		enc.WriteSymbol(s)
	}
	if enc.Close() != nil {
		t.Fatal("stream")
	}
}

// TestCountOp runs one benchmark operation GCF_COUNT_N times, for
// instruction counts that load on the machine does not move:
//
//	go test -c -o /tmp/gcfgo.test
//	GODEBUG=asyncpreemptoff=1 GCF_COUNT_OP=encode GCF_COUNT_SIZE=100000 GCF_COUNT_N=2 \
//	  valgrind --tool=callgrind /tmp/gcfgo.test -test.run TestCountOp
//
// The operation's cost is the difference between runs with GCF_COUNT_N=2
// and GCF_COUNT_N=0 (same setup), halved. Skipped without GCF_COUNT_OP.
func TestCountOp(t *testing.T) {
	op := os.Getenv("GCF_COUNT_OP")
	if op == "" {
		t.Skip("GCF_COUNT_OP not set")
	}
	size, err := strconv.Atoi(os.Getenv("GCF_COUNT_SIZE"))
	if err != nil {
		t.Fatal("GCF_COUNT_SIZE: ", err)
	}
	n, err := strconv.Atoi(os.Getenv("GCF_COUNT_N"))
	if err != nil {
		t.Fatal("GCF_COUNT_N: ", err)
	}
	p, rows := benchPayload(size), benchRecords(size)
	var run func()
	switch op {
	case "encode":
		run = func() { Encode(p) }
	case "encode-json":
		run = func() { json.Marshal(p) }
	case "decode":
		text := Encode(p)
		run = func() { Decode(text) }
	case "decode-json":
		js, _ := json.Marshal(p)
		run = func() {
			var q Payload
			json.Unmarshal(js, &q)
		}
	case "stream":
		syms, edges := toNativeSymbols(p.Symbols), toNativeEdges(p.Edges)
		run = func() {
			enc := native.NewStreamEncoder(io.Discard, p.Tool, native.StreamOptions{TokenBudget: p.TokenBudget})
			for _, s := range syms {
				enc.WriteSymbol(s)
			}
			for _, e := range edges {
				enc.WriteEdge(e)
			}
			enc.Close()
		}
	case "encode-generic":
		run = func() { EncodeGeneric(rows) }
	case "encode-generic-json":
		run = func() { json.Marshal(rows) }
	case "decode-generic":
		text := EncodeGeneric(rows)
		run = func() { DecodeGeneric(text) }
	case "decode-generic-json":
		js, _ := json.Marshal(rows)
		run = func() {
			var v any
			json.Unmarshal(js, &v)
		}
	default:
		t.Fatalf("unknown GCF_COUNT_OP %q", op)
	}
	for i := 0; i < n; i++ {
		run()
	}
}
