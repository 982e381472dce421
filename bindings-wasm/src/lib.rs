//! The WebAssembly engine of the GCF JS packages: `gcf-js-engine` (the
//! host-neutral engine the napi addon wraps too) exported through
//! wasm-bindgen under the same JS names, so the one shared JS layer
//! (`bindings-js/layer`) runs over either engine unchanged.
//!
//! Every call takes and returns strings: a value crosses the JS/wasm
//! boundary once each way (payload-sized arguments written with
//! `TextEncoder.encodeInto` into [`arg_buffer`], results read out with one
//! `TextDecoder.decode`), never a call per field. A GCF failure is thrown as
//! an `Error` whose message is [`gcf_js_engine::failure_reason`] (a marker
//! and the `Failure` as JSON), which the layer turns into its `GcfError`.
//!
//! JS numbers that the engine takes as 64-bit integers (token counts, the
//! re-anchor interval) cross as `f64` here, because wasm-bindgen maps `i64`
//! to `BigInt` and the layer passes plain numbers, as it does to the napi
//! addon.

#![deny(missing_docs)]

/// talc, not Rust's default dlmalloc (see Cargo.toml). The module is built
/// without threads, so its single-threaded wasm allocator is the right one.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

use std::cell::RefCell;

use gcf_js_engine as engine;
use wasm_bindgen::prelude::*;

fn js<T>(r: engine::Result<T>) -> Result<T, JsError> {
    r.map_err(|f| JsError::new(&engine::failure_reason(&f)))
}

/// A JS number as a count: negative, NaN and fractions below 1 are 0,
/// anything past `u64::MAX` saturates (the `as` cast's definition).
fn count(n: f64) -> u64 {
    n as u64
}

thread_local! {
    /// The argument buffer of the `*Arg` calls (see [`arg_buffer`]). It only
    /// grows, so a steady workload writes into memory already zeroed once.
    static ARG: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Room for `capacity` bytes of argument, and where it starts in the
/// module's memory. wasm-bindgen's own string passing copies an ASCII
/// string into memory one `charCodeAt` at a time in JS (about 25 times
/// slower than the engine's native `TextEncoder.encodeInto` on a 1 MB
/// payload); the package's JS writes large arguments here with
/// `encodeInto` instead and calls the matching `*Arg` export with the
/// length written (package/fastargs.mjs).
#[wasm_bindgen(js_name = "argBuffer")]
pub fn arg_buffer(capacity: usize) -> *mut u8 {
    ARG.with(|a| {
        let mut a = a.borrow_mut();
        if a.len() < capacity {
            a.resize(capacity, 0);
        }
        a.as_mut_ptr()
    })
}

#[wasm_bindgen]
extern "C" {
    /// The Web Crypto API's `getRandomValues`, which browsers, workers,
    /// edge runtimes, Deno, Bun and Node (18 on) all have.
    #[wasm_bindgen(js_namespace = ["globalThis", "crypto"], js_name = "getRandomValues", catch)]
    fn get_random_values(bytes: &mut [u8]) -> Result<(), JsValue>;
}

thread_local! {
    /// Whether the core's hash tables are keyed from the host's entropy.
    static SEEDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs once when the module is instantiated, through every glue: keys the
/// core's hash tables with entropy from the host. A WebAssembly instance
/// has no entropy of its own (its addresses are the same in every run), so
/// without this every instance of a build would hash alike, and input could
/// be crafted once, for everyone, to collide in the decoders' tables.
#[wasm_bindgen(start)]
fn seed_hashes_at_start() {
    seed_hashes();
}

/// Seeds the core's hash tables from `crypto.getRandomValues` unless done
/// already; whether they are seeded now. A Cloudflare Worker refuses random
/// values in its global scope, where it instantiates the module, so the
/// start above fails there, and the package's JS calls this again on the
/// first call of its API, made from a handler (package/fastargs.mjs). A host
/// without Web Crypto keeps the build's fixed keys: slower on crafted input,
/// never wrong.
#[wasm_bindgen(js_name = "__seedHashes")]
pub fn seed_hashes() -> bool {
    if !SEEDED.get() {
        let mut bytes = [0u8; 8];
        if get_random_values(&mut bytes).is_ok() {
            engine::set_hash_seed(u64::from_le_bytes(bytes));
            SEEDED.set(true);
        }
    }
    SEEDED.get()
}

/// Whether the core's hash tables are seeded, without trying (for tests).
#[wasm_bindgen(js_name = "__hashesSeeded")]
pub fn hashes_seeded() -> bool {
    SEEDED.get()
}

/// A hash of a fixed text under a table's keys made now, in hex: what
/// `test/seed.test.mjs` compares across instances (equal in two instances
/// only if the module went unseeded). Not part of the package's API.
#[wasm_bindgen(js_name = "__hashProbe")]
pub fn hash_probe() -> String {
    use std::hash::BuildHasher;
    format!("{:016x}", engine::HashState::new().hash_one("probe"))
}

/// The module's memory, for the JS that writes into [`arg_buffer`].
#[wasm_bindgen(js_name = "wasmMemory")]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// Runs `f` on the first `len` bytes of the argument buffer as text.
fn with_arg<T>(len: usize, f: impl FnOnce(&str) -> engine::Result<T>) -> Result<T, JsError> {
    ARG.with(|a| {
        let a = a.borrow();
        let bytes = a.get(..len).ok_or_else(|| {
            JsError::new("gcf: argument length beyond the argument buffer (call argBuffer first)")
        })?;
        // encodeInto writes UTF-8 only; checked all the same (a few
        // hundred microseconds per megabyte), since JS could write anything.
        let text = core::str::from_utf8(bytes)
            .map_err(|_| JsError::new("gcf: the argument buffer holds invalid UTF-8"))?;
        js(f(text))
    })
}

/// [`graph_encode`] of the argument buffer's first `len` bytes.
#[wasm_bindgen(js_name = "graphEncodeArg")]
pub fn graph_encode_arg(len: usize) -> Result<String, JsError> {
    with_arg(len, engine::graph_encode)
}

/// [`graph_decode`] of the argument buffer's first `len` bytes.
#[wasm_bindgen(js_name = "graphDecodeArg")]
pub fn graph_decode_arg(len: usize) -> Result<String, JsError> {
    with_arg(len, engine::graph_decode)
}

/// [`graph_decode_packed_table`] of the argument buffer's first `len` bytes.
#[wasm_bindgen(js_name = "graphDecodePackedTableArg")]
pub fn graph_decode_packed_table_arg(len: usize) -> Result<String, JsError> {
    with_arg(len, packed_table)
}

/// [`generic_encode`] of the argument buffer's first `len` bytes.
#[wasm_bindgen(js_name = "genericEncodeArg")]
pub fn generic_encode_arg(len: usize, flags: u32) -> Result<String, JsError> {
    with_arg(len, |s| engine::generic_encode(s, flags))
}

/// [`generic_decode`] of the argument buffer's first `len` bytes.
#[wasm_bindgen(js_name = "genericDecodeArg")]
pub fn generic_decode_arg(len: usize) -> Result<String, JsError> {
    with_arg(len, engine::generic_decode)
}

/// See [`gcf_js_engine::graph_encode`].
#[wasm_bindgen(js_name = "graphEncode")]
pub fn graph_encode(json: &str) -> Result<String, JsError> {
    js(engine::graph_encode(json))
}

/// See [`gcf_js_engine::graph_decode`].
#[wasm_bindgen(js_name = "graphDecode")]
pub fn graph_decode(text: &str) -> Result<String, JsError> {
    js(engine::graph_decode(text))
}

/// See [`gcf_js_engine::graph_decode_bytes`].
#[wasm_bindgen(js_name = "graphDecodeBytes")]
pub fn graph_decode_bytes(bytes: &[u8]) -> Result<String, JsError> {
    js(engine::graph_decode_bytes(bytes))
}

/// See [`gcf_js_engine::generic_encode`].
#[wasm_bindgen(js_name = "genericEncode")]
pub fn generic_encode(json: &str, flags: u32) -> Result<String, JsError> {
    js(engine::generic_encode(json, flags))
}

/// See [`gcf_js_engine::generic_decode`].
#[wasm_bindgen(js_name = "genericDecode")]
pub fn generic_decode(text: &str) -> Result<String, JsError> {
    js(engine::generic_decode(text))
}

/// See [`gcf_js_engine::set_decode_limits`].
#[wasm_bindgen(js_name = "setDecodeLimits")]
pub fn set_decode_limits(json: &str) -> Result<(), JsError> {
    js(engine::set_decode_limits(json))
}

/// See [`gcf_js_engine::generic_decode_bytes`].
#[wasm_bindgen(js_name = "genericDecodeBytes")]
pub fn generic_decode_bytes(bytes: &[u8]) -> Result<String, JsError> {
    js(engine::generic_decode_bytes(bytes))
}

/// See [`gcf_js_engine::graph_encode_packed`] (the layer's packed route);
/// wasm-bindgen copies both arrays into the module's memory.
#[wasm_bindgen(js_name = "graphEncodePacked")]
pub fn graph_encode_packed(strings: &[u8], nums: &[f64]) -> Result<String, JsError> {
    js(engine::graph_encode_packed(strings, nums))
}

/// See [`gcf_js_engine::generic_encode_packed`] (the layer's packed route
/// for generic values); wasm-bindgen copies the three arrays into the
/// module's memory.
#[wasm_bindgen(js_name = "genericEncodePacked")]
pub fn generic_encode_packed(
    ops: &[u8],
    text: &[u8],
    nums: &[f64],
    flags: u32,
) -> Result<String, JsError> {
    js(engine::generic_encode_packed(ops, text, nums, flags))
}

thread_local! {
    /// The numbers of the last [`graph_decode_packed_table`] (or
    /// [`generic_decode_packed_table`]), until [`graph_packed_nums`] takes
    /// them.
    static NUMS: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

fn packed_table(text: &str) -> engine::Result<String> {
    keep_nums(engine::graph_decode_packed(text)?)
}

fn packed_value_table(text: &str) -> engine::Result<String> {
    keep_nums(engine::generic_decode_packed(text)?)
}

/// The strings of `p`, its numbers kept for [`graph_packed_nums`].
fn keep_nums(p: engine::Packed) -> engine::Result<String> {
    NUMS.with(|n| *n.borrow_mut() = p.nums);
    Ok(p.strings)
}

/// The string table of [`gcf_js_engine::graph_decode_packed`]; its numbers
/// follow from [`graph_packed_nums`] (wasm-bindgen returns no pairs, and a
/// JS object of two would cost more than the second call). The package's
/// engine (fastargs.mjs) pairs the two as the layer's `graphDecodePacked`.
#[wasm_bindgen(js_name = "graphDecodePackedTable")]
pub fn graph_decode_packed_table(text: &str) -> Result<String, JsError> {
    js(packed_table(text))
}

/// The strings of [`gcf_js_engine::generic_decode_packed`]; its numbers
/// follow from [`graph_packed_nums`], as for [`graph_decode_packed_table`].
#[wasm_bindgen(js_name = "genericDecodePackedTable")]
pub fn generic_decode_packed_table(text: &str) -> Result<String, JsError> {
    js(packed_value_table(text))
}

/// The strings of [`gcf_js_engine::generic_decode_bytes_packed`]; its
/// numbers follow from [`graph_packed_nums`].
#[wasm_bindgen(js_name = "genericDecodeBytesPackedTable")]
pub fn generic_decode_bytes_packed_table(bytes: &[u8]) -> Result<String, JsError> {
    js(engine::generic_decode_bytes_packed(bytes).and_then(keep_nums))
}

/// [`generic_decode_packed_table`] of the argument buffer's first `len`
/// bytes.
#[wasm_bindgen(js_name = "genericDecodePackedTableArg")]
pub fn generic_decode_packed_table_arg(len: usize) -> Result<String, JsError> {
    with_arg(len, packed_value_table)
}

/// Where the numbers of the last [`graph_decode_packed_table`] (or the
/// generic ones) start in the module's memory, and
/// [`graph_packed_nums_len`] how many there are: the package copies them
/// from a view of the memory into the layer's scratch array (fastargs.mjs)
/// when they fit, where [`graph_packed_nums`] makes a new `Float64Array`,
/// a backing store V8 allocates per call (about a microsecond). Valid until
/// the next call into the module.
#[wasm_bindgen(js_name = "graphPackedNumsPtr")]
pub fn graph_packed_nums_ptr() -> usize {
    NUMS.with(|n| n.borrow().as_ptr() as usize)
}

/// How many numbers [`graph_packed_nums_ptr`] points at.
#[wasm_bindgen(js_name = "graphPackedNumsLen")]
pub fn graph_packed_nums_len() -> usize {
    NUMS.with(|n| n.borrow().len())
}

/// Takes the numbers of the last [`graph_decode_packed_table`] or
/// [`generic_decode_packed_table`] (copied out as a `Float64Array`).
#[wasm_bindgen(js_name = "graphPackedNums")]
pub fn graph_packed_nums() -> Vec<f64> {
    NUMS.with(|n| core::mem::take(&mut *n.borrow_mut()))
}

/// See [`gcf_js_engine::graph_encode_delta`].
#[wasm_bindgen(js_name = "graphEncodeDelta")]
pub fn graph_encode_delta(json: &str) -> Result<String, JsError> {
    js(engine::graph_encode_delta(json))
}

/// See [`gcf_js_engine::graph_decode_delta`].
#[wasm_bindgen(js_name = "graphDecodeDelta")]
pub fn graph_decode_delta(text: &str) -> Result<String, JsError> {
    js(engine::graph_decode_delta(text))
}

/// See [`gcf_js_engine::graph_pack_root`].
#[wasm_bindgen(js_name = "graphPackRoot")]
pub fn graph_pack_root(json: &str) -> Result<String, JsError> {
    js(engine::graph_pack_root(json))
}

/// See [`gcf_js_engine::graph_verify_delta`].
#[wasm_bindgen(js_name = "graphVerifyDelta")]
pub fn graph_verify_delta(base: &str, delta: &str, expected: &str) -> Result<String, JsError> {
    js(engine::graph_verify_delta(base, delta, expected))
}

/// See [`gcf_js_engine::generic_pack_root`].
#[wasm_bindgen(js_name = "genericPackRoot")]
pub fn generic_pack_root(json: &str) -> Result<String, JsError> {
    js(engine::generic_pack_root(json))
}

/// See [`gcf_js_engine::generic_encode_full`].
#[wasm_bindgen(js_name = "genericEncodeFull")]
pub fn generic_encode_full(json: &str, tool: &str) -> Result<String, JsError> {
    js(engine::generic_encode_full(json, tool))
}

/// See [`gcf_js_engine::generic_decode_full`].
#[wasm_bindgen(js_name = "genericDecodeFull")]
pub fn generic_decode_full(text: &str) -> Result<String, JsError> {
    js(engine::generic_decode_full(text))
}

/// See [`gcf_js_engine::generic_encode_delta`].
#[wasm_bindgen(js_name = "genericEncodeDelta")]
pub fn generic_encode_delta(json: &str) -> Result<String, JsError> {
    js(engine::generic_encode_delta(json))
}

/// See [`gcf_js_engine::generic_decode_delta`].
#[wasm_bindgen(js_name = "genericDecodeDelta")]
pub fn generic_decode_delta(text: &str) -> Result<String, JsError> {
    js(engine::generic_decode_delta(text))
}

/// See [`gcf_js_engine::generic_diff`].
#[wasm_bindgen(js_name = "genericDiff")]
pub fn generic_diff(base: &str, next: &str) -> Result<String, JsError> {
    js(engine::generic_diff(base, next))
}

/// See [`gcf_js_engine::generic_verify_delta`].
#[wasm_bindgen(js_name = "genericVerifyDelta")]
pub fn generic_verify_delta(base: &str, delta: &str, expected: &str) -> Result<String, JsError> {
    js(engine::generic_verify_delta(base, delta, expected))
}

/// See [`gcf_js_engine::profile_of`].
#[wasm_bindgen(js_name = "profileOf")]
pub fn profile_of(head: &str) -> String {
    engine::profile_of(head).to_owned()
}

/// See [`gcf_js_engine::needs_quote`].
#[wasm_bindgen(js_name = "needsQuote")]
pub fn needs_quote(s: &str) -> bool {
    engine::needs_quote(s)
}

/// See [`gcf_js_engine::quote_string`].
#[wasm_bindgen(js_name = "quoteString")]
pub fn quote_string(s: &str) -> Result<String, JsError> {
    js(engine::quote_string(s))
}

/// See [`gcf_js_engine::format_key`].
#[wasm_bindgen(js_name = "formatKey")]
pub fn format_key(s: &str) -> Result<String, JsError> {
    js(engine::format_key(s))
}

/// See [`gcf_js_engine::format_scalar`].
#[wasm_bindgen(js_name = "formatScalar")]
pub fn format_scalar(json: &str, delimiter: u32) -> Result<String, JsError> {
    js(engine::format_scalar(json, delimiter))
}

/// See [`gcf_js_engine::parse_scalar`].
#[wasm_bindgen(js_name = "parseScalar")]
pub fn parse_scalar(token: &str) -> Result<String, JsError> {
    js(engine::parse_scalar(token))
}

/// See [`gcf_js_engine::parse_cell`].
#[wasm_bindgen(js_name = "parseCell")]
pub fn parse_cell(token: &str) -> Result<String, JsError> {
    js(engine::parse_cell(token))
}

/// See [`gcf_js_engine::canonical_cell`].
#[wasm_bindgen(js_name = "canonicalCell")]
pub fn canonical_cell(json: &str) -> Result<String, JsError> {
    js(engine::canonical_cell(json))
}

/// See [`gcf_js_engine::GraphSession`].
#[wasm_bindgen(js_name = "NativeGraphSession")]
#[derive(Default)]
pub struct WasmGraphSession(engine::GraphSession);

#[wasm_bindgen(js_class = "NativeGraphSession")]
impl WasmGraphSession {
    /// An empty session.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Self {
        Self::default()
    }

    /// See [`gcf_js_engine::GraphSession::encode`].
    pub fn encode(&mut self, json: &str) -> Result<String, JsError> {
        js(self.0.encode(json))
    }

    /// See [`gcf_js_engine::GraphSession::record`].
    pub fn record(&mut self, kind: &str, qualified_name: &str) -> f64 {
        self.0.record(kind, qualified_name) as f64
    }

    /// See [`gcf_js_engine::GraphSession::next_id`].
    #[wasm_bindgen(js_name = "nextId")]
    pub fn next_id(&self) -> f64 {
        self.0.next_id()
    }

    /// See [`gcf_js_engine::GraphSession::id_of`] (-1 when unsent).
    #[wasm_bindgen(js_name = "idOf")]
    pub fn id_of(&self, kind: &str, qualified_name: &str) -> f64 {
        self.0.id_of(kind, qualified_name) as f64
    }

    /// See [`gcf_js_engine::GraphSession::size`].
    pub fn size(&self) -> u32 {
        self.0.size()
    }

    /// See [`gcf_js_engine::GraphSession::reset`].
    pub fn reset(&mut self) {
        self.0.reset()
    }
}

/// See [`gcf_js_engine::GraphSessionDecoder`].
#[wasm_bindgen(js_name = "NativeGraphSessionDecoder")]
pub struct WasmGraphSessionDecoder(engine::GraphSessionDecoder);

#[wasm_bindgen(js_class = "NativeGraphSessionDecoder")]
impl WasmGraphSessionDecoder {
    /// See [`gcf_js_engine::GraphSessionDecoder::new`] (negative: no bound).
    #[wasm_bindgen(constructor)]
    pub fn new(max_retained: f64) -> Self {
        Self(engine::GraphSessionDecoder::new(max_retained as i64))
    }

    /// See [`gcf_js_engine::GraphSessionDecoder::decode`].
    pub fn decode(&mut self, text: &str) -> Result<String, JsError> {
        js(self.0.decode(text))
    }

    /// See [`gcf_js_engine::GraphSessionDecoder::decode_bytes`].
    #[wasm_bindgen(js_name = "decodeBytes")]
    pub fn decode_bytes(&mut self, bytes: &[u8]) -> Result<String, JsError> {
        js(self.0.decode_bytes(bytes))
    }

    /// See [`gcf_js_engine::GraphSessionDecoder::size`].
    pub fn size(&self) -> u32 {
        self.0.size()
    }

    /// See [`gcf_js_engine::GraphSessionDecoder::reset`].
    pub fn reset(&mut self) {
        self.0.reset()
    }
}

/// See [`gcf_js_engine::GenericDeltaSession`].
#[wasm_bindgen(js_name = "NativeGenericDeltaSession")]
pub struct WasmGenericDeltaSession(engine::GenericDeltaSession);

#[wasm_bindgen(js_class = "NativeGenericDeltaSession")]
impl WasmGenericDeltaSession {
    /// See [`gcf_js_engine::GenericDeltaSession::new`].
    #[wasm_bindgen(constructor)]
    pub fn new(base: &str, tool: &str, mode: u32, n: f64) -> Result<Self, JsError> {
        // The engine reads 0 or less as "the default interval".
        let n = if n >= 1.0 { n as i64 } else { 0 };
        js(engine::GenericDeltaSession::new(base, tool, mode, n)).map(Self)
    }

    /// See [`gcf_js_engine::GenericDeltaSession::current_full`].
    #[wasm_bindgen(js_name = "currentFull")]
    pub fn current_full(&self) -> Result<String, JsError> {
        js(self.0.current_full())
    }

    /// See [`gcf_js_engine::GenericDeltaSession::next`].
    pub fn next(&mut self, set: &str) -> Result<String, JsError> {
        js(self.0.next(set))
    }

    /// See [`gcf_js_engine::GenericDeltaSession::count_refused_turn`].
    #[wasm_bindgen(js_name = "countRefusedTurn")]
    pub fn count_refused_turn(&mut self) {
        self.0.count_refused_turn()
    }

    /// See [`gcf_js_engine::GenericDeltaSession::turn`].
    pub fn turn(&self) -> f64 {
        self.0.turn()
    }
}

/// See [`gcf_js_engine::GraphStream`].
#[wasm_bindgen(js_name = "NativeGraphStream")]
pub struct WasmGraphStream(engine::GraphStream);

#[wasm_bindgen(js_class = "NativeGraphStream")]
impl WasmGraphStream {
    /// See [`gcf_js_engine::GraphStream::new`].
    #[wasm_bindgen(constructor)]
    pub fn new(
        tool: &str,
        budget: f64,
        used: f64,
        labeled: bool,
        pack_root: &str,
        session: bool,
    ) -> Result<Self, JsError> {
        js(engine::GraphStream::new(
            tool,
            count(budget),
            count(used),
            labeled,
            pack_root,
            session,
        ))
        .map(Self)
    }

    /// See [`gcf_js_engine::GraphStream::write_symbol`].
    #[wasm_bindgen(js_name = "writeSymbol")]
    pub fn write_symbol(
        &mut self,
        qualified_name: &str,
        kind: &str,
        score: f64,
        provenance: &str,
        distance: u32,
    ) -> Result<u32, JsError> {
        js(self
            .0
            .write_symbol(qualified_name, kind, score, provenance, distance))
    }

    /// See [`gcf_js_engine::GraphStream::write_symbols_packed`];
    /// wasm-bindgen copies both arrays into the module's memory.
    #[wasm_bindgen(js_name = "writeSymbolsPacked")]
    pub fn write_symbols_packed(&mut self, text: &[u8], nums: &[f64]) -> Result<u32, JsError> {
        js(self.0.write_symbols_packed(text, nums))
    }

    /// See [`gcf_js_engine::GraphStream::write_bare_ref`].
    #[wasm_bindgen(js_name = "writeBareRef")]
    pub fn write_bare_ref(&mut self, qualified_name: &str, distance: u32) -> Result<u32, JsError> {
        js(self.0.write_bare_ref(qualified_name, distance))
    }

    /// See [`gcf_js_engine::GraphStream::write_edge`].
    #[wasm_bindgen(js_name = "writeEdge")]
    pub fn write_edge(
        &mut self,
        source: &str,
        target: &str,
        edge_type: &str,
        status: &str,
    ) -> Result<u32, JsError> {
        js(self.0.write_edge(source, target, edge_type, status))
    }

    /// See [`gcf_js_engine::GraphStream::take`].
    pub fn take(&mut self) -> Result<String, JsError> {
        js(self.0.take())
    }

    /// See [`gcf_js_engine::GraphStream::finish`].
    pub fn finish(&mut self) -> Result<String, JsError> {
        js(self.0.finish())
    }

    /// See [`gcf_js_engine::GraphStream::symbol_count`].
    #[wasm_bindgen(getter, js_name = "symbolCount")]
    pub fn symbol_count(&self) -> f64 {
        self.0.symbol_count() as f64
    }

    /// See [`gcf_js_engine::GraphStream::edge_count`].
    #[wasm_bindgen(getter, js_name = "edgeCount")]
    pub fn edge_count(&self) -> f64 {
        self.0.edge_count() as f64
    }
}

/// See [`gcf_js_engine::GenericStream`].
#[wasm_bindgen(js_name = "NativeGenericStream")]
#[derive(Default)]
pub struct WasmGenericStream(engine::GenericStream);

#[wasm_bindgen(js_class = "NativeGenericStream")]
impl WasmGenericStream {
    /// See [`gcf_js_engine::GenericStream::new`].
    #[wasm_bindgen(constructor)]
    pub fn new() -> Self {
        Self::default()
    }

    /// See [`gcf_js_engine::GenericStream::begin_array`].
    #[wasm_bindgen(js_name = "beginArray")]
    pub fn begin_array(&mut self, name: &str, fields: &str) -> Result<u32, JsError> {
        js(self.0.begin_array(name, fields))
    }

    /// See [`gcf_js_engine::GenericStream::begin_keyed_map`].
    #[wasm_bindgen(js_name = "beginKeyedMap")]
    pub fn begin_keyed_map(
        &mut self,
        name: &str,
        key_label: &str,
        value_fields: &str,
    ) -> Result<u32, JsError> {
        js(self.0.begin_keyed_map(name, key_label, value_fields))
    }

    /// See [`gcf_js_engine::GenericStream::write_row`].
    #[wasm_bindgen(js_name = "writeRow")]
    pub fn write_row(&mut self, values: &str) -> Result<u32, JsError> {
        js(self.0.write_row(values))
    }

    /// See [`gcf_js_engine::GenericStream::write_rows`].
    #[wasm_bindgen(js_name = "writeRows")]
    pub fn write_rows(&mut self, rows: &str) -> Result<u32, JsError> {
        js(self.0.write_rows(rows))
    }

    /// See [`gcf_js_engine::GenericStream::write_rows_packed`];
    /// wasm-bindgen copies the three arrays into the module's memory.
    #[wasm_bindgen(js_name = "writeRowsPacked")]
    pub fn write_rows_packed(
        &mut self,
        ops: &[u8],
        text: &[u8],
        nums: &[f64],
    ) -> Result<u32, JsError> {
        js(self.0.write_rows_packed(ops, text, nums))
    }

    /// See [`gcf_js_engine::GenericStream::end_array`].
    #[wasm_bindgen(js_name = "endArray")]
    pub fn end_array(&mut self) -> u32 {
        self.0.end_array()
    }

    /// See [`gcf_js_engine::GenericStream::row_width`].
    #[wasm_bindgen(js_name = "rowWidth")]
    pub fn row_width(&self) -> u32 {
        self.0.row_width()
    }

    /// See [`gcf_js_engine::GenericStream::keyed`].
    #[wasm_bindgen]
    pub fn keyed(&self) -> bool {
        self.0.keyed()
    }

    /// See [`gcf_js_engine::GenericStream::write_kv`].
    #[wasm_bindgen(js_name = "writeKV")]
    pub fn write_kv(&mut self, key: &str, value: &str) -> Result<u32, JsError> {
        js(self.0.write_kv(key, value))
    }

    /// See [`gcf_js_engine::GenericStream::write_section`].
    #[wasm_bindgen(js_name = "writeSection")]
    pub fn write_section(&mut self, name: &str) -> Result<u32, JsError> {
        js(self.0.write_section(name))
    }

    /// See [`gcf_js_engine::GenericStream::write_inline_array`].
    #[wasm_bindgen(js_name = "writeInlineArray")]
    pub fn write_inline_array(&mut self, name: &str, values: &str) -> Result<u32, JsError> {
        js(self.0.write_inline_array(name, values))
    }

    /// See [`gcf_js_engine::GenericStream::take`].
    pub fn take(&mut self) -> String {
        self.0.take()
    }

    /// See [`gcf_js_engine::GenericStream::close`].
    pub fn close(&mut self) -> Result<String, JsError> {
        js(self.0.close())
    }
}
