// C glue between libgcf's write callback and Go: the callback's user data is
// a runtime/cgo.Handle value, never a Go pointer.
#include <stdint.h>
#include <gcf.h>
#include "_cgo_export.h"

static int gcfgo_trampoline(void *user_data, const uint8_t *bytes, size_t len) {
  return gcfGoWrite((uintptr_t)user_data, (uint8_t *)bytes, len);
}

gcf_status gcfgo_graph_stream_new(uintptr_t handle, const gcf_graph_stream_options *options,
                                  gcf_graph_stream **out, gcf_error **err) {
  return gcf_graph_stream_new(gcfgo_trampoline, (void *)handle, options, out, err);
}

gcf_status gcfgo_generic_stream_new(uintptr_t handle, const gcf_generic_stream_options *options,
                                    gcf_generic_stream **out, gcf_error **err) {
  return gcf_generic_stream_new(gcfgo_trampoline, (void *)handle, options, out, err);
}
