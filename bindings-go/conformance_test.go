package gcf

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The official fixtures, read at run time (never copied): ../../shared/conformance
// from this folder, the worktree's sibling shared/ folder.
const conformanceDir = "../../shared/conformance"

type fixture struct {
	Operation      string          `json:"operation"`
	Input          json.RawMessage `json:"input"`
	InputBase64    string          `json:"inputBase64"`
	Expected       json.RawMessage `json:"expected"`
	ExpectedError  string          `json:"expectedError"`
	Options        map[string]any  `json:"options"`
	Calls          []struct{ Input, Expected json.RawMessage }
	BaseSnapshot   json.RawMessage `json:"base_snapshot"`
	ExpectedSnap   json.RawMessage `json:"expected_snapshot"`
	BaseRoot       string          `json:"base_root"`
	NewRoot        string          `json:"new_root"`
	CanonicalBytes *string         `json:"canonicalBytes"`
}

// TestConformance runs every fixture; an operation this binding does not
// run fails the test by name, so none is skipped silently.
func TestConformance(t *testing.T) {
	var files []string
	filepath.Walk(conformanceDir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no fixtures under %s", conformanceDir)
	}
	passed, notExposed := 0, map[string]int{}
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var f fixture
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Errorf("%s: unreadable: %v", path, err)
			continue
		}
		rel, _ := filepath.Rel(conformanceDir, path)
		ran, why := runFixture(&f)
		switch {
		case !ran:
			notExposed[f.Operation]++
		case why != "":
			t.Errorf("%s: %s: %s", rel, f.Operation, why)
		default:
			passed++
		}
	}
	t.Logf("conformance: %d passed, %d failed", passed, len(files)-passed-sum(notExposed))
	if len(notExposed) > 0 {
		t.Errorf("operations this binding does not run: %v", notExposed)
	}
}

// TestSharedConformanceDispatch runs every fixture through libgcf's shared
// dispatch, the few lines each binding needs (TestConformance above drives
// this package's own API instead).
func TestSharedConformanceDispatch(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(conformanceDir, "*", "*.json"))
	if len(files) < 281 {
		t.Fatalf("only %d fixtures under %s", len(files), conformanceDir)
	}
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		v, err := runConformanceFixture(raw)
		if err != nil || v.Status != "pass" {
			t.Errorf("%s: %s: %s %v", path, v.Operation, v.Detail, err)
		}
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func text(raw json.RawMessage) string {
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

// runFixture reports whether the operation is exposed and, if it ran, what differed.
func runFixture(f *fixture) (bool, string) {
	switch f.Operation {
	case "encode", "roundtrip":
		if isGraph(f.Input) {
			return true, expectText(EncodeJSON(f.Input))(text(f.Expected))
		}
		out, err := EncodeGenericJSON(f.Input)
		if msg := expectText(out, err)(text(f.Expected)); msg != "" {
			return true, msg
		}
		back, err := DecodeGenericJSON(out)
		if err != nil {
			return true, "decoding the output: " + err.Error()
		}
		return true, sameJSON(back, f.Input)
	case "encode-error":
		_, err := EncodeGenericJSON(f.Input)
		return true, expectCategory(err, f.ExpectedError)
	case "roundtrip-wire":
		back, err := DecodeGenericJSON(text(f.Input))
		if err != nil {
			return true, err.Error()
		}
		return true, expectText(EncodeGenericJSON(back))(text(f.Expected))
	case "decode":
		in := text(f.Input)
		if strings.HasPrefix(in, "GCF profile=graph") {
			p, err := Decode(in)
			if err != nil {
				return true, err.Error()
			}
			var want Payload
			json.Unmarshal(f.Expected, &want)
			p.Locations, want.Locations = nil, nil
			if !reflect.DeepEqual(norm(p), norm(&want)) {
				return true, "decoded differs"
			}
			return true, ""
		}
		got, err := DecodeGenericJSON(in)
		if err != nil {
			return true, err.Error()
		}
		return true, sameJSON(got, f.Expected)
	case "error":
		in := []byte(text(f.Input))
		if f.InputBase64 != "" {
			in, _ = base64.StdEncoding.DecodeString(f.InputBase64)
		}
		s := string(in)
		var err error
		first := strings.SplitN(s, "\n", 2)[0]
		switch {
		case strings.HasPrefix(first, "GCF profile=generic"):
			_, err = DecodeGenericJSON(s)
		case strings.Contains(" "+first+" ", " delta=true "):
			_, err = ApplyDelta(&Snapshot{}, s)
		default:
			_, err = Decode(s)
		}
		if msg := expectCategory(err, f.ExpectedError); msg != "" {
			return true, msg
		}
		if e, ok := err.(*Error); ok && e.Line() == 0 {
			return true, "error has no line: " + e.Error()
		}
		return true, ""
	case "session":
		s := NewSession()
		defer s.Close()
		for i, call := range f.Calls {
			if msg := expectText(EncodeJSONWithSession(call.Input, s))(text(call.Expected)); msg != "" {
				return true, "call " + string(rune('0'+i)) + ": " + msg
			}
		}
		return true, ""
	case "graph-stream-encode":
		var p Payload
		if err := json.Unmarshal(f.Input, &p); err != nil {
			return true, err.Error()
		}
		var buf bytes.Buffer
		labeled, _ := f.Options["labeledTrailerCounts"].(bool)
		enc := NewStreamEncoder(&buf, p.Tool, StreamOptions{TokenBudget: p.TokenBudget, TokensUsed: p.TokensUsed, LabeledTrailerCounts: labeled})
		for _, s := range p.Symbols {
			if _, err := enc.WriteSymbol(s); err != nil {
				return true, err.Error()
			}
		}
		for _, e := range p.Edges {
			if err := enc.WriteEdge(e); err != nil {
				return true, err.Error()
			}
		}
		err := enc.Close()
		return true, expectText(buf.String(), err)(text(f.Expected))
	case "pack-root":
		return true, expectText(packRootJSON(f.Input))(text(f.Expected))
	case "generic-pack-root":
		return true, expectText(GenericPackRootJSON(f.Input))(text(f.Expected))
	case "delta":
		if !bytes.HasPrefix(bytes.TrimSpace(f.Input), []byte(`"`)) {
			return true, expectText(encodeDeltaJSON(f.Input))(text(f.Expected))
		}
		var base, want Snapshot
		json.Unmarshal(f.BaseSnapshot, &base)
		json.Unmarshal(f.ExpectedSnap, &want)
		if r, _ := SnapshotPackRoot(&base); r != f.BaseRoot {
			return true, "base root " + r
		}
		got, err := ApplyDelta(&base, text(f.Input))
		if err != nil {
			return true, err.Error()
		}
		if r, _ := SnapshotPackRoot(got); r != f.NewRoot {
			return true, "new root " + r
		}
		if !reflect.DeepEqual(norm(&Payload{Symbols: got.Symbols, Edges: got.Edges}), norm(&Payload{Symbols: want.Symbols, Edges: want.Edges})) {
			return true, "applied snapshot differs"
		}
		return true, ""
	case "delta-verify":
		var base Snapshot
		json.Unmarshal(f.BaseSnapshot, &base)
		_, err := ApplyDelta(&base, text(f.Input))
		return true, expectCategory(err, f.ExpectedError)
	case "generic-delta":
		return true, expectText(EncodeGenericDeltaJSON(f.Input))(text(f.Expected))
	case "generic-delta-decode":
		var in struct {
			Wire string          `json:"wire"`
			Base json.RawMessage `json:"base"`
		}
		if err := json.Unmarshal(f.Input, &in); err != nil {
			return true, err.Error()
		}
		return true, expectApplied(f)(ApplyGenericDeltaJSON(in.Base, in.Wire))
	case "generic-delta-verify":
		// The delta described as JSON, claiming expectedNewRoot, goes over the
		// wire and is applied to the base.
		var in struct {
			Base            json.RawMessage            `json:"base"`
			Delta           map[string]json.RawMessage `json:"delta"`
			ExpectedNewRoot string                     `json:"expectedNewRoot"`
		}
		if err := json.Unmarshal(f.Input, &in); err != nil {
			return true, err.Error()
		}
		in.Delta["newRoot"], _ = json.Marshal(in.ExpectedNewRoot)
		delta, _ := json.Marshal(in.Delta)
		wire, err := EncodeGenericDeltaJSON(delta)
		if err != nil {
			return true, "encoding the delta: " + err.Error()
		}
		return true, expectApplied(f)(ApplyGenericDeltaJSON(in.Base, wire))
	case "generic-delta-session":
		return true, genericDeltaSession(f)
	}
	return false, ""
}

// expectApplied checks an applied keyed set against the fixture: its pack
// root is `expected`, or the apply failed as `expectedError` says.
func expectApplied(f *fixture) func(set []byte, err error) string {
	return func(set []byte, err error) string {
		if f.ExpectedError != "" {
			return expectCategory(err, f.ExpectedError)
		}
		if err != nil {
			return "unexpected error: " + err.Error()
		}
		root, err := GenericPackRootJSON(set)
		return expectText(root, err)(text(f.Expected))
	}
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
		policy = ReanchorFixedN(in.Policy.N)
	case "sizeGuard":
		policy = ReanchorSizeGuard()
	default:
		return "unknown policy " + in.Policy.Mode
	}
	if len(in.Updates) != len(want.Emissions) {
		return fmt.Sprintf("fixture has %d updates but %d emissions", len(in.Updates), len(want.Emissions))
	}
	s, err := NewGenericDeltaSessionJSON(in.Base, in.Tool, policy)
	if err != nil {
		return err.Error()
	}
	defer s.Close()
	if msg := expectText(s.InitialFull())(want.InitialFull); msg != "" {
		return "initial full: " + msg
	}
	for i, update := range in.Updates {
		wire, isFull, err := s.NextJSON(update)
		if msg := expectText(wire, err)(want.Emissions[i].Wire); msg != "" {
			return fmt.Sprintf("turn %d: %s", i+1, msg)
		}
		if isFull != want.Emissions[i].IsFull {
			return fmt.Sprintf("turn %d: isFull %v, want %v", i+1, isFull, want.Emissions[i].IsFull)
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
	for i := range c.Edges {
		if c.Edges[i].Status == "unchanged" {
			c.Edges[i].Status = ""
		}
	}
	return &c
}

func expectText(got string, err error) func(string) string {
	return func(want string) string {
		if err != nil {
			return "unexpected error: " + err.Error()
		}
		if got != want {
			return "got\n" + got + "\nwant\n" + want
		}
		return ""
	}
}

func expectCategory(err error, want string) string {
	if err == nil {
		return "no error; want " + want
	}
	// A few fixtures name the condition in prose ("zero count") rather than
	// by category; those match the error's message.
	if strings.Contains(want, " ") {
		if e, ok := err.(*Error); ok && strings.Contains(strings.ToLower(e.Message()), strings.ToLower(want)) {
			return ""
		}
		return "got " + err.Error() + "; want an error about " + want
	}
	if category(err) != want {
		return "got " + err.Error() + "; want " + want
	}
	return ""
}

// sameJSON compares JSON structurally, numbers by value.
func sameJSON(a, b []byte) string {
	va, err1 := decodeNumbers(a)
	vb, err2 := decodeNumbers(b)
	if err1 != nil || err2 != nil {
		return "unparsable JSON"
	}
	if !equalJSON(va, vb) {
		return "got " + string(a) + "\nwant " + string(b)
	}
	return ""
}

func decodeNumbers(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(y))
		return okx && oky && rx.Cmp(ry) == 0
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equalJSON(v, w) {
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
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(a, b)
	}
}
