// The 2.5.2 API of @blackwell-systems/gcf over the WebAssembly engine,
// initialised by the caller: `await init()` (fetches gcf_wasm_bg.wasm from
// next to this file), `await init(source)` (a URL, Response, BufferSource or
// WebAssembly.Module: what an edge runtime or a bundler hands over), or
// `initSync(bytesOrModule)`. Every export exists at once; a call before init
// throws a clear error. index.mjs is this module with init done on import.
//
// The API object comes from the shared layer (bindings-js/layer, bundled
// into layer.mjs), the same code the Node package runs over its native
// addon. It reads engine functions at call time, so the stubs below are
// replaced by the wasm exports in place once the module is instantiated,
// and calls after that go straight to the engine.
import wasmInit, { initSync as wasmInitSync } from './wasm/web/gcf_wasm.js';
import * as wasm from './wasm/web/gcf_wasm.js';
import { createApi } from './layer.mjs';
import { withFastArgs } from './fastargs.mjs';

const ENGINE_NAMES = Object.keys(wasm).filter((k) => k !== 'default' && k !== 'initSync' && !k.startsWith('__'));
const engine = {};
for (const name of ENGINE_NAMES) {
  engine[name] = function notReady() {
    throw new Error('gcf: the WebAssembly engine is not initialised; call init() (or initSync()) first');
  };
}

let ready = false;
let pending = null;

function attach() {
  const fast = withFastArgs(wasm);
  for (const name of ENGINE_NAMES) engine[name] = fast[name];
  ready = true;
  return gcf;
}

/** Instantiates the module (once); resolves to the API object. */
export function init(source) {
  if (ready) return Promise.resolve(gcf);
  if (!pending) {
    pending = wasmInit(source === undefined ? undefined : { module_or_path: source }).then(attach, (e) => {
      pending = null;
      throw e;
    });
  }
  return pending;
}

/** Instantiates the module from its bytes or a compiled module, synchronously. */
export function initSync(bytesOrModule) {
  if (!ready) {
    wasmInitSync({ module: bytesOrModule });
    attach();
  }
  return gcf;
}

/** Whether init() or initSync() has completed. */
export function isReady() {
  return ready;
}

const gcf = createApi(engine);
export default gcf;
export const {
  KIND_ABBREV,
  KIND_EXPAND,
  encode,
  decode,
  Session,
  encodeWithSession,
  encodeDelta,
  decodeDelta,
  verifyDelta,
  encodeGeneric,
  decodeGeneric,
  parseJSONOrdered,
  genericPackRoot,
  canonicalCell,
  diffGenericSets,
  encodeGenericFull,
  encodeGenericDelta,
  decodeGenericFull,
  decodeGenericDelta,
  verifyGenericDelta,
  GenericDeltaSession,
  ReanchorMode,
  fixedN,
  sizeGuard,
  DEFAULT_REANCHOR_N,
  formatScalar,
  formatKey,
  parseScalar,
  needsQuote,
  quoteString,
  StreamEncoder,
  GenericStreamEncoder,
  GcfError,
  packRoot,
  toWebWritable,
} = gcf;
