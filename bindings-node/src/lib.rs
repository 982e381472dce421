//! The native engine of the `@blackwell-systems/gcf` npm package: napi-rs
//! wrappers, one line each, over `gcf-js-engine` (`bindings-js/engine/`),
//! whose docs hold the interface (arguments, results, errors). The
//! WebAssembly package wraps the same crate, so the two engines cannot
//! drift.
//!
//! Every call takes and returns strings: measured against reading objects
//! property by property through napi, the string route wins for every
//! operation (see `BENCH.md`), because one napi call per property costs
//! more than V8's JSON code spends on the same property.

#![deny(missing_docs)]
// napi-derive registers the exports only outside `cfg(test)`, so unit
// tests would see them unused.
#![cfg_attr(test, allow(dead_code))]

use gcf_js_engine as engine;
use napi::bindgen_prelude::{Either, Float64ArraySlice, Uint8Array, Uint8ArraySlice};
use napi::Env;
use napi::Status;
use napi_derive::napi;

// A generic encode builds a value tree of many small strings and maps and
// drops it at the end of the call; glibc's malloc and free were a fifth of
// the engine's instructions there (callgrind, BENCH.md). mimalloc's
// thread-local free lists make both cheap. Only this addon sets it: the
// engine crate stays allocator-neutral for the WebAssembly build.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A failure as the JS layer expects it: the engine's marked reason.
fn js<T>(r: engine::Result<T>) -> napi::Result<T> {
    r.map_err(|f| napi::Error::new(Status::GenericFailure, engine::failure_reason(&f)))
}

/// A string result as [`js`] gives it, or `limit_exceeded` when it is
/// longer than V8's longest string (see [`engine::fit_js_string`]).
fn js_string(r: engine::Result<String>) -> napi::Result<String> {
    js(r.and_then(|s| engine::fit_js_string(s, engine::V8_MAX_STRING_LEN)))
}

/// See [`gcf_js_engine::graph_encode`].
#[napi(js_name = "graphEncode")]
pub fn graph_encode(json: String) -> napi::Result<String> {
    js_string(engine::graph_encode(&json))
}

/// See [`gcf_js_engine::graph_decode`].
#[napi(js_name = "graphDecode")]
pub fn graph_decode(text: String) -> napi::Result<String> {
    js_string(engine::graph_decode(&text))
}

/// See [`gcf_js_engine::graph_decode_bytes`].
#[napi(js_name = "graphDecodeBytes")]
pub fn graph_decode_bytes(bytes: Uint8Array) -> napi::Result<String> {
    js_string(engine::graph_decode_bytes(&bytes))
}

/// See [`gcf_js_engine::generic_encode`].
#[napi(js_name = "genericEncode")]
pub fn generic_encode(json: String, flags: u32) -> napi::Result<String> {
    js_string(engine::generic_encode(&json, flags))
}

/// See [`gcf_js_engine::generic_decode`].
#[napi(js_name = "genericDecode")]
pub fn generic_decode(text: String) -> napi::Result<String> {
    js_string(engine::generic_decode(&text))
}

/// See [`gcf_js_engine::set_decode_limits`].
#[napi(js_name = "setDecodeLimits")]
pub fn set_decode_limits(json: String) -> napi::Result<()> {
    js(engine::set_decode_limits(&json))
}

/// See [`gcf_js_engine::generic_decode_bytes`].
#[napi(js_name = "genericDecodeBytes")]
pub fn generic_decode_bytes(bytes: Uint8Array) -> napi::Result<String> {
    js_string(engine::generic_decode_bytes(&bytes))
}

/// The first `len` elements of `all` (all of them when `len` is not
/// given or is larger).
///
/// The layer passes its reused scratch arrays whole, with the length in
/// use, rather than a `subarray` view of each: V8 allocates a new typed
/// array object for every view, about 80-100 ns each, which was a tenth
/// of encoding a payload of one symbol (`BENCH.md`).
fn prefix<T>(all: &[T], len: Option<u32>) -> &[T] {
    match len {
        Some(n) => all.get(..n as usize).unwrap_or(all),
        None => all,
    }
}

/// See [`gcf_js_engine::graph_encode_packed`]: its arguments are the first
/// `strings_len` bytes and `nums_len` numbers of the arrays (see
/// `prefix`). Both arrays are read in place (napi hands over a view of
/// the JS memory, no copy).
#[napi(js_name = "graphEncodePacked")]
pub fn graph_encode_packed(
    strings: Uint8ArraySlice,
    nums: Float64ArraySlice,
    strings_len: Option<u32>,
    nums_len: Option<u32>,
) -> napi::Result<String> {
    js_string(engine::graph_encode_packed(
        prefix(&strings, strings_len),
        prefix(&nums, nums_len),
    ))
}

/// See [`gcf_js_engine::generic_encode_packed`]: the first `ops_len`,
/// `text_len` and `nums_len` elements of the arrays, read in place, as for
/// [`graph_encode_packed`].
#[napi(js_name = "genericEncodePacked")]
pub fn generic_encode_packed(
    ops: Uint8ArraySlice,
    text: Uint8ArraySlice,
    nums: Float64ArraySlice,
    flags: u32,
    ops_len: Option<u32>,
    text_len: Option<u32>,
    nums_len: Option<u32>,
) -> napi::Result<String> {
    js_string(engine::generic_encode_packed(
        prefix(&ops, ops_len),
        prefix(&text, text_len),
        prefix(&nums, nums_len),
        flags,
    ))
}

/// See [`gcf_js_engine::graph_decode_packed`]: the strings, with the
/// numbers written into `scratch` when it is given and holds them, else
/// `[strings, nums]` (see `packed`).
#[napi(js_name = "graphDecodePacked")]
pub fn graph_decode_packed<'e>(
    env: &'e Env,
    text: String,
    scratch: Option<Float64ArraySlice>,
) -> napi::Result<Either<String, (String, Float64ArraySlice<'e>)>> {
    packed(env, engine::graph_decode_packed(&text), scratch)
}

/// See [`gcf_js_engine::generic_decode_packed`]: as [`graph_decode_packed`].
#[napi(js_name = "genericDecodePacked")]
pub fn generic_decode_packed<'e>(
    env: &'e Env,
    text: String,
    scratch: Option<Float64ArraySlice>,
) -> napi::Result<Either<String, (String, Float64ArraySlice<'e>)>> {
    packed(env, engine::generic_decode_packed(&text), scratch)
}

/// See [`gcf_js_engine::generic_decode_bytes_packed`]: as
/// [`graph_decode_packed`].
#[napi(js_name = "genericDecodeBytesPacked")]
pub fn generic_decode_bytes_packed<'e>(
    env: &'e Env,
    bytes: Uint8Array,
    scratch: Option<Float64ArraySlice>,
) -> napi::Result<Either<String, (String, Float64ArraySlice<'e>)>> {
    packed(env, engine::generic_decode_bytes_packed(&bytes), scratch)
}

/// A packed result as JS receives it. The numbers go into the caller's
/// `scratch` (a `Float64Array` the layer keeps) when they fit, and the
/// result is the strings alone; otherwise they are copied into a new
/// `Float64Array` and the result is `[strings, nums]`. A new array costs
/// V8 a backing store off its heap, about 0.8 µs even for 20 numbers (more
/// than a 10-symbol graph decode's engine work); an external buffer over the
/// `Vec` needed a finalizer per call, which cost more still.
fn packed<'e>(
    env: &'e Env,
    packed: engine::Result<engine::Packed>,
    scratch: Option<Float64ArraySlice>,
) -> napi::Result<Either<String, (String, Float64ArraySlice<'e>)>> {
    let p = js(packed)?;
    let strings = js_string(Ok(p.strings))?;
    if let Some(mut scratch) = scratch {
        // SAFETY: `scratch` views a typed array JS passed to this call. JS
        // runs on this thread only between napi calls, and this function
        // calls none while the slice is alive, so nothing can read, write
        // or detach its memory meanwhile; the slice is dropped when this
        // returns. (napi-rs marks every mutable view `unsafe` for that
        // reason.)
        let out = unsafe { scratch.as_mut() };
        if let Some(head) = out.get_mut(..p.nums.len()) {
            head.copy_from_slice(&p.nums);
            return Ok(Either::A(strings));
        }
    }
    Ok(Either::B((
        strings,
        Float64ArraySlice::copy_from(env, &p.nums)?,
    )))
}

/// See [`gcf_js_engine::graph_encode_delta`].
#[napi(js_name = "graphEncodeDelta")]
pub fn graph_encode_delta(json: String) -> napi::Result<String> {
    js_string(engine::graph_encode_delta(&json))
}

/// See [`gcf_js_engine::graph_decode_delta`].
#[napi(js_name = "graphDecodeDelta")]
pub fn graph_decode_delta(text: String) -> napi::Result<String> {
    js_string(engine::graph_decode_delta(&text))
}

/// See [`gcf_js_engine::graph_pack_root`].
#[napi(js_name = "graphPackRoot")]
pub fn graph_pack_root(json: String) -> napi::Result<String> {
    js_string(engine::graph_pack_root(&json))
}

/// See [`gcf_js_engine::graph_verify_delta`].
#[napi(js_name = "graphVerifyDelta")]
pub fn graph_verify_delta(base: String, delta: String, expected: String) -> napi::Result<String> {
    js_string(engine::graph_verify_delta(&base, &delta, &expected))
}

/// See [`gcf_js_engine::generic_pack_root`].
#[napi(js_name = "genericPackRoot")]
pub fn generic_pack_root(json: String) -> napi::Result<String> {
    js_string(engine::generic_pack_root(&json))
}

/// See [`gcf_js_engine::generic_encode_full`].
#[napi(js_name = "genericEncodeFull")]
pub fn generic_encode_full(json: String, tool: String) -> napi::Result<String> {
    js_string(engine::generic_encode_full(&json, &tool))
}

/// See [`gcf_js_engine::generic_decode_full`].
#[napi(js_name = "genericDecodeFull")]
pub fn generic_decode_full(text: String) -> napi::Result<String> {
    js_string(engine::generic_decode_full(&text))
}

/// See [`gcf_js_engine::generic_encode_delta`].
#[napi(js_name = "genericEncodeDelta")]
pub fn generic_encode_delta(json: String) -> napi::Result<String> {
    js_string(engine::generic_encode_delta(&json))
}

/// See [`gcf_js_engine::generic_decode_delta`].
#[napi(js_name = "genericDecodeDelta")]
pub fn generic_decode_delta(text: String) -> napi::Result<String> {
    js_string(engine::generic_decode_delta(&text))
}

/// See [`gcf_js_engine::generic_diff`].
#[napi(js_name = "genericDiff")]
pub fn generic_diff(base: String, next: String) -> napi::Result<String> {
    js_string(engine::generic_diff(&base, &next))
}

/// See [`gcf_js_engine::generic_verify_delta`].
#[napi(js_name = "genericVerifyDelta")]
pub fn generic_verify_delta(base: String, delta: String, expected: String) -> napi::Result<String> {
    js_string(engine::generic_verify_delta(&base, &delta, &expected))
}

/// See [`gcf_js_engine::profile_of`].
#[napi(js_name = "profileOf")]
pub fn profile_of(head: String) -> &'static str {
    engine::profile_of(&head)
}

/// See [`gcf_js_engine::needs_quote`].
#[napi(js_name = "needsQuote")]
pub fn needs_quote(s: String) -> bool {
    engine::needs_quote(&s)
}

/// See [`gcf_js_engine::quote_string`].
#[napi(js_name = "quoteString")]
pub fn quote_string(s: String) -> napi::Result<String> {
    js_string(engine::quote_string(&s))
}

/// See [`gcf_js_engine::format_key`].
#[napi(js_name = "formatKey")]
pub fn format_key(s: String) -> napi::Result<String> {
    js_string(engine::format_key(&s))
}

/// See [`gcf_js_engine::format_scalar`].
#[napi(js_name = "formatScalar")]
pub fn format_scalar(json: String, delimiter: u32) -> napi::Result<String> {
    js_string(engine::format_scalar(&json, delimiter))
}

/// See [`gcf_js_engine::parse_scalar`].
#[napi(js_name = "parseScalar")]
pub fn parse_scalar(token: String) -> napi::Result<String> {
    js_string(engine::parse_scalar(&token))
}

/// See [`gcf_js_engine::parse_cell`].
#[napi(js_name = "parseCell")]
pub fn parse_cell(token: String) -> napi::Result<String> {
    js_string(engine::parse_cell(&token))
}

/// See [`gcf_js_engine::canonical_cell`].
#[napi(js_name = "canonicalCell")]
pub fn canonical_cell(json: String) -> napi::Result<String> {
    js_string(engine::canonical_cell(&json))
}

/// See [`gcf_js_engine::GraphSession`].
#[napi(js_name = "NativeGraphSession")]
#[derive(Default)]
pub struct NativeGraphSession(engine::GraphSession);

#[napi]
impl NativeGraphSession {
    /// An empty session.
    #[napi(constructor)]
    pub fn new() -> Self {
        Self::default()
    }

    /// See [`gcf_js_engine::GraphSession::encode`].
    #[napi]
    pub fn encode(&mut self, json: String) -> napi::Result<String> {
        js_string(self.0.encode(&json))
    }

    /// See [`gcf_js_engine::GraphSession::record`].
    #[napi]
    pub fn record(&mut self, kind: String, qualified_name: String) -> i64 {
        self.0.record(&kind, &qualified_name)
    }

    /// See [`gcf_js_engine::GraphSession::next_id`].
    #[napi(js_name = "nextId")]
    pub fn next_id(&self) -> f64 {
        self.0.next_id()
    }

    /// See [`gcf_js_engine::GraphSession::id_of`].
    #[napi(js_name = "idOf")]
    pub fn id_of(&self, kind: String, qualified_name: String) -> i64 {
        self.0.id_of(&kind, &qualified_name)
    }

    /// See [`gcf_js_engine::GraphSession::size`].
    #[napi]
    pub fn size(&self) -> u32 {
        self.0.size()
    }

    /// See [`gcf_js_engine::GraphSession::reset`].
    #[napi]
    pub fn reset(&mut self) {
        self.0.reset()
    }
}

/// See [`gcf_js_engine::GraphSessionDecoder`].
#[napi(js_name = "NativeGraphSessionDecoder")]
pub struct NativeGraphSessionDecoder(engine::GraphSessionDecoder);

#[napi]
impl NativeGraphSessionDecoder {
    /// See [`gcf_js_engine::GraphSessionDecoder::new`].
    #[napi(constructor)]
    pub fn new(max_retained: i64) -> Self {
        Self(engine::GraphSessionDecoder::new(max_retained))
    }

    /// See [`gcf_js_engine::GraphSessionDecoder::decode`].
    #[napi]
    pub fn decode(&mut self, text: String) -> napi::Result<String> {
        js_string(self.0.decode(&text))
    }

    /// See [`gcf_js_engine::GraphSessionDecoder::decode_bytes`].
    #[napi(js_name = "decodeBytes")]
    pub fn decode_bytes(&mut self, bytes: Uint8Array) -> napi::Result<String> {
        js_string(self.0.decode_bytes(&bytes))
    }

    /// See [`gcf_js_engine::GraphSessionDecoder::size`].
    #[napi]
    pub fn size(&self) -> u32 {
        self.0.size()
    }

    /// See [`gcf_js_engine::GraphSessionDecoder::reset`].
    #[napi]
    pub fn reset(&mut self) {
        self.0.reset()
    }
}

/// See [`gcf_js_engine::GenericDeltaSession`].
#[napi(js_name = "NativeGenericDeltaSession")]
pub struct NativeGenericDeltaSession(engine::GenericDeltaSession);

#[napi]
impl NativeGenericDeltaSession {
    /// See [`gcf_js_engine::GenericDeltaSession::new`].
    #[napi(constructor)]
    pub fn new(base: String, tool: String, mode: u32, n: i64) -> napi::Result<Self> {
        js(engine::GenericDeltaSession::new(&base, &tool, mode, n)).map(Self)
    }

    /// See [`gcf_js_engine::GenericDeltaSession::current_full`].
    #[napi(js_name = "currentFull")]
    pub fn current_full(&self) -> napi::Result<String> {
        js_string(self.0.current_full())
    }

    /// See [`gcf_js_engine::GenericDeltaSession::next`].
    #[napi]
    pub fn next(&mut self, set: String) -> napi::Result<String> {
        js_string(self.0.next(&set))
    }

    /// See [`gcf_js_engine::GenericDeltaSession::count_refused_turn`].
    #[napi(js_name = "countRefusedTurn")]
    pub fn count_refused_turn(&mut self) {
        self.0.count_refused_turn()
    }

    /// See [`gcf_js_engine::GenericDeltaSession::turn`].
    #[napi]
    pub fn turn(&self) -> f64 {
        self.0.turn()
    }
}

/// See [`gcf_js_engine::GraphStream`].
#[napi(js_name = "NativeGraphStream")]
pub struct NativeGraphStream(engine::GraphStream);

/// A JS number of tokens as the engine's count (negative and NaN are 0).
fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

#[napi]
impl NativeGraphStream {
    /// See [`gcf_js_engine::GraphStream::new`].
    #[napi(constructor)]
    pub fn new(
        tool: String,
        budget: i64,
        used: i64,
        labeled: bool,
        pack_root: String,
        session: bool,
    ) -> napi::Result<Self> {
        let (budget, used) = (count(budget), count(used));
        js(engine::GraphStream::new(
            &tool, budget, used, labeled, &pack_root, session,
        ))
        .map(Self)
    }

    /// See [`gcf_js_engine::GraphStream::write_symbol`].
    #[napi(js_name = "writeSymbol")]
    pub fn write_symbol(
        &mut self,
        qualified_name: String,
        kind: String,
        score: f64,
        provenance: String,
        distance: u32,
    ) -> napi::Result<u32> {
        js(self
            .0
            .write_symbol(&qualified_name, &kind, score, &provenance, distance))
    }

    /// See [`gcf_js_engine::GraphStream::write_symbols_packed`]; the arrays
    /// are read in place.
    #[napi(js_name = "writeSymbolsPacked")]
    pub fn write_symbols_packed(
        &mut self,
        text: Uint8ArraySlice,
        nums: Float64ArraySlice,
    ) -> napi::Result<u32> {
        js(self.0.write_symbols_packed(&text, &nums))
    }

    /// See [`gcf_js_engine::GraphStream::write_bare_ref`].
    #[napi(js_name = "writeBareRef")]
    pub fn write_bare_ref(&mut self, qualified_name: String, distance: u32) -> napi::Result<u32> {
        js(self.0.write_bare_ref(&qualified_name, distance))
    }

    /// See [`gcf_js_engine::GraphStream::write_edge`].
    #[napi(js_name = "writeEdge")]
    pub fn write_edge(
        &mut self,
        source: String,
        target: String,
        edge_type: String,
        status: String,
    ) -> napi::Result<u32> {
        js(self.0.write_edge(&source, &target, &edge_type, &status))
    }

    /// See [`gcf_js_engine::GraphStream::take`].
    #[napi]
    pub fn take(&mut self) -> napi::Result<String> {
        js_string(self.0.take())
    }

    /// See [`gcf_js_engine::GraphStream::finish`].
    #[napi]
    pub fn finish(&mut self) -> napi::Result<String> {
        js_string(self.0.finish())
    }

    /// See [`gcf_js_engine::GraphStream::symbol_count`].
    #[napi(getter, js_name = "symbolCount")]
    pub fn symbol_count(&self) -> f64 {
        self.0.symbol_count() as f64
    }

    /// See [`gcf_js_engine::GraphStream::edge_count`].
    #[napi(getter, js_name = "edgeCount")]
    pub fn edge_count(&self) -> f64 {
        self.0.edge_count() as f64
    }
}

/// See [`gcf_js_engine::GenericStream`].
#[napi(js_name = "NativeGenericStream")]
#[derive(Default)]
pub struct NativeGenericStream(engine::GenericStream);

#[napi]
impl NativeGenericStream {
    /// See [`gcf_js_engine::GenericStream::new`].
    #[napi(constructor)]
    pub fn new() -> Self {
        Self::default()
    }

    /// See [`gcf_js_engine::GenericStream::begin_array`].
    #[napi(js_name = "beginArray")]
    pub fn begin_array(&mut self, name: String, fields: String) -> napi::Result<u32> {
        js(self.0.begin_array(&name, &fields))
    }

    /// See [`gcf_js_engine::GenericStream::begin_keyed_map`].
    #[napi(js_name = "beginKeyedMap")]
    pub fn begin_keyed_map(
        &mut self,
        name: String,
        key_label: String,
        value_fields: String,
    ) -> napi::Result<u32> {
        js(self.0.begin_keyed_map(&name, &key_label, &value_fields))
    }

    /// See [`gcf_js_engine::GenericStream::write_row`].
    #[napi(js_name = "writeRow")]
    pub fn write_row(&mut self, values: String) -> napi::Result<u32> {
        js(self.0.write_row(&values))
    }

    /// See [`gcf_js_engine::GenericStream::write_rows`].
    #[napi(js_name = "writeRows")]
    pub fn write_rows(&mut self, rows: String) -> napi::Result<u32> {
        js(self.0.write_rows(&rows))
    }

    /// See [`gcf_js_engine::GenericStream::write_rows_packed`]; the arrays
    /// are read in place.
    #[napi(js_name = "writeRowsPacked")]
    pub fn write_rows_packed(
        &mut self,
        ops: Uint8ArraySlice,
        text: Uint8ArraySlice,
        nums: Float64ArraySlice,
    ) -> napi::Result<u32> {
        js(self.0.write_rows_packed(&ops, &text, &nums))
    }

    /// See [`gcf_js_engine::GenericStream::end_array`].
    #[napi(js_name = "endArray")]
    pub fn end_array(&mut self) -> u32 {
        self.0.end_array()
    }

    /// See [`gcf_js_engine::GenericStream::row_width`].
    #[napi(js_name = "rowWidth")]
    pub fn row_width(&self) -> u32 {
        self.0.row_width()
    }

    /// See [`gcf_js_engine::GenericStream::keyed`].
    #[napi]
    pub fn keyed(&self) -> bool {
        self.0.keyed()
    }

    /// See [`gcf_js_engine::GenericStream::write_kv`].
    #[napi(js_name = "writeKV")]
    pub fn write_kv(&mut self, key: String, value: String) -> napi::Result<u32> {
        js(self.0.write_kv(&key, &value))
    }

    /// See [`gcf_js_engine::GenericStream::write_section`].
    #[napi(js_name = "writeSection")]
    pub fn write_section(&mut self, name: String) -> napi::Result<u32> {
        js(self.0.write_section(&name))
    }

    /// See [`gcf_js_engine::GenericStream::write_inline_array`].
    #[napi(js_name = "writeInlineArray")]
    pub fn write_inline_array(&mut self, name: String, values: String) -> napi::Result<u32> {
        js(self.0.write_inline_array(&name, &values))
    }

    /// See [`gcf_js_engine::GenericStream::take`].
    #[napi]
    pub fn take(&mut self) -> String {
        self.0.take()
    }

    /// See [`gcf_js_engine::GenericStream::close`].
    #[napi]
    pub fn close(&mut self) -> napi::Result<String> {
        js_string(self.0.close())
    }
}

#[cfg(test)]
mod tests {
    use super::prefix;

    #[test]
    fn prefix_takes_the_length_in_use() {
        let all = [1u8, 2, 3, 4];
        assert_eq!(prefix(&all, None), &all);
        assert_eq!(prefix(&all, Some(0)), &[] as &[u8]);
        assert_eq!(prefix(&all, Some(2)), &[1, 2]);
        assert_eq!(prefix(&all, Some(4)), &all);
        // Past the array's end (never from the layer): the whole array, no
        // panic; the engine then refuses or encodes what it holds.
        assert_eq!(prefix(&all, Some(5)), &all);
        assert_eq!(prefix(&all, Some(u32::MAX)), &all);
    }
}
