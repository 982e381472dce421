package gcf

/*
#include "gcf.h"
*/
import "C"

import (
	"encoding/json"
	"runtime"
)

// Symbol is a node of a graph payload.
type Symbol struct {
	QualifiedName string  `json:"qualifiedName"` // fully qualified identifier, no whitespace
	Kind          string  `json:"kind"`          // "function", "type", "method", ... (written abbreviated)
	Score         float64 `json:"score"`         // relevance, written with two decimals
	Provenance    string  `json:"provenance"`    // discovery method: "lsp_resolved", ...
	Distance      int     `json:"distance"`      // hops from the targets: 0 targets, 1 related, 2 extended
}

// Edge is a directed relationship between two symbols named by qualified name.
type Edge struct {
	Source   string `json:"source"`
	Target   string `json:"target"`
	EdgeType string `json:"edgeType"`
	Status   string `json:"status,omitempty"` // "added", "removed"; "" or "unchanged" for none
}

// Location is where a symbol is defined (spec §6b); EndLine/EndColumn 0 for none.
type Location struct {
	QualifiedName string `json:"qualifiedName"`
	File          string `json:"file"`
	Line          int    `json:"line"`
	Column        int    `json:"column"`
	EndLine       int    `json:"endLine,omitempty"`
	EndColumn     int    `json:"endColumn,omitempty"`
}

// Payload is a graph payload, the input of Encode and the output of Decode.
type Payload struct {
	Tool        string     `json:"tool,omitempty"`
	TokensUsed  int        `json:"tokensUsed,omitempty"`
	TokenBudget int        `json:"tokenBudget,omitempty"`
	PackRoot    string     `json:"packRoot,omitempty"`
	Symbols     []Symbol   `json:"symbols,omitempty"`
	Edges       []Edge     `json:"edges,omitempty"`
	Locations   []Location `json:"locations,omitempty"`
	// Decoded only: the header said session=true / unchanged=true.
	Session   bool `json:"session,omitempty"`
	Unchanged bool `json:"unchanged,omitempty"`
}

// Snapshot is the logical content a pack root identifies.
type Snapshot struct {
	Symbols []Symbol `json:"symbols,omitempty"`
	Edges   []Edge   `json:"edges,omitempty"`
}

// DeltaPayload is the difference between a consumer's pack and the current one.
// Removed symbols need only Kind and QualifiedName.
type DeltaPayload struct {
	Tool         string
	BaseRoot     string
	NewRoot      string
	Removed      []Symbol
	Added        []Symbol
	RemovedEdges []Edge
	AddedEdges   []Edge
	DeltaTokens  int
	FullTokens   int
}

type symbolRef struct {
	Kind          string `json:"kind"`
	QualifiedName string `json:"qualifiedName"`
}

type deltaWire struct {
	Tool         string      `json:"tool,omitempty"`
	BaseRoot     string      `json:"baseRoot"`
	NewRoot      string      `json:"newRoot"`
	Removed      []symbolRef `json:"removed"`
	Added        []Symbol    `json:"added"`
	RemovedEdges []Edge      `json:"removedEdges"`
	AddedEdges   []Edge      `json:"addedEdges"`
	DeltaTokens  int         `json:"deltaTokens,omitempty"`
	FullTokens   int         `json:"fullTokens,omitempty"`
}

func marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &Error{status: StatusJSONError, category: "invalid_input", message: err.Error()}
	}
	return b, nil
}

func unmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return &Error{status: StatusJSONError, category: "invalid_input", message: "libgcf returned unexpected JSON: " + err.Error()}
	}
	return nil
}

// Encode serializes a payload into GCF text (spec §5-6b).
func Encode(p *Payload) (string, error) {
	in, err := marshal(p)
	if err != nil {
		return "", err
	}
	return EncodeJSON(in)
}

// EncodeJSON encodes a graph payload given as JSON (camelCase field names).
func EncodeJSON(payloadJSON []byte) (string, error) {
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_encode(bytesPtr(payloadJSON), C.size_t(len(payloadJSON)), out, e)
	})
	runtime.KeepAlive(payloadJSON)
	return string(out), err
}

// Decode parses graph-profile GCF text.
func Decode(input string) (*Payload, error) {
	in := []byte(input)
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_decode(bytesPtr(in), C.size_t(len(in)), out, e)
	})
	if err != nil {
		return nil, err
	}
	p := &Payload{}
	if err := unmarshal(out, p); err != nil {
		return nil, err
	}
	return p, nil
}

// EncodeDelta serializes a delta payload (spec §10.1).
func EncodeDelta(d *DeltaPayload) (string, error) {
	w := deltaWire{
		Tool: d.Tool, BaseRoot: d.BaseRoot, NewRoot: d.NewRoot,
		Added: d.Added, RemovedEdges: d.RemovedEdges, AddedEdges: d.AddedEdges,
		DeltaTokens: d.DeltaTokens, FullTokens: d.FullTokens,
		Removed: make([]symbolRef, len(d.Removed)),
	}
	for i, s := range d.Removed {
		w.Removed[i] = symbolRef{Kind: s.Kind, QualifiedName: s.QualifiedName}
	}
	in, err := marshal(w)
	if err != nil {
		return "", err
	}
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_encode_delta(bytesPtr(in), C.size_t(len(in)), out, e)
	})
	return string(out), err
}

// PackRoot is the content identity sha256:<hex> of a snapshot (spec §10.2).
func PackRoot(s *Snapshot) (string, error) {
	in, err := marshal(s)
	if err != nil {
		return "", err
	}
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_pack_root(bytesPtr(in), C.size_t(len(in)), out, e)
	})
	return string(out), err
}

// ApplyDelta decodes a delta and applies it to base, verifying both roots.
func ApplyDelta(base *Snapshot, delta string) (*Snapshot, error) {
	in, err := marshal(base)
	if err != nil {
		return nil, err
	}
	d := []byte(delta)
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_apply_delta(bytesPtr(in), C.size_t(len(in)), bytesPtr(d), C.size_t(len(d)), out, e)
	})
	if err != nil {
		return nil, err
	}
	s := &Snapshot{}
	if err := unmarshal(out, s); err != nil {
		return nil, err
	}
	return s, nil
}

// Outcome says which answer Respond chose (spec §10.3).
type Outcome int

// The outcomes.
const (
	OutcomeUnchanged Outcome = 1
	OutcomeDelta     Outcome = 2
	OutcomeFull      Outcome = 3
)

// Respond answers a consumer that echoed echoedRoot ("" on a first request):
// a header-only unchanged payload, a delta against held (nil when the
// producer no longer holds that snapshot), or the full payload.
func Respond(echoedRoot string, held *Snapshot, current *Payload) (Outcome, string, error) {
	cur, err := marshal(current)
	if err != nil {
		return 0, "", err
	}
	var heldJSON []byte
	if held != nil {
		if heldJSON, err = marshal(held); err != nil {
			return 0, "", err
		}
	}
	root := []byte(echoedRoot)
	var outcome C.gcf_outcome
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		var rootPtr *C.uint8_t
		if echoedRoot != "" {
			rootPtr = bytesPtr(root)
		}
		return C.gcf_graph_delta(bytesPtr(heldJSON), C.size_t(len(heldJSON)), bytesPtr(cur), C.size_t(len(cur)),
			rootPtr, C.size_t(len(root)), &outcome, out, e)
	})
	if err != nil {
		return 0, "", err
	}
	return Outcome(outcome), string(out), nil
}

// Session tracks symbols already sent, so later payloads carry bare
// references (spec §9). Safe for use by one goroutine at a time; Close it
// (or let the garbage collector) to release it.
type Session struct {
	ptr *C.gcf_graph_session
}

// NewSession creates a session.
func NewSession() *Session {
	s := &Session{}
	var cerr *C.gcf_error
	if C.gcf_graph_session_new(&s.ptr, &cerr) != C.GCF_STATUS_OK {
		C.gcf_error_free(cerr)
		panic("gcf: cannot create a session")
	}
	runtime.SetFinalizer(s, (*Session).Close)
	return s
}

// Close releases the session.
func (s *Session) Close() {
	if s.ptr != nil {
		C.gcf_graph_session_free(s.ptr)
		s.ptr = nil
	}
}

// EncodeWithSession encodes p within session s.
func EncodeWithSession(p *Payload, s *Session) (string, error) {
	in, err := marshal(p)
	if err != nil {
		return "", err
	}
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_session_encode(s.ptr, bytesPtr(in), C.size_t(len(in)), out, e)
	})
	runtime.KeepAlive(s)
	return string(out), err
}

// EncodeJSONWithSession is EncodeWithSession for a payload given as JSON.
func EncodeJSONWithSession(payloadJSON []byte, s *Session) (string, error) {
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_session_encode(s.ptr, bytesPtr(payloadJSON), C.size_t(len(payloadJSON)), out, e)
	})
	runtime.KeepAlive(s)
	return string(out), err
}

func packRootJSON(snapshot []byte) (string, error) {
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_pack_root(bytesPtr(snapshot), C.size_t(len(snapshot)), out, e)
	})
	return string(out), err
}

func encodeDeltaJSON(delta []byte) (string, error) {
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_encode_delta(bytesPtr(delta), C.size_t(len(delta)), out, e)
	})
	return string(out), err
}
