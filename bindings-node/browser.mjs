// Browser entry: the names 2.5.2's browser build exports, from the same
// module as the main entry (the wasm engine behind it is issue 19).
import gcf from './lib/gcf.cjs';

export const {
  KIND_ABBREV,
  KIND_EXPAND,
  encode,
  decode,
  encodeGeneric,
  decodeGeneric,
  parseJSONOrdered,
  formatScalar,
  formatKey,
  parseScalar,
  needsQuote,
  quoteString,
  StreamEncoder,
  GenericStreamEncoder,
  GcfError,
} = gcf;
export default gcf;
