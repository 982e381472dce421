package gcf

/*
#include <stdbool.h>
#include <gcf.h>
*/
import "C"

import (
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
)

// GenericDelta is the difference between two states of a keyed set (spec
// §10a.2): rows added, rows changed (whole-row replacement) and identities
// removed, between the sets whose pack roots are BaseRoot and NewRoot.
// With a non-zero FullTokens the header carries savings=.
type GenericDelta struct {
	Tool        string           `json:"tool,omitempty"`
	Key         string           `json:"key"`
	Fields      []string         `json:"fields"`
	BaseRoot    string           `json:"baseRoot"`
	NewRoot     string           `json:"newRoot"`
	Added       []map[string]any `json:"added,omitempty"`
	Changed     []map[string]any `json:"changed,omitempty"`
	Removed     []any            `json:"removed,omitempty"`
	DeltaTokens int              `json:"deltaTokens,omitempty"`
	FullTokens  int              `json:"fullTokens,omitempty"`
}

// keyedSetJSON marshals a keyed set; nil rows become [] (an empty set), as
// libgcf requires the rows array.
func keyedSetJSON(set *KeyedSet) ([]byte, error) {
	if set == nil {
		return nil, &Error{status: StatusInvalidArgument, class: "usage", category: "invalid_input", message: "the keyed set is nil"}
	}
	if set.Rows == nil {
		c := *set
		c.Rows = []map[string]any{}
		set = &c
	}
	return marshal(set)
}

// unmarshalKeyedSet reads libgcf's keyed-set JSON; numbers stay exact as json.Number.
func unmarshalKeyedSet(b []byte) (*KeyedSet, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	set := &KeyedSet{}
	if err := dec.Decode(set); err != nil {
		return nil, &Error{status: StatusJSONError, class: "json", category: "invalid_input", message: "libgcf returned unexpected JSON: " + err.Error()}
	}
	return set, nil
}

// EncodeGenericFull encodes a keyed set as a delta-participating full payload
// (spec §10a.3): pack_root= and key= in the header, the identity column
// marked @. tool "" omits tool=.
func EncodeGenericFull(set *KeyedSet, tool string) (string, error) {
	in, err := keyedSetJSON(set)
	if err != nil {
		return "", err
	}
	s, err := EncodeGenericFullJSON(in, tool)
	return s, ofValue(err, "set")
}

// EncodeGenericFullJSON is EncodeGenericFull of {"name", "key", "fields", "rows"} JSON.
func EncodeGenericFullJSON(set []byte, tool string) (string, error) {
	t := []byte(tool)
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_encode_full(bytesPtr(set), C.size_t(len(set)), bytesPtr(t), C.size_t(len(t)), out, e)
	})
	return string(out), err
}

// EncodeGenericDelta serializes a generic delta (spec §10a.2).
func EncodeGenericDelta(d *GenericDelta) (string, error) {
	in, err := marshal(d)
	if err != nil {
		return "", err
	}
	s, err := EncodeGenericDeltaJSON(in)
	return s, ofValue(err, "delta")
}

// EncodeGenericDeltaJSON is EncodeGenericDelta of {"tool", "key", "fields",
// "baseRoot", "newRoot", "added", "changed", "removed", "deltaTokens",
// "fullTokens"} JSON; rows keep their member order and integers stay exact.
func EncodeGenericDeltaJSON(delta []byte) (string, error) {
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_encode_delta(bytesPtr(delta), C.size_t(len(delta)), out, e)
	})
	return string(out), err
}

// ApplyGenericDelta decodes a delta payload and applies it to base (spec
// §10a.5), verifying base_root before and new_root after. It is atomic: on
// any error (category "base_mismatch", "delta_invalid", "root_mismatch",
// "malformed_delta", ...) base is
// untouched and no set is returned. Numbers in the result are json.Number.
func ApplyGenericDelta(base *KeyedSet, delta string) (*KeyedSet, error) {
	return applyGenericDelta(base, delta, nil)
}

// ApplyGenericDeltaWithLimits is ApplyGenericDelta with the delta decoded
// under the caller's decode limits (spec §12; see Limits): a delta past one
// is an *Error of category limit_exceeded at its line, and base is untouched.
func ApplyGenericDeltaWithLimits(base *KeyedSet, delta string, limits Limits) (*KeyedSet, error) {
	l := limits.c()
	return applyGenericDelta(base, delta, &l)
}

func applyGenericDelta(base *KeyedSet, delta string, limits *C.gcf_limits) (*KeyedSet, error) {
	in, err := keyedSetJSON(base)
	if err != nil {
		return nil, err
	}
	out, err := applyGenericDeltaJSON(in, delta, limits)
	if err != nil {
		return nil, err
	}
	return unmarshalKeyedSet(out)
}

// ApplyGenericDeltaJSON is ApplyGenericDelta on keyed-set JSON: the result
// is {"name", "key", "fields", "rows"} JSON.
func ApplyGenericDeltaJSON(base []byte, delta string) ([]byte, error) {
	return applyGenericDeltaJSON(base, delta, nil)
}

// ApplyGenericDeltaJSONWithLimits is ApplyGenericDeltaJSON under the
// caller's decode limits (see ApplyGenericDeltaWithLimits).
func ApplyGenericDeltaJSONWithLimits(base []byte, delta string, limits Limits) ([]byte, error) {
	l := limits.c()
	return applyGenericDeltaJSON(base, delta, &l)
}

func applyGenericDeltaJSON(base []byte, delta string, limits *C.gcf_limits) ([]byte, error) {
	d := []byte(delta)
	return callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_apply_delta_with_limits(bytesPtr(base), C.size_t(len(base)), bytesPtr(d), C.size_t(len(d)), limits, out, e)
	})
}

// GenericRespond answers a consumer of a keyed set (spec §10a.4): a
// header-only unchanged payload when held has current's root, a delta when
// one is allowed and under 60% of the full size, and the full payload
// otherwise. held is the set the producer still holds for the root the
// consumer echoed, nil when it holds none (a first request or an unknown root).
func GenericRespond(held, current *KeyedSet, tool string) (Outcome, string, error) {
	cur, err := keyedSetJSON(current)
	if err != nil {
		return 0, "", err
	}
	var heldJSON []byte
	if held != nil {
		if heldJSON, err = keyedSetJSON(held); err != nil {
			return 0, "", err
		}
	}
	return GenericRespondJSON(heldJSON, cur, tool)
}

// GenericRespondJSON is GenericRespond on keyed-set JSON; an empty held means none.
func GenericRespondJSON(held, current []byte, tool string) (Outcome, string, error) {
	t := []byte(tool)
	var outcome C.gcf_outcome
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_delta(bytesPtr(held), C.size_t(len(held)), bytesPtr(current), C.size_t(len(current)),
			bytesPtr(t), C.size_t(len(t)), &outcome, out, e)
	})
	if err != nil {
		return 0, "", err
	}
	return Outcome(outcome), string(out), nil
}

// ReanchorPolicy says when a GenericDeltaSession sends a full payload
// instead of a delta (spec §10a.8). The zero value is ReanchorFixedN(0).
type ReanchorPolicy struct {
	mode uint32
	n    int
}

// ReanchorFixedN makes turns n, 2n, 3n, ... of the session full payloads,
// counted from its start (failed turns included), as gcf-go counts them;
// n 0 means the spec's suggested 15.
func ReanchorFixedN(n int) ReanchorPolicy {
	return ReanchorPolicy{mode: C.GCF_REANCHOR_FIXED_N, n: n}
}

// ReanchorSizeGuard sends a full payload once the deltas since the last one,
// plus this turn's, reach the size of this turn's full payload.
func ReanchorSizeGuard() ReanchorPolicy {
	return ReanchorPolicy{mode: C.GCF_REANCHOR_SIZE_GUARD}
}

// GenericDeltaSession produces the payloads for successive states of one
// keyed set: InitialFull first, then Next per update, which returns a delta
// or, when the schema changed, a delta is not allowed, or the policy
// re-anchors, a full payload. Safe for concurrent use; Close it (or let the
// garbage collector) to release it.
type GenericDeltaSession struct {
	mu  sync.Mutex
	ptr *C.gcf_generic_delta_session
}

// NewGenericDeltaSession starts a session whose consumer first receives base
// in full; tool "" omits tool= from full payloads.
func NewGenericDeltaSession(base *KeyedSet, tool string, policy ReanchorPolicy) (*GenericDeltaSession, error) {
	in, err := keyedSetJSON(base)
	if err != nil {
		return nil, err
	}
	return NewGenericDeltaSessionJSON(in, tool, policy)
}

// NewGenericDeltaSessionJSON is NewGenericDeltaSession of keyed-set JSON.
func NewGenericDeltaSessionJSON(base []byte, tool string, policy ReanchorPolicy) (*GenericDeltaSession, error) {
	if policy.n < 0 {
		return nil, &Error{status: StatusInvalidArgument, class: "usage", category: "invalid_input", message: "ReanchorFixedN: n is negative"}
	}
	t := []byte(tool)
	s := &GenericDeltaSession{}
	err := callStatus(func(e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_delta_session_new(bytesPtr(base), C.size_t(len(base)), bytesPtr(t), C.size_t(len(t)),
			C.uint32_t(policy.mode), C.size_t(policy.n), &s.ptr, e)
	})
	if err != nil {
		return nil, err
	}
	runtime.SetFinalizer(s, (*GenericDeltaSession).Close)
	return s, nil
}

func errSessionClosed() error {
	return &Error{status: StatusInvalidState, class: "state", category: "invalid_state", message: "the generic delta session is closed"}
}

// InitialFull is the full payload of the set the consumer holds now: the
// first thing to send, and at any time a valid manual re-anchor. It does not
// advance the session.
func (s *GenericDeltaSession) InitialFull() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ptr == nil {
		return "", errSessionClosed()
	}
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_delta_session_initial_full(s.ptr, out, e)
	})
	return string(out), err
}

// Next moves the session to set and returns the payload to send and whether
// it is a full payload. On error the session holds the set it held; the call
// still counts as a turn of the ReanchorFixedN cadence, as gcf-go counts it.
func (s *GenericDeltaSession) Next(set *KeyedSet) (string, bool, error) {
	in, err := keyedSetJSON(set)
	if err != nil {
		// libgcf counts a turn whose set it cannot read: no set is one.
		s.NextJSON(nil)
		return "", false, err
	}
	return s.NextJSON(in)
}

// NextJSON is Next of keyed-set JSON.
func (s *GenericDeltaSession) NextJSON(set []byte) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ptr == nil {
		return "", false, errSessionClosed()
	}
	var full C.bool
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_delta_session_next(s.ptr, bytesPtr(set), C.size_t(len(set)), out, &full, e)
	})
	if err != nil {
		return "", false, err
	}
	return string(out), bool(full), nil
}

// Close releases the session; later calls return an "invalid_state" error.
// Closing twice is harmless.
func (s *GenericDeltaSession) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ptr != nil {
		C.gcf_generic_delta_session_free(s.ptr)
		s.ptr = nil
	}
}
