//! # libgcf
//!
//! The C ABI of [`gcf_core`]: GCF encoding, decoding, deltas, pack roots and
//! streaming writers for C, and through C for Go and anything else with an FFI.
//!
//! This crate only converts types and errors; every format rule lives in
//! `gcf-core`. The header `include/gcf.h` is generated from this source by
//! cbindgen (`ffi-c/cbindgen.toml`) and verified by `scripts/test-ffi.sh`.
//!
//! Conventions, following rustls-ffi:
//! - every export returns a [`gcf_status`] and runs inside a panic boundary;
//! - inputs are `(pointer, length)` pairs borrowed for the call only, checked
//!   for NULL and, where they are text, for UTF-8;
//! - outputs come last and are written only on success;
//! - error details travel in an opaque [`gcf_error`] the caller frees;
//! - every `_new` has a `_free`, and freeing NULL does nothing.
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]
#![allow(non_camel_case_types)]

mod buf;
mod conformance;
mod decoded;
mod error;
mod generic;
mod generic_delta;
mod graph;
mod limits;
mod packed;
mod payload;
mod stream;

pub use buf::{gcf_buf, gcf_buf_free};
pub use conformance::gcf_conformance_run;
pub use decoded::{
    gcf_generic_decode_packed, gcf_generic_decode_packed_with_limits, gcf_graph_decode_packed,
    gcf_graph_decode_packed_with_limits, GCF_GENERIC_PACKED_VERSION, GCF_PACKED_ARENA,
    GCF_PACKED_VERSION,
};
pub use error::{
    gcf_error, gcf_error_category, gcf_error_class, gcf_error_column, gcf_error_free,
    gcf_error_line, gcf_error_message, gcf_error_status, gcf_status,
};
pub use generic::{
    gcf_cell, gcf_generic_decode, gcf_generic_decode_with_limits, gcf_generic_encode,
    gcf_generic_encode_flags, gcf_generic_encode_grouped, gcf_generic_pack_root,
    gcf_generic_stream, gcf_generic_stream_begin_keyed_map, gcf_generic_stream_begin_section,
    gcf_generic_stream_begin_table, gcf_generic_stream_end_section, gcf_generic_stream_end_table,
    gcf_generic_stream_field, gcf_generic_stream_finish, gcf_generic_stream_flush,
    gcf_generic_stream_free, gcf_generic_stream_inline_array, gcf_generic_stream_keyed_row,
    gcf_generic_stream_keyed_row_cells, gcf_generic_stream_new, gcf_generic_stream_options,
    gcf_generic_stream_row, gcf_str, GCF_CELL_BOOL, GCF_CELL_FLOAT, GCF_CELL_INT, GCF_CELL_MISSING,
    GCF_CELL_NULL, GCF_CELL_STR, GCF_GENERIC_NO_CONSTANT_COLUMNS, GCF_GENERIC_NO_FLATTEN,
};
pub use generic_delta::{
    gcf_generic_apply_delta, gcf_generic_apply_delta_with_limits, gcf_generic_delta,
    gcf_generic_delta_session, gcf_generic_delta_session_free,
    gcf_generic_delta_session_initial_full, gcf_generic_delta_session_new,
    gcf_generic_delta_session_next, gcf_generic_encode_delta, gcf_generic_encode_full,
    GCF_REANCHOR_FIXED_N, GCF_REANCHOR_SIZE_GUARD,
};
// For gcf-go's drop-in (bindings-go/gcfgo).
pub use generic_delta::{
    gcf_generic_decode_delta, gcf_generic_decode_delta_with_limits, gcf_generic_decode_full,
    gcf_generic_diff, gcf_graph_decode_delta, gcf_graph_decode_delta_with_limits,
};
pub use graph::{
    gcf_graph_apply_delta, gcf_graph_apply_delta_with_limits, gcf_graph_decode,
    gcf_graph_decode_with_limits, gcf_graph_delta, gcf_graph_encode, gcf_graph_encode_delta,
    gcf_graph_pack_root, gcf_graph_session, gcf_graph_session_decoder,
    gcf_graph_session_decoder_decode, gcf_graph_session_decoder_free,
    gcf_graph_session_decoder_len, gcf_graph_session_decoder_new, gcf_graph_session_decoder_reset,
    gcf_graph_session_encode, gcf_graph_session_free, gcf_graph_session_new, gcf_outcome,
};
pub use limits::gcf_limits;
pub use packed::gcf_generic_encode_packed;
pub use payload::{
    gcf_edge, gcf_graph_encode_payload, gcf_graph_encode_payload_in, gcf_graph_payload,
    gcf_location, gcf_symbol,
};
pub use stream::{
    gcf_graph_stream, gcf_graph_stream_finish, gcf_graph_stream_flush, gcf_graph_stream_free,
    gcf_graph_stream_new, gcf_graph_stream_options, gcf_graph_stream_write_bare_ref,
    gcf_graph_stream_write_edge, gcf_graph_stream_write_edge_by_name,
    gcf_graph_stream_write_location, gcf_graph_stream_write_symbol, gcf_write_callback,
    GCF_TRAILER_LABELED, GCF_TRAILER_LEGACY, GCF_TRAILER_POSITIONAL,
};

use core::ffi::c_char;

/// `"<library version> (spec <spec version>)"`, NUL-terminated.
const VERSION_TEXT: &str = concat!(env!("CARGO_PKG_VERSION"), " (spec ", "3.6.0", ")\0");

/// The library and specification versions, as a static NUL-terminated string
/// such as `"0.1.0 (spec 3.6.0)"`.
///
/// # Safety
///
/// Always safe to call; the returned pointer is valid for the life of the
/// program and must not be freed.
#[no_mangle]
pub unsafe extern "C" fn gcf_version() -> *const c_char {
    VERSION_TEXT.as_ptr().cast()
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod version_tests {
    #[test]
    fn version_text_matches_core() {
        let expected = format!("{} (spec {})\0", gcf_core::VERSION, gcf_core::SPEC_VERSION);
        assert_eq!(super::VERSION_TEXT, expected);
    }
}
