package gcf

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeLimits(t *testing.T) {
	graph := "GCF profile=graph tool=t\n## targets\n@0 fn a.A 0.50 lsp\n@1 fn a.B 0.50 lsp\n@2 fn a.C 0.50 lsp\n"
	rows := "GCF profile=generic\n## rows [3]{id}\n1\n2\n3\n"

	// The zero Limits are the defaults; limits the input passes change nothing.
	whole, err := Decode(graph)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []Limits{{}, {MaxContainerLen: 3, MaxInputLen: uint64(len(graph)), MaxDepth: 2}} {
		p, err := DecodeWithLimits(graph, l)
		if err != nil || !reflect.DeepEqual(p, whole) {
			t.Fatalf("%+v: %v %+v", l, err, p)
		}
	}
	value, err := DecodeGeneric(rows)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := DecodeGenericWithLimits(rows, Limits{MaxContainerLen: 3}); err != nil || !reflect.DeepEqual(v, value) {
		t.Fatalf("%v %v", err, v)
	}

	// Past a limit: limit_exceeded at its line, on both decoders.
	past := []error{}
	_, err = DecodeWithLimits(graph, Limits{MaxContainerLen: 2})
	past = append(past, err)
	_, err = DecodeGenericWithLimits(rows, Limits{MaxContainerLen: 2})
	past = append(past, err)
	_, err = DecodeGenericJSONWithLimits(rows, Limits{MaxLineLen: 4})
	past = append(past, err)
	for i, err := range past {
		var e *Error
		if !errors.As(err, &e) || e.Category() != "limit_exceeded" || e.Status() != StatusDataError || e.Line() < 1 {
			t.Fatalf("case %d: got %v", i, err)
		}
	}
	if _, err := DecodeWithLimits(graph, Limits{MaxInputLen: 10}); category(err) != "limit_exceeded" {
		t.Fatalf("got %v", err)
	}

	// A limit no decoder takes: usage, before anything is decoded.
	for _, l := range []Limits{{MaxDepth: 129}} {
		_, err := DecodeWithLimits(graph, l)
		var e *Error
		if !errors.As(err, &e) || e.Category() != "usage" || e.Status() != StatusInvalidArgument ||
			e.Message() != "limits: max_depth must be from 1 to 128, not 129" {
			t.Fatalf("got %v", err)
		}
		if _, err := DecodeGenericWithLimits(rows, l); category(err) != "usage" {
			t.Fatalf("got %v", err)
		}
	}
}

// The delta appliers take limits as the decoders do: each delta here has two
// lines in one section, so MaxContainerLen 1 stops it at its second.
func TestDeltaLimits(t *testing.T) {
	var kept []Symbol
	for i := 0; i < 40; i++ {
		kept = append(kept, Symbol{QualifiedName: "pkg.F" + string(rune('A'+i)), Kind: "function", Score: 0.5, Provenance: "lsp"})
	}
	held := &Snapshot{Symbols: append(append([]Symbol{}, kept...),
		Symbol{QualifiedName: "pkg.Gone1", Kind: "function", Score: 0.5, Provenance: "lsp"},
		Symbol{QualifiedName: "pkg.Gone2", Kind: "function", Score: 0.5, Provenance: "lsp"})}
	root, err := SnapshotPackRoot(held)
	if err != nil {
		t.Fatal(err)
	}
	outcome, graphDelta, err := Respond(root, held, &Payload{Symbols: kept})
	if err != nil || outcome != OutcomeDelta {
		t.Fatalf("%v %v %q", outcome, err, graphDelta)
	}

	heldSet, currentSet := statusSet(40, "open"), statusSet(38, "open")
	_, genericDelta, err := GenericRespond(heldSet, currentSet, "t")
	if err != nil || !strings.Contains(genericDelta, "## removed [2]") {
		t.Fatalf("%v %q", err, genericDelta)
	}

	graphApply := func(l Limits) (any, error) { return ApplyDeltaWithLimits(held, graphDelta, l) }
	genericApply := func(l Limits) (any, error) { return ApplyGenericDeltaWithLimits(heldSet, genericDelta, l) }
	for i, c := range []struct {
		apply func(Limits) (any, error)
		plain func() (any, error)
		text  string
	}{
		{graphApply, func() (any, error) { return ApplyDelta(held, graphDelta) }, graphDelta},
		{genericApply, func() (any, error) { return ApplyGenericDelta(heldSet, genericDelta) }, genericDelta},
	} {
		want, err := c.plain()
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		for _, l := range []Limits{{}, {MaxContainerLen: 2, MaxInputLen: uint64(len(c.text))}} {
			got, err := c.apply(l)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("case %d %+v: %v", i, l, err)
			}
		}
		for _, l := range []Limits{{MaxContainerLen: 1}, {MaxInputLen: uint64(len(c.text) - 1)}} {
			got, err := c.apply(l)
			var e *Error
			// An over-long input is refused before any line is read.
			if !errors.As(err, &e) || e.Category() != "limit_exceeded" || e.Status() != StatusDataError ||
				(l.MaxContainerLen == 1) != (e.Line() > 2) {
				t.Fatalf("case %d %+v: %v %v", i, l, got, err)
			}
		}
		if _, err := c.apply(Limits{MaxDepth: 129}); category(err) != "usage" {
			t.Fatalf("case %d: %v", i, err)
		}
	}
	if _, err := ApplyGenericDeltaJSONWithLimits([]byte(`{"key":"id","rows":[]}`), genericDelta, Limits{MaxContainerLen: 1}); category(err) != "limit_exceeded" {
		t.Fatalf("got %v", err)
	}
}
