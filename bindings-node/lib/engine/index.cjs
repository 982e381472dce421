'use strict';
// Picks the engine under the one public surface (lib/gcf.cjs): the native
// addon when it loads, else the WebAssembly build (bindings-wasm, which
// implements the same interface). With GCF_DEBUG set, says once on stderr
// which one is in use and why.
//
// The engine interface: every function takes and returns strings (JSON or
// GCF text) and throws an Error whose message is "\u0001" + a Failure as JSON
// ({class, category, message, line, column}) for a GCF failure.

const native = require('./native.cjs');

let engine = null;
let name = '';

function debug(msg) {
  if (process.env.GCF_DEBUG) process.stderr.write(`gcf: ${msg}\n`);
}

function loadWasm() {
  // The wasm package ships the same interface (issue "WebAssembly").
  try {
    return require('../../wasm/engine.cjs');
  } catch (_) {
    return require('@blackwell-systems/gcf-wasm/engine.cjs');
  }
}

function get() {
  if (engine) return engine;
  try {
    engine = native.load();
    name = 'native';
    debug(`using the native engine (${native.platformTriple()})`);
  } catch (nativeError) {
    try {
      engine = loadWasm();
      name = 'wasm';
      debug(`no native binary for ${native.platformTriple()} loaded (${nativeError.message.split('\n')[0]}); using the WebAssembly engine`);
    } catch (wasmError) {
      const e = new Error(
        `gcf: no engine could be loaded: native (${nativeError.message.split('\n')[0]}), wasm (${wasmError.message.split('\n')[0]})`,
      );
      throw e;
    }
  }
  return engine;
}

module.exports = { get, name: () => name };
