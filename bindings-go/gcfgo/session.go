package gcf

import (
	"sync"

	native "github.com/blackwell-systems/gcf-go/internal/native"
)

// Session tracks symbols that have been transmitted to a client, so later
// responses reference them by session id instead of declaring them again.
// Safe for concurrent use.
//
// libgcf keeps the session that encodes; this Session mirrors its ids (a
// symbol's id is its order of first transmission) so Transmitted, GetID and
// Size answer without crossing to C.
type Session struct {
	mu      sync.Mutex
	native  *native.Session
	symbols map[string]int
}

// NewSession creates a new empty session.
func NewSession() *Session {
	return &Session{native: native.NewSession(), symbols: make(map[string]int)}
}

// Transmitted reports whether the symbol was sent in a previous response.
func (s *Session) Transmitted(qname string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.symbols[qname]
	return ok
}

// GetID returns the session id of a transmitted symbol, or -1.
func (s *Session) GetID(qname string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.symbols[qname]; ok {
		return id
	}
	return -1
}

// Record marks symbols as transmitted, assigning the next ids in order.
// libgcf's session learns them by encoding them once (output discarded);
// symbols libgcf refuses to encode are recorded here only.
func (s *Session) Record(symbols []Symbol) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var fresh []Symbol
	for _, sym := range symbols {
		if _, ok := s.symbols[sym.QualifiedName]; !ok {
			fresh = append(fresh, sym)
		}
	}
	if len(fresh) == 0 {
		return
	}
	_, _ = native.EncodeWithSessionChecked(&native.Payload{Symbols: toNativeSymbols(fresh)}, s.native)
	s.recordLocked(fresh)
}

func (s *Session) recordLocked(symbols []Symbol) {
	for _, sym := range symbols {
		if _, ok := s.symbols[sym.QualifiedName]; !ok {
			s.symbols[sym.QualifiedName] = len(s.symbols)
		}
	}
}

// Size returns the number of symbols tracked in this session.
func (s *Session) Size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.symbols)
}

// Reset clears the session state.
func (s *Session) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.native.Close()
	s.native = native.NewSession()
	s.symbols = make(map[string]int)
}

// EncodeWithSession encodes a payload with session deduplication: symbols
// already transmitted are bare references (`@N  # previously transmitted`),
// new ones full declarations, recorded afterwards. A nil session is Encode.
// A payload libgcf refuses gives "" and records nothing
// (EncodeWithSessionChecked gives the error).
func EncodeWithSession(p *Payload, sess *Session) string {
	s, _ := EncodeWithSessionChecked(p, sess)
	return s
}

// EncodeWithSessionChecked is EncodeWithSession returning the error.
func EncodeWithSessionChecked(p *Payload, sess *Session) (string, error) {
	if sess == nil {
		return EncodeChecked(p)
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	out, err := native.EncodeWithSessionChecked(toNativePayload(p), sess.native)
	if err != nil {
		return "", wrap(err, "")
	}
	sess.recordLocked(p.Symbols)
	return out, nil
}
