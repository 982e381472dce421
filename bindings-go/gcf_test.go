package gcf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func samplePayload() *Payload {
	return &Payload{
		Tool:        "context_for_task",
		TokenBudget: 5000,
		TokensUsed:  1847,
		Symbols: []Symbol{
			{QualifiedName: "pkg.AuthMiddleware", Kind: "function", Score: 0.78, Provenance: "lsp_resolved", Distance: 0},
			{QualifiedName: "pkg.NewServer", Kind: "function", Score: 0.54, Provenance: "lsp_resolved", Distance: 1},
		},
		Edges: []Edge{{Source: "pkg.NewServer", Target: "pkg.AuthMiddleware", EdgeType: "calls"}},
	}
}

const sampleText = "GCF profile=graph tool=context_for_task budget=5000 tokens=1847 symbols=2 edges=1\n" +
	"## targets\n@0 fn pkg.AuthMiddleware 0.78 lsp_resolved\n## related\n@1 fn pkg.NewServer 0.54 lsp_resolved\n" +
	"## edges [1]\n@0<@1 calls\n"

func TestVersion(t *testing.T) {
	if v := Version(); !strings.Contains(v, "spec 3.6.0") {
		t.Fatalf("version %q", v)
	}
}

func TestEncodeDecode(t *testing.T) {
	out, err := EncodeChecked(samplePayload())
	if err != nil {
		t.Fatal(err)
	}
	if out != sampleText {
		t.Fatalf("encoded\n%q\nwant\n%q", out, sampleText)
	}
	p, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	want := samplePayload()
	if p.Tool != want.Tool || p.TokenBudget != want.TokenBudget || p.TokensUsed != want.TokensUsed {
		t.Fatalf("header %+v", p)
	}
	if fmt.Sprint(p.Symbols) != fmt.Sprint(want.Symbols) || fmt.Sprint(p.Edges) != fmt.Sprint(want.Edges) {
		t.Fatalf("decoded %+v", p)
	}
}

func category(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Category()
	}
	return ""
}

func TestErrors(t *testing.T) {
	_, err := Decode("GCF profile=graph\n## targets\n@x fn a.B 0.50 lsp\n")
	var e *Error
	if !errors.As(err, &e) || e.Category() != "invalid_symbol_id" || e.Line() != 3 || e.Column() < 1 {
		t.Fatalf("got %v", err)
	}
	if e.Status() != StatusDataError || !strings.Contains(e.Error(), "line 3") {
		t.Fatalf("got %v (status %d)", e, e.Status())
	}
	if _, err := Decode("GCF profile=graph\n## targets\n@0 fn a\xff 0.50 x\n"); category(err) != "invalid_utf8" {
		t.Fatalf("got %v", err)
	}
	bad := &Payload{Symbols: []Symbol{{QualifiedName: "has space", Kind: "function", Provenance: "x"}}}
	if _, err := EncodeChecked(bad); category(err) != "invalid_input" {
		t.Fatalf("got %v", err)
	}
	if _, err := EncodeJSON([]byte("{")); category(err) != "json" || err.(*Error).Status() != StatusJSONError {
		t.Fatalf("got %v", err)
	}
	if _, err := EncodeJSON([]byte("{\"tool\":\"\xff\"}")); category(err) != "invalid_utf8" {
		t.Fatalf("got %v", err)
	}
	if _, err := EncodeJSON(nil); category(err) != "json" {
		t.Fatalf("got %v", err)
	}
}

func TestDeltaPackRootSession(t *testing.T) {
	p := samplePayload()
	snap := &Snapshot{Symbols: p.Symbols, Edges: p.Edges}
	root, err := SnapshotPackRoot(snap)
	if err != nil || !strings.HasPrefix(root, "sha256:") || len(root) != 71 {
		t.Fatalf("root %q, %v", root, err)
	}
	outcome, text, err := Respond("", nil, p)
	if err != nil || outcome != OutcomeFull || !strings.Contains(text, "pack_root="+root) {
		t.Fatalf("%v %q %v", outcome, text, err)
	}
	outcome, text, err = Respond(root, nil, p)
	if err != nil || outcome != OutcomeUnchanged || !strings.Contains(text, "unchanged=true") {
		t.Fatalf("%v %q %v", outcome, text, err)
	}
	// The consumer holds a snapshot with one symbol more than the current
	// 42: the answer is a small delta that applies back.
	big := samplePayload()
	for i := 0; i < 40; i++ {
		big.Symbols = append(big.Symbols, Symbol{QualifiedName: fmt.Sprintf("pkg.F%d", i), Kind: "function", Score: 0.5, Provenance: "lsp", Distance: 2})
	}
	bigRoot, _ := SnapshotPackRoot(&Snapshot{Symbols: big.Symbols, Edges: big.Edges})
	held := &Snapshot{Symbols: append(append([]Symbol{}, big.Symbols...), Symbol{QualifiedName: "pkg.Gone", Kind: "function", Score: 0.5, Provenance: "lsp"}), Edges: big.Edges}
	heldRoot, _ := SnapshotPackRoot(held)
	outcome, delta, err := Respond(heldRoot, held, big)
	if err != nil || outcome != OutcomeDelta || !strings.Contains(delta, "## removed\nfn pkg.Gone\n") {
		t.Fatalf("%v %q %v", outcome, delta, err)
	}
	applied, err := ApplyDelta(held, delta)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := SnapshotPackRoot(applied); r != bigRoot {
		t.Fatalf("applied root %s, want %s", r, bigRoot)
	}
	_, err = ApplyDelta(snap, delta)
	if category(err) != "base_mismatch" {
		t.Fatalf("got %v", err)
	}
	// At the root's value in the delta's header.
	var e *Error
	column := strings.Index(delta, " base_root=") + len(" base_root=") + 1
	if errors.As(err, &e); e.Line() != 1 || e.Column() != column {
		t.Fatalf("base_mismatch at %d:%d, want 1:%d", e.Line(), e.Column(), column)
	}
	d, err := EncodeDeltaChecked(&DeltaPayload{
		Tool: "context_for_task", BaseRoot: "aaa111", NewRoot: "bbb222",
		Removed:     []Symbol{{QualifiedName: "pkg.OldFunc", Kind: "function"}},
		Added:       []Symbol{{QualifiedName: "pkg.NewFunc", Kind: "function", Score: 0.85, Provenance: "rwr"}},
		DeltaTokens: 30, FullTokens: 200,
	})
	want := "GCF profile=graph tool=context_for_task delta=true base_root=aaa111 new_root=bbb222 tokens=30 savings=85%\n" +
		"## removed\nfn pkg.OldFunc\n## added\n@0 fn pkg.NewFunc 0.85 rwr 0\n"
	if err != nil || d != want {
		t.Fatalf("delta %q, %v", d, err)
	}
	s := NewSession()
	defer s.Close()
	first, err := EncodeWithSessionChecked(p, s)
	if err != nil || !strings.Contains(first, "session=true") {
		t.Fatalf("%q %v", first, err)
	}
	second, err := EncodeWithSessionChecked(p, s)
	if err != nil || !strings.Contains(second, "previously transmitted") {
		t.Fatalf("%q %v", second, err)
	}
}

func TestStreamEncoder(t *testing.T) {
	var buf bytes.Buffer
	enc := NewStreamEncoder(&buf, "context_for_task", StreamOptions{TokenBudget: 5000, LabeledTrailerCounts: true})
	for _, s := range samplePayload().Symbols {
		if _, err := enc.WriteSymbol(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.WriteEdge(Edge{Source: "pkg.NewServer", Target: "pkg.AuthMiddleware", EdgeType: "calls"}); err != nil {
		t.Fatal(err)
	}
	if err := enc.WriteEdge(Edge{Source: "pkg.Nope", Target: "pkg.AuthMiddleware", EdgeType: "calls"}); category(err) != "unknown_edge_reference" {
		t.Fatalf("got %v", err)
	}
	if err := enc.WriteEdgeByID(0, 1, "imports", "added"); err != nil {
		t.Fatal(err)
	}
	if _, err := enc.WriteSymbol(Symbol{QualifiedName: "late", Kind: "function", Provenance: "x"}); category(err) != "invalid_state" {
		t.Fatalf("got %v", err)
	}
	if err := enc.WriteLocation(1, "src/server.go", 10, 2, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	want := "GCF profile=graph tool=context_for_task budget=5000\n## targets\n@0 fn pkg.AuthMiddleware 0.78 lsp_resolved\n" +
		"## related\n@1 fn pkg.NewServer 0.54 lsp_resolved\n## edges [?]\n@0<@1 calls\n@1<@0 imports added\n" +
		"## loc [?]\n@1 src/server.go 10 2\n##! summary symbols=2 edges=2 counts=targets:1,related:1,edges:2 loc=1\n"
	if buf.String() != want {
		t.Fatalf("streamed\n%q\nwant\n%q", buf.String(), want)
	}
	if err := enc.Close(); category(err) != "invalid_state" {
		t.Fatalf("second close: %v", err)
	}
	if _, err := Decode(buf.String()); err != nil {
		t.Fatal(err)
	}
}

// PackRoot and Session reach the header through libgcf's options (after
// budget= and tokens=); a pack root that would break the header fails the
// encoder's creation, every call reports it, and w sees nothing.
func TestStreamPackRootAndSession(t *testing.T) {
	var buf bytes.Buffer
	root := "sha256:" + strings.Repeat("ab", 32)
	enc := NewStreamEncoder(&buf, "t", StreamOptions{TokensUsed: 9, PackRoot: root, Session: true})
	if _, err := enc.WriteBareRef("pkg.Old", 0); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	want := "GCF profile=graph tool=t tokens=9 pack_root=" + root + " session=true\n## targets\n" +
		"@0  # previously transmitted\n##! summary symbols=1 edges=0 counts=1,0\n"
	if buf.String() != want {
		t.Fatalf("streamed\n%q\nwant\n%q", buf.String(), want)
	}
	for _, bad := range []string{"sha256:a b", "caf\u00e9", "a\nb"} {
		buf.Reset()
		enc := NewStreamEncoder(&buf, "t", StreamOptions{PackRoot: bad})
		if _, err := enc.WriteSymbol(Symbol{QualifiedName: "a", Kind: "function", Provenance: "x"}); category(err) != "invalid_input" {
			t.Fatalf("%q: %v", bad, err)
		}
		if err := enc.Close(); category(err) != "invalid_input" || buf.Len() != 0 {
			t.Fatalf("%q: %v, %q", bad, err, buf.String())
		}
	}
}

type failingWriter struct{ after int }

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.after <= 0 {
		return 0, errDiskFull
	}
	w.after--
	return len(p), nil
}

func TestStreamWriterFailure(t *testing.T) {
	enc := NewStreamEncoder(&failingWriter{after: 1}, "t", StreamOptions{})
	var err error
	for i := 0; i < 100000 && err == nil; i++ {
		_, err = enc.WriteSymbol(Symbol{QualifiedName: fmt.Sprintf("pkg.S%d", i), Kind: "function", Score: 0.5, Provenance: "x"})
	}
	if category(err) != "sink" || !errors.Is(err, errDiskFull) {
		t.Fatalf("got %v", err)
	}
	// The stream is poisoned: every later call is invalid_state (as in Rust and C).
	if _, again := enc.WriteSymbol(Symbol{QualifiedName: "x", Kind: "function", Provenance: "x"}); category(again) != "invalid_state" {
		t.Fatalf("after a sink failure: %v", again)
	}
	if cerr := enc.Close(); category(cerr) != "invalid_state" {
		t.Fatalf("close: %v", cerr)
	}
	// A bad tool fails at creation and every call reports it.
	bad := NewStreamEncoder(&bytes.Buffer{}, "has space", StreamOptions{})
	if _, err := bad.WriteSymbol(Symbol{}); category(err) != "invalid_input" {
		t.Fatalf("got %v", err)
	}
	if err := bad.Close(); category(err) != "invalid_input" {
		t.Fatalf("got %v", err)
	}
}

func TestStreamConcurrentUse(t *testing.T) {
	var buf bytes.Buffer
	enc := NewStreamEncoder(&buf, "t", StreamOptions{})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				if _, err := enc.WriteSymbol(Symbol{QualifiedName: fmt.Sprintf("pkg.G%dS%d", g, i), Kind: "function", Score: 0.5, Provenance: "x"}); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := Decode(buf.String())
	if err != nil || len(p.Symbols) != 4000 {
		t.Fatalf("%v, %d symbols", err, len(p.Symbols))
	}
}

func TestGeneric(t *testing.T) {
	out, err := EncodeGenericJSON([]byte(`{"name":"Alice","tags":["a","b"],"id":9223372036854775807}`))
	if err != nil || !strings.HasPrefix(out, "GCF profile=generic\n") {
		t.Fatalf("%q %v", out, err)
	}
	back, err := DecodeGenericJSON(out)
	if err != nil || string(back) != `{"name":"Alice","tags":["a","b"],"id":9223372036854775807}` {
		t.Fatalf("%s %v", back, err)
	}
	v, err := DecodeGeneric(out)
	if err != nil || v.(map[string]any)["id"].(fmt.Stringer).String() != "9223372036854775807" {
		t.Fatalf("%v %v", v, err)
	}
	if s, err := EncodeGenericChecked(map[string]any{"b": 1, "a": true}); err != nil || s != "GCF profile=generic\na=true\nb=1\n" {
		t.Fatalf("%q %v", s, err)
	}
	if _, err := EncodeGenericJSON([]byte("18446744073709551615")); category(err) != "out_of_range" {
		t.Fatalf("got %v", err)
	}
	_, err = DecodeGeneric("GCF profile=generic\nname=Alice\nname=Bob\n")
	var e *Error
	if !errors.As(err, &e) || e.Category() != "duplicate_key" || e.Line() != 3 {
		t.Fatalf("got %v", err)
	}
	r1, err := GenericPackRoot(&KeyedSet{Key: "id", Fields: []string{"id", "t"}, Rows: []map[string]any{{"id": 1, "t": 2.5}, {"id": 2, "t": 3}}})
	r2, _ := GenericPackRoot(&KeyedSet{Key: "id", Fields: []string{"id", "t"}, Rows: []map[string]any{{"id": 2, "t": 3}, {"id": 1, "t": 2.5}}})
	if err != nil || r1 != r2 || !strings.HasPrefix(r1, "sha256:") {
		t.Fatalf("%s %s %v", r1, r2, err)
	}
}

func TestGenericStream(t *testing.T) {
	var buf bytes.Buffer
	enc := NewGenericStreamEncoder(&buf, "export")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(enc.WriteKV("total", 2))
	must(enc.BeginArray("employees", []string{"id", "name", "dept", "salary", "note"}))
	must(enc.WriteRow([]any{1, "Alice Smith", "Engineering", 95000.5, Missing}))
	must(enc.WriteRow([]any{2, "a|b", nil, int64(72000), true}))
	if err := enc.WriteRow([]any{3}); category(err) != "row_width_mismatch" {
		t.Fatalf("got %v", err)
	}
	if err := enc.WriteRow([]any{3, []int{1}, nil, nil, nil}); category(err) != "invalid_input" {
		t.Fatalf("got %v", err)
	}
	must(enc.EndArray())
	must(enc.WriteSection("meta"))
	must(enc.WriteKV("owner", "me"))
	must(enc.EndSection())
	must(enc.Close())
	want := "GCF profile=generic tool=export\ntotal=2\n## employees [?]{id,name,dept,salary,note}\n" +
		"1|Alice Smith|Engineering|95000.5|~\n2|\"a|b\"|-|72000|true\n"
	if !strings.HasPrefix(buf.String(), want) {
		t.Fatalf("streamed\n%q\nwant prefix\n%q", buf.String(), want)
	}
	v, err := DecodeGeneric(buf.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if v.(map[string]any)["meta"].(map[string]any)["owner"] != "me" {
		t.Fatalf("%v", v)
	}
	// A keyed map's member keys as cells: a number bare, as the SDKs'
	// streams write it; nil, a bool or an empty row refused.
	buf.Reset()
	keyed := NewGenericStreamEncoder(&buf, "")
	must(keyed.BeginKeyedMap("m", "id", []string{"v"}))
	must(keyed.WriteKeyedMember([]any{7, "a"}))
	must(keyed.WriteKeyedMember([]any{2.5, int64(1)}))
	must(keyed.WriteKeyedMember([]any{"7s", nil}))
	for _, row := range [][]any{{nil, 1}, {false, 1}, {Missing, 1}} {
		if err := keyed.WriteKeyedMember(row); category(err) != "invalid_input" {
			t.Fatalf("%v: got %v", row, err)
		}
	}
	if err := keyed.WriteKeyedMember(nil); err == nil {
		t.Fatal("an empty row was taken")
	}
	must(keyed.Flush())
	if !strings.HasSuffix(buf.String(), "7s|-\n") {
		t.Fatalf("after Flush: %q", buf.String())
	}
	must(keyed.Close())
	if want := "GCF profile=generic\n## m [?:]{id,v}\n7|a\n2.5|1\n7s|-\n##! summary counts=3\n"; buf.String() != want {
		t.Fatalf("streamed\n%q\nwant\n%q", buf.String(), want)
	}
	bad := NewGenericStreamEncoder(&failingWriter{}, "")
	must(bad.BeginArray("", []string{"n"}))
	for i := 0; i < 100000 && err == nil; i++ {
		err = bad.WriteRow([]any{i})
	}
	if !errors.Is(err, errDiskFull) || category(err) != "sink" {
		t.Fatalf("got %v", err)
	}
	if err = bad.Close(); category(err) != "invalid_state" {
		t.Fatalf("got %v", err)
	}
}

// The error model every binding shares: each failure's class, category and
// status (the C status derives from the class).
func TestErrorModel(t *testing.T) {
	decodeErr := func(text string) error { _, err := Decode(text); return err }
	table := []struct {
		err             error
		class, category string
		status          Status
	}{
		{decodeErr("GCF profile=graph\n## targets\n@x fn a.B 0.50 lsp\n"), "syntax", "invalid_symbol_id", StatusDataError},
		{decodeErr("GCF profile=graph\n## targets\n@0 fn a 0.50 x\n## edges [1]\n@0<@7 calls\n"), "reference", "unknown_edge_reference", StatusDataError},
		{func() error {
			_, err := EncodeChecked(&Payload{Symbols: []Symbol{{QualifiedName: "a b", Kind: "function", Provenance: "x"}}})
			return err
		}(), "input", "invalid_input", StatusDataError},
		{func() error { _, err := EncodeGenericJSON([]byte("[100000000000000000000]")); return err }(), "input", "out_of_range", StatusDataError},
		{func() error { _, err := EncodeJSON([]byte("{")); return err }(), "json", "json", StatusJSONError},
		{func() error { _, err := EncodeJSON([]byte(`{"symbols": 1}`)); return err }(), "json", "invalid_input", StatusJSONError},
		{func() error {
			_, err := ApplyDelta(&Snapshot{}, "GCF profile=graph delta=true base_root=sha256:x new_root=sha256:y\n")
			return err
		}(), "delta", "base_mismatch", StatusDataError},
	}
	for i, c := range table {
		var e *Error
		if !errors.As(c.err, &e) {
			t.Fatalf("%d: not an *Error: %v", i, c.err)
		}
		if e.Class() != c.class || e.Category() != c.category || e.Status() != c.status {
			t.Errorf("%d: got (%s, %s, %d), want (%s, %s, %d): %v", i, e.Class(), e.Category(), e.Status(), c.class, c.category, c.status, e)
		}
	}
}

// Value-only calls panic with the *Error, as gcf-go's EncodeGeneric does.
func TestValueOnlyCallsPanicWithTheError(t *testing.T) {
	if got := Encode(samplePayload()); !strings.HasPrefix(got, "GCF profile=graph") {
		t.Fatalf("got %q", got)
	}
	defer func() {
		e, ok := recover().(*Error)
		if !ok || e.Category() != "out_of_range" {
			t.Fatalf("recovered %v", e)
		}
	}()
	EncodeGeneric(json.RawMessage("[18446744073709551616]"))
	t.Fatal("no panic")
}

type refusingWriter struct{ calls int }

func (w *refusingWriter) Write(p []byte) (int, error) { w.calls++; return 0, errDiskFull }

// A stream poisoned by a failing writer answers as libgcf's streams do from
// Rust and C (ffi-c/tests/c/test_gcf.c, test_poisoned_streams_agree): a
// refused call leaves it usable, a failed write poisons it for every later call.
func TestPoisonedStreamsAgree(t *testing.T) {
	poisoned := func(err error) bool {
		var e *Error
		return errors.As(err, &e) && e.Class() == "state" && e.Status() == StatusInvalidState &&
			strings.Contains(e.Message(), "earlier write to the sink failed")
	}
	w := &refusingWriter{}
	g := NewStreamEncoder(w, "", StreamOptions{})
	if _, err := g.WriteSymbol(Symbol{QualifiedName: "has space", Kind: "function", Provenance: "x"}); category(err) != "invalid_input" {
		t.Fatalf("got %v", err)
	}
	if _, err := g.WriteSymbol(Symbol{QualifiedName: "pkg.A", Kind: "function", Score: 0.5, Provenance: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := g.Flush(); category(err) != "sink" || !errors.Is(err, errDiskFull) || w.calls != 1 {
		t.Fatalf("got %v after %d writes", err, w.calls)
	}
	for i, err := range []error{
		func() error {
			_, err := g.WriteSymbol(Symbol{QualifiedName: "pkg.B", Kind: "function", Provenance: "x"})
			return err
		}(),
		g.WriteEdgeByID(0, 0, "calls", ""),
		g.WriteLocation(0, "f.go", 1, 1, 0, 0),
		g.Flush(),
		g.Close(),
	} {
		if !poisoned(err) {
			t.Fatalf("graph call %d: %v", i, err)
		}
	}
	if w.calls != 1 {
		t.Fatalf("the writer was called again: %d", w.calls)
	}

	w = &refusingWriter{}
	n := NewGenericStreamEncoder(w)
	if err := n.BeginArray("", []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if err := n.WriteRow([]any{1, 2}); category(err) != "row_width_mismatch" {
		t.Fatalf("got %v", err)
	}
	if err := n.WriteRow([]any{1}); err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); category(err) != "sink" || !errors.Is(err, errDiskFull) || w.calls != 1 {
		t.Fatalf("got %v after %d writes", err, w.calls)
	}
	if err := n.WriteRow([]any{1}); category(err) != "invalid_state" {
		t.Fatalf("got %v", err)
	}
}
