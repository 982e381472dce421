package gcf

/*
#include <gcf.h>
*/
import "C"

// conformanceVerdict is libgcf's answer for one fixture.
type conformanceVerdict struct {
	Operation string `json:"operation"`
	Status    string `json:"status"`
	Detail    string `json:"detail"`
}

// runConformanceFixture hands a fixture file's bytes to libgcf's shared
// conformance dispatch (gcf_conformance_run, the one every binding uses).
func runConformanceFixture(fixture []byte) (conformanceVerdict, error) {
	var v conformanceVerdict
	out, err := callBuf(func(out *C.gcf_buf, e **C.gcf_error) C.gcf_status {
		return C.gcf_conformance_run(bytesPtr(fixture), C.size_t(len(fixture)), out, e)
	})
	if err != nil {
		return v, err
	}
	return v, unmarshal(out, &v)
}
