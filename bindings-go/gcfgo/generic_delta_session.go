package gcf

import (
	native "github.com/blackwell-systems/gcf-go/internal/native"
)

// ReanchorMode selects a GenericDeltaSession's cadence policy.
type ReanchorMode int

const (
	// ReanchorFixedN re-anchors every N turns.
	ReanchorFixedN ReanchorMode = iota
	// ReanchorSizeGuard re-anchors once the deltas since the last anchor
	// reach the size of the current full payload.
	ReanchorSizeGuard
)

// DefaultReanchorN is the default FixedN cadence (SPEC 10a.8).
const DefaultReanchorN = 15

// ReanchorPolicy selects when a GenericDeltaSession re-anchors; construct it
// with FixedN or SizeGuard.
type ReanchorPolicy struct {
	Mode ReanchorMode
	N    int // turns between anchors; FixedN only
}

// FixedN re-anchors every n turns; n <= 0 means DefaultReanchorN.
func FixedN(n int) ReanchorPolicy {
	if n <= 0 {
		n = DefaultReanchorN
	}
	return ReanchorPolicy{Mode: ReanchorFixedN, N: n}
}

// SizeGuard re-anchors once the delta bytes since the last anchor reach the
// current full payload's size.
func SizeGuard() ReanchorPolicy {
	return ReanchorPolicy{Mode: ReanchorSizeGuard}
}

// GenericDeltaSession is a producer loop over successive states of a keyed
// set (SPEC 10a.8): a full payload first, then a delta per state, or a full
// re-anchor when the policy or a schema change says so. libgcf's session
// does the work. Not safe for concurrent use.
type GenericDeltaSession struct {
	s    *native.GenericDeltaSession
	err  error
	turn int
}

// NewGenericDeltaSession starts a session anchored on base; CurrentFull is
// the first payload to send, Next each later one. A base libgcf refuses
// makes every later call return (or, for CurrentFull, give "") its error.
func NewGenericDeltaSession(base GenericSet, tool string, policy ReanchorPolicy) *GenericDeltaSession {
	var p native.ReanchorPolicy
	if policy.Mode == ReanchorSizeGuard {
		p = native.ReanchorSizeGuard()
	} else {
		n := policy.N
		if n <= 0 {
			n = DefaultReanchorN
		}
		p = native.ReanchorFixedN(n)
	}
	s, err := native.NewGenericDeltaSession(toKeyedSet(base), tool, p)
	return &GenericDeltaSession{s: s, err: wrap(err, "")}
}

// CurrentFull is the full payload of the held base (EncodeGenericFull).
// Before any Next that is the initial payload.
func (s *GenericDeltaSession) CurrentFull() string {
	if s.err != nil {
		return ""
	}
	out, _ := s.s.InitialFull()
	return out
}

// Turn is the number of Next calls so far.
func (s *GenericDeltaSession) Turn() int { return s.turn }

// Next advances to next, returning the payload to send and whether it is a
// full re-anchor. The held base becomes next either way.
func (s *GenericDeltaSession) Next(next GenericSet) (string, bool, error) {
	s.turn++
	if s.err != nil {
		return "", false, s.err
	}
	out, full, err := s.s.Next(toKeyedSet(next))
	return out, full, wrap(err, "")
}
