// ESM entry: the same module instance as the CommonJS entry, so ESM and CJS
// callers share one engine. Every runtime export of the 2.5.2 package is
// named here (test/load.test.cjs compares this list with 2.5.2's), plus this
// package's additions (GcfError, packRoot, the stream adapters).
import gcf from './lib/gcf.cjs';

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
  toNodeWritable,
  toWebWritable,
} = gcf;
export default gcf;
