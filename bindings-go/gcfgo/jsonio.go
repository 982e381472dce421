package gcf

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonParser reads JSON already known to be valid (libgcf's output, or a
// value encoding/json has delimited) into gcf-go's value types. It checks
// only what validity leaves open: integer range.
type jsonParser struct {
	b              []byte
	i              int
	nilEmptyArrays bool
}

func (p *jsonParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value() (any, error) {
	p.ws()
	if p.i >= len(p.b) {
		return nil, newError("json", "json", "unexpected end of JSON")
	}
	switch c := p.b[p.i]; c {
	case '{':
		p.i++
		m := newOrderedMapCap(4)
		p.ws()
		if p.b[p.i] == '}' {
			p.i++
			return m, nil
		}
		for {
			p.ws()
			k := p.str()
			p.ws()
			p.i++ // ':'
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			m.Set(k, v) // Set, not append: a repeated member keeps one entry
			p.ws()
			if p.b[p.i] == ',' {
				p.i++
				continue
			}
			p.i++ // '}'
			return m, nil
		}
	case '[':
		p.i++
		p.ws()
		if p.b[p.i] == ']' {
			p.i++
			if p.nilEmptyArrays {
				return []any(nil), nil
			}
			return []any{}, nil
		}
		arr := make([]any, 0, 4)
		for {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
			p.ws()
			if p.b[p.i] == ',' {
				p.i++
				continue
			}
			p.i++ // ']'
			return arr, nil
		}
	case '"':
		return p.str(), nil
	case 't':
		p.i += 4
		return true, nil
	case 'f':
		p.i += 5
		return false, nil
	case 'n':
		p.i += 4
		return nil, nil
	default:
		return p.number()
	}
}

func (p *jsonParser) number() (any, error) {
	start, float := p.i, false
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '.' || c == 'e' || c == 'E' {
			float = true
		} else if !(c == '-' || c == '+' || (c >= '0' && c <= '9')) {
			break
		}
		p.i++
	}
	s := string(p.b[start:p.i])
	if !float {
		n, err := strconv.ParseInt(s, 10, 64)
		if err == nil {
			return n, nil
		}
		return nil, newError("input", "out_of_range", "integer %s is outside the canonical int64 domain [-9223372036854775808, 9223372036854775807]; model larger values as strings (SPEC 2.3.2)", s)
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f, nil
}

// str reads a string at p.i (which is '"').
func (p *jsonParser) str() string {
	p.i++
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			s := string(p.b[start:p.i])
			p.i++
			return s
		}
		if c == '\\' {
			break
		}
		p.i++
	}
	buf := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(buf)
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		p.i++
		e := p.b[p.i]
		p.i++
		switch e {
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r := p.hex4()
			if utf16.IsSurrogate(r) && p.i+6 <= len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
				save := p.i
				p.i += 2
				if r2 := utf16.DecodeRune(r, p.hex4()); r2 != utf8.RuneError {
					r = r2
				} else {
					p.i = save
				}
			}
			buf = utf8.AppendRune(buf, r)
		default: // '"', '\\', '/'
			buf = append(buf, e)
		}
	}
	return string(buf)
}

func (p *jsonParser) hex4() rune {
	n, _ := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
	p.i += 4
	return rune(n)
}

// jsonWriter writes a Go value as JSON the way gcf-go's EncodeGeneric sees
// it: *OrderedMap members in order, maps (and structs, by field name) in
// sorted key order, signed and unsigned integers exact (above int64 an
// "out_of_range" error), floats in gcf-go's canonical number shape, and
// anything else as its fmt %v text.
type jsonWriter struct {
	b    []byte
	keys []string
	// packed writes libgcf's binary value form (gcf_generic_encode_packed)
	// instead of JSON: the same value, without formatting or parsing text.
	packed bool
}

// sortKeys sorts a map's keys: insertion sort for the few keys of a
// record (sort.Strings would allocate for its interface on every map).
func sortKeys(keys []string) {
	if len(keys) > 12 {
		sort.Strings(keys)
		return
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}

// jsonBufs keeps the buffers of documents that only cross to libgcf, so a
// large document is not grown from 256 bytes again on every call.
var jsonBufs = sync.Pool{New: func() any { return new(jsonWriter) }}

func (w *jsonWriter) value(v any) error {
	switch x := v.(type) {
	case nil:
		w.null()
	case *OrderedMap:
		if x == nil {
			w.null()
			return nil
		}
		w.beginObject(len(x.keys))
		for i, k := range x.keys {
			w.key(i, k)
			if err := w.value(x.values[i]); err != nil {
				return err
			}
		}
		w.end('}')
	case map[string]any:
		// The keys go on a stack shared by the whole document: nested maps
		// push theirs above, so no map allocates a slice of its own.
		base := len(w.keys)
		for k := range x {
			w.keys = append(w.keys, k)
		}
		keys := w.keys[base:]
		defer func() { w.keys = w.keys[:base] }()
		sortKeys(keys)
		w.beginObject(len(keys))
		for i, k := range keys {
			w.key(i, k)
			if err := w.value(x[k]); err != nil {
				return err
			}
		}
		w.end('}')
	case []any:
		w.beginArray(len(x))
		for i, e := range x {
			w.elem(i)
			if err := w.value(e); err != nil {
				return err
			}
		}
		w.end(']')
	case string:
		w.str(x)
	case bool:
		w.boolean(x)
	case float64:
		w.float(x)
	case int:
		w.int(int64(x))
	case int64:
		w.int(x)
	default:
		return w.reflect(reflect.ValueOf(v))
	}
	return nil
}

// The tags of the packed form (gcf_generic_encode_packed in gcf.h).
const (
	tagNull = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagArray
	tagObject
)

func (w *jsonWriter) null() {
	if w.packed {
		w.b = append(w.b, tagNull)
		return
	}
	w.b = append(w.b, "null"...)
}

func (w *jsonWriter) boolean(b bool) {
	switch {
	case w.packed && b:
		w.b = append(w.b, tagTrue)
	case w.packed:
		w.b = append(w.b, tagFalse)
	default:
		w.b = strconv.AppendBool(w.b, b)
	}
}

func (w *jsonWriter) int(n int64) {
	if w.packed {
		w.b = append(w.b, tagInt)
		w.b = appendU64(w.b, uint64(n))
		return
	}
	w.b = strconv.AppendInt(w.b, n, 10)
}

// appendU64 appends n as 8 little-endian bytes.
func appendU64(b []byte, n uint64) []byte {
	return append(b, byte(n), byte(n>>8), byte(n>>16), byte(n>>24), byte(n>>32), byte(n>>40), byte(n>>48), byte(n>>56))
}

func (w *jsonWriter) beginObject(n int) {
	if w.packed {
		w.b = append(w.b, tagObject)
		w.b = binary.AppendUvarint(w.b, uint64(n))
		return
	}
	w.b = append(w.b, '{')
}

func (w *jsonWriter) key(i int, k string) {
	if w.packed {
		w.text(k)
		return
	}
	if i > 0 {
		w.b = append(w.b, ',')
	}
	w.str(k)
	w.b = append(w.b, ':')
}

func (w *jsonWriter) beginArray(n int) {
	if w.packed {
		w.b = append(w.b, tagArray)
		w.b = binary.AppendUvarint(w.b, uint64(n))
		return
	}
	w.b = append(w.b, '[')
}

func (w *jsonWriter) elem(i int) {
	if !w.packed && i > 0 {
		w.b = append(w.b, ',')
	}
}

// end closes an object or array (packed containers carry their counts).
func (w *jsonWriter) end(c byte) {
	if !w.packed {
		w.b = append(w.b, c)
	}
}

// float writes f as gcf-go's formatNumber would, in a JSON-valid spelling:
// plain decimal in [1e-6, 2^53), exponent form outside, 0 for NaN/Inf.
// Packed, it is the value libgcf reads from that spelling: an integer for
// 0, NaN, Inf and whole numbers below 2^53 (written without a point), a
// double otherwise.
func (w *jsonWriter) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
		if w.packed {
			w.int(0)
			return
		}
		w.b = append(w.b, '0')
		return
	}
	if a := math.Abs(f); a >= 1e-6 && a < 9007199254740992.0 {
		if w.packed {
			if f == math.Trunc(f) {
				w.int(int64(f))
				return
			}
			w.b = append(w.b, tagFloat)
			w.b = appendU64(w.b, math.Float64bits(f))
			return
		}
		w.b = strconv.AppendFloat(w.b, f, 'f', -1, 64)
		return
	}
	if w.packed {
		w.b = append(w.b, tagFloat)
		w.b = appendU64(w.b, math.Float64bits(f))
		return
	}
	w.b = strconv.AppendFloat(w.b, f, 'e', -1, 64)
}

func (w *jsonWriter) reflect(v reflect.Value) error {
	for v.IsValid() && (v.Kind() == reflect.Ptr || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			w.null()
			return nil
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		w.null()
		return nil
	}
	if v.CanInterface() {
		switch v.Interface().(type) {
		case *OrderedMap, map[string]any, []any:
			return w.value(v.Interface())
		}
	}
	switch v.Kind() {
	case reflect.Map:
		m := make(map[string]any, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			m[fmt.Sprintf("%v", iter.Key().Interface())] = iter.Value().Interface()
		}
		return w.value(m)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			w.null()
			return nil
		}
		w.beginArray(v.Len())
		for i := 0; i < v.Len(); i++ {
			w.elem(i)
			if err := w.reflect(v.Index(i)); err != nil {
				return err
			}
		}
		w.end(']')
	case reflect.Struct:
		t := v.Type()
		m := make(map[string]any, v.NumField())
		for i := 0; i < v.NumField(); i++ {
			if f := t.Field(i); f.IsExported() {
				m[f.Name] = v.Field(i).Interface()
			}
		}
		return w.value(m)
	case reflect.Bool:
		w.boolean(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := v.Uint()
		if u > math.MaxInt64 {
			return newError("input", "out_of_range", "integer %d is outside the canonical int64 domain [-9223372036854775808, 9223372036854775807]; model larger values as strings (SPEC 2.3.2)", u)
		}
		w.int(int64(u))
	case reflect.Float32, reflect.Float64:
		w.float(v.Float())
	case reflect.String:
		w.str(v.String())
	default:
		w.str(fmt.Sprintf("%v", v.Interface()))
	}
	return nil
}

const hexDigits = "0123456789abcdef"

// jsonPlain marks the bytes a JSON string holds as they are: printable
// ASCII but '"' and '\\'.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str writes s as a JSON string; invalid UTF-8 becomes U+FFFD, as
// encoding/json writes it.
func (w *jsonWriter) str(s string) {
	if w.packed {
		w.b = append(w.b, tagString)
		w.text(s)
		return
	}
	w.b = append(w.b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if jsonPlain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			w.b = append(w.b, s[start:i]...)
			switch c {
			case '"', '\\':
				w.b = append(w.b, '\\', c)
			case '\n':
				w.b = append(w.b, '\\', 'n')
			case '\r':
				w.b = append(w.b, '\\', 'r')
			case '\t':
				w.b = append(w.b, '\\', 't')
			default:
				w.b = append(w.b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			w.b = append(w.b, s[start:i]...)
			w.b = append(w.b, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	w.b = append(w.b, s[start:]...)
	w.b = append(w.b, '"')
}

// text writes s packed: its length as LEB128, then its bytes, each byte
// of invalid UTF-8 replaced by U+FFFD as the JSON form does.
func (w *jsonWriter) text(s string) {
	if !utf8.ValidString(s) {
		var b []byte
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, "\ufffd"...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
		s = string(b)
	}
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

// toJSON is data as JSON for libgcf.
func toJSON(data any) ([]byte, error) {
	w := jsonWriter{b: make([]byte, 0, 256)}
	if err := w.value(data); err != nil {
		return nil, err
	}
	return w.b, nil
}

// withJSON calls f with data as JSON in a pooled buffer, which f must not
// keep.
func withJSON(data any, f func(doc []byte) error) error {
	return withDoc(data, false, f)
}

// withPacked is withJSON writing libgcf's packed value form.
func withPacked(data any, f func(doc []byte) error) error {
	return withDoc(data, true, f)
}

func withDoc(data any, packed bool, f func(doc []byte) error) error {
	w := jsonBufs.Get().(*jsonWriter)
	w.b, w.keys, w.packed = w.b[:0], w.keys[:0], packed
	err := w.value(data)
	if err == nil {
		err = f(w.b)
	}
	// A buffer far larger than most documents is left to the collector
	// rather than held.
	if cap(w.b) <= 64<<20 {
		for i := range w.keys[:cap(w.keys)] {
			w.keys[:cap(w.keys)][i] = ""
		}
		jsonBufs.Put(w)
	}
	return err
}

// normalizeScalar is a streamed cell as gcf-go formats it: the scalar types
// libgcf takes as they are, anything else as its %v text.
func normalizeScalar(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, int, int8, int16, int32, int64, uint8, uint16, uint32, float32, float64:
		return v, nil
	case uint:
		if uint64(x) > math.MaxInt64 {
			return nil, newError("input", "out_of_range", "integer %d is outside the canonical int64 domain", x)
		}
		return int64(x), nil
	case uint64:
		if x > math.MaxInt64 {
			return nil, newError("input", "out_of_range", "integer %d is outside the canonical int64 domain", x)
		}
		return int64(x), nil
	}
	return fmt.Sprintf("%v", v), nil
}

func normalizeRow(values []any) ([]any, error) {
	out := make([]any, len(values))
	for i, v := range values {
		n, err := normalizeScalar(v)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}
