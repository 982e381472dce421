package gcf

import (
	"math"

	native "github.com/blackwell-systems/gcf-go/internal/native"
)

// packedReader reads libgcf's packed generic value (gcf_generic_decode_packed
// in gcf.h): tags, LEB128 counts and lengths, 8-byte little-endian numbers.
// Strings are substrings of s. Every read is bounds-checked: a result that
// does not fit sets bad, and no count allocates more than the bytes left.
type packedReader struct {
	s   string
	i   int
	bad bool
}

func (r *packedReader) uvarint() uint64 {
	var n uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if r.i >= len(r.s) {
			break
		}
		c := r.s[r.i]
		r.i++
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n
		}
	}
	r.bad = true
	return 0
}

// count is an item count: each item takes at least one byte.
func (r *packedReader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.s)-r.i) {
		r.bad = true
		return 0
	}
	return int(n)
}

func (r *packedReader) text() string {
	n := r.count()
	s := r.s[r.i : r.i+n]
	r.i += n
	return s
}

func (r *packedReader) u64() uint64 {
	if len(r.s)-r.i < 8 {
		r.bad = true
		return 0
	}
	b := r.s[r.i : r.i+8]
	r.i += 8
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func (r *packedReader) value() any {
	if r.bad || r.i >= len(r.s) {
		r.bad = true
		return nil
	}
	tag := r.s[r.i]
	r.i++
	switch tag {
	case 0:
		return nil
	case 1:
		return false
	case 2:
		return true
	case 3:
		return int64(r.u64())
	case 4:
		return math.Float64frombits(r.u64())
	case 5:
		return r.text()
	case 6:
		arr := make([]any, r.count())
		for i := range arr {
			if arr[i] = r.value(); r.bad {
				return nil
			}
		}
		return arr
	case 7:
		n := r.count()
		// libgcf's objects have unique keys: no Set, no lookups.
		m := &OrderedMap{keys: make([]string, n), values: make([]any, n)}
		for i := 0; i < n; i++ {
			m.keys[i] = r.text()
			if m.values[i] = r.value(); r.bad {
				return nil
			}
		}
		return m
	}
	r.bad = true
	return nil
}

// unpackGeneric reads a whole packed result.
func unpackGeneric(s string) (any, bool) {
	if len(s) == 0 || s[0] != native.GenericPackedVersion {
		return nil, false
	}
	r := &packedReader{s: s, i: 1}
	v := r.value()
	return v, !r.bad && r.i == len(s)
}
