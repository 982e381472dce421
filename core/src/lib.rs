//! # gcf-core
//!
//! A `no_std` + `alloc` codec for GCF, the Graph Compact Format: a
//! line-oriented text format that hands structured data and code graphs to
//! language models in far fewer tokens than JSON. It implements spec 3.6.0,
//! both profiles, byte for byte.
//!
//! - [`graph`]: code graphs (symbols, edges, distance groups, locations),
//!   buffered and streaming, with sessions, deltas and pack roots.
//! - [`generic`]: any JSON value, buffered and streaming, with keyed-set
//!   deltas and pack roots.
//! - [`decode_any`]: decode whatever a header says a payload is.
//! - [`Limits`]: the spec §12 bounds every decoder enforces (depth, container
//!   and line lengths, fields, input size, and the expansion of values
//!   written once into every row), defaults or the caller's
//!   (`graph::Decoder::limits`, `generic::Decoder::limits`, [`decode_any_with`]).
//!
//! Features: `std` (default: `io::Write` sinks, `std::error::Error`, the
//! stack guard), `serde_json` (`generic::from_json`/`to_json` and
//! `Decoder::decode_json`; serde_json's own features as the program has
//! them), and
//! `serde` (any `Serialize`/`Deserialize` type in and out of the generic
//! profile: `generic::to_string`, `to_vec`, `to_writer`, `from_str` and
//! `from_slice` (borrowing bare strings), `from_reader`, `to_value`, `from_value`;
//! `Encoder::serialize` and `Decoder::deserialize` with their options).
//!
//! Every encoder writes into a [`Sink`] (a `Vec<u8>`, a `String`, a closure,
//! or with `std` any `io::Write` through [`IoSink`]); every decoder reports a
//! typed [`Error`] whose [`ErrorKind`] is one of the conformance suite's
//! categories, with line and column.
//!
//! ```
//! use gcf_core::graph::{self, Edge, Payload, Symbol};
//!
//! let payload = Payload {
//!     tool: "context_for_task",
//!     symbols: vec![
//!         Symbol::new("pkg.Auth", "function", 0.78, "lsp_resolved", 0),
//!         Symbol::new("pkg.Server", "function", 0.54, "lsp_resolved", 1),
//!     ],
//!     edges: vec![Edge::new("pkg.Server", "pkg.Auth", "calls")],
//!     ..Payload::default()
//! };
//! let text = graph::encode(&payload)?;
//! let expected = [
//!     "GCF profile=graph tool=context_for_task symbols=2 edges=1",
//!     "## targets",
//!     "@0 fn pkg.Auth 0.78 lsp_resolved",
//!     "## related",
//!     "@1 fn pkg.Server 0.54 lsp_resolved",
//!     "## edges [1]",
//!     "@0<@1 calls",
//! ];
//! assert_eq!(text, expected.join("\n") + "\n");
//! let back = graph::decode(&text)?;
//! assert_eq!(back.symbols[1].qualified_name, "pkg.Server");
//! # Ok::<(), gcf_core::Error>(())
//! ```
//!
//! # Unsafe code
//!
//! Every `unsafe` block carries a `// SAFETY:` comment at the code; this is
//! the list, with the test of each, which `scripts/miri.sh` (part of
//! `scripts/test.sh`) runs under Miri. The SSE2 paths have portable
//! fallbacks, which `--cfg gcf_portable` compiles on x86-64 too and
//! `scripts/test.sh` tests directly; the wasm32 test run comes with the wasm
//! binding.
//!
//! | where | what | why it is sound | test |
//! |---|---|---|---|
//! | `graph/encode/mod.rs`, `Encoder::encode` | `String::from_utf8_unchecked` on the output | the output is whole `&str`s from the payload and ASCII the encoder wrote, and the buffer commits only ends of complete writes; debug builds validate every output | `graph::encode::tests::output_with_multibyte_text_everywhere_is_valid_utf8` |
//! | `graph/decode_fast.rs`, `field_str` (and its two callers in `graph/decode/state.rs`) | `str::get_unchecked` for fields the fast parsers found | fields start after an ASCII space and end at an ASCII byte, never inside a UTF-8 sequence; debug assertions | `graph::decode_fast::tests::field_ranges_are_char_boundaries` |
//! | `graph/decode_fast.rs`, `field_stops16` | SSE2 compares on register values | SSE2 is in the x86-64 baseline; no memory access | `graph::decode_fast::tests::field_stops16_*`, `field_end_*` |
//! | `graph/token.rs`, `pair_non_printable`; `generic/row.rs`, `classified_lanes`, `pair_classified`, `quad_classified`; `graph/stream.rs`, `Printable`; `digits.rs`, `eight_digits_pair`; `generic/decode/delimiters.rs`, `chunk_bits` | SSE2 compares and arithmetic on register values | as above; each has a portable version that is its test oracle (the delimiter scan's is tested against a plain byte search on both builds) | `graph::token::tests`, `generic::row::tests`, `graph::stream::tests::printable_names_copy_and_check_in_one_pass`, `digits::tests`, `generic::decode::delimiters::tests` |
//! | `generic/row.rs`, `RowTail::store_*`, `put_str`, `put_i64`, `put_f64`, `put_short_decimal`, `copy_plainly_bare`, and `RowTail::rest` (a slice of the tail from a raw pointer) | raw-pointer stores into the output buffer's free tail | the tail is exclusively borrowed; each piece's room is checked against its length before its stores; every store has a `debug_assert!` of its bounds; `rest` clamps its start to the tail and lives only while no store goes through the pointer | `generic::row::tests` (rows against the general writer at every buffer size) |
//! | `generic/row.rs`, `put_f64` | `f64::to_int_unchecked::<u32>` of a float's thousandths | only after `magnitude < 100_000.0` (false for NaN), so the value is below 10^8 + 1 | `generic::row::tests::floats_match_format_f64` |
//! | `digits.rs`, `ByteSlots for [MaybeUninit<u8>]::put_bytes` | `&[u8]` viewed as `&[MaybeUninit<u8>]` to copy into uninitialised memory | same layout; the source is only read | `digits::tests`, `graph::line::tests::writers_fill_uninitialised_windows_like_initialised_ones` |
//! | `graph/line.rs`, `OutputLines::advance` and its callers (`OutputLines::put`, `graph/encode/` (`mod.rs`, `edges.rs`), `graph/stream.rs`) | `Vec::set_len` over the line just assembled in spare capacity | every caller stores its pieces from 0, each where the one before ended, with bounds-checked stores | `graph::line::tests::lines_grow_or_flush_and_keep_every_byte`, `graph::stream::tests::fast_lines_match_the_general_writer` |
//! | `hint.rs`, `prefetch` | a prefetch hint (no memory access; not compiled under Miri) | a hint cannot fault | `hint::tests` |
//! | `hint.rs`, `float_of_this_branch` | an empty `asm!` block over a float's register (x86-64; not compiled under Miri) | no instruction runs; it declares no memory, stack or flags access | `hint::tests::a_float_through_the_fence_is_the_same_float`, `generic::row::tests::floats_match_format_f64` |
//! | `generic/key.rs`, `Key::same_text` | `transmute_copy` of a `Key` (a `CompactString`) to `[usize; 3]` | `compact_str` is pinned to exactly 0.10.0, whose representation is three fully initialised words, inline text zero-filled; compared as integers | `generic::key::tests::compact_str_layout_is_what_same_text_assumes` (fails loudly on a layout change), `same_text_agrees_with_text_equality` |
#![no_std]
#![deny(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod any_payload;
mod buffer;
mod digits;
mod error;
pub mod hash;
mod header;
mod hint;
mod input;
mod limits;
mod number;
#[cfg(feature = "op-counts")]
#[doc(hidden)]
pub mod ops;
#[cfg(not(feature = "op-counts"))]
mod ops;
mod protocol;
mod repeats;
mod sink;
mod text;
mod words;

pub mod generic;
pub mod graph;
pub mod stack;

pub use any_payload::{
    decode_any, decode_any_bytes, decode_any_with, payload_kind, AnyPayload, PayloadKind,
};
pub use error::{Error, ErrorClass, ErrorKind, Result};
pub use header::{detect_profile, Profile};
pub use input::validate_utf8;
pub use limits::Limits;
pub use number::{
    double_out_of_range_message, out_of_range_message as int64_out_of_range_message, parse_f64,
    parse_number, NumberError, ParsedNumber,
};
pub use protocol::{estimate_tokens, Outcome};
#[cfg(feature = "std")]
pub use sink::IoSink;
pub use sink::{CountingSink, FnSink, HostSink, Sink, SinkError};

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The version of the GCF specification this crate implements.
pub const SPEC_VERSION: &str = "3.6.0";
/// The version of this crate.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
