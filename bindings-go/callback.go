package gcf

/*
#include <stdint.h>
*/
import "C"

import (
	"io"
	"runtime/cgo"
	"unsafe"
)

// writerSink is what a stream's cgo.Handle refers to: the io.Writer and the
// first error it returned. It holds no reference to the encoder, so an
// abandoned encoder can still be finalized.
type writerSink struct {
	w   io.Writer
	err error
}

//export gcfGoWrite
func gcfGoWrite(handle C.uintptr_t, bytes *C.uint8_t, n C.size_t) C.int {
	sink, ok := cgo.Handle(handle).Value().(*writerSink)
	if !ok {
		return 1
	}
	if sink.err != nil {
		return 1
	}
	// The bytes are libgcf's buffer, valid for this call only; io.Writer
	// implementations must not retain them.
	p := unsafe.Slice((*byte)(unsafe.Pointer(bytes)), int(n))
	if _, err := sink.w.Write(p); err != nil {
		sink.err = err
		return 1
	}
	return 0
}
