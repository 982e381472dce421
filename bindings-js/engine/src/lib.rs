//! The engine of the JavaScript packages, with no JavaScript host in it.
//!
//! `@blackwell-systems/gcf` (napi-rs, `bindings-node/`) and the WebAssembly
//! package (wasm-bindgen, `bindings-wasm/`) wrap this crate one line per
//! call, so both hosts run the same operations and cannot drift. The JS
//! layer over them (`bindings-js/`) only ever sees this interface.
//!
//! # Conventions
//!
//! - **Arguments** are JSON text (`&str`), GCF text (`&str`) or UTF-8 bytes
//!   (`&[u8]`, validated by the core, which reports `invalid_utf8` with a
//!   line and column). JSON inputs use the shapes of the 2.5.2 npm package
//!   (`qualifiedName`, `edgeType`, ...), read by `gcf-bind`'s serde models;
//!   the JS side builds them with `JSON.stringify`.
//! - **Results** are GCF text, or JSON for JS to `JSON.parse`: graph
//!   results in 2.5.2's shapes ([`graph_decode`]: every edge has a `status`,
//!   `""` when the line has none), generic values in the tagged form of
//!   [`generic_decode`] (objects as `[k, v, ...]` arrays so member order
//!   survives, arrays as `{"a": [...]}`, integers beyond 2^53 as
//!   `{"i": "digits"}`).
//! - **Errors** are a [`Failure`] (`{class, category, message, line,
//!   column}`). A host hands it to JS as an exception whose message is
//!   [`failure_reason`]: [`FAILURE_MARK`] followed by the failure as JSON;
//!   the JS layer turns that into its error classes.
//!
//! # Operations
//!
//! | function | arguments | result |
//! |---|---|---|
//! | [`graph_encode`] | payload JSON | GCF |
//! | [`graph_decode`] / [`graph_decode_bytes`] | GCF | payload JSON |
//! | [`graph_encode_delta`] | `DeltaPayload` JSON | GCF |
//! | [`graph_decode_delta`] | GCF | `DeltaPayload` JSON |
//! | [`graph_pack_root`] | `{symbols, edges}` JSON | root |
//! | [`graph_verify_delta`] | base JSON, delta JSON, expected root | `{symbols, edges}` JSON |
//! | [`generic_encode`] | value JSON, flags ([`NO_FLATTEN`], [`CONSTANT_COLUMNS`]) | GCF |
//! | [`generic_decode`] / [`generic_decode_bytes`] | GCF | tagged JSON |
//! | [`generic_pack_root`] | keyed-set JSON | root |
//! | [`generic_encode_full`] | keyed-set JSON, tool | GCF |
//! | [`generic_decode_full`] | GCF | `{set, packRoot}` JSON |
//! | [`generic_encode_delta`] / [`generic_decode_delta`] | delta JSON / GCF | GCF / delta JSON |
//! | [`generic_diff`] | base, next keyed-set JSON | delta JSON |
//! | [`generic_verify_delta`] | base JSON, delta JSON, expected root | keyed-set JSON |
//! | [`needs_quote`], [`quote_string`], [`format_key`] | string | bool / text |
//! | [`format_scalar`], [`canonical_cell`] | scalar JSON (, delimiter) | text |
//! | [`graph_encode_packed`] | packed strings, numbers | GCF, or `""`: use JSON |
//! | [`graph_encode_packed_args`] | a payload | the packed strings and numbers the JS layer builds for it |
//! | [`graph_decode_packed`] | GCF | [`Packed`] string table and numbers |
//! | [`generic_encode_packed`] | packed ops, strings, numbers, flags | GCF, or `""`: use JSON |
//! | [`generic_decode_packed`] / [`generic_decode_bytes_packed`] | GCF | [`Packed`] ops, strings and numbers (or tagged JSON) |
//! | [`set_decode_limits`] | limits JSON, or `""` for the defaults | nothing: the limits of every decode above (payloads, deltas, full keyed payloads) and of [`GraphSessionDecoder::decode`], on this thread |
//!
//! Stateful objects: [`GraphSession`], [`GraphSessionDecoder`], [`GraphStream`] and [`GenericStream`]
//! (output buffered here, taken by JS in batches), [`GenericDeltaSession`].
//!
//! ```
//! let gcf = gcf_js_engine::graph_encode(
//!     r#"{"tool":"t","tokenBudget":0,"tokensUsed":0,"symbols":[],"edges":[]}"#,
//! )
//! .unwrap();
//! assert!(gcf.starts_with("GCF profile=graph"));
//! let err = gcf_js_engine::graph_decode("GCF profile=graph\n@x\n").unwrap_err();
//! assert!(gcf_js_engine::failure_reason(&err).starts_with('\u{1}'));
//! ```

#![deny(missing_docs)]

mod deltas;
mod generic_stream;
mod limits;
mod nul;
mod packed;
mod packed_decode;
mod packed_value;
mod packed_view;
mod scalar;
mod shape;
mod stream;
mod tagged;
mod units;

pub use deltas::{
    generic_decode_delta, generic_decode_full, generic_diff, generic_encode_delta,
    generic_encode_full, generic_pack_root, generic_verify_delta, graph_pack_root,
    graph_verify_delta, GenericDeltaSession, GraphSession, GraphSessionDecoder,
};
pub use gcf_bind::Failure;
pub use generic_stream::GenericStream;
use limits::decode_limits;
pub use limits::set_decode_limits;
pub use packed::{graph_decode_packed, graph_encode_packed, graph_encode_packed_args, Packed};
pub use packed_decode::{generic_decode_bytes_packed, generic_decode_packed, read_packed_value};
pub use packed_value::{generic_encode_packed, generic_encode_packed_args};
pub use scalar::{
    canonical_cell, format_key, format_scalar, needs_quote, parse_cell, parse_scalar, quote_string,
};
pub use stream::GraphStream;
pub use units::utf16_len;

/// Seeds the core's hash tables (see [`gcf_core::hash`]): the WebAssembly
/// host calls it at start with bytes from `crypto.getRandomValues`.
pub use gcf_core::hash::{set_hash_seed, HashState};

use gcf_core::generic;
use gcf_core::generic::flat::Flat;
use gcf_core::graph;

/// The result of every operation.
pub type Result<T> = core::result::Result<T, Failure>;

/// The first character of an exception message that carries a [`Failure`].
pub const FAILURE_MARK: char = '\u{1}';

/// The exception message a host throws for `f`: [`FAILURE_MARK`] and the
/// failure as JSON.
pub fn failure_reason(f: &Failure) -> String {
    let json = serde_json::to_string(f).unwrap_or_else(|_| String::from("{}"));
    let mut reason = String::with_capacity(json.len() + 1);
    reason.push(FAILURE_MARK);
    reason.push_str(&json);
    reason
}

/// The longest string V8 makes, in UTF-16 units (`v8::String::kMaxLength`
/// on 64-bit targets, every Node release since 8): the bound a result of the
/// native engine must fit to reach JavaScript as one string.
pub const V8_MAX_STRING_LEN: usize = (1 << 29) - 24;

/// `s` when a JavaScript engine whose longest string is `max` UTF-16 units
/// can hold it; otherwise `limit_exceeded`, saying how long it is (and
/// what writes text of any length: the stream encoders). Without this check
/// the host's own conversion fails with a message that names neither.
///
/// ```
/// use gcf_js_engine::fit_js_string;
/// assert_eq!(fit_js_string(String::from("é"), 1).unwrap(), "é"); // 2 bytes, 1 unit
/// let f = fit_js_string(String::from("abc"), 2).unwrap_err();
/// assert_eq!(f.category, "limit_exceeded");
/// ```
pub fn fit_js_string(s: String, max: usize) -> Result<String> {
    // A UTF-8 string has at most as many UTF-16 units as bytes: only a
    // result longer than `max` bytes is counted.
    if s.len() <= max {
        return Ok(s);
    }
    let units = s.encode_utf16().count();
    if units <= max {
        return Ok(s);
    }
    Err(Failure::new(
        gcf_core::ErrorClass::Limit,
        "limit_exceeded",
        format!(
            "the result is {units} characters long, past the longest string this JavaScript \
             engine can make ({max}) (the stream encoders write text of any length, in chunks)"
        ),
    ))
}

/// [`generic_encode`] flag: no `>` path columns (2.5.2's `noFlatten`).
pub const NO_FLATTEN: u32 = 1;
/// [`generic_encode`] flag: factor constant columns (off in 2.5.2).
pub const CONSTANT_COLUMNS: u32 = 2;

/// Encodes a graph payload given as JSON.
///
/// Every graph encode of this crate hands the core a `Payload<&str>` (the
/// packed route reads `&str` fields, the JSON route `Cow`s, borrowed here):
/// the encoder is generic over the string type, so each type would be a
/// whole copy of it in the WebAssembly module (about 20 KB), and copying the
/// symbol and edge records of a JSON payload costs far less than parsing them.
pub fn graph_encode(json: &str) -> Result<String> {
    let payload = gcf_bind::graph::payload_from_str(json)?;
    Ok(graph::encode(&payload.as_borrowed())?)
}

/// The profile a payload's header line declares (`"graph"`, `"generic"`),
/// or `""` when the first line is no header the core reads; only the first
/// line of `head` is read. 2.5.2's `decodeGeneric` decodes graph text too:
/// the layer asks this once the generic decoder has refused the input.
pub fn profile_of(head: &str) -> &'static str {
    match gcf_core::detect_profile(head) {
        Ok(gcf_core::Profile::Graph) => "graph",
        Ok(gcf_core::Profile::Generic) => "generic",
        Err(_) => "",
    }
}

/// Decodes graph GCF text into payload JSON. The payload borrows its
/// strings from `text` until they are written out; numbered (`Indexed`)
/// as the packed route decodes, so a module carries one instance of the
/// decoder.
pub fn graph_decode(text: &str) -> Result<String> {
    Ok(shape::payload(
        &graph::Decoder::new()
            .limits(decode_limits())
            .refuse_references(true)
            .decode_indexed(text)?,
    ))
}

/// [`graph_decode`] of UTF-8 bytes (checked by the core, which reports the
/// line and column of a bad sequence).
pub fn graph_decode_bytes(bytes: &[u8]) -> Result<String> {
    graph_decode(gcf_core::validate_utf8(bytes)?)
}

/// Encodes any JSON value as a generic-profile payload; `flags` holds
/// [`NO_FLATTEN`] and [`CONSTANT_COLUMNS`].
pub fn generic_encode(json: &str, flags: u32) -> Result<String> {
    encode_value(&gcf_bind::value::from_str(json)?, flags)
}

/// The generic encode of both routes ([`generic_encode`] and
/// [`generic_encode_packed`]).
fn encode_value(value: &generic::Value, flags: u32) -> Result<String> {
    let index = packed_view::Index::of_value(value);
    Ok(encoder(flags).encode_view(index.root()?)?)
}

/// The generic encoder `flags` ask for. No path column runs through a
/// member named `__proto__`, `constructor` or `prototype`, as 2.5.2 writes
/// it (whose decoder drops such columns).
fn encoder(flags: u32) -> generic::Encoder {
    generic::Encoder::new()
        .flatten(flags & NO_FLATTEN == 0)
        .prototype_name_paths(false)
        .constant_columns(flags & CONSTANT_COLUMNS != 0)
}

/// Decodes generic (or graph) GCF text into tagged JSON (see the crate
/// docs), which JS turns into `Map`s in wire order.
pub fn generic_decode(text: &str) -> Result<String> {
    Ok(tagged::to_string(&generic_decoder().decode(text)?))
}

/// [`generic_decode`] of UTF-8 bytes.
pub fn generic_decode_bytes(bytes: &[u8]) -> Result<String> {
    Ok(tagged::to_string(&generic_decoder().decode_bytes(bytes)?))
}

/// The generic decoder with this thread's limits.
fn generic_decoder() -> generic::Decoder {
    generic::Decoder::new().limits(decode_limits())
}

/// Encodes a graph delta given as JSON (2.5.2's `DeltaPayload`).
pub fn graph_encode_delta(json: &str) -> Result<String> {
    let delta = gcf_bind::graph::delta_from_str(json)?;
    Ok(graph::encode_delta(&delta)?)
}

/// Decodes graph delta text into 2.5.2's `DeltaPayload` JSON.
pub fn graph_decode_delta(text: &str) -> Result<String> {
    Ok(shape::delta(&graph::decode_delta_with(
        text,
        &decode_limits(),
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAYLOAD: &str = r#"{"tool":"t","tokenBudget":0,"tokensUsed":0,
        "symbols":[{"qualifiedName":"a.B","kind":"function","score":1,"provenance":"p","distance":0}],
        "edges":[]}"#;

    #[test]
    fn graph_round_trip_keeps_the_2_5_2_shape() {
        let text = graph_encode(PAYLOAD).unwrap();
        let json = graph_decode(&text).unwrap();
        assert_eq!(graph_decode_bytes(text.as_bytes()).unwrap(), json);
        assert!(
            json.contains(r#""qualifiedName":"a.B","kind":"function""#),
            "{json}"
        );
    }

    #[test]
    fn a_failure_crosses_as_the_mark_and_its_json() {
        let f = graph_decode("GCF profile=graph\n@x\n").unwrap_err();
        let reason = failure_reason(&f);
        let json: serde_json::Value = serde_json::from_str(&reason[1..]).unwrap();
        assert!(reason.starts_with(FAILURE_MARK));
        assert_eq!(json["category"], f.category);
        assert_eq!(json["line"], 2);
    }

    #[test]
    fn the_stream_hands_over_what_it_wrote_once() {
        let mut s = GraphStream::new("t", 0, 0, false, "", false).unwrap();
        s.write_symbol("a.B", "function", 1.0, "p", 0).unwrap();
        let head = s.take().unwrap();
        assert!(head.starts_with("GCF profile=graph"), "{head}");
        assert_eq!(s.take().unwrap(), "");
        let rest = s.finish().unwrap();
        assert!(!rest.is_empty());
        assert!(s.write_symbol("c", "function", 1.0, "p", 0).is_err());
    }

    #[test]
    fn the_stream_writes_bare_references() {
        let mut s = GraphStream::new("t", 0, 0, false, "", true).unwrap();
        s.write_symbol("a.B", "function", 1.0, "p", 0).unwrap();
        s.write_bare_ref("a.C", 1).unwrap();
        s.write_edge("a.C", "a.B", "calls", "").unwrap();
        assert_eq!(
            s.finish().unwrap(),
            "GCF profile=graph tool=t session=true\n## targets\n@0 fn a.B 1.00 p\n\
             ## related\n@1  # previously transmitted\n## edges [?]\n@0<@1 calls\n\
             ##! summary symbols=2 edges=1 counts=1,1,1\n"
        );
        assert!(s.write_bare_ref("a.D", 0).is_err());
    }

    #[test]
    fn the_stream_header_takes_pack_root_and_session() {
        let mut s = GraphStream::new("t", 5, 0, false, "sha256:ab", true).unwrap();
        assert_eq!(
            s.take().unwrap(),
            "GCF profile=graph tool=t budget=5 pack_root=sha256:ab session=true\n"
        );
        assert!(GraphStream::new("t", 0, 0, false, "a b", false).is_err());
    }

    #[test]
    fn a_session_sends_a_symbol_once() {
        let mut s = GraphSession::new();
        s.encode(PAYLOAD).unwrap();
        assert_eq!(s.size(), 1);
        assert_eq!(s.id_of("function", "a.B"), 0);
        assert_eq!(s.id_of("function", "nope"), -1);
        s.reset();
        assert_eq!(s.size(), 0);
    }
}
