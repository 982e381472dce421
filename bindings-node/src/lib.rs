//! The native engine of the `@blackwell-systems/gcf` npm package.
//!
//! Every call takes and returns strings: JS builds a JSON text with the
//! engine's native `JSON.stringify` (or a small serializer for `Map`s) and
//! this side reads it with `gcf-bind`'s serde models straight into core
//! types; results come back as GCF text, or as JSON that JS turns into
//! objects with `JSON.parse`. Measured against reading objects property by
//! property through napi, the string route wins for every operation (see
//! `BENCH.md`), because one napi call per property costs more than V8's
//! JSON code spends on the same property.
//!
//! Errors cross as a `napi::Error` whose reason is a marker byte and the
//! `gcf_bind::Failure` as JSON; the JS layer turns it into its error class
//! with `category`, `line` and `column`.

#![deny(missing_docs)]
// napi-derive registers the exports only outside `cfg(test)`, so the unit
// tests see them unused.
#![cfg_attr(test, allow(dead_code))]

mod more;
mod scalar;
mod shape;
mod stream;
mod tagged;

use gcf_bind::Failure;
use gcf_core::generic;
use gcf_core::graph;
use napi::Status;
use napi_derive::napi;

/// The first character of a reason that carries a serialized `Failure`.
const FAILURE_MARK: char = '\u{1}';

fn fail(f: Failure) -> napi::Error {
    let json = serde_json::to_string(&f).unwrap_or_else(|_| String::from("{}"));
    let mut reason = String::with_capacity(json.len() + 1);
    reason.push(FAILURE_MARK);
    reason.push_str(&json);
    napi::Error::new(Status::GenericFailure, reason)
}

fn core_fail(e: gcf_core::Error) -> napi::Error {
    fail(Failure::from(e))
}

/// `encodeGeneric` flag: no `>` path columns (2.5.2's `noFlatten`).
const NO_FLATTEN: u32 = 1;
/// `encodeGeneric` flag: factor constant columns (off in 2.5.2).
const CONSTANT_COLUMNS: u32 = 2;

/// Encodes a graph payload given as JSON.
#[napi(js_name = "graphEncode")]
pub fn graph_encode(json: String) -> napi::Result<String> {
    let payload = gcf_bind::graph::payload_from_slice(json.as_bytes()).map_err(fail)?;
    graph::encode(&payload).map_err(core_fail)
}

/// Decodes graph GCF text into payload JSON.
#[napi(js_name = "graphDecode")]
pub fn graph_decode(text: String) -> napi::Result<String> {
    let payload = graph::decode(&text).map_err(core_fail)?;
    Ok(shape::payload(&payload))
}

/// Encodes any JSON value as a generic-profile payload; `flags` holds
/// [`NO_FLATTEN`] and [`CONSTANT_COLUMNS`].
#[napi(js_name = "genericEncode")]
pub fn generic_encode(json: String, flags: u32) -> napi::Result<String> {
    let value = gcf_bind::value::from_slice(json.as_bytes()).map_err(fail)?;
    generic::Encoder::new()
        .flatten(flags & NO_FLATTEN == 0)
        .constant_columns(flags & CONSTANT_COLUMNS != 0)
        .encode(&value)
        .map_err(core_fail)
}

/// Decodes generic (or graph) GCF text into the tagged JSON of
/// [`tagged`], which JS turns into `Map`s in wire order.
#[napi(js_name = "genericDecode")]
pub fn generic_decode(text: String) -> napi::Result<String> {
    let value = generic::decode(&text).map_err(core_fail)?;
    Ok(tagged::to_string(&value))
}

/// [`graph_decode`] of UTF-8 bytes, validated by the core.
#[napi(js_name = "graphDecodeBytes")]
pub fn graph_decode_bytes(bytes: &[u8]) -> napi::Result<String> {
    let payload = graph::decode_bytes(bytes).map_err(core_fail)?;
    Ok(shape::payload(&payload))
}

/// [`generic_decode`] of UTF-8 bytes, validated by the core.
#[napi(js_name = "genericDecodeBytes")]
pub fn generic_decode_bytes(bytes: &[u8]) -> napi::Result<String> {
    let value = generic::decode_bytes(bytes).map_err(core_fail)?;
    Ok(tagged::to_string(&value))
}

/// Encodes a graph delta given as JSON (2.5.2's `DeltaPayload`).
#[napi(js_name = "graphEncodeDelta")]
pub fn graph_encode_delta(json: String) -> napi::Result<String> {
    let delta = gcf_bind::graph::delta_from_slice(json.as_bytes()).map_err(fail)?;
    graph::encode_delta(&delta).map_err(core_fail)
}

/// Decodes graph delta text into 2.5.2's `DeltaPayload` JSON.
#[napi(js_name = "graphDecodeDelta")]
pub fn graph_decode_delta(text: String) -> napi::Result<String> {
    let delta = graph::decode_delta(&text).map_err(core_fail)?;
    Ok(shape::delta(&delta))
}
