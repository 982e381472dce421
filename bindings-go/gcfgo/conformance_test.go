package gcf

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// conformanceDir finds the official fixtures, never copied: $GCF_CONFORMANCE
// if set, else ../shared/conformance beside the repository root (the first
// ancestor of this folder holding Cargo.toml), wherever the test runs from.
func conformanceDir(t testing.TB) string {
	if d := os.Getenv("GCF_CONFORMANCE"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "Cargo.toml")); err == nil {
			d := filepath.Join(dir, "..", "shared", "conformance")
			if _, err := os.Stat(d); err == nil {
				return d
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no ../shared/conformance beside the repository root; set GCF_CONFORMANCE")
		}
		dir = parent
	}
}

type fixture struct {
	Operation     string          `json:"operation"`
	Input         json.RawMessage `json:"input"`
	InputBase64   string          `json:"inputBase64"`
	Expected      json.RawMessage `json:"expected"`
	ExpectedError string          `json:"expectedError"`
	Options       map[string]any  `json:"options"`
	Calls         []struct{ Input, Expected json.RawMessage }
	BaseSnapshot  json.RawMessage `json:"base_snapshot"`
	ExpectedSnap  json.RawMessage `json:"expected_snapshot"`
	BaseRoot      string          `json:"base_root"`
	NewRoot       string          `json:"new_root"`
}

// TestConformance runs every official fixture through the gcf-go-shaped API
// only (no native calls), one subtest per fixture.
func TestConformance(t *testing.T) {
	dir := conformanceDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	sort.Strings(files)
	if len(files) < 281 {
		t.Fatalf("only %d fixtures under %s", len(files), dir)
	}
	ops := map[string]int{}
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var f fixture
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rel, _ := filepath.Rel(dir, path)
		ops[f.Operation]++
		t.Run(rel, func(t *testing.T) {
			if msg := runFixture(&f); msg != "" {
				t.Errorf("%s: %s", f.Operation, msg)
			}
		})
	}
	if len(ops) != 16 {
		t.Errorf("expected the 16 operations, fixtures have %d: %v", len(ops), ops)
	}
	t.Logf("%d fixtures, operations %v", len(files), ops)
}

func str(raw json.RawMessage) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}

func isGraph(input json.RawMessage) bool {
	var o map[string]json.RawMessage
	if json.Unmarshal(input, &o) != nil {
		return false
	}
	_, hasSymbols := o["symbols"]
	_, hasRows := o["rows"]
	return hasSymbols && !hasRows && bytes.HasPrefix(bytes.TrimSpace(o["symbols"]), []byte("["))
}

// payload reads a fixture's graph payload JSON; field names match the
// exported Go names case-insensitively, as encoding/json does for gcf-go.
func payload(raw json.RawMessage) (*Payload, error) {
	var p Payload
	err := json.Unmarshal(raw, &p)
	return &p, err
}

func genericSet(raw json.RawMessage) (GenericSet, error) {
	v, err := ParseJSONOrdered(raw)
	if err != nil {
		return GenericSet{}, err
	}
	m, ok := v.(*OrderedMap)
	if !ok {
		return GenericSet{}, fmt.Errorf("a keyed set is an object")
	}
	var s GenericSet
	if x, ok := m.Get("name"); ok {
		s.Name, _ = x.(string)
	}
	if x, ok := m.Get("key"); ok {
		s.Key, _ = x.(string)
	}
	if x, ok := m.Get("fields"); ok {
		for _, f := range x.([]any) {
			s.Fields = append(s.Fields, f.(string))
		}
	}
	if x, ok := m.Get("rows"); ok {
		for _, r := range x.([]any) {
			row := r.(*OrderedMap)
			s.Rows = append(s.Rows, row.ToMap())
			if s.Fields == nil && len(s.Rows) == 1 {
				s.Fields = append([]string(nil), row.Keys()...)
			}
		}
	}
	if s.Rows == nil {
		s.Rows = []map[string]any{}
	}
	return s, nil
}

func rowsOf(raw any) []map[string]any {
	arr, _ := raw.([]any)
	out := []map[string]any{}
	for _, r := range arr {
		out = append(out, r.(*OrderedMap).ToMap())
	}
	return out
}

func runFixture(f *fixture) string {
	switch f.Operation {
	case "encode", "roundtrip":
		if isGraph(f.Input) {
			p, err := payload(f.Input)
			if err != nil {
				return err.Error()
			}
			out, err := EncodeChecked(p)
			if msg := expectText(out, err, str(f.Expected)); msg != "" {
				return msg
			}
			if Encode(p) != out {
				return "Encode differs from EncodeChecked"
			}
			return ""
		}
		v, err := ParseJSONOrdered(f.Input)
		if err != nil {
			return err.Error()
		}
		out, err := EncodeGenericChecked(v)
		if msg := expectText(out, err, str(f.Expected)); msg != "" {
			return msg
		}
		back, err := DecodeGeneric(out)
		if err != nil {
			return "decoding the output: " + err.Error()
		}
		return sameValue(back, v)
	case "encode-error":
		v, err := ParseJSONOrdered(f.Input)
		if err == nil {
			_, err = EncodeGenericChecked(v)
		}
		return expectCategory(err, f.ExpectedError)
	case "roundtrip-wire":
		v, err := DecodeGeneric(str(f.Input))
		if err != nil {
			return err.Error()
		}
		return expectText(EncodeGeneric(v), nil, str(f.Expected))
	case "decode":
		in := str(f.Input)
		if strings.HasPrefix(in, "GCF profile=graph") {
			p, err := Decode(in)
			if err != nil {
				return err.Error()
			}
			want, err := payload(f.Expected)
			if err != nil {
				return err.Error()
			}
			if !reflect.DeepEqual(norm(p), norm(want)) {
				return fmt.Sprintf("decoded %+v\nwant %+v", norm(p), norm(want))
			}
			return ""
		}
		got, err := DecodeGeneric(in)
		if err != nil {
			return err.Error()
		}
		want, err := ParseJSONOrdered(f.Expected)
		if err != nil {
			return err.Error()
		}
		return sameValue(got, want)
	case "error":
		in := []byte(str(f.Input))
		if f.InputBase64 != "" {
			in, _ = base64.StdEncoding.DecodeString(f.InputBase64)
		}
		s := string(in)
		first := strings.SplitN(s, "\n", 2)[0]
		var err error
		prefix := ""
		switch {
		case strings.HasPrefix(first, "GCF profile=generic"):
			_, err = DecodeGeneric(s)
		case strings.Contains(" "+first+" ", " delta=true "):
			_, err = DecodeDelta(s)
		default:
			_, err = Decode(s)
			prefix = "gcf: "
		}
		if msg := expectCategory(err, f.ExpectedError); msg != "" {
			return msg
		}
		var e *Error
		if !errors.As(err, &e) || e.Line() == 0 {
			return "error without a line: " + err.Error()
		}
		if !strings.HasPrefix(err.Error(), prefix+e.Category()+": ") {
			return "error text does not start with " + prefix + e.Category() + ": " + err.Error()
		}
		return ""
	case "session":
		s := NewSession()
		for i, call := range f.Calls {
			p, err := payload(call.Input)
			if err != nil {
				return err.Error()
			}
			before := s.Size()
			if msg := expectText(EncodeWithSession(p, s), nil, str(call.Expected)); msg != "" {
				return fmt.Sprintf("call %d: %s", i, msg)
			}
			for _, sym := range p.Symbols {
				if !s.Transmitted(sym.QualifiedName) || s.GetID(sym.QualifiedName) < 0 {
					return fmt.Sprintf("call %d: %s not recorded", i, sym.QualifiedName)
				}
			}
			if s.Size() < before {
				return "session shrank"
			}
		}
		return ""
	case "graph-stream-encode":
		p, err := payload(f.Input)
		if err != nil {
			return err.Error()
		}
		var buf bytes.Buffer
		labeled, _ := f.Options["labeledTrailerCounts"].(bool)
		enc := NewStreamEncoder(&buf, p.Tool, StreamOptions{TokenBudget: p.TokenBudget, TokensUsed: p.TokensUsed, LabeledTrailerCounts: labeled})
		for _, s := range p.Symbols {
			enc.WriteSymbol(s)
		}
		for _, e := range p.Edges {
			enc.WriteEdge(e)
		}
		err = enc.Close()
		if enc.SymbolCount() != len(p.Symbols) {
			return fmt.Sprintf("SymbolCount %d, want %d", enc.SymbolCount(), len(p.Symbols))
		}
		return expectText(buf.String(), err, str(f.Expected))
	case "pack-root":
		var snap struct {
			Symbols []Symbol
			Edges   []Edge
		}
		if err := json.Unmarshal(f.Input, &snap); err != nil {
			return err.Error()
		}
		return expectText(PackRoot(snap.Symbols, snap.Edges), nil, str(f.Expected))
	case "generic-pack-root":
		s, err := genericSet(f.Input)
		if err != nil {
			return err.Error()
		}
		return expectText(GenericPackRoot(s), nil, str(f.Expected))
	case "delta":
		if !bytes.HasPrefix(bytes.TrimSpace(f.Input), []byte(`"`)) {
			var d DeltaPayload
			if err := json.Unmarshal(f.Input, &d); err != nil {
				return err.Error()
			}
			out := EncodeDelta(&d)
			if msg := expectText(out, nil, str(f.Expected)); msg != "" {
				return msg
			}
			back, err := DecodeDelta(out)
			if err != nil {
				return "decoding the output: " + err.Error()
			}
			if back.BaseRoot != d.BaseRoot || back.NewRoot != d.NewRoot || len(back.Added) != len(d.Added) ||
				len(back.Removed) != len(d.Removed) || len(back.AddedEdges) != len(d.AddedEdges) || len(back.RemovedEdges) != len(d.RemovedEdges) {
				return fmt.Sprintf("DecodeDelta gave %+v", back)
			}
			return ""
		}
		var base, want struct {
			Symbols []Symbol
			Edges   []Edge
		}
		json.Unmarshal(f.BaseSnapshot, &base)
		json.Unmarshal(f.ExpectedSnap, &want)
		if r := PackRoot(base.Symbols, base.Edges); r != f.BaseRoot {
			return "base root " + r
		}
		d, err := DecodeDelta(str(f.Input))
		if err != nil {
			return err.Error()
		}
		if d.BaseRoot != f.BaseRoot || d.NewRoot != f.NewRoot {
			return "decoded roots differ"
		}
		syms, edges, err := VerifyDelta(base.Symbols, base.Edges, d.Removed, d.Added, d.RemovedEdges, d.AddedEdges, d.NewRoot)
		if err != nil {
			return err.Error()
		}
		if r := PackRoot(syms, edges); r != f.NewRoot {
			return "new root " + r
		}
		if r := PackRoot(want.Symbols, want.Edges); r != f.NewRoot {
			return "expected snapshot root " + r
		}
		return ""
	case "delta-verify":
		var base struct {
			Symbols []Symbol
			Edges   []Edge
		}
		json.Unmarshal(f.BaseSnapshot, &base)
		d, err := DecodeDelta(str(f.Input))
		if err == nil {
			_, _, err = VerifyDelta(base.Symbols, base.Edges, d.Removed, d.Added, d.RemovedEdges, d.AddedEdges, d.NewRoot)
		}
		return expectCategory(err, f.ExpectedError)
	case "generic-delta":
		d, err := genericDelta(f.Input)
		if err != nil {
			return err.Error()
		}
		out := EncodeGenericDelta(d)
		if msg := expectText(out, nil, str(f.Expected)); msg != "" {
			return msg
		}
		back, err := DecodeGenericDelta(out)
		if err != nil {
			return "decoding the output: " + err.Error()
		}
		if back.Key != d.Key || back.BaseRoot != d.BaseRoot || len(back.Added) != len(d.Added) || len(back.Changed) != len(d.Changed) || len(back.Removed) != len(d.Removed) {
			return fmt.Sprintf("DecodeGenericDelta gave %+v", back)
		}
		return ""
	case "generic-delta-decode":
		var in struct {
			Wire string          `json:"wire"`
			Base json.RawMessage `json:"base"`
		}
		if err := json.Unmarshal(f.Input, &in); err != nil {
			return err.Error()
		}
		base, err := genericSet(in.Base)
		if err != nil {
			return err.Error()
		}
		d, err := DecodeGenericDelta(in.Wire)
		var got GenericSet
		if err == nil {
			if GenericPackRoot(base) != d.BaseRoot {
				err = &Error{category: "base_mismatch", message: "base root differs"}
			} else {
				got, err = VerifyGenericDelta(base, d, d.NewRoot)
			}
		}
		return expectApplied(f, got, err)
	case "generic-delta-verify":
		var in struct {
			Base            json.RawMessage `json:"base"`
			Delta           json.RawMessage `json:"delta"`
			ExpectedNewRoot string          `json:"expectedNewRoot"`
		}
		if err := json.Unmarshal(f.Input, &in); err != nil {
			return err.Error()
		}
		base, err := genericSet(in.Base)
		if err != nil {
			return err.Error()
		}
		d, err := genericDelta(in.Delta)
		if err != nil {
			return err.Error()
		}
		got, err := VerifyGenericDelta(base, d, in.ExpectedNewRoot)
		return expectApplied(f, got, err)
	case "generic-delta-session":
		return genericDeltaSession(f)
	}
	return "operation not run: " + f.Operation
}

func genericDelta(raw json.RawMessage) (*GenericDeltaPayload, error) {
	v, err := ParseJSONOrdered(raw)
	if err != nil {
		return nil, err
	}
	m := v.(*OrderedMap)
	d := &GenericDeltaPayload{}
	get := func(k string) any { x, _ := m.Get(k); return x }
	d.Tool, _ = get("tool").(string)
	d.Key, _ = get("key").(string)
	d.BaseRoot, _ = get("baseRoot").(string)
	d.NewRoot, _ = get("newRoot").(string)
	for _, f := range asSlice(get("fields")) {
		d.Fields = append(d.Fields, f.(string))
	}
	d.Added, d.Changed = rowsOf(get("added")), rowsOf(get("changed"))
	d.Removed = asSlice(get("removed"))
	if n, ok := get("deltaTokens").(int64); ok {
		d.DeltaTokens = int(n)
	}
	if n, ok := get("fullTokens").(int64); ok {
		d.FullTokens = int(n)
	}
	return d, nil
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func expectApplied(f *fixture, got GenericSet, err error) string {
	if f.ExpectedError != "" {
		return expectCategory(err, f.ExpectedError)
	}
	if err != nil {
		return "unexpected error: " + err.Error()
	}
	return expectText(GenericPackRoot(got), nil, str(f.Expected))
}

func genericDeltaSession(f *fixture) string {
	var in struct {
		Base   json.RawMessage `json:"base"`
		Tool   string          `json:"tool"`
		Policy struct {
			Mode string `json:"mode"`
			N    int    `json:"n"`
		} `json:"policy"`
		Updates []json.RawMessage `json:"updates"`
	}
	var want struct {
		InitialFull string `json:"initialFull"`
		Emissions   []struct {
			Wire   string `json:"wire"`
			IsFull bool   `json:"isFull"`
		} `json:"emissions"`
	}
	if err := json.Unmarshal(f.Input, &in); err != nil {
		return err.Error()
	}
	if err := json.Unmarshal(f.Expected, &want); err != nil {
		return err.Error()
	}
	var policy ReanchorPolicy
	switch in.Policy.Mode {
	case "fixedN":
		policy = FixedN(in.Policy.N)
	case "sizeGuard":
		policy = SizeGuard()
	default:
		return "unknown policy " + in.Policy.Mode
	}
	base, err := genericSet(in.Base)
	if err != nil {
		return err.Error()
	}
	s := NewGenericDeltaSession(base, in.Tool, policy)
	if msg := expectText(s.CurrentFull(), nil, want.InitialFull); msg != "" {
		return "initial full: " + msg
	}
	if EncodeGenericFull(base, in.Tool) != want.InitialFull {
		return "EncodeGenericFull differs from the initial full"
	}
	for i, update := range in.Updates {
		next, err := genericSet(update)
		if err != nil {
			return err.Error()
		}
		wire, isFull, err := s.Next(next)
		if msg := expectText(wire, err, want.Emissions[i].Wire); msg != "" {
			return fmt.Sprintf("turn %d: %s", i+1, msg)
		}
		if isFull != want.Emissions[i].IsFull {
			return fmt.Sprintf("turn %d: isFull %v, want %v", i+1, isFull, want.Emissions[i].IsFull)
		}
		if s.Turn() != i+1 {
			return "Turn() is wrong"
		}
	}
	return ""
}

func norm(p *Payload) *Payload {
	c := *p
	if len(c.Symbols) == 0 {
		c.Symbols = nil
	}
	if len(c.Edges) == 0 {
		c.Edges = nil
	}
	c.Edges = append([]Edge(nil), c.Edges...)
	for i := range c.Edges {
		if c.Edges[i].Status == "unchanged" {
			c.Edges[i].Status = ""
		}
	}
	return &c
}

func expectText(got string, err error, want string) string {
	if err != nil {
		return "unexpected error: " + err.Error()
	}
	if got != want {
		return "got\n" + got + "\nwant\n" + want
	}
	return ""
}

func expectCategory(err error, want string) string {
	if err == nil {
		return "no error; want " + want
	}
	var e *Error
	if !errors.As(err, &e) {
		return fmt.Sprintf("error %T is not a *gcf.Error: %v", err, err)
	}
	// A few fixtures name the condition in prose ("zero count") rather than
	// by category; those match the error's message.
	if strings.Contains(want, " ") {
		if strings.Contains(strings.ToLower(e.Message()), strings.ToLower(want)) {
			return ""
		}
		return "got " + err.Error() + "; want an error about " + want
	}
	if e.Category() != want {
		return "got " + err.Error() + "; want " + want
	}
	if !strings.Contains(err.Error(), want+": ") {
		return "error text lacks the category: " + err.Error()
	}
	return ""
}

// sameValue compares decoded values structurally: objects as JSON objects
// (member order is not part of a value), numbers by value (an int64 equals the float64 of the same value).
func sameValue(a, b any) string {
	if !equalValue(a, b) {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return "got " + string(ja) + "\nwant " + string(jb)
	}
	return ""
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func equalValue(a, b any) bool {
	if x, ok := a.(int64); ok {
		if y, ok := b.(int64); ok {
			return x == y
		}
	}
	if x, ok := num(a); ok {
		y, ok := num(b)
		return ok && (x == y || (math.IsNaN(x) && math.IsNaN(y)))
	}
	switch x := a.(type) {
	case *OrderedMap:
		y, ok := b.(*OrderedMap)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.Keys() {
			va, _ := x.Get(k)
			vb, ok := y.Get(k)
			if !ok || !equalValue(va, vb) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}
