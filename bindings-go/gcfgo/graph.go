package gcf

import (
	"encoding/json"
	"unsafe"

	native "github.com/blackwell-systems/gcf-go/internal/native"
)

// Symbol represents a node in a GCF payload. Signature and Components are
// not on the wire.
type Symbol struct {
	QualifiedName string     // fully qualified identifier (e.g., "pkg/auth.Middleware")
	Kind          string     // node type: "function", "type", "method", etc.
	Score         float64    // relevance score (0.0 to 1.0)
	Provenance    string     // discovery method: "lsp_resolved", "ast_inferred", etc.
	Distance      int        // hops from query center (0=target, 1=related, 2+=extended)
	Signature     string     // optional: function/method signature
	Components    Components // optional: score breakdown
}

// Components holds the score breakdown for a symbol (BlastRadius,
// Confidence, Recency, Distance).
type Components = native.Components

// Edge represents a directed relationship in a GCF payload.
type Edge struct {
	Source   string // qualified name of source symbol
	Target   string // qualified name of target symbol
	EdgeType string
	Status   string // optional: "added", "removed", "unchanged" (for diff responses)
}

// Payload is the input/output structure for GCF encoding/decoding.
type Payload struct {
	Tool        string   // producing tool name (e.g., "context_for_task")
	TokensUsed  int      // actual tokens consumed by this payload
	TokenBudget int      // token budget requested by the consumer
	PackRoot    string   // content-addressed identity, enables delta encoding
	Symbols     []Symbol // ordered by score descending within each distance group
	Edges       []Edge   // directed relationships between symbols
}

// KindAbbrev maps full kind names to short GCF abbreviations.
var KindAbbrev = map[string]string{
	"function": "fn", "type": "type", "method": "method", "interface": "iface",
	"var": "var", "const": "const", "resource": "resource", "table": "table",
	"class": "class", "selector": "selector", "field": "field", "route_handler": "route",
	"external": "ext", "file": "file", "package": "pkg", "service": "svc",
}

// KindExpand is the reverse of KindAbbrev.
var KindExpand = map[string]string{
	"fn": "function", "type": "type", "method": "method", "iface": "interface",
	"var": "var", "const": "const", "resource": "resource", "table": "table",
	"class": "class", "selector": "selector", "field": "field", "route": "route_handler",
	"ext": "external", "file": "file", "pkg": "package", "svc": "service",
}

// Symbol and Edge have the native types' fields in the same order (tags
// differ, which Go ignores): element conversions are struct conversions,
// and slices going to libgcf are reinterpreted in place, not copied.

func toNativeSymbols(ss []Symbol) []native.Symbol {
	if len(ss) == 0 {
		if ss == nil {
			return nil
		}
		return []native.Symbol{}
	}
	// SAFETY: Symbol and native.Symbol have the same fields with the same
	// types in the same order (the struct conversion native.Symbol(s)
	// compiles, which Go allows only then; tags do not affect layout), so
	// their layouts are identical; TestSharedLayouts checks sizes and
	// offsets. The native encoders only read the slice, and no Go pointer
	// is stored in C memory.
	return unsafe.Slice((*native.Symbol)(unsafe.Pointer(&ss[0])), len(ss))
}

func fromNativeSymbols(ss []native.Symbol) []Symbol {
	if ss == nil {
		return nil
	}
	out := make([]Symbol, len(ss))
	for i := range ss {
		out[i] = Symbol(ss[i])
	}
	return out
}

func toNativeEdges(es []Edge) []native.Edge {
	if len(es) == 0 {
		if es == nil {
			return nil
		}
		return []native.Edge{}
	}
	// SAFETY: as for toNativeSymbols: Edge and native.Edge are convertible
	// struct types, so their layouts are identical (TestSharedLayouts).
	return unsafe.Slice((*native.Edge)(unsafe.Pointer(&es[0])), len(es))
}

func fromNativeEdges(es []native.Edge) []Edge {
	if es == nil {
		return nil
	}
	out := make([]Edge, len(es))
	for i := range es {
		out[i] = Edge(es[i])
	}
	return out
}

func toNativePayload(p *Payload) *native.Payload {
	return &native.Payload{
		Tool: p.Tool, TokensUsed: p.TokensUsed, TokenBudget: p.TokenBudget, PackRoot: p.PackRoot,
		Symbols: toNativeSymbols(p.Symbols), Edges: toNativeEdges(p.Edges),
	}
}

// knownEdges drops the edges whose endpoints are not symbols of p, which
// gcf-go's Encode skips silently and libgcf refuses.
func knownEdges(p *native.Payload) {
	names := make(map[string]struct{}, len(p.Symbols))
	for i := range p.Symbols {
		names[p.Symbols[i].QualifiedName] = struct{}{}
	}
	kept := p.Edges[:0:0]
	for _, e := range p.Edges {
		_, s := names[e.Source]
		_, t := names[e.Target]
		if s && t {
			kept = append(kept, e)
		}
	}
	p.Edges = kept
}

// Encode serializes a Payload into GCF text format. Edges whose endpoints
// are not among the symbols are skipped, as in gcf-go. A payload that cannot
// be written as valid GCF (a name with whitespace, a non-finite score) gives
// "": gcf-go's Encode returns no error, and writing an invalid payload is
// not an option. EncodeChecked gives the error.
func Encode(p *Payload) string {
	s, _ := EncodeChecked(p)
	return s
}

// EncodeChecked is Encode returning libgcf's error for a payload it refuses.
func EncodeChecked(p *Payload) (string, error) {
	np := toNativePayload(p)
	s, err := native.EncodeChecked(np)
	if err != nil && category(wrap(err, "")) == "unknown_edge_reference" {
		knownEdges(np)
		s, err = native.EncodeChecked(np)
	}
	return s, wrap(err, "")
}

// Decode parses GCF text back into a Payload. Errors read "gcf: <category>:
// ..." and carry the line and column (errors.As to *Error).
func Decode(input string) (*Payload, error) {
	np, err := native.Decode(input)
	if err != nil {
		return nil, wrap(err, "gcf: ")
	}
	return &Payload{
		Tool: np.Tool, TokensUsed: np.TokensUsed, TokenBudget: np.TokenBudget, PackRoot: np.PackRoot,
		Symbols: ownNativeSymbols(np.Symbols), Edges: ownNativeEdges(np.Edges),
	}, nil
}

// ownNativeSymbols is ss as []Symbol without a copy, for a slice nothing
// else holds (a fresh decode result).
func ownNativeSymbols(ss []native.Symbol) []Symbol {
	if len(ss) == 0 {
		return fromNativeSymbols(ss)
	}
	// SAFETY: as for toNativeSymbols, the layouts are identical
	// (TestSharedLayouts); the caller gives up ss.
	return unsafe.Slice((*Symbol)(unsafe.Pointer(&ss[0])), len(ss))
}

// ownNativeEdges is ownNativeSymbols for edges.
func ownNativeEdges(es []native.Edge) []Edge {
	if len(es) == 0 {
		return fromNativeEdges(es)
	}
	// SAFETY: as for toNativeEdges (TestSharedLayouts).
	return unsafe.Slice((*Edge)(unsafe.Pointer(&es[0])), len(es))
}

// DeltaPayload represents the diff between a prior context pack and the
// current result. Used for incremental context delivery.
type DeltaPayload struct {
	Tool         string
	BaseRoot     string // pack_root the consumer has
	NewRoot      string // pack_root of the current result
	Removed      []Symbol
	Added        []Symbol
	RemovedEdges []Edge
	AddedEdges   []Edge
	DeltaTokens  int
	FullTokens   int
}

func toNativeDelta(d *DeltaPayload) *native.DeltaPayload {
	return &native.DeltaPayload{
		Tool: d.Tool, BaseRoot: d.BaseRoot, NewRoot: d.NewRoot,
		Removed: toNativeSymbols(d.Removed), Added: toNativeSymbols(d.Added),
		RemovedEdges: toNativeEdges(d.RemovedEdges), AddedEdges: toNativeEdges(d.AddedEdges),
		DeltaTokens: d.DeltaTokens, FullTokens: d.FullTokens,
	}
}

// EncodeDelta serializes a DeltaPayload into GCF delta format ("" for a
// delta libgcf refuses; EncodeDeltaChecked gives the error).
func EncodeDelta(d *DeltaPayload) string {
	s, _ := EncodeDeltaChecked(d)
	return s
}

// EncodeDeltaChecked is EncodeDelta returning the error.
func EncodeDeltaChecked(d *DeltaPayload) (string, error) {
	s, err := native.EncodeDeltaChecked(toNativeDelta(d))
	return s, wrap(err, "")
}

// deltaJSON is libgcf's graph delta JSON.
type deltaJSON struct {
	Tool         string          `json:"tool"`
	BaseRoot     string          `json:"baseRoot"`
	NewRoot      string          `json:"newRoot"`
	Removed      []native.Symbol `json:"removed"`
	Added        []native.Symbol `json:"added"`
	RemovedEdges []native.Edge   `json:"removedEdges"`
	AddedEdges   []native.Edge   `json:"addedEdges"`
	DeltaTokens  int             `json:"deltaTokens"`
	FullTokens   int             `json:"fullTokens"`
}

// DecodeDelta parses a GCF graph delta (as produced by EncodeDelta) back
// into a DeltaPayload, kinds expanded to their full names.
func DecodeDelta(input string) (*DeltaPayload, error) {
	out, err := native.GraphDecodeDeltaJSON(input)
	if err != nil {
		return nil, wrap(err, "")
	}
	var w deltaJSON
	if err := json.Unmarshal(out, &w); err != nil {
		return nil, newError("json", "invalid_input", "libgcf returned unexpected JSON: %v", err)
	}
	return &DeltaPayload{
		Tool: w.Tool, BaseRoot: w.BaseRoot, NewRoot: w.NewRoot,
		Removed: fromNativeSymbols(w.Removed), Added: fromNativeSymbols(w.Added),
		RemovedEdges: fromNativeEdges(w.RemovedEdges), AddedEdges: fromNativeEdges(w.AddedEdges),
		DeltaTokens: w.DeltaTokens, FullTokens: w.FullTokens,
	}, nil
}

// PackRoot computes the canonical pack root ("sha256:<hex>") of a graph
// snapshot (gcf-pack-root-v1, SPEC 10.2); "" for a snapshot libgcf refuses.
func PackRoot(symbols []Symbol, edges []Edge) string {
	s, _ := native.PackRootChecked(toNativeSymbols(symbols), toNativeEdges(edges))
	return s
}

// VerifyDelta applies a delta to a base snapshot and verifies that the
// result's pack root is expectedNewRoot. It returns the resulting symbols
// and edges, or an error: delta_invalid (removing what is not there, adding
// what is), root_mismatch.
func VerifyDelta(
	baseSymbols []Symbol, baseEdges []Edge,
	removedSymbols []Symbol, addedSymbols []Symbol,
	removedEdges []Edge, addedEdges []Edge,
	expectedNewRoot string,
) ([]Symbol, []Edge, error) {
	base := &native.Snapshot{Symbols: toNativeSymbols(baseSymbols), Edges: toNativeEdges(baseEdges)}
	baseRoot, err := native.SnapshotPackRoot(base)
	if err != nil {
		return nil, nil, wrap(err, "")
	}
	wire, err := native.EncodeDeltaChecked(&native.DeltaPayload{
		BaseRoot: baseRoot, NewRoot: expectedNewRoot,
		Removed: toNativeSymbols(removedSymbols), Added: toNativeSymbols(addedSymbols),
		RemovedEdges: toNativeEdges(removedEdges), AddedEdges: toNativeEdges(addedEdges),
	})
	if err != nil {
		return nil, nil, wrap(err, "")
	}
	got, err := native.ApplyDelta(base, wire)
	if err != nil {
		return nil, nil, wrap(err, "")
	}
	syms := fromNativeSymbols(got.Symbols)
	if syms == nil {
		syms = []Symbol{}
	}
	edges := fromNativeEdges(got.Edges)
	if edges == nil {
		edges = []Edge{}
	}
	return syms, edges, nil
}
