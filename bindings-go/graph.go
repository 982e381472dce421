package gcf

/*
#include <stdlib.h>
#include <gcf.h>
*/
import "C"

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"unsafe"
)

// Symbol is a node of a graph payload.
type Symbol struct {
	QualifiedName string  `json:"qualifiedName"` // fully qualified identifier, no whitespace
	Kind          string  `json:"kind"`          // "function", "type", "method", ... (written abbreviated)
	Score         float64 `json:"score"`         // relevance, written with two decimals
	Provenance    string  `json:"provenance"`    // discovery method: "lsp_resolved", ...
	Distance      int     `json:"distance"`      // hops from the targets: 0 targets, 1 related, 2 extended
	// Signature and Components are gcf-go's optional extras, kept so code
	// written against it compiles unchanged; the wire format carries neither.
	Signature  string     `json:"-"`
	Components Components `json:"-"`
}

// Components is gcf-go's score breakdown of a symbol (not on the wire).
type Components struct {
	BlastRadius float64
	Confidence  float64
	Recency     float64
	Distance    float64
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
		return nil, &Error{status: StatusJSONError, class: "json", category: "invalid_input", message: err.Error()}
	}
	return b, nil
}

func unmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return &Error{status: StatusJSONError, class: "json", category: "invalid_input", message: "libgcf returned unexpected JSON: " + err.Error()}
	}
	return nil
}

// Encode serializes a payload into GCF text (spec §5-6b). Like gcf-go's
// Encode it returns only the text; a payload the encoder refuses (a name
// with whitespace, a bad score) panics with the *Error. Use EncodeChecked to
// get the error instead.
func Encode(p *Payload) string {
	s, err := EncodeChecked(p)
	if err != nil {
		panic(err)
	}
	return s
}

// EncodeChecked is Encode returning the error. The payload crosses to libgcf
// as C structs over one copy of its strings (gcf_graph_encode_payload), not
// as JSON.
func EncodeChecked(p *Payload) (string, error) {
	text := len(p.Tool) + len(p.PackRoot)
	for i := range p.Symbols {
		s := &p.Symbols[i]
		if s.Distance < 0 || s.Distance > math.MaxUint32 {
			return "", inputError(fmt.Sprintf("symbols[%d]: distance %d is outside 0..4294967295", i, s.Distance))
		}
		text += len(s.QualifiedName) + len(s.Kind) + len(s.Provenance)
	}
	for i := range p.Edges {
		e := &p.Edges[i]
		text += len(e.Source) + len(e.Target) + len(e.EdgeType) + len(e.Status)
	}
	for i := range p.Locations {
		l := &p.Locations[i]
		for _, n := range [...]int{l.Line, l.Column, l.EndLine, l.EndColumn} {
			if n < 0 || n > math.MaxUint32 {
				return "", inputError(fmt.Sprintf("locations[%d]: %d is outside 0..4294967295", i, n))
			}
		}
		text += len(l.QualifiedName) + len(l.File)
	}
	ns, ne, nl := len(p.Symbols), len(p.Edges), len(p.Locations)
	// One C allocation for the structs and the text (libgcf must not see Go
	// pointers inside memory it reads): the structs' sizes are multiples of
	// their 8-byte alignment, so each array starts aligned.
	structs := ns*C.sizeof_gcf_symbol + ne*C.sizeof_gcf_edge + nl*C.sizeof_gcf_location
	mem := C.malloc(C.size_t(structs + text + 1))
	if mem == nil {
		panic("gcf: out of memory")
	}
	defer C.free(mem)
	buf := unsafe.Slice((*byte)(unsafe.Add(mem, structs)), text+1)
	off := 0
	str := func(s string) C.gcf_str {
		if len(s) == 0 {
			return C.gcf_str{}
		}
		at := off
		off += copy(buf[off:], s)
		return C.gcf_str{ptr: (*C.char)(unsafe.Pointer(&buf[at])), len: C.size_t(len(s))}
	}
	cp := C.gcf_graph_payload{
		tool: str(p.Tool), token_budget: C.uint64_t(clampU64(p.TokenBudget)),
		tokens_used: C.uint64_t(clampU64(p.TokensUsed)), pack_root: str(p.PackRoot),
		symbol_count: C.size_t(ns), edge_count: C.size_t(ne), location_count: C.size_t(nl),
	}
	// An edge naming a symbol gets the symbol's own copy of the name, and
	// repeated kinds, provenances and edge types share one copy: the core
	// encoder resolves and interns strings it has seen by address first.
	// Names are matched by the address of their Go bytes in a direct-mapped
	// table (a collision only costs a copy, which the core then resolves
	// by content): a map keyed by the names' text cost more than the
	// whole encode in libgcf at 100,000 symbols.
	names := newAddrTable(ns, text)
	var labels [8]struct {
		s string
		c C.gcf_str
	}
	label := func(s string) C.gcf_str {
		if len(s) == 0 {
			return C.gcf_str{}
		}
		slot := &labels[(len(s)+int(s[0]))%len(labels)]
		if slot.s != s || slot.c.ptr == nil {
			slot.s, slot.c = s, str(s)
		}
		return slot.c
	}
	at := func(c C.gcf_str) uint32 {
		return uint32(uintptr(unsafe.Pointer(c.ptr)) - uintptr(unsafe.Pointer(&buf[0])))
	}
	if ns > 0 {
		cp.symbols = (*C.gcf_symbol)(mem)
		syms := unsafe.Slice(cp.symbols, ns)
		for i := range p.Symbols {
			s := &p.Symbols[i]
			name := str(s.QualifiedName)
			if name.ptr != nil {
				names.put(s.QualifiedName, at(name))
			}
			syms[i] = C.gcf_symbol{qualified_name: name, kind: label(s.Kind),
				score: C.double(s.Score), provenance: label(s.Provenance), distance: C.uint32_t(s.Distance)}
		}
	}
	name := func(s string) C.gcf_str {
		if off, ok := names.get(s); ok {
			return C.gcf_str{ptr: (*C.char)(unsafe.Pointer(&buf[off])), len: C.size_t(len(s))}
		}
		return str(s)
	}
	if ne > 0 {
		cp.edges = (*C.gcf_edge)(unsafe.Add(mem, ns*C.sizeof_gcf_symbol))
		edges := unsafe.Slice(cp.edges, ne)
		for i := range p.Edges {
			e := &p.Edges[i]
			edges[i] = C.gcf_edge{source: name(e.Source), target: name(e.Target), edge_type: label(e.EdgeType), status: label(e.Status)}
		}
	}
	if nl > 0 {
		cp.locations = (*C.gcf_location)(unsafe.Add(mem, ns*C.sizeof_gcf_symbol+ne*C.sizeof_gcf_edge))
		locs := unsafe.Slice(cp.locations, nl)
		for i := range p.Locations {
			l := &p.Locations[i]
			locs[i] = C.gcf_location{qualified_name: name(l.QualifiedName), file: str(l.File),
				line: C.uint32_t(l.Line), column: C.uint32_t(l.Column),
				end_line: C.uint32_t(l.EndLine), end_column: C.uint32_t(l.EndColumn)}
		}
	}
	// cp lives in Go memory but holds only C pointers, which cgo allows.
	// Every string is a part of buf, so libgcf checks buf for UTF-8 once.
	return callString(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_encode_payload_in(&cp, (*C.uint8_t)(unsafe.Pointer(&buf[0])), C.size_t(off), out, e)
	})
}

// addrTable maps the address and length of a string's Go bytes to the
// offset of its copy in the C buffer: open addressing with linear probing,
// at most half full. Slots hold integers only, so the garbage collector
// neither scans nor keeps anything through them.
type addrTable struct {
	slots []addrSlot
	mask  uint64
	shift uint
}

type addrSlot struct {
	addr uintptr // 0: free
	len  uint32
	off  uint32
}

// newAddrTable sizes a table for n names in a buffer of text bytes; it
// stays empty (every lookup misses) when offsets or lengths would not fit
// in 32 bits.
func newAddrTable(n, text int) addrTable {
	if n == 0 || text >= math.MaxUint32 {
		return addrTable{}
	}
	bits := uint(1)
	for 1<<bits < 2*n {
		bits++
	}
	return addrTable{slots: make([]addrSlot, 1<<bits), mask: 1<<bits - 1, shift: 64 - bits}
}

// home is the first slot probed for addr. Fibonacci hashing: the
// product's high bits mix every address bit.
func (t *addrTable) home(addr uintptr) uint64 {
	return (uint64(addr) * 0x9E3779B97F4A7C15) >> t.shift
}

// stringAddr is the address of s's bytes. (unsafe.StringData needs Go 1.20;
// a string's header starts with that pointer in every Go release.)
func stringAddr(s string) uintptr {
	return *(*uintptr)(unsafe.Pointer(&s))
}

// put records s's copy at off; a string seen before (same bytes, same
// length) keeps its later copy, as a Go map would.
func (t *addrTable) put(s string, off uint32) {
	if t.slots == nil {
		return
	}
	addr, n := stringAddr(s), uint32(len(s))
	for i := t.home(addr); ; i = (i + 1) & t.mask {
		e := &t.slots[i]
		if e.addr == 0 || (e.addr == addr && e.len == n) {
			*e = addrSlot{addr: addr, len: n, off: off}
			return
		}
	}
}

// get is the offset of the copy of s, if s's bytes were put.
func (t *addrTable) get(s string) (uint32, bool) {
	if t.slots == nil || len(s) == 0 {
		return 0, false
	}
	addr, n := stringAddr(s), uint32(len(s))
	for i := t.home(addr); ; i = (i + 1) & t.mask {
		e := &t.slots[i]
		if e.addr == addr && e.len == n {
			return e.off, true
		}
		if e.addr == 0 {
			return 0, false
		}
	}
}

func inputError(message string) *Error {
	return &Error{status: StatusDataError, class: "input", category: "invalid_input", message: message}
}

// EncodeJSON encodes a graph payload given as JSON (camelCase field names).
func EncodeJSON(payloadJSON []byte) (string, error) {
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_encode(bytesPtr(payloadJSON), C.size_t(len(payloadJSON)), out, e)
	})
	runtime.KeepAlive(payloadJSON)
	return string(out), err
}

// Decode parses graph-profile GCF text. The strings of the result are
// substrings of input wherever the text is there verbatim (names,
// provenances, edge types), so they share input's memory instead of copying
// it; only text the decoder produces (kinds in full form, unescaped paths)
// is new.
func Decode(input string) (*Payload, error) {
	return decodeGraph(input, nil)
}

// DecodeWithLimits is Decode under the caller's decode limits (spec §12;
// see Limits): input past one is an *Error of category limit_exceeded at
// its line.
func DecodeWithLimits(input string, limits Limits) (*Payload, error) {
	l := limits.c()
	return decodeGraph(input, &l)
}

func decodeGraph(input string, limits *C.gcf_limits) (*Payload, error) {
	var out C.gcf_buf
	var cerr *C.gcf_error
	// libgcf reads input's bytes in place: string memory holds no Go
	// pointers, so cgo allows passing it for the call.
	status := C.gcf_graph_decode_packed_with_limits(stringPtr(input), C.size_t(len(input)), limits, &out, &cerr)
	runtime.KeepAlive(input)
	if status != C.GCF_STATUS_OK {
		return nil, takeError(status, cerr)
	}
	defer C.gcf_buf_free(&out)
	var b []byte
	if out.ptr != nil {
		b = unsafe.Slice((*byte)(unsafe.Pointer(out.ptr)), int(out.len))
	}
	p, ok := unpackPayload(b, input)
	if !ok {
		return nil, &Error{status: StatusJSONError, class: "json", category: "invalid_input",
			message: "libgcf returned an unexpected packed payload"}
	}
	return p, nil
}

// decodeViaJSON is Decode through libgcf's JSON output, the form Decode
// used before gcf_graph_decode_packed: the tests' reference.
func decodeViaJSON(input string) (*Payload, error) {
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

// packedResult is a Go copy of gcf_graph_decode_packed's result, for tests.
func packedResult(input string) ([]byte, error) {
	in := []byte(input)
	return callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_decode_packed(bytesPtr(in), C.size_t(len(in)), out, e)
	})
}

// stringPtr is a pointer to s's first byte for a C call, or nil when empty.
func stringPtr(s string) *C.uint8_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.uint8_t)(*(*unsafe.Pointer)(unsafe.Pointer(&s)))
}

// unpacker reads gcf_graph_decode_packed's result (described in gcf.h).
// Every read is bounds-checked: a result that does not fit sets bad.
type unpacker struct {
	b            []byte
	pos          int
	input, arena string
	bad          bool
}

func (u *unpacker) word() uint64 {
	if u.pos > len(u.b)-8 {
		u.bad = true
		return 0
	}
	w := binary.LittleEndian.Uint64(u.b[u.pos:])
	u.pos += 8
	return w
}

func (u *unpacker) int() int {
	w := u.word()
	if w > math.MaxInt {
		u.bad = true
		return 0
	}
	return int(w)
}

func (u *unpacker) span() string {
	off, n := u.word(), u.word()
	if n == 0 {
		return ""
	}
	src := u.input
	if off&C.GCF_PACKED_ARENA != 0 {
		src, off = u.arena, off&^C.GCF_PACKED_ARENA
	}
	if off > uint64(len(src)) || n > uint64(len(src))-off {
		u.bad = true
		return ""
	}
	return src[off : off+n]
}

// records is a record count read from the header, refused when that many
// 8-word records cannot be in the result (no allocation from a bad count).
func (u *unpacker) records() int {
	n := u.word()
	if n > uint64(len(u.b))/64 {
		u.bad = true
		return 0
	}
	return int(n)
}

func unpackPayload(b []byte, input string) (*Payload, bool) {
	u := &unpacker{b: b, input: input}
	if u.word() != C.GCF_PACKED_VERSION {
		return nil, false
	}
	// The arena's place is in the header after the spans; read it first.
	u.pos = 11 * 8
	arenaOff, arenaLen := u.word(), u.word()
	if u.bad || arenaOff > uint64(len(b)) || arenaLen > uint64(len(b))-arenaOff {
		return nil, false
	}
	// The one copy of decoded text: what is not in input.
	u.arena = string(b[arenaOff : arenaOff+arenaLen])
	u.pos = 8
	flags := u.word()
	p := &Payload{Session: flags&1 != 0, Unchanged: flags&2 != 0}
	p.TokenBudget, p.TokensUsed = u.int(), u.int()
	p.Tool, p.PackRoot = u.span(), u.span()
	ns, ne, nl := u.records(), u.records(), u.records()
	u.pos += 16
	if u.bad {
		return nil, false
	}
	// Symbols and edges empty, not nil, and locations nil when there are
	// none, as the JSON form decoded.
	p.Symbols = make([]Symbol, ns)
	for i := range p.Symbols {
		s := &p.Symbols[i]
		s.QualifiedName, s.Kind, s.Provenance = u.span(), u.span(), u.span()
		s.Score = math.Float64frombits(u.word())
		s.Distance = int(u.word())
	}
	p.Edges = make([]Edge, ne)
	for i := range p.Edges {
		e := &p.Edges[i]
		e.Source, e.Target, e.EdgeType, e.Status = u.span(), u.span(), u.span(), u.span()
	}
	if nl > 0 {
		p.Locations = make([]Location, nl)
	}
	for i := range p.Locations {
		l := &p.Locations[i]
		l.QualifiedName, l.File = u.span(), u.span()
		l.Line, l.Column, l.EndLine, l.EndColumn = u.int(), u.int(), u.int(), u.int()
	}
	return p, !u.bad
}

// EncodeDelta serializes a delta payload (spec §10.1), returning only the
// text as gcf-go does; a delta the encoder refuses panics with the *Error.
// Use EncodeDeltaChecked to get the error.
func EncodeDelta(d *DeltaPayload) string {
	s, err := EncodeDeltaChecked(d)
	if err != nil {
		panic(err)
	}
	return s
}

// EncodeDeltaChecked is EncodeDelta returning the error.
func EncodeDeltaChecked(d *DeltaPayload) (string, error) {
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
	return string(out), ofValue(err, "json")
}

// PackRoot is the content identity sha256:<hex> of a graph (spec §10.2),
// with gcf-go's signature; a snapshot libgcf refuses panics with the
// *Error. Use PackRootChecked or SnapshotPackRoot to get the error.
func PackRoot(symbols []Symbol, edges []Edge) string {
	s, err := PackRootChecked(symbols, edges)
	if err != nil {
		panic(err)
	}
	return s
}

// PackRootChecked is PackRoot returning the error.
func PackRootChecked(symbols []Symbol, edges []Edge) (string, error) {
	return SnapshotPackRoot(&Snapshot{Symbols: symbols, Edges: edges})
}

// SnapshotPackRoot is the pack root of a snapshot.
func SnapshotPackRoot(s *Snapshot) (string, error) {
	in, err := marshal(s)
	if err != nil {
		return "", err
	}
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_pack_root(bytesPtr(in), C.size_t(len(in)), out, e)
	})
	return string(out), ofValue(err, "json")
}

// ApplyDelta decodes a delta and applies it to base, verifying both roots.
func ApplyDelta(base *Snapshot, delta string) (*Snapshot, error) {
	return applyDelta(base, delta, nil)
}

// ApplyDeltaWithLimits is ApplyDelta with the delta decoded under the
// caller's decode limits (spec §12; see Limits): a delta past one is an
// *Error of category limit_exceeded at its line, and base is untouched.
func ApplyDeltaWithLimits(base *Snapshot, delta string, limits Limits) (*Snapshot, error) {
	l := limits.c()
	return applyDelta(base, delta, &l)
}

func applyDelta(base *Snapshot, delta string, limits *C.gcf_limits) (*Snapshot, error) {
	in, err := marshal(base)
	if err != nil {
		return nil, err
	}
	d := []byte(delta)
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_apply_delta_with_limits(bytesPtr(in), C.size_t(len(in)), bytesPtr(d), C.size_t(len(d)), limits, out, e)
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

// EncodeWithSession encodes p within session s, returning only the text as
// gcf-go does; a payload the encoder refuses panics with the *Error. Use
// EncodeWithSessionChecked to get the error.
func EncodeWithSession(p *Payload, s *Session) string {
	out, err := EncodeWithSessionChecked(p, s)
	if err != nil {
		panic(err)
	}
	return out
}

// EncodeWithSessionChecked is EncodeWithSession returning the error.
func EncodeWithSessionChecked(p *Payload, s *Session) (string, error) {
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

// SessionDecoder is the consumer side of a session (spec §9.2): decode every
// payload of one session with the same decoder, and a bare reference
// (`@N  # previously transmitted`) comes back as the full symbol an earlier
// payload delivered, edges to it resolved. A reference to an id never
// delivered is an *Error of category unknown_edge_reference (spec §9.4: ask
// the producer for a full payload); a payload without session=true starts a
// new session; on error nothing is remembered. Safe for use by one
// goroutine at a time; Close it (or let the garbage collector) to release it.
type SessionDecoder struct {
	ptr *C.gcf_graph_session_decoder
}

// NewSessionDecoder creates a session decoder with the default decode
// limits and no bound on the symbols it remembers.
func NewSessionDecoder() *SessionDecoder {
	d, err := newSessionDecoder(nil, 0)
	if err != nil {
		panic(err)
	}
	return d
}

// NewSessionDecoderWithLimits creates a session decoder that decodes under
// limits (spec §12; see Limits) and remembers at most maxRetained symbols,
// past which it forgets the session (0: no bound).
func NewSessionDecoderWithLimits(limits Limits, maxRetained int) (*SessionDecoder, error) {
	if maxRetained < 0 {
		return nil, inputError(fmt.Sprintf("maxRetained: %d is below 0", maxRetained))
	}
	l := limits.c()
	return newSessionDecoder(&l, maxRetained)
}

func newSessionDecoder(limits *C.gcf_limits, maxRetained int) (*SessionDecoder, error) {
	d := &SessionDecoder{}
	var cerr *C.gcf_error
	if status := C.gcf_graph_session_decoder_new(limits, C.size_t(maxRetained), &d.ptr, &cerr); status != C.GCF_STATUS_OK {
		return nil, takeError(status, cerr)
	}
	runtime.SetFinalizer(d, (*SessionDecoder).Close)
	return d, nil
}

// Decode decodes one payload of the session.
func (d *SessionDecoder) Decode(input string) (*Payload, error) {
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_session_decoder_decode(d.ptr, stringPtr(input), C.size_t(len(input)), out, e)
	})
	runtime.KeepAlive(input)
	runtime.KeepAlive(d)
	if err != nil {
		return nil, err
	}
	var p Payload
	if err := json.Unmarshal(out, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Len is how many symbols the decoder remembers.
func (d *SessionDecoder) Len() int {
	n := int(C.gcf_graph_session_decoder_len(d.ptr))
	runtime.KeepAlive(d)
	return n
}

// Reset forgets the session.
func (d *SessionDecoder) Reset() {
	C.gcf_graph_session_decoder_reset(d.ptr)
	runtime.KeepAlive(d)
}

// Close releases the decoder.
func (d *SessionDecoder) Close() {
	if d.ptr != nil {
		C.gcf_graph_session_decoder_free(d.ptr)
		d.ptr = nil
	}
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
