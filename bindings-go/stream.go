package gcf

/*
#include <stdint.h>
#include <stdlib.h>
#include <gcf.h>

gcf_status gcfgo_graph_stream_new(uintptr_t handle, const gcf_graph_stream_options *options,
                                  gcf_graph_stream **out, gcf_error **err);

// Go strings go to libgcf without a copy: _GoString_ is passed by value and
// only read during the call.
static gcf_status gcfgo_write_symbol(gcf_graph_stream *w, _GoString_ name, _GoString_ kind, double score,
                                     _GoString_ provenance, uint32_t distance, uint64_t *id, gcf_error **err) {
  return gcf_graph_stream_write_symbol(w, (const uint8_t *)_GoStringPtr(name), _GoStringLen(name),
                                       (const uint8_t *)_GoStringPtr(kind), _GoStringLen(kind), score,
                                       (const uint8_t *)_GoStringPtr(provenance), _GoStringLen(provenance),
                                       distance, id, err);
}

static gcf_status gcfgo_write_bare_ref(gcf_graph_stream *w, _GoString_ name, uint32_t distance, uint64_t *id,
                                       gcf_error **err) {
  return gcf_graph_stream_write_bare_ref(w, (const uint8_t *)_GoStringPtr(name), _GoStringLen(name), distance, id,
                                         err);
}

static gcf_status gcfgo_write_edge(gcf_graph_stream *w, uint64_t source, uint64_t target, _GoString_ type,
                                   _GoString_ status, gcf_error **err) {
  return gcf_graph_stream_write_edge(w, source, target, (const uint8_t *)_GoStringPtr(type), _GoStringLen(type),
                                     (const uint8_t *)_GoStringPtr(status), _GoStringLen(status), err);
}

static gcf_status gcfgo_write_edge_by_name(gcf_graph_stream *w, _GoString_ source, _GoString_ target,
                                           _GoString_ type, _GoString_ status, gcf_error **err) {
  return gcf_graph_stream_write_edge_by_name(w, (const uint8_t *)_GoStringPtr(source), _GoStringLen(source),
                                             (const uint8_t *)_GoStringPtr(target), _GoStringLen(target),
                                             (const uint8_t *)_GoStringPtr(type), _GoStringLen(type),
                                             (const uint8_t *)_GoStringPtr(status), _GoStringLen(status), err);
}

static gcf_status gcfgo_write_location(gcf_graph_stream *w, uint64_t id, _GoString_ file, uint32_t line,
                                       uint32_t column, uint32_t end_line, uint32_t end_column, gcf_error **err) {
  return gcf_graph_stream_write_location(w, id, (const uint8_t *)_GoStringPtr(file), _GoStringLen(file), line,
                                         column, end_line, end_column, err);
}
*/
import "C"

import (
	"io"
	"math"
	"runtime"
	"runtime/cgo"
	"sync"
	"unsafe"
)

// StreamOptions configures a StreamEncoder.
type StreamOptions struct {
	TokenBudget int
	TokensUsed  int
	// LabeledTrailerCounts writes counts=targets:2,related:1,edges:3 (spec §8.4.1)
	// instead of the positional counts=2,1,3.
	LabeledTrailerCounts bool
	// PackRoot is written as pack_root= (after tokens=); empty omits it. A
	// value that is not printable ASCII without spaces fails the encoder's
	// creation ("invalid_input", returned by every call) before a byte
	// reaches w.
	PackRoot string
	// Session writes session=true (after pack_root=): the payload continues
	// a session, and WriteBareRef names symbols sent before.
	Session bool
}

// StreamEncoder writes a graph payload to an io.Writer as symbols and edges
// arrive (spec §8), with counts in a trailer written by Close. Output reaches
// the writer in chunks of about 8 KiB, and at Close.
//
// After an error: a refused symbol, edge or location writes nothing and the
// encoder stays usable; a failed write to w (a "sink" error that unwraps to
// w's error) poisons it, and every later call, Flush and Close included,
// returns an "invalid_state" error, as libgcf's streams do for Rust and C.
// A failure creating the encoder is returned by every call. Safe for
// concurrent use.
type StreamEncoder struct {
	mu     sync.Mutex
	ptr    *C.gcf_graph_stream
	handle cgo.Handle
	sink   *writerSink
	err    error
	closed bool
}

// NewStreamEncoder writes the header to w and returns the encoder. Edges may
// be written by qualified name (WriteEdge) or by id (WriteEdgeByID).
func NewStreamEncoder(w io.Writer, tool string, opts StreamOptions) *StreamEncoder {
	enc := &StreamEncoder{sink: &writerSink{w: w}}
	enc.handle = cgo.NewHandle(enc.sink)
	toolC := C.CString(tool)
	defer C.free(unsafe.Pointer(toolC))
	rootC := C.CString(opts.PackRoot)
	defer C.free(unsafe.Pointer(rootC))
	copts := C.gcf_graph_stream_options{
		tool:          (*C.uint8_t)(unsafe.Pointer(toolC)),
		tool_len:      C.size_t(len(tool)),
		token_budget:  C.uint64_t(clampU64(opts.TokenBudget)),
		tokens_used:   C.uint64_t(clampU64(opts.TokensUsed)),
		trailer:       C.GCF_TRAILER_POSITIONAL,
		index_names:   true,
		pack_root:     (*C.uint8_t)(unsafe.Pointer(rootC)),
		pack_root_len: C.size_t(len(opts.PackRoot)),
		session:       C.bool(opts.Session),
	}
	if opts.LabeledTrailerCounts {
		copts.trailer = C.GCF_TRAILER_LABELED
	}
	// The options struct lives in Go memory but holds only a C pointer.
	enc.err = callStatus(func(e **C.gcf_error) C.gcf_status {
		return C.gcfgo_graph_stream_new(C.uintptr_t(enc.handle), &copts, &enc.ptr, e)
	})
	if enc.err != nil {
		enc.release()
	}
	runtime.SetFinalizer(enc, (*StreamEncoder).release)
	return enc
}

func clampU64(n int) uint64 {
	if n < 0 {
		return 0
	}
	return uint64(n)
}

func clampU32(n int) C.uint32_t {
	if n < 0 {
		return 0
	}
	if n > math.MaxUint32 {
		return math.MaxUint32
	}
	return C.uint32_t(n)
}

// release frees the C stream and the handle (idempotent).
func (enc *StreamEncoder) release() {
	if enc.ptr != nil {
		C.gcf_graph_stream_free(enc.ptr)
		enc.ptr = nil
	}
	if enc.handle != 0 {
		enc.handle.Delete()
		enc.handle = 0
	}
}

// fail records the first error, attaching the writer's error to a sink failure.
func (enc *StreamEncoder) fail(err error) error {
	if e, ok := err.(*Error); ok && e.category == "sink" && enc.sink.err != nil {
		e.cause = enc.sink.err
		e.message = "the io.Writer failed: " + enc.sink.err.Error()
	}
	// Only a panic sticks here: after a refused write libgcf's stream is
	// poisoned and answers every later call with "invalid_state" itself, as
	// it does for Rust and C callers (one lifecycle for every binding).
	if e, ok := err.(*Error); ok && e.status == StatusPanic {
		enc.err = err
	}
	return err
}

func (enc *StreamEncoder) ready() error {
	if enc.err != nil {
		return enc.err
	}
	if enc.closed {
		return &Error{status: StatusInvalidState, class: "state", category: "invalid_state", message: "the stream encoder is closed"}
	}
	return nil
}

// WriteSymbol writes a symbol and returns its local id (0, 1, 2, ...).
// Write symbols grouped by distance: a new distance starts a new group.
func (enc *StreamEncoder) WriteSymbol(s Symbol) (int, error) {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if err := enc.ready(); err != nil {
		return 0, err
	}
	var id C.uint64_t
	err := callStatus(func(e **C.gcf_error) C.gcf_status {
		return C.gcfgo_write_symbol(enc.ptr, s.QualifiedName, s.Kind, C.double(s.Score), s.Provenance,
			clampU32(s.Distance), &id, e)
	})
	if err != nil {
		return 0, enc.fail(err)
	}
	return int(id), nil
}

// WriteBareRef writes a session bare reference ("@<id>  # previously
// transmitted") for a symbol the reader already holds, under the distance
// group of distance; it takes the next id, as a symbol does, and later edges
// may name it. It returns that id.
func (enc *StreamEncoder) WriteBareRef(qualifiedName string, distance int) (int, error) {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if err := enc.ready(); err != nil {
		return 0, err
	}
	var id C.uint64_t
	err := callStatus(func(e **C.gcf_error) C.gcf_status {
		return C.gcfgo_write_bare_ref(enc.ptr, qualifiedName, clampU32(distance), &id, e)
	})
	if err != nil {
		return 0, enc.fail(err)
	}
	return int(id), nil
}

// WriteEdge writes an edge between two symbols already written, by qualified
// name. An unknown name is an "unknown_edge_reference" error (the SDK skips
// such edges silently); the encoder stays usable.
func (enc *StreamEncoder) WriteEdge(e Edge) error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if err := enc.ready(); err != nil {
		return err
	}
	err := callStatus(func(ce **C.gcf_error) C.gcf_status {
		return C.gcfgo_write_edge_by_name(enc.ptr, e.Source, e.Target, e.EdgeType, e.Status, ce)
	})
	if err != nil {
		return enc.fail(err)
	}
	return nil
}

// WriteEdgeByID writes an edge source -> target between symbols already
// written, by the ids WriteSymbol returned.
func (enc *StreamEncoder) WriteEdgeByID(source, target int, edgeType, status string) error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if err := enc.ready(); err != nil {
		return err
	}
	if source < 0 || target < 0 {
		return &Error{status: StatusDataError, class: "reference", category: "unknown_edge_reference", message: "negative symbol id"}
	}
	err := callStatus(func(ce **C.gcf_error) C.gcf_status {
		return C.gcfgo_write_edge(enc.ptr, C.uint64_t(source), C.uint64_t(target), edgeType, status, ce)
	})
	if err != nil {
		return enc.fail(err)
	}
	return nil
}

// WriteLocation writes where symbol id is defined (spec §6b); endLine and
// endColumn 0 for none. Locations follow all edges.
func (enc *StreamEncoder) WriteLocation(id int, file string, line, column, endLine, endColumn int) error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if err := enc.ready(); err != nil {
		return err
	}
	if id < 0 {
		return &Error{status: StatusDataError, class: "reference", category: "unknown_edge_reference", message: "negative symbol id"}
	}
	err := callStatus(func(ce **C.gcf_error) C.gcf_status {
		return C.gcfgo_write_location(enc.ptr, C.uint64_t(id), file, clampU32(line), clampU32(column),
			clampU32(endLine), clampU32(endColumn), ce)
	})
	if err != nil {
		return enc.fail(err)
	}
	return nil
}

// Flush hands buffered output to the writer now.
func (enc *StreamEncoder) Flush() error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if err := enc.ready(); err != nil {
		return err
	}
	if err := callStatus(func(e **C.gcf_error) C.gcf_status { return C.gcf_graph_stream_flush(enc.ptr, e) }); err != nil {
		return enc.fail(err)
	}
	return nil
}

// Close writes the trailer, flushes to the writer, and releases the encoder.
func (enc *StreamEncoder) Close() error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	if err := enc.ready(); err != nil {
		enc.release()
		return err
	}
	enc.closed = true
	err := callStatus(func(e **C.gcf_error) C.gcf_status { return C.gcf_graph_stream_finish(enc.ptr, e) })
	if err != nil {
		err = enc.fail(err)
	}
	enc.release()
	return err
}
