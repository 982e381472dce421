package gcf

// The libgcf calls gcf-go's API needs beyond the native package's own API.
// This file lives only in the gcfgo module (the other files of this folder
// are links to ../../../, the native package), so the native package is
// unchanged.

/*
#include <stdbool.h>
#include <gcf.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// GraphDecodeDeltaJSON decodes graph delta text into delta JSON (kinds
// expanded), without applying it.
func GraphDecodeDeltaJSON(delta string) ([]byte, error) {
	in := []byte(delta)
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_graph_decode_delta(bytesPtr(in), C.size_t(len(in)), out, e)
	})
	runtime.KeepAlive(in)
	return out, err
}

// GenericDecodeDeltaJSON decodes generic delta text into delta JSON.
func GenericDecodeDeltaJSON(delta string) ([]byte, error) {
	in := []byte(delta)
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_decode_delta(bytesPtr(in), C.size_t(len(in)), out, e)
	})
	runtime.KeepAlive(in)
	return out, err
}

// GenericDecodeFullJSON decodes a full keyed payload into
// {"set", "packRoot", "tool"} JSON.
func GenericDecodeFullJSON(text string) ([]byte, error) {
	in := []byte(text)
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_decode_full(bytesPtr(in), C.size_t(len(in)), nil, out, e)
	})
	runtime.KeepAlive(in)
	return out, err
}

// GenericDiffJSON is the delta JSON from keyed set base to next, or "null"
// when the schema changed.
func GenericDiffJSON(base, next []byte) ([]byte, error) {
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_diff(bytesPtr(base), C.size_t(len(base)), bytesPtr(next), C.size_t(len(next)), out, e)
	})
	runtime.KeepAlive(base)
	runtime.KeepAlive(next)
	return out, err
}

// NewError builds an *Error for a failure found on the Go side.
func NewError(class, category, message string) *Error {
	return &Error{status: StatusDataError, class: class, category: category, message: message}
}

// EncodeGenericJSONConstantColumns is EncodeGenericJSON with constant-column
// factoring switched on or off.
func EncodeGenericJSONConstantColumns(doc []byte, constantColumns bool) (string, error) {
	return EncodeGenericJSONWithOptions(doc, GenericOptions{NoConstantColumns: !constantColumns})
}

// GenericDecodePacked is gcf_generic_decode_packed's result as one string
// (the one copy out of libgcf's buffer), for the drop-in's DecodeGeneric to
// read its values from, strings as substrings.
func GenericDecodePacked(input string) (string, error) {
	var out C.gcf_buf
	var cerr *C.gcf_error
	// libgcf reads input's bytes in place (string memory holds no Go
	// pointers).
	status := C.gcf_generic_decode_packed(stringPtr(input), C.size_t(len(input)), &out, &cerr)
	runtime.KeepAlive(input)
	if status != C.GCF_STATUS_OK {
		return "", takeError(status, cerr)
	}
	defer C.gcf_buf_free(&out)
	if out.ptr == nil {
		return "", nil
	}
	return string(unsafe.Slice((*byte)(unsafe.Pointer(out.ptr)), int(out.len))), nil
}

// GenericPackedVersion is the format version GenericDecodePacked's result
// starts with.
const GenericPackedVersion = C.GCF_GENERIC_PACKED_VERSION

// EncodeGenericPacked encodes a value given in libgcf's packed form
// (gcf_generic_encode_packed), constant columns factored or not.
func EncodeGenericPacked(doc []byte, constantColumns, flatten bool) (string, error) {
	var flags C.uint32_t
	if !constantColumns {
		flags |= C.GCF_GENERIC_NO_CONSTANT_COLUMNS
	}
	if !flatten {
		flags |= C.GCF_GENERIC_NO_FLATTEN
	}
	s, err := callString(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_generic_encode_packed(bytesPtr(doc), C.size_t(len(doc)), flags, out, e)
	})
	runtime.KeepAlive(doc)
	return s, err
}
