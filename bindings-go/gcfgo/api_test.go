package gcf

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	native "github.com/blackwell-systems/gcf-go/internal/native"
)

// TestNativeLinks: internal/native is the native package linked file by
// file; a file added to bindings-go without a link here would leave this
// module building an older package, so the two lists must agree.
func TestNativeLinks(t *testing.T) {
	want := map[string]bool{}
	for _, pat := range []string{"../*.go", "../*.c", "../*.h"} {
		files, _ := filepath.Glob(pat)
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				want[filepath.Base(f)] = true
			}
		}
	}
	entries, err := os.ReadDir("internal/native")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			got[e.Name()] = true
			if _, err := os.Stat(filepath.Join("internal/native", e.Name())); err != nil {
				t.Errorf("dangling link %s", e.Name())
			}
		}
	}
	for f := range want {
		if !got[f] {
			t.Errorf("bindings-go/%s has no link in gcfgo/internal/native (ln -s ../../../%s bindings-go/gcfgo/internal/native/)", f, f)
		}
	}
	for f := range got {
		if !want[f] {
			t.Errorf("gcfgo/internal/native/%s links to no file", f)
		}
	}
}

func TestErrorsAs(t *testing.T) {
	_, err := Decode("GCF profile=graph tool=t\n## targets\n@0 fn a 0.50 x\n## edges [2]\n@0<@0 calls\n")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("not an *Error: %v", err)
	}
	if e.Category() != "count_mismatch" || e.Line() == 0 || !strings.HasPrefix(err.Error(), "gcf: count_mismatch: ") {
		t.Fatalf("got %q (category %q, line %d)", err, e.Category(), e.Line())
	}
	_, err = DecodeGeneric("GCF profile=generic\n## [3]{id}\n1\n2\n")
	if !errors.As(err, &e) || e.Category() != "count_mismatch" || !strings.HasPrefix(err.Error(), "count_mismatch: ") || e.Line() == 0 {
		t.Fatalf("generic: %v", err)
	}
}

func TestEncodeSkipsUnknownEdgesAndNeverPanics(t *testing.T) {
	p := &Payload{Tool: "t", Symbols: []Symbol{{QualifiedName: "a", Kind: "function", Score: 0.5, Provenance: "x"}},
		Edges: []Edge{{Source: "a", Target: "a", EdgeType: "calls"}, {Source: "a", Target: "zzz", EdgeType: "calls"}}}
	out := Encode(p)
	if !strings.Contains(out, "## edges [1]\n@0<@0 calls\n") {
		t.Fatalf("got %q", out)
	}
	bad := &Payload{Tool: "t", Symbols: []Symbol{{QualifiedName: "a b", Kind: "function", Score: 0.5, Provenance: "x"}}}
	if Encode(bad) != "" {
		t.Fatal("an unencodable payload must give \"\"")
	}
	if _, err := EncodeChecked(bad); err == nil {
		t.Fatal("EncodeChecked must report it")
	}
}

func TestEncodeGenericPanicsOnlyOutOfRange(t *testing.T) {
	defer func() {
		r := recover()
		e, ok := r.(*Error)
		if !ok || e.Category() != "out_of_range" || !strings.HasPrefix(e.Error(), "out_of_range: ") {
			t.Fatalf("recovered %v", r)
		}
	}()
	if EncodeGeneric(map[string]any{"a": 1}, GenericOptions{NoFlatten: true}) == "" {
		t.Fatal("empty")
	}
	EncodeGeneric([]uint64{1 << 63})
	t.Fatal("no panic")
}

func TestEncodeGenericGoValues(t *testing.T) {
	type row struct {
		Name string
		ID   int
	}
	got := EncodeGeneric([]row{{"a", 1}, {"b", 2}})
	want := "GCF profile=generic\n## [2]{ID,Name}\n1|a\n2|b\n"
	if got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	m := NewOrderedMap()
	m.Set("z", 1.5)
	m.Set("a", int64(9007199254740993))
	m.Set("big", 1e21)
	back, err := DecodeGeneric(EncodeGeneric(m))
	if err != nil {
		t.Fatal(err)
	}
	bm := back.(*OrderedMap)
	if strings.Join(bm.Keys(), ",") != "z,a,big" {
		t.Fatalf("keys %v", bm.Keys())
	}
	if v, _ := bm.Get("a"); v != int64(9007199254740993) {
		t.Fatalf("a = %#v", v)
	}
	if v, _ := bm.Get("big"); v != 1e21 {
		t.Fatalf("big = %#v", v)
	}
}

func TestEncodeGenericNoFlatten(t *testing.T) {
	owner := func(name, team string) *OrderedMap {
		m := NewOrderedMap()
		m.Set("name", name)
		m.Set("team", team)
		return m
	}
	row := func(id int, name, team string) *OrderedMap {
		m := NewOrderedMap()
		m.Set("id", id)
		m.Set("owner", owner(name, team))
		return m
	}
	rows := []any{row(1, "x", "a"), row(2, "y", "b")}
	if got, want := EncodeGeneric(rows), "GCF profile=generic\n## [2]{id,\"owner>name\",\"owner>team\"}\n1|x|a\n2|y|b\n"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	// As gcf-go's (and 2.5.2's) NoFlatten writes it: attachments.
	got := EncodeGeneric(rows, GenericOptions{NoFlatten: true})
	if want := "GCF profile=generic\n## [2]{id,owner}\n@0 1|^\n.owner {}\n    name=x\n    team=a\n@1 2|^\n.owner {}\n    name=y\n    team=b\n"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestEncodeGenericDoesNotFactorConstantColumns(t *testing.T) {
	got := EncodeGeneric([]any{map[string]any{"a": 1, "t": "x"}, map[string]any{"a": 2, "t": "x"}})
	if want := "GCF profile=generic\n## [2]{a,t}\n1|x\n2|x\n"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestParseJSONOrdered(t *testing.T) {
	v, err := ParseJSONOrdered([]byte(`{"b":[],"a":"\u00e9\ud83d\ude00","n":-3,"f":2.5}`))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(*OrderedMap)
	if strings.Join(m.Keys(), ",") != "b,a,n,f" {
		t.Fatalf("keys %v", m.Keys())
	}
	if b, _ := m.Get("b"); b.([]any) != nil {
		t.Fatal("an empty array is nil, as in gcf-go")
	}
	if a, _ := m.Get("a"); a != "é😀" {
		t.Fatalf("a = %q", a)
	}
	if n, _ := m.Get("n"); n != int64(-3) {
		t.Fatalf("n = %#v", n)
	}
	if _, err := ParseJSONOrdered([]byte(`[99999999999999999999]`)); err == nil || !strings.HasPrefix(err.Error(), "out_of_range: ") {
		t.Fatalf("err = %v", err)
	}
	if _, err := ParseJSONOrdered([]byte(`{"a":`)); err == nil {
		t.Fatal("truncated JSON accepted")
	}
}

func set(rows ...map[string]any) GenericSet {
	return GenericSet{Name: "orders", Key: "id", Fields: []string{"id", "total"}, Rows: rows}
}

func TestGenericDeltaRoundTrip(t *testing.T) {
	base := set(map[string]any{"id": int64(1), "total": 5.5}, map[string]any{"id": int64(2), "total": int64(7)})
	next := set(map[string]any{"id": int64(2), "total": int64(8)}, map[string]any{"id": int64(3), "total": int64(1)})
	d, err := DiffGenericSets(base, next)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Added) != 1 || len(d.Changed) != 1 || len(d.Removed) != 1 || d.Removed[0] != int64(1) {
		t.Fatalf("diff %+v", d)
	}
	wire := EncodeGenericDelta(d)
	back, err := DecodeGenericDelta(wire)
	if err != nil {
		t.Fatal(err)
	}
	got, err := VerifyGenericDelta(base, back, GenericPackRoot(next))
	if err != nil {
		t.Fatal(err)
	}
	if GenericPackRoot(got) != GenericPackRoot(next) {
		t.Fatal("applied set differs")
	}
	_, err = VerifyGenericDelta(base, back, GenericPackRoot(base))
	var e *Error
	if !errors.As(err, &e) || e.Category() != "root_mismatch" {
		t.Fatalf("err = %v", err)
	}
	if _, err := DiffGenericSets(base, GenericSet{Key: "id", Fields: []string{"id"}}); err == nil || !strings.HasPrefix(err.Error(), "delta_invalid: ") {
		t.Fatalf("schema change: %v", err)
	}
	full := EncodeGenericFull(next, "tool")
	s, root, err := DecodeGenericFull(full)
	if err != nil {
		t.Fatal(err)
	}
	if root != GenericPackRoot(next) || s.Name != "orders" || s.Key != "id" || GenericPackRoot(s) != root {
		t.Fatalf("full: %+v %s", s, root)
	}
	// An empty set keeps its declared fields; a repeated identity is refused.
	empty := EncodeGenericFull(GenericSet{Name: "orders", Key: "id", Fields: []string{"id", "v"}}, "")
	if s, _, err := DecodeGenericFull(empty); err != nil || len(s.Fields) != 2 || len(s.Rows) != 0 {
		t.Fatalf("empty: %+v %v", s, err)
	}
	twice := strings.Replace(empty, "[0]", "[2]", 1) + "1|a\n1|b\n"
	if _, _, err := DecodeGenericFull(twice); !errors.As(err, &e) || e.Category() != "duplicate_key" {
		t.Fatalf("twice: %v", err)
	}
}

func TestEncodeGenericGrouped(t *testing.T) {
	files := []any{
		map[string]any{"path": "a.rs", "kind": "src"},
		map[string]any{"path": "b.md", "kind": "doc"},
		map[string]any{"path": "c.rs", "kind": "src"},
	}
	got, err := EncodeGenericGrouped(files, "path", "kind")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "group=kind") {
		t.Fatalf("got %q", got)
	}
	if _, err := EncodeGenericGrouped(files, "kind", "path"); err == nil {
		t.Fatal("a repeated key must be refused")
	}
}

func TestSessionMirrorsIDs(t *testing.T) {
	s := NewSession()
	sym := func(n string) Symbol { return Symbol{QualifiedName: n, Kind: "function", Score: 0.5, Provenance: "x"} }
	EncodeWithSession(&Payload{Tool: "t", Symbols: []Symbol{sym("a"), sym("b")}}, s)
	s.Record([]Symbol{sym("c")})
	out := EncodeWithSession(&Payload{Tool: "t", Symbols: []Symbol{sym("c"), sym("d")}}, s)
	if s.GetID("c") != 2 || s.GetID("d") != 3 || s.Size() != 4 || !strings.Contains(out, "@2  # previously transmitted") || !strings.Contains(out, "@3 fn d") {
		t.Fatalf("ids c=%d d=%d size=%d out=%q", s.GetID("c"), s.GetID("d"), s.Size(), out)
	}
	s.Reset()
	if s.Size() != 0 || s.Transmitted("a") {
		t.Fatal("reset")
	}
}

func TestStreamsReportUnsupportedAtClose(t *testing.T) {
	var buf bytes.Buffer
	enc := NewStreamEncoder(&buf, "t", StreamOptions{})
	enc.WriteSymbol(Symbol{QualifiedName: "a", Kind: "function", Score: 1, Provenance: "x"})
	enc.WriteEdge(Edge{Source: "a", Target: "nope", EdgeType: "calls"})
	if err := enc.Close(); err != nil || enc.EdgeCount() != 0 || enc.SymbolCount() != 1 {
		t.Fatalf("close %v, %d edges", err, enc.EdgeCount())
	}
	var e *Error
	buf.Reset()
	g := NewGenericStreamEncoder(&buf)
	g.BeginArray("rows", []string{"id", "name"})
	g.WriteRow([]any{1, "a"})
	g.WriteRow([]any{uint(2), "b"})
	g.EndArray()
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	v, err := DecodeGeneric(buf.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	rows, _ := v.(*OrderedMap).Get("rows")
	if len(rows.([]any)) != 2 {
		t.Fatalf("%s", buf.String())
	}
	var keys []string
	keys = append(keys, v.(*OrderedMap).Keys()...)
	sort.Strings(keys)
	// Inline arrays, keyed maps and flat sections, as the other SDKs'
	// streaming encoders write them.
	buf.Reset()
	g = NewGenericStreamEncoder(&buf)
	g.WriteKV("tool", "search")
	g.WriteInlineArray("tags", []any{"x", 2})
	g.BeginKeyedMap("users", "id", []string{"name"})
	g.WriteRow([]any{"u1", "Ada"})
	g.WriteRow([]any{7, "Bob"})
	g.WriteRow([]any{2.0, "Cy"})
	g.WriteSection("meta")
	g.WriteKV("count", 2)
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	want := "GCF profile=generic\ntool=search\ntags[2]: x,2\n## users [?:]{id,name}\nu1|Ada\n7|Bob\n2|Cy\n" +
		"## meta\ncount=2\n##! summary counts=3\n"
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
	if _, err := DecodeGeneric(buf.String()); err != nil {
		t.Fatal(err)
	}
	// What no decoder reads back is refused: a line right after a table,
	// a key label that is also a value field.
	for _, f := range []func(*GenericStreamEncoder){
		func(g *GenericStreamEncoder) {
			g.BeginArray("t", []string{"a"})
			g.WriteRow([]any{1})
			g.WriteKV("k", 1)
		},
		func(g *GenericStreamEncoder) { g.BeginKeyedMap("m", "v", []string{"v"}) },
		// A key that is nil or a bool: decoders refuse it.
		func(g *GenericStreamEncoder) {
			g.BeginKeyedMap("m", "k", []string{"v"})
			g.WriteRow([]any{nil, 1})
		},
		func(g *GenericStreamEncoder) {
			g.BeginKeyedMap("m", "k", []string{"v"})
			g.WriteRow([]any{true, 1})
		},
	} {
		buf.Reset()
		g = NewGenericStreamEncoder(&buf)
		f(g)
		if err := g.Close(); !errors.As(err, &e) || (e.Category() != "invalid_state" && e.Category() != "invalid_input") {
			t.Fatalf("got %v", err)
		}
	}
}

// TestSharedLayouts backs the in-place slice reinterpretation of
// toNativeSymbols and toNativeEdges: same size, same field offsets.
func TestSharedLayouts(t *testing.T) {
	check := func(a, b reflect.Type) {
		if a.Size() != b.Size() || a.NumField() != b.NumField() {
			t.Fatalf("%v and %v differ in size or fields", a, b)
		}
		for i := 0; i < a.NumField(); i++ {
			fa, fb := a.Field(i), b.Field(i)
			if fa.Name != fb.Name || fa.Offset != fb.Offset || fa.Type != fb.Type && fa.Type.String() != fb.Type.String() {
				t.Fatalf("%v.%s and %v.%s differ", a, fa.Name, b, fb.Name)
			}
		}
	}
	check(reflect.TypeOf(Symbol{}), reflect.TypeOf(native.Symbol{}))
	check(reflect.TypeOf(Edge{}), reflect.TypeOf(native.Edge{}))
	syms := []Symbol{{QualifiedName: "a", Kind: "function", Score: 0.25, Provenance: "p", Distance: 2, Signature: "s"}}
	if n := toNativeSymbols(syms); n[0].QualifiedName != "a" || n[0].Distance != 2 || n[0].Signature != "s" || n[0].Score != 0.25 {
		t.Fatalf("reinterpreted %+v", n[0])
	}
	edges := []Edge{{Source: "a", Target: "b", EdgeType: "calls", Status: "added"}}
	if n := toNativeEdges(edges); n[0].Target != "b" || n[0].Status != "added" {
		t.Fatalf("reinterpreted %+v", n[0])
	}
}

func TestOrderedMapPastTheIndexSize(t *testing.T) {
	m := NewOrderedMap()
	for i := 0; i < 40; i++ {
		m.Set(string(rune('a'+i%26))+strings.Repeat("x", i/26), i)
	}
	m.Set("c", "again")
	if m.Len() != 40 || m.Keys()[2] != "c" {
		t.Fatalf("len %d keys %v", m.Len(), m.Keys()[:3])
	}
	if v, ok := m.Get("c"); !ok || v != "again" {
		t.Fatalf("c = %v", v)
	}
	if v, ok := m.Get("nx"); !ok || v != 39 {
		t.Fatalf("nx = %v %v", v, ok)
	}
	if _, ok := m.Get("zz"); ok {
		t.Fatal("zz found")
	}
	if len(m.ToMap()) != 40 {
		t.Fatal("ToMap")
	}
}

// PackRoot and Session reach the header as gcf-go writes them; a pack root
// that would break the header is refused, and nothing reaches w.
// Flush (an addition to gcf-go) hands what was written to w before the
// stream's block fills; the bytes are the same as without it.
func TestStreamsFlush(t *testing.T) {
	var buf bytes.Buffer
	enc := NewStreamEncoder(&buf, "live", StreamOptions{})
	enc.WriteSymbol(Symbol{QualifiedName: "pkg.A", Kind: "function", Score: 0.5, Provenance: "lsp"})
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(buf.String(), "@0 fn pkg.A 0.50 lsp\n") {
		t.Fatalf("after Flush: %q", buf.String())
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if want := "GCF profile=graph tool=live\n## targets\n@0 fn pkg.A 0.50 lsp\n##! summary symbols=1 edges=0 counts=1,0\n"; buf.String() != want {
		t.Fatalf("got %q want %q", buf.String(), want)
	}
	buf.Reset()
	g := NewGenericStreamEncoder(&buf)
	g.BeginArray("t", []string{"a"})
	g.WriteRow([]any{1})
	if err := g.Flush(); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "GCF profile=generic\n## t [?]{a}\n1\n" {
		t.Fatalf("after Flush: %q", buf.String())
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	// A stopped stream's Flush reports why it stopped.
	bad := NewStreamEncoder(&buf, "t", StreamOptions{PackRoot: "has space"})
	var e *Error
	if err := bad.Flush(); !errors.As(err, &e) || e.Category() != "invalid_input" {
		t.Fatalf("got %v", err)
	}
}

func TestStreamHeaderPackRootAndSession(t *testing.T) {
	root := "sha256:" + strings.Repeat("0f", 32)
	var buf bytes.Buffer
	enc := NewStreamEncoder(&buf, "t", StreamOptions{TokenBudget: 5000, TokensUsed: 7, PackRoot: root, Session: true})
	enc.WriteSymbol(Symbol{QualifiedName: "pkg.A", Kind: "function", Score: 0.5, Provenance: "lsp"})
	enc.WriteSymbol(Symbol{QualifiedName: "pkg.B", Kind: "type", Score: 0.25, Provenance: "lsp", Distance: 1})
	enc.WriteEdge(Edge{Source: "pkg.B", Target: "pkg.A", EdgeType: "uses"})
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	want := "GCF profile=graph tool=t budget=5000 tokens=7 pack_root=" + root + " session=true\n" +
		"## targets\n@0 fn pkg.A 0.50 lsp\n## related\n@1 type pkg.B 0.25 lsp\n## edges [?]\n@0<@1 uses\n" +
		"##! summary symbols=2 edges=1 counts=1,1,1\n"
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
	p, err := Decode(buf.String())
	if err != nil || p.PackRoot != root || len(p.Symbols) != 2 {
		t.Fatalf("decode: %v %+v", err, p)
	}
	buf.Reset()
	enc = NewStreamEncoder(&buf, "t", StreamOptions{PackRoot: "sha256:a b"})
	enc.WriteSymbol(Symbol{QualifiedName: "pkg.A", Kind: "function", Score: 0.5, Provenance: "lsp"})
	var e *Error
	if err := enc.Close(); !errors.As(err, &e) || e.Category() != "invalid_input" || buf.Len() != 0 || enc.SymbolCount() != 0 {
		t.Fatalf("bad pack root: %v, %q", err, buf.String())
	}

	// A bare reference takes the next id, as in gcf-go, counts as a symbol
	// and can be named by later edges.
	buf.Reset()
	enc = NewStreamEncoder(&buf, "t", StreamOptions{Session: true})
	enc.WriteSymbol(Symbol{QualifiedName: "pkg.A", Kind: "function", Score: 0.5, Provenance: "lsp"})
	enc.WriteBareRef("pkg.Old", 1)
	enc.WriteSymbol(Symbol{QualifiedName: "pkg.B", Kind: "function", Score: 0.5, Provenance: "lsp", Distance: 1})
	enc.WriteEdge(Edge{Source: "pkg.B", Target: "pkg.Old", EdgeType: "calls"})
	if err := enc.Close(); err != nil || enc.SymbolCount() != 3 || enc.EdgeCount() != 1 {
		t.Fatalf("bare ref: %v, %d symbols\n%s", err, enc.SymbolCount(), buf.String())
	}
	for _, want := range []string{"session=true\n", "## related\n@1  # previously transmitted\n@2 fn pkg.B ", "@1<@2 calls\n", "symbols=3 edges=1 counts=1,2,1\n"} {
		if !strings.Contains(buf.String(), want) {
			t.Fatalf("bare ref: %q missing from\n%s", want, buf.String())
		}
	}
}

// A field with an inline schema on row 0 keeps it when a later row holds
// null there (written "-"), as gcf-go v1.7.1's inlineSchemaFields skips
// null rows; the literal "x>a" keeps x from being flattened.
func TestInlineSchemaWithALaterNull(t *testing.T) {
	x := map[string]any{"a": int64(1), "b": int64(2), "c": "z"}
	v := []any{map[string]any{"x": x, "x>a": int64(5)}, map[string]any{"x": nil, "x>a": int64(6)}}
	want := "GCF profile=generic\n## [2]{x}\n@0 ^{a,b,c}\n1|2|z\n.\"x>a\" =5\n@1 -\n.\"x>a\" =6\n"
	if got := EncodeGeneric(v); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
