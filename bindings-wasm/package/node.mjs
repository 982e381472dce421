// The Node ESM entry: the same API as index.mjs, over wasm-bindgen's nodejs
// glue (compiled synchronously from the file, no fetch of a file: URL).
import { createApi } from './layer.mjs';
import { createRequire } from 'node:module';

const engine = createRequire(import.meta.url)('./engine.cjs');
const gcf = createApi(engine);

export const ready = Promise.resolve(gcf);
export function init() {
  return ready;
}
export function initSync() {
  return gcf;
}
export function isReady() {
  return true;
}
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
