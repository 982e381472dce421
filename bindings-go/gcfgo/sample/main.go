// Command sample is a program written against gcf-go v1.7.1's API, as a user
// of github.com/blackwell-systems/gcf-go would write it. It builds unchanged
// against gcf-native through the replace line in go.mod, and exits 1 when a
// result is not what gcf-go documents.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/blackwell-systems/gcf-go"
)

var failed bool

func check(ok bool, what string, args ...any) {
	if !ok {
		failed = true
		fmt.Fprintf(os.Stderr, "FAIL: "+what+"\n", args...)
	}
}

func main() {
	symbols := []gcf.Symbol{
		{QualifiedName: "pkg/auth.Middleware", Kind: "function", Score: 0.91, Provenance: "lsp_resolved", Distance: 0,
			Signature: "func Middleware(next http.Handler) http.Handler", Components: gcf.Components{Confidence: 1}},
		{QualifiedName: "pkg/auth.Token", Kind: "type", Score: 0.72, Provenance: "lsp_resolved", Distance: 1},
		{QualifiedName: "pkg/server.Run", Kind: "function", Score: 0.55, Provenance: "ast_inferred", Distance: 1},
	}
	edges := []gcf.Edge{
		{Source: "pkg/server.Run", Target: "pkg/auth.Middleware", EdgeType: "calls"},
		{Source: "pkg/auth.Middleware", Target: "pkg/auth.Token", EdgeType: "uses"},
	}
	root := gcf.PackRoot(symbols, edges)
	check(strings.HasPrefix(root, "sha256:"), "PackRoot %q", root)

	// Buffered graph encode and decode.
	p := &gcf.Payload{Tool: "context_for_task", TokenBudget: 5000, PackRoot: root, Symbols: symbols, Edges: edges}
	var out string = gcf.Encode(p)
	fmt.Print(out)
	back, err := gcf.Decode(out)
	check(err == nil, "Decode: %v", err)
	if err == nil {
		check(len(back.Symbols) == 3 && len(back.Edges) == 2 && back.Tool == "context_for_task", "decoded %+v", back)
		check(back.Symbols[0].Kind == "function" && gcf.KindAbbrev["function"] == "fn", "kinds")
	}
	_, err = gcf.Decode("GCF profile=graph tool=t\n## targets\n@0 fn a 0.50 x\n## edges [3]\n@0<@0 calls\n")
	check(err != nil && strings.HasPrefix(err.Error(), "gcf: count_mismatch"), "Decode error %v", err)

	// Sessions: the second response refers back to what the first sent.
	sess := gcf.NewSession()
	first := gcf.EncodeWithSession(p, sess)
	second := gcf.EncodeWithSession(&gcf.Payload{Tool: "context_for_task", Symbols: symbols[:1]}, sess)
	check(strings.Contains(second, "# previously transmitted") && len(second) < len(first), "session:\n%s", second)
	check(sess.Transmitted("pkg/auth.Token") && sess.GetID("pkg/auth.Middleware") >= 0 && sess.Size() == 3, "session state")

	// Graph deltas: encode, decode, verify.
	added := gcf.Symbol{QualifiedName: "pkg/auth.Refresh", Kind: "function", Score: 0.6, Provenance: "lsp_resolved", Distance: 1}
	newSymbols := append(append([]gcf.Symbol{}, symbols...), added)
	newRoot := gcf.PackRoot(newSymbols, edges)
	wire := gcf.EncodeDelta(&gcf.DeltaPayload{Tool: "context_for_task", BaseRoot: root, NewRoot: newRoot, Added: []gcf.Symbol{added}})
	d, err := gcf.DecodeDelta(wire)
	check(err == nil, "DecodeDelta: %v", err)
	if err == nil {
		syms, es, err := gcf.VerifyDelta(symbols, edges, d.Removed, d.Added, d.RemovedEdges, d.AddedEdges, d.NewRoot)
		check(err == nil && len(syms) == 4 && len(es) == 2, "VerifyDelta: %v", err)
		_, _, err = gcf.VerifyDelta(symbols, edges, nil, d.Added, nil, nil, root)
		check(err != nil && strings.HasPrefix(err.Error(), "root_mismatch"), "VerifyDelta mismatch: %v", err)
	}

	// Streaming graph encode.
	var buf bytes.Buffer
	enc := gcf.NewStreamEncoder(&buf, "context_for_task", gcf.StreamOptions{TokenBudget: 5000})
	for _, s := range symbols {
		enc.WriteSymbol(s)
	}
	for _, e := range edges {
		enc.WriteEdge(e)
	}
	check(enc.Close() == nil && enc.SymbolCount() == 3 && enc.EdgeCount() == 2, "stream counts")
	check(strings.Contains(buf.String(), "##! summary symbols=3 edges=2"), "stream:\n%s", buf.String())

	// Generic profile: ordered JSON in, the same value out.
	doc, err := gcf.ParseJSONOrdered([]byte(`{"orders":[{"id":1,"total":99.5,"status":"paid"},{"id":2,"total":12,"status":"open"}],"count":2}`))
	check(err == nil, "ParseJSONOrdered: %v", err)
	text := gcf.EncodeGeneric(doc)
	fmt.Print(text)
	v, err := gcf.DecodeGeneric(text)
	check(err == nil, "DecodeGeneric: %v", err)
	if m, ok := v.(*gcf.OrderedMap); ok {
		count, _ := m.Get("count")
		check(count == int64(2) && strings.Join(m.Keys(), ",") == "orders,count", "decoded %v", m.ToMap())
	} else {
		check(false, "DecodeGeneric gave %T", v)
	}
	_, err = gcf.EncodeGenericChecked(map[string]any{"n": uint64(1) << 63})
	check(err != nil && strings.HasPrefix(err.Error(), "out_of_range"), "EncodeGenericChecked: %v", err)
	_, err = gcf.DecodeGeneric("GCF profile=generic\n## [3]{id}\n1\n")
	check(err != nil && strings.HasPrefix(err.Error(), "count_mismatch"), "DecodeGeneric error: %v", err)

	// Generic deltas and a re-anchoring session.
	base := gcf.GenericSet{Name: "orders", Key: "id", Fields: []string{"id", "status"}, Rows: []map[string]any{
		{"id": int64(1), "status": "paid"}, {"id": int64(2), "status": "open"}}}
	next := gcf.GenericSet{Name: "orders", Key: "id", Fields: []string{"id", "status"}, Rows: []map[string]any{
		{"id": int64(1), "status": "paid"}, {"id": int64(2), "status": "shipped"}}}
	gd, err := gcf.DiffGenericSets(base, next)
	check(err == nil && len(gd.Changed) == 1, "DiffGenericSets: %v", err)
	if err == nil {
		dwire := gcf.EncodeGenericDelta(gd)
		decoded, err := gcf.DecodeGenericDelta(dwire)
		check(err == nil, "DecodeGenericDelta: %v", err)
		if err == nil {
			applied, err := gcf.VerifyGenericDelta(base, decoded, gcf.GenericPackRoot(next))
			check(err == nil && gcf.GenericPackRoot(applied) == gcf.GenericPackRoot(next), "VerifyGenericDelta: %v", err)
		}
	}
	gs := gcf.NewGenericDeltaSession(base, "orders_tool", gcf.FixedN(gcf.DefaultReanchorN))
	check(strings.Contains(gs.CurrentFull(), "key=id"), "CurrentFull")
	_, isFull, err := gs.Next(next)
	check(err == nil && !isFull && gs.Turn() == 1, "session Next: %v", err)
	_ = gcf.SizeGuard()

	// Streaming generic encode.
	buf.Reset()
	genc := gcf.NewGenericStreamEncoder(&buf)
	genc.BeginArray("employees", []string{"id", "name"})
	genc.WriteRow([]any{1, "Alice"})
	genc.WriteRow([]any{2, "Bob"})
	genc.EndArray()
	check(genc.Close() == nil && strings.Contains(buf.String(), "1|Alice"), "generic stream:\n%s", buf.String())

	// Errors are plain errors to gcf-go code; this is how code that wants
	// more asks for the category and position.
	var e interface {
		Category() string
		Line() int
	}
	_, err = gcf.Decode("GCF profile=graph\n@0 fn a 0.5\n")
	check(errors.As(err, &e) && e.Line() == 2, "errors.As: %v", err)

	if failed {
		os.Exit(1)
	}
	fmt.Println("sample: ok")
}
