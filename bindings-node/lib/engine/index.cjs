'use strict';
// Picks the engine under the one public surface: the native addon when it
// loads, else the WebAssembly build (bindings-wasm, which implements the same
// interface). With GCF_DEBUG set, says once on stderr which one is in use and
// why. Node-only: the shared layer (bindings-js/layer) receives the engine
// through createApi(engine) and never loads one itself.
//
// The engine interface. Both engines are one-line wrappers over the Rust
// crate gcf-js-engine (bindings-js/engine), whose docs are the reference;
// the names below are the JS names both hosts export.
//
//   functions (string/Uint8Array in, string out unless noted):
//     graphEncode(json)                 graphDecode(text)
//     graphDecodeBytes(bytes)           graphEncodeDelta(json)
//     graphDecodeDelta(text)            graphPackRoot(json)
//     graphVerifyDelta(baseJson, deltaJson, expectedRoot)
//     genericEncode(json, flags)        flags: 1 noFlatten, 2 constantColumns
//     genericDecode(text)               genericDecodeBytes(bytes)  -> tagged JSON
//     genericPackRoot(setJson)          genericEncodeFull(setJson, tool)
//     genericDecodeFull(text)           genericEncodeDelta(json)
//     genericDecodeDelta(text)          genericDiff(baseJson, nextJson)
//     genericVerifyDelta(baseJson, deltaJson, expectedRoot)
//     needsQuote(s) -> boolean          quoteString(s)   formatKey(s)
//     formatScalar(json, delimiterCode) canonicalCell(json)
//   classes:
//     new NativeGraphSession(): encode(json), idOf(kind, qname) -> number
//       (-1 if unsent), size() -> number, reset()
//     new NativeGraphStream(tool, tokenBudget, tokensUsed, labeled, packRoot,
//       session):
//       writeSymbol(qname, kind, score, provenance, distance) -> bytes
//       buffered, writeEdge(source, target, edgeType, status) -> bytes
//       buffered, take(), finish(), symbolCount, edgeCount (getters)
//     new NativeGenericDeltaSession(setJson, tool, mode, n): currentFull(),
//       next(setJson) -> "F"|"D" + wire
//     new NativeGenericStream(): beginArray(name, fieldsJson),
//       beginKeyedMap(name, keyLabel, valueFieldsJson), writeRow(cellsJson),
//       writeRows(rowsJson) (all or nothing),
//       endArray(), writeKV(key, cellJson), writeSection(name),
//       writeInlineArray(name, cellsJson) (each -> bytes buffered), take(),
//       close() -> the rest
//   optional (used when present): graphEncodePacked(bytes, nums,
//     bytesLen?, numsLen?) -> GCF or "" (the arrays' first bytesLen and
//     numsLen elements, all when not given), graphDecodePacked(text) ->
//     [table, nums] or [JSON, nums] (see bindings-js/layer/packed.mjs),
//     genericEncodePacked(ops, text, nums, flags, opsLen?, textLen?,
//     numsLen?) -> GCF or "", genericDecodePacked(text) -> [packed, nums] or
//     [tagged JSON, nums] (bindings-js/layer/packed_value.mjs),
//     NativeGenericStream.prototype.writeRowsPacked(ops, text, nums)
//     (packed rows, all or nothing)
//
// Inputs are JSON in the 2.5.2 package's shapes; results are GCF text or
// JSON (generic values tagged: objects [k, v, ...], arrays {"a": [...]},
// integers beyond 2^53 {"i": "digits"}). A GCF failure is thrown as an Error
// whose message is "\u0001" + the Failure as JSON ({class, category,
// message, line, column}); the layer turns it into GcfError.

const native = require('./native.cjs');

let engine = null;
let name = '';

// An environment variable, or undefined where reading it is refused (Deno
// without --allow-env), so the package loads with the defaults there.
function env(key) {
  try {
    return process.env[key];
  } catch (_) {
    return undefined;
  }
}

function debug(msg) {
  if (env('GCF_DEBUG')) process.stderr.write(`gcf: ${msg}\n`);
}

const firstLine = (e) => String((e && e.message) || e).split('\n')[0];

function loadWasm(req, repo) {
  // The wasm package ships the same interface (bindings-wasm/package): the
  // published package when installed, else this repository's build
  // (scripts/build-wasm.sh). When the installed package is there but fails
  // to load (Deno without read access to its .wasm, say), that is the error
  // to report, not the missing repository build.
  try {
    return req('@blackwell-systems/gcf-wasm/engine.cjs');
  } catch (installed) {
    if (!native.missing(installed, '@blackwell-systems/gcf-wasm')) throw installed;
    try {
      return req(repo);
    } catch (e) {
      // Neither: say what an application lacks, not where this repository
      // keeps its build.
      throw native.missing(e, repo) ? installed : e;
    }
  }
}

// The engine, chosen and loaded once per process. `req` is the entry's own
// require: this package's for CommonJS (lib/gcf.cjs), createRequire of the
// module's URL for ESM (lib/gcf.mjs), which an ESM bundle keeps as a working
// call. `paths` are what `req` resolves this repository's files by: `addon`,
// the local addon's path without `<triple>.node`, and `wasm`, the
// repository's WebAssembly build. Without them (the tests and the bench,
// after the package loaded or in its place): this module's require and
// paths.
//
// GCF_ENGINE=wasm skips the native addon (what a platform without a
// prebuilt binary gets; the tests run the whole suite this way too);
// GCF_ENGINE=native refuses the fallback.
function get(req = require, paths = { addon: '../../gcf.', wasm: '../../../bindings-wasm/package/engine.cjs' }) {
  if (engine) return engine;
  const forced = env('GCF_ENGINE');
  if (forced === 'wasm') {
    engine = loadWasm(req, paths.wasm);
    name = 'wasm';
    debug('using the WebAssembly engine (GCF_ENGINE=wasm)');
    return engine;
  }
  if (forced !== undefined && forced !== '' && forced !== 'native') {
    throw new Error(`gcf: GCF_ENGINE must be "native" or "wasm", got "${forced}"`);
  }
  try {
    engine = native.load(req, paths.addon);
    name = 'native';
    debug(`using the native engine (${native.platformTriple(req)})`);
  } catch (nativeError) {
    if (forced === 'native') throw nativeError;
    try {
      engine = loadWasm(req, paths.wasm);
      name = 'wasm';
      debug(`no native binary for ${native.platformTriple(req)} loaded (${firstLine(nativeError)}); using the WebAssembly engine`);
    } catch (wasmError) {
      throw new Error(`gcf: no engine could be loaded: native (${firstLine(nativeError)}), wasm (${firstLine(wasmError)})`);
    }
  }
  return engine;
}

module.exports = { get, name: () => name };
