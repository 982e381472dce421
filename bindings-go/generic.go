package gcf

/*
#include <stdint.h>
#include <stdlib.h>
#include <gcf.h>

gcf_status gcfgo_generic_stream_new(uintptr_t handle, const gcf_generic_stream_options *options,
                                    gcf_generic_stream **out, gcf_error **err);

static gcf_status gcfgo_generic_field(gcf_generic_stream *w, _GoString_ key, const gcf_cell *value, gcf_error **err) {
  return gcf_generic_stream_field(w, (const uint8_t *)_GoStringPtr(key), _GoStringLen(key), value, err);
}

static gcf_status gcfgo_generic_section(gcf_generic_stream *w, _GoString_ name, gcf_error **err) {
  return gcf_generic_stream_begin_section(w, (const uint8_t *)_GoStringPtr(name), _GoStringLen(name), err);
}
*/
import "C"

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/cgo"
	"sync"
	"unsafe"
)

// GenericOptions adjusts EncodeGeneric and EncodeGenericWithOptions.
type GenericOptions struct {
	// NoFlatten is gcf-go's option: a table field whose objects share one
	// shape is written as an inline schema or an attachment instead of ">"
	// path columns (spec §7.4.6 makes flattening optional); both decode to
	// the same value.
	NoFlatten bool
	// NoConstantColumns repeats a table column's value in every row even
	// when it is the same in all of them, instead of declaring it once in the
	// field declaration ({id,type=file}), for consumers whose decoders
	// predate constant columns. The default (false) factors them, as every
	// GCF implementation does.
	NoConstantColumns bool
}

// EncodeGeneric encodes any value that encoding/json can marshal as a
// generic-profile payload (spec §7), returning only the text as gcf-go does:
// a value outside the format's domain (an integer beyond int64) panics with
// the *Error. Use EncodeGenericChecked to get the error. Go maps marshal
// with sorted keys; to keep a member order pass a json.RawMessage, or use
// EncodeGenericJSON.
func EncodeGeneric(data any, opts ...GenericOptions) string {
	s, err := EncodeGenericChecked(data, opts...)
	if err != nil {
		panic(err)
	}
	return s
}

// EncodeGenericChecked is EncodeGeneric returning the error.
func EncodeGenericChecked(data any, opts ...GenericOptions) (string, error) {
	var o GenericOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	return EncodeGenericWithOptions(data, o)
}

// EncodeGenericJSON encodes a JSON document, keeping its member order and
// exact integers (an integer beyond int64 is an "out_of_range" error).
func EncodeGenericJSON(doc []byte) (string, error) {
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_encode(bytesPtr(doc), C.size_t(len(doc)), out, e)
	})
	return string(out), err
}

// EncodeGenericWithOptions is EncodeGeneric with options, returning the error.
func EncodeGenericWithOptions(data any, opts GenericOptions) (string, error) {
	in, err := marshal(data)
	if err != nil {
		return "", err
	}
	s, err := EncodeGenericJSONWithOptions(in, opts)
	return s, ofValue(err, "json")
}

// EncodeGenericJSONWithOptions is EncodeGenericJSON with options.
func EncodeGenericJSONWithOptions(doc []byte, opts GenericOptions) (string, error) {
	var flags C.uint32_t
	if opts.NoConstantColumns {
		flags |= C.GCF_GENERIC_NO_CONSTANT_COLUMNS
	}
	if opts.NoFlatten {
		flags |= C.GCF_GENERIC_NO_FLATTEN
	}
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_encode_flags(bytesPtr(doc), C.size_t(len(doc)), flags, out, e)
	})
	return string(out), err
}

// EncodeGenericGrouped encodes an array of flat records as a value-grouped
// table: keyField is the records' unique identity, groupField the field whose
// value clusters them (written once per cluster). An input that cannot be
// grouped (not a non-empty array of objects, the same or an absent field, a
// nested value, a missing or repeated key, a record without the group field)
// is an "invalid_input" error.
func EncodeGenericGrouped(data any, keyField, groupField string) (string, error) {
	in, err := marshal(data)
	if err != nil {
		return "", err
	}
	s, err := EncodeGenericGroupedJSON(in, keyField, groupField)
	return s, ofValue(err, "json")
}

// EncodeGenericGroupedJSON is EncodeGenericGrouped of a JSON document
// (member order kept).
func EncodeGenericGroupedJSON(doc []byte, keyField, groupField string) (string, error) {
	key, group := []byte(keyField), []byte(groupField)
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_encode_grouped(bytesPtr(doc), C.size_t(len(doc)),
			bytesPtr(key), C.size_t(len(key)), bytesPtr(group), C.size_t(len(group)), out, e)
	})
	return string(out), err
}

// DecodeGenericJSON decodes generic-profile text into JSON, members in wire order.
func DecodeGenericJSON(input string) ([]byte, error) {
	return decodeGenericJSON(input, nil)
}

// DecodeGenericJSONWithLimits is DecodeGenericJSON under the caller's
// decode limits (spec §12; see Limits).
func DecodeGenericJSONWithLimits(input string, limits Limits) ([]byte, error) {
	l := limits.c()
	return decodeGenericJSON(input, &l)
}

func decodeGenericJSON(input string, limits *C.gcf_limits) ([]byte, error) {
	in := []byte(input)
	return callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_decode_with_limits(bytesPtr(in), C.size_t(len(in)), limits, out, e)
	})
}

// DecodeGeneric decodes generic-profile text into map[string]any, []any,
// string, bool, nil and json.Number (numbers keep their exact text).
func DecodeGeneric(input string) (any, error) {
	return decodeGeneric(input, nil)
}

// DecodeGenericWithLimits is DecodeGeneric under the caller's decode limits
// (spec §12; see Limits): input past one is an *Error of category
// limit_exceeded at its line.
func DecodeGenericWithLimits(input string, limits Limits) (any, error) {
	l := limits.c()
	return decodeGeneric(input, &l)
}

func decodeGeneric(input string, limits *C.gcf_limits) (any, error) {
	out, err := decodeGenericJSON(input, limits)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &Error{status: StatusJSONError, class: "json", category: "invalid_input", message: err.Error()}
	}
	return v, nil
}

// KeyedSet is the unit of generic deltas (spec §10a): rows identified by Key.
type KeyedSet struct {
	Name   string           `json:"name,omitempty"`
	Key    string           `json:"key"`
	Fields []string         `json:"fields"`
	Rows   []map[string]any `json:"rows"`
}

// GenericPackRoot is the identity sha256:<hex> of a keyed set (spec §10a.3).
func GenericPackRoot(set *KeyedSet) (string, error) {
	in, err := marshal(set)
	if err != nil {
		return "", err
	}
	s, err := GenericPackRootJSON(in)
	return s, ofValue(err, "keyed set")
}

// GenericPackRootJSON is GenericPackRoot of {"key", "fields", "rows"} JSON.
func GenericPackRootJSON(set []byte) (string, error) {
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_pack_root(bytesPtr(set), C.size_t(len(set)), out, e)
	})
	return string(out), err
}

// cellArena holds a row's cells and their text in C memory (cgo forbids
// storing Go pointers in memory passed to C), reused from row to row.
type cellArena struct {
	cells    *C.gcf_cell
	cellCap  int
	text     *C.char
	textCap  int
	textUsed int
}

func (a *cellArena) reset(cells, textBytes int) {
	if cells > a.cellCap {
		C.free(unsafe.Pointer(a.cells))
		a.cellCap = cells * 2
		a.cells = (*C.gcf_cell)(C.malloc(C.size_t(a.cellCap) * C.size_t(unsafe.Sizeof(C.gcf_cell{}))))
	}
	if textBytes > a.textCap {
		C.free(unsafe.Pointer(a.text))
		a.textCap = textBytes * 2
		a.text = (*C.char)(C.malloc(C.size_t(a.textCap)))
	}
	a.textUsed = 0
}

func (a *cellArena) free() {
	C.free(unsafe.Pointer(a.cells))
	C.free(unsafe.Pointer(a.text))
	*a = cellArena{}
}

func (a *cellArena) slice() []C.gcf_cell {
	return unsafe.Slice(a.cells, a.cellCap)
}

func (a *cellArena) str(s string) (*C.char, C.size_t) {
	text := unsafe.Slice((*byte)(unsafe.Pointer(a.text)), a.textCap)
	n := copy(text[a.textUsed:], s)
	p := (*C.char)(unsafe.Pointer(&text[a.textUsed]))
	a.textUsed += n
	return p, C.size_t(n)
}

// setStrings resets the arena to hold strs as gcf_strs (read back by strs).
func (a *cellArena) setStrings(strs []string) {
	total := 0
	for _, s := range strs {
		total += len(s)
	}
	a.reset(len(strs)+1, total+1)
	cstrs := unsafe.Slice((*C.gcf_str)(unsafe.Pointer(a.cells)), len(strs))
	for i, s := range strs {
		cstrs[i].ptr, cstrs[i].len = a.str(s)
	}
}

// strs is the gcf_str array setStrings wrote (over the cells' memory).
func (a *cellArena) strs() *C.gcf_str {
	return (*C.gcf_str)(unsafe.Pointer(a.cells))
}

// setCells resets the arena to hold values as cells, with room for extra
// more bytes of text (a key or name the caller adds with str).
func (a *cellArena) setCells(values []any, extra int) ([]C.gcf_cell, error) {
	total := extra
	for _, v := range values {
		total += textLen(v)
	}
	a.reset(len(values)+1, total+1)
	cells := a.slice()
	for i, v := range values {
		if err := a.setCell(&cells[i], v); err != nil {
			return nil, err
		}
	}
	return cells, nil
}

// Missing is a row value that writes "~": the field is absent from this
// record, which differs from nil ("-", null).
var Missing = missing{}

type missing struct{}

func textLen(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case json.Number:
		return len(x)
	}
	return 0
}

// setCell converts one Go value into a cell, its text copied into the arena.
func (a *cellArena) setCell(c *C.gcf_cell, v any) error {
	*c = C.gcf_cell{}
	switch x := v.(type) {
	case nil:
		c.kind = C.GCF_CELL_NULL
	case missing:
		c.kind = C.GCF_CELL_MISSING
	case bool:
		c.kind = C.GCF_CELL_BOOL
		if x {
			c.int_value = 1
		}
	case int:
		c.kind, c.int_value = C.GCF_CELL_INT, C.int64_t(x)
	case int8:
		c.kind, c.int_value = C.GCF_CELL_INT, C.int64_t(x)
	case int16:
		c.kind, c.int_value = C.GCF_CELL_INT, C.int64_t(x)
	case int32:
		c.kind, c.int_value = C.GCF_CELL_INT, C.int64_t(x)
	case int64:
		c.kind, c.int_value = C.GCF_CELL_INT, C.int64_t(x)
	case uint8:
		c.kind, c.int_value = C.GCF_CELL_INT, C.int64_t(x)
	case uint16:
		c.kind, c.int_value = C.GCF_CELL_INT, C.int64_t(x)
	case uint32:
		c.kind, c.int_value = C.GCF_CELL_INT, C.int64_t(x)
	case uint:
		if uint64(x) > math.MaxInt64 {
			return &Error{status: StatusDataError, class: "input", category: "out_of_range", message: fmt.Sprintf("%d exceeds int64", x)}
		}
		c.kind, c.int_value = C.GCF_CELL_INT, C.int64_t(x)
	case uint64:
		if x > math.MaxInt64 {
			return &Error{status: StatusDataError, class: "input", category: "out_of_range", message: fmt.Sprintf("%d exceeds int64", x)}
		}
		c.kind, c.int_value = C.GCF_CELL_INT, C.int64_t(x)
	case float32:
		c.kind, c.float_value = C.GCF_CELL_FLOAT, C.double(x)
	case float64:
		c.kind, c.float_value = C.GCF_CELL_FLOAT, C.double(x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			c.kind, c.int_value = C.GCF_CELL_INT, C.int64_t(i)
		} else if f, err := x.Float64(); err == nil {
			c.kind, c.float_value = C.GCF_CELL_FLOAT, C.double(f)
		} else {
			return &Error{status: StatusDataError, class: "input", category: "out_of_range", message: "number " + string(x)}
		}
	case string:
		c.kind = C.GCF_CELL_STR
		c.str_ptr, c.str_len = a.str(x)
	default:
		return &Error{status: StatusInvalidArgument, class: "usage", category: "invalid_input",
			message: fmt.Sprintf("a streaming cell must be a scalar, got %T", v)}
	}
	return nil
}

// GenericStreamEncoder writes generic-profile tables to an io.Writer row by
// row, with counts in a trailer written by Close. Errors are sticky as for
// StreamEncoder. Safe for concurrent use.
type GenericStreamEncoder struct {
	mu     sync.Mutex
	ptr    *C.gcf_generic_stream
	handle cgo.Handle
	sink   *writerSink
	arena  cellArena
	err    error
	closed bool
}

// NewGenericStreamEncoder writes the header to w ("tool=" omitted when tool is "").
func NewGenericStreamEncoder(w io.Writer, tool ...string) *GenericStreamEncoder {
	enc := &GenericStreamEncoder{sink: &writerSink{w: w}}
	enc.handle = cgo.NewHandle(enc.sink)
	var opts C.gcf_generic_stream_options
	if len(tool) > 0 && tool[0] != "" {
		toolC := C.CString(tool[0])
		defer C.free(unsafe.Pointer(toolC))
		opts.tool, opts.tool_len = (*C.uint8_t)(unsafe.Pointer(toolC)), C.size_t(len(tool[0]))
	}
	enc.err = callStatus(func(e **C.gcf_error) C.gcf_status {
		return C.gcfgo_generic_stream_new(C.uintptr_t(enc.handle), &opts, &enc.ptr, e)
	})
	if enc.err != nil {
		enc.release()
	}
	runtime.SetFinalizer(enc, (*GenericStreamEncoder).release)
	return enc
}

func (enc *GenericStreamEncoder) release() {
	if enc.ptr != nil {
		C.gcf_generic_stream_free(enc.ptr)
		enc.ptr = nil
	}
	if enc.handle != 0 {
		enc.handle.Delete()
		enc.handle = 0
	}
	enc.arena.free()
}

func (enc *GenericStreamEncoder) ready() error {
	if enc.err != nil {
		return enc.err
	}
	if enc.closed {
		return &Error{status: StatusInvalidState, class: "state", category: "invalid_state", message: "the stream encoder is closed"}
	}
	return nil
}

func (enc *GenericStreamEncoder) do(f func(e **C.gcf_error) C.gcf_status) error {
	if err := enc.ready(); err != nil {
		return err
	}
	err := callStatus(f)
	if e, ok := err.(*Error); ok {
		if e.category == "sink" && enc.sink.err != nil {
			e.cause = enc.sink.err
			e.message = "the io.Writer failed: " + enc.sink.err.Error()
		}
		// As for StreamEncoder: libgcf poisons the stream after a refused
		// write; only a panic sticks here.
		if e.status == StatusPanic {
			enc.err = err
		}
		return err
	}
	return nil
}

// BeginArray opens a table "## name [?]{fields}" (name "" for a root array).
func (enc *GenericStreamEncoder) BeginArray(name string, fields []string) error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	enc.arena.setStrings(fields)
	var nameC *C.uint8_t
	if name != "" {
		nameC = (*C.uint8_t)(C.CBytes([]byte(name)))
		defer C.free(unsafe.Pointer(nameC))
	}
	return enc.do(func(e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_stream_begin_table(enc.ptr, nameC, C.size_t(len(name)), enc.arena.strs(), C.size_t(len(fields)), e)
	})
}

// WriteRow writes one row: a value per field (nil, bool, integers, floats,
// string, json.Number, or Missing).
func (enc *GenericStreamEncoder) WriteRow(values []any) error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	cells, err := enc.arena.setCells(values, 0)
	if err != nil {
		return err
	}
	return enc.do(func(e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_stream_row(enc.ptr, &cells[0], C.size_t(len(values)), e)
	})
}

// BeginKeyedMap opens a keyed map "## name [?:]{keyLabel,fields}" (spec
// 7.2a): each row is one member, written with WriteKeyedRow (or
// WriteKeyedMember, for a key that is a number). keyLabel ""
// labels the key column "key" ("_key", ... when a value field is called
// that); a label that is also a value field is an "invalid_input" error.
func (enc *GenericStreamEncoder) BeginKeyedMap(name, keyLabel string, fields []string) error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	enc.arena.setStrings(fields)
	var nameC, labelC *C.uint8_t
	if name != "" {
		nameC = (*C.uint8_t)(C.CBytes([]byte(name)))
		defer C.free(unsafe.Pointer(nameC))
	}
	if keyLabel != "" {
		labelC = (*C.uint8_t)(C.CBytes([]byte(keyLabel)))
		defer C.free(unsafe.Pointer(labelC))
	}
	return enc.do(func(e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_stream_begin_keyed_map(enc.ptr, nameC, C.size_t(len(name)), labelC, C.size_t(len(keyLabel)),
			enc.arena.strs(), C.size_t(len(fields)), e)
	})
}

// WriteKeyedRow writes one member of the open keyed map: its key and a
// value per value field (as WriteRow's).
func (enc *GenericStreamEncoder) WriteKeyedRow(key string, values []any) error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	cells, err := enc.arena.setCells(values, len(key))
	if err != nil {
		return err
	}
	keyPtr, keyLen := enc.arena.str(key)
	return enc.do(func(e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_stream_keyed_row(enc.ptr, (*C.uint8_t)(unsafe.Pointer(keyPtr)), keyLen, &cells[0], C.size_t(len(values)), e)
	})
}

// WriteKeyedMember writes one member of the open keyed map from row: its
// key first, then a value per value field (as WriteRow's), the way the
// SDKs' streaming encoders take a keyed-map row. A string key is written as
// WriteKeyedRow writes it; a number key (integers, floats, json.Number)
// bare in its canonical form ("7|..."), which decoders read as that text;
// a nil, boolean or Missing key is an "invalid_input" error (decoders
// refuse such a key), and an empty row an argument error.
func (enc *GenericStreamEncoder) WriteKeyedMember(row []any) error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	cells, err := enc.arena.setCells(row, 0)
	if err != nil {
		return err
	}
	return enc.do(func(e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_stream_keyed_row_cells(enc.ptr, &cells[0], C.size_t(len(row)), e)
	})
}

// WriteInlineArray writes a primitive array "name[N]: a,b,..." (scalars, as
// WriteRow's values; "## name [0]" when empty).
func (enc *GenericStreamEncoder) WriteInlineArray(name string, values []any) error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	cells, err := enc.arena.setCells(values, len(name))
	if err != nil {
		return err
	}
	namePtr, nameLen := enc.arena.str(name)
	return enc.do(func(e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_stream_inline_array(enc.ptr, (*C.uint8_t)(unsafe.Pointer(namePtr)), nameLen, &cells[0], C.size_t(len(values)), e)
	})
}

// EndArray closes the open table.
func (enc *GenericStreamEncoder) EndArray() error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	return enc.do(func(e **C.gcf_error) C.gcf_status { return C.gcf_generic_stream_end_table(enc.ptr, e) })
}

// WriteKV writes a key=value line; value must be a scalar.
func (enc *GenericStreamEncoder) WriteKV(key string, value any) error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	enc.arena.reset(1, textLen(value)+1)
	cells := enc.arena.slice()
	if err := enc.arena.setCell(&cells[0], value); err != nil {
		return err
	}
	return enc.do(func(e **C.gcf_error) C.gcf_status { return C.gcfgo_generic_field(enc.ptr, key, &cells[0], e) })
}

// WriteSection opens a nested "## name" object section; EndSection closes it.
func (enc *GenericStreamEncoder) WriteSection(name string) error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	return enc.do(func(e **C.gcf_error) C.gcf_status { return C.gcfgo_generic_section(enc.ptr, name, e) })
}

// EndSection closes the innermost section.
func (enc *GenericStreamEncoder) EndSection() error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	return enc.do(func(e **C.gcf_error) C.gcf_status { return C.gcf_generic_stream_end_section(enc.ptr, e) })
}

// Flush hands buffered output to the writer now.
func (enc *GenericStreamEncoder) Flush() error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	return enc.do(func(e **C.gcf_error) C.gcf_status { return C.gcf_generic_stream_flush(enc.ptr, e) })
}

// Close closes what is open, writes the trailer, flushes, and releases the encoder.
func (enc *GenericStreamEncoder) Close() error {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	err := enc.do(func(e **C.gcf_error) C.gcf_status { return C.gcf_generic_stream_finish(enc.ptr, e) })
	enc.closed = true
	enc.release()
	return err
}
