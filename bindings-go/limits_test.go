package gcf

import (
	"errors"
	"reflect"
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
