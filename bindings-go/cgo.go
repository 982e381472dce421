// Package gcf is a Go binding of libgcf, the C ABI of the gcf-core Rust
// codec for GCF (Graph Compact Format, spec 3.6.0).
//
// Its API mirrors the public Go SDK github.com/blackwell-systems/gcf-go
// (Payload, Symbol, Edge, Encode, Decode, EncodeDelta, StreamEncoder, ...),
// so a replace directive switches a module over. Where gcf-go's function
// returns only a value (Encode, EncodeGeneric, EncodeDelta,
// EncodeWithSession, PackRoot) this one does too and panics with the *Error
// on input the encoder refuses, as gcf-go's EncodeGeneric does; each has a
// Checked variant (EncodeChecked, EncodeGenericChecked, ...) that returns the
// error. Errors are *Error values with the Class, Category, Message, Line and
// Column of the error model every GCF binding shares.
//
// In the repository the package links target/release/libgcf.a by path:
// build it first with `cargo build --release -p gcf-ffi` at the repository
// root. A released module (scripts/package-go.sh) carries the header and a
// prebuilt libgcf.a for each platform it supports instead, so `go get` is
// all a user needs, with a C compiler for cgo.
package gcf

/*
#cgo CFLAGS: -I${SRCDIR}/../include
#cgo LDFLAGS: ${SRCDIR}/../target/release/libgcf.a -ldl -lpthread -lm
#include <stdlib.h>
#include <gcf.h>
*/
import "C"

import (
	"unsafe"
)

// Version is libgcf's version and the GCF spec version it implements,
// for example "0.1.0 (spec 3.6.0)".
func Version() string {
	return C.GoString(C.gcf_version())
}

// bytesPtr is a pointer to b's first byte for a C call, or nil when empty.
// The memory holds no Go pointers, so cgo allows passing it for the call.
func bytesPtr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

// callBuf runs a libgcf call that fills a gcf_buf and returns a Go copy of it.
func callBuf(f func(out *C.gcf_buf, err **C.gcf_error) C.gcf_status) ([]byte, error) {
	var out C.gcf_buf
	var cerr *C.gcf_error
	status := f(&out, &cerr)
	if status != C.GCF_STATUS_OK {
		return nil, takeError(status, cerr)
	}
	defer C.gcf_buf_free(&out)
	if out.ptr == nil {
		return []byte{}, nil
	}
	return C.GoBytes(unsafe.Pointer(out.ptr), C.int(out.len)), nil
}

// callString is callBuf for a text result: one copy, straight from libgcf's
// buffer into the string (callBuf then string() would copy twice).
func callString(f func(out *C.gcf_buf, err **C.gcf_error) C.gcf_status) (string, error) {
	var out C.gcf_buf
	var cerr *C.gcf_error
	status := f(&out, &cerr)
	if status != C.GCF_STATUS_OK {
		return "", takeError(status, cerr)
	}
	defer C.gcf_buf_free(&out)
	if out.ptr == nil || out.len == 0 {
		return "", nil
	}
	return string(unsafe.Slice((*byte)(unsafe.Pointer(out.ptr)), int(out.len))), nil
}

// callStatus runs a libgcf call that only reports a status.
func callStatus(f func(err **C.gcf_error) C.gcf_status) error {
	var cerr *C.gcf_error
	if status := f(&cerr); status != C.GCF_STATUS_OK {
		return takeError(status, cerr)
	}
	return nil
}
