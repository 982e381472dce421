// ESM entry: the same module instance as the CommonJS entry, so ESM and CJS
// callers share one engine.
import gcf from './lib/gcf.cjs';

export const {
  KIND_ABBREV,
  KIND_EXPAND,
  encode,
  decode,
  encodeGeneric,
  decodeGeneric,
  parseJSONOrdered,
  GcfError,
} = gcf;
export default gcf;
