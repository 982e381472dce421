package gcf

import (
	"io"
	"sync"

	native "github.com/blackwell-systems/gcf-go/internal/native"
)

// StreamOptions configures the streaming encoder.
type StreamOptions struct {
	TokenBudget int
	TokensUsed  int
	// PackRoot and Session go into the header as gcf-go writes them
	// (pack_root=..., session=true, after budget= and tokens=). A pack root
	// that is not printable ASCII without spaces would break the header:
	// the encoder then writes nothing at all and Close returns an
	// "invalid_input" error.
	PackRoot string
	Session  bool
	// LabeledTrailerCounts writes counts=targets:2,related:1,edges:3
	// (SPEC 8.4.1) instead of the positional counts=2,1,3.
	LabeledTrailerCounts bool
}

// StreamEncoder writes a graph payload incrementally as symbols and edges
// arrive, with the counts in a "##! summary" trailer written by Close.
// libgcf buffers about 8 KiB before writing to w, and flushes at Close.
//
// As in gcf-go, WriteSymbol and WriteEdge return nothing and an edge naming
// an unknown symbol is skipped; any other failure (w's error, a symbol
// libgcf refuses) is kept and returned by Close. Safe for concurrent use.
type StreamEncoder struct {
	mu      sync.Mutex
	enc     *native.StreamEncoder
	err     error
	symbols int
	edges   int
}

// NewStreamEncoder creates a streaming encoder that writes to w, header
// first (with the first block of output, or at Flush or Close).
func NewStreamEncoder(w io.Writer, tool string, opts StreamOptions) *StreamEncoder {
	return &StreamEncoder{enc: native.NewStreamEncoder(w, tool, native.StreamOptions{
		TokenBudget: opts.TokenBudget, TokensUsed: opts.TokensUsed, LabeledTrailerCounts: opts.LabeledTrailerCounts,
		PackRoot: opts.PackRoot, Session: opts.Session,
	})}
}

func (enc *StreamEncoder) keep(err error) {
	if err != nil && enc.err == nil {
		enc.err = wrap(err, "")
	}
}

// WriteSymbol writes a symbol line; a group header comes first when the
// distance changes.
func (enc *StreamEncoder) WriteSymbol(s Symbol) {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	_, err := enc.enc.WriteSymbol(native.Symbol(s))
	if err == nil {
		enc.symbols++
	}
	enc.keep(err)
}

// WriteEdge writes an edge between previously written symbols; the edges
// section header ("## edges [?]") comes before the first. An edge naming a
// symbol not yet written is skipped.
func (enc *StreamEncoder) WriteEdge(e Edge) {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	err := enc.enc.WriteEdge(native.Edge(e))
	if err == nil {
		enc.edges++
		return
	}
	if category(wrap(err, "")) == "unknown_edge_reference" {
		return
	}
	enc.keep(err)
}

// WriteBareRef writes a bare reference to a previously transmitted symbol
// (session mode): it takes the next id, counts as a symbol, and later edges
// may name it, as in gcf-go.
func (enc *StreamEncoder) WriteBareRef(qname string, distance int) {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	_, err := enc.enc.WriteBareRef(qname, distance)
	if err == nil {
		enc.symbols++
	}
	enc.keep(err)
}

// Flush hands what was written so far to w now (an addition to gcf-go,
// whose encoder wrote every line at once; here output goes to w in blocks
// of about 8 KiB, and the rest on Close). It returns the first error of
// the encoder's life.
func (enc *StreamEncoder) Flush() error {
	return flushKept(&enc.mu, &enc.err, enc.enc.Flush)
}

// flushKept runs flush under mu unless *kept holds an error already, keeps
// its error, and returns the first error of the encoder's life.
func flushKept(mu *sync.Mutex, kept *error, flush func() error) error {
	mu.Lock()
	defer mu.Unlock()
	if *kept == nil {
		if err := flush(); err != nil {
			*kept = wrap(err, "")
		}
	}
	return *kept
}

// Close writes the "##! summary" trailer and flushes. It returns the first
// error of the encoder's life.
func (enc *StreamEncoder) Close() error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	err := enc.enc.Close()
	if enc.err != nil {
		return enc.err
	}
	return wrap(err, "")
}

// SymbolCount returns the number of symbols written so far.
func (enc *StreamEncoder) SymbolCount() int {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	return enc.symbols
}

// EdgeCount returns the number of edges written so far.
func (enc *StreamEncoder) EdgeCount() int {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	return enc.edges
}

// GenericStreamEncoder writes generic-profile tabular output incrementally
// as rows arrive, with the counts in a "##! summary" trailer written by
// Close. As in gcf-go its methods return nothing but Close, which returns
// the first error (w's, or a value libgcf refuses). Safe for concurrent use.
type GenericStreamEncoder struct {
	mu      sync.Mutex
	enc     *native.GenericStreamEncoder
	err     error
	inArray bool
	// The open array is a keyed map: a row is [key, value per field].
	keyed bool
}

// NewGenericStreamEncoder creates a streaming encoder for tabular/generic
// data; the header is written at once.
func NewGenericStreamEncoder(w io.Writer) *GenericStreamEncoder {
	return &GenericStreamEncoder{enc: native.NewGenericStreamEncoder(w)}
}

func (enc *GenericStreamEncoder) keep(err error) {
	if err != nil && enc.err == nil {
		enc.err = wrap(err, "")
	}
}

// BeginArray starts a tabular section with a deferred count ([?]); an open
// array is ended first.
func (enc *GenericStreamEncoder) BeginArray(name string, fields []string) {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if enc.err != nil {
		return
	}
	if enc.inArray {
		enc.keep(enc.enc.EndArray())
		enc.inArray = false
	}
	err := enc.enc.BeginArray(name, fields)
	enc.keep(err)
	enc.inArray, enc.keyed = err == nil, false
}

// BeginKeyedMap starts a keyed map section ([?:]) whose key column is
// keyLabel; each WriteRow is then [key, value per field]. An open array is
// ended first. A label that is also a value field is refused (the
// declaration would name it twice).
func (enc *GenericStreamEncoder) BeginKeyedMap(name, keyLabel string, valueFields []string) {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if enc.err != nil {
		return
	}
	if enc.inArray {
		enc.keep(enc.enc.EndArray())
		enc.inArray, enc.keyed = false, false
	}
	label := keyLabel
	if label == "" {
		// The key column needs a name; gcf-go writes the empty one raw.
		label = "key"
	}
	err := enc.enc.BeginKeyedMap(name, label, valueFields)
	enc.keep(err)
	enc.inArray, enc.keyed = err == nil, err == nil
}

// WriteRow writes one row of the open array; without one it does nothing.
func (enc *GenericStreamEncoder) WriteRow(values []any) {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if enc.err != nil || !enc.inArray {
		return
	}
	if enc.keyed {
		if len(values) == 0 {
			enc.keep(newError("data", "invalid_input", "WriteRow: a keyed map's row starts with its key"))
			return
		}
		// The key as a cell: a string, or a number written bare as the
		// SDKs' streams write it ("7|..."); nil or a bool is refused.
		norm, err := normalizeRow(values)
		if err != nil {
			enc.keep(err)
			return
		}
		enc.keep(enc.enc.WriteKeyedMember(norm))
		return
	}
	norm, err := normalizeRow(values)
	if err != nil {
		enc.keep(err)
		return
	}
	enc.keep(enc.enc.WriteRow(norm))
}

// EndArray ends the open array, if any.
func (enc *GenericStreamEncoder) EndArray() {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if enc.err != nil || !enc.inArray {
		return
	}
	enc.keep(enc.enc.EndArray())
	enc.inArray = false
}

// WriteKV writes a key=value line.
func (enc *GenericStreamEncoder) WriteKV(key string, value any) {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if enc.err != nil {
		return
	}
	if enc.inArray {
		enc.keep(enc.enc.EndArray())
		enc.inArray = false
	}
	v, err := normalizeScalar(value)
	if err != nil {
		enc.keep(err)
		return
	}
	enc.keep(enc.enc.WriteKV(key, v))
}

// WriteSection writes a "## name" section line, ending an open array first.
// What follows is not indented under it (a reader sees an empty section and
// the lines after it in the enclosing object), as the streaming encoders of
// the gcf crate, gcf-python 2.8.0 and the npm package write it.
func (enc *GenericStreamEncoder) WriteSection(name string) {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if enc.err != nil {
		return
	}
	if enc.inArray {
		enc.keep(enc.enc.EndArray())
		enc.inArray = false
	}
	if err := enc.enc.WriteSection(name); err != nil {
		enc.keep(err)
		return
	}
	enc.keep(enc.enc.EndSection())
}

// WriteInlineArray writes a primitive array on one line (name[N]: a,b),
// ending an open array first.
func (enc *GenericStreamEncoder) WriteInlineArray(name string, values []any) {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if enc.err != nil {
		return
	}
	if enc.inArray {
		enc.keep(enc.enc.EndArray())
		enc.inArray, enc.keyed = false, false
	}
	norm, err := normalizeRow(values)
	if err != nil {
		enc.keep(err)
		return
	}
	enc.keep(enc.enc.WriteInlineArray(name, norm))
}

// Flush hands what was written so far to w now (an addition to gcf-go, as
// StreamEncoder.Flush). It returns the first error of the encoder's life.
func (enc *GenericStreamEncoder) Flush() error {
	return flushKept(&enc.mu, &enc.err, enc.enc.Flush)
}

// Close ends an open array, writes the "##! summary" trailer and flushes.
func (enc *GenericStreamEncoder) Close() error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if enc.inArray && enc.err == nil {
		enc.keep(enc.enc.EndArray())
		enc.inArray = false
	}
	err := enc.enc.Close()
	if enc.err != nil {
		return enc.err
	}
	return wrap(err, "")
}
