'use strict';
// The public surface of @blackwell-systems/gcf (the 2.5.2 API), over one
// engine (lib/engine): the native addon, or the WebAssembly build where no
// native binary loads. Everything format-related happens in the engine; this
// layer only moves values across (JSON text in, GCF or tagged JSON out; see
// BENCH.md for why strings beat per-property napi calls) and shapes results
// and errors the way 2.5.2 callers expect.

const engines = require('./engine/index.cjs');
const { GcfError, rethrow } = require('./errors.cjs');
const { valueJSON, fromTagged, checkLargeIntMode } = require('./convert.cjs');
const { parseJSONOrdered } = require('./json_ordered.cjs');

const E = engines.get();

const KIND_ABBREV = {
  function: 'fn',
  type: 'type',
  method: 'method',
  interface: 'iface',
  var: 'var',
  const: 'const',
  resource: 'resource',
  table: 'table',
  class: 'class',
  selector: 'selector',
  field: 'field',
  route_handler: 'route',
  external: 'ext',
  file: 'file',
  package: 'pkg',
  service: 'svc',
};
const KIND_EXPAND = Object.fromEntries(Object.entries(KIND_ABBREV).map(([k, v]) => [v, k]));

function encode(p) {
  let json;
  try {
    json = JSON.stringify(p);
  } catch (e) {
    throw new GcfError('invalid_input', `payload is not serializable: ${e.message}`);
  }
  try {
    return E.graphEncode(json);
  } catch (e) {
    rethrow(e);
  }
}

// Bytes are decoded as UTF-8 by the core, which reports malformed
// sequences (invalid_utf8) at their line and column.
function isBytes(x) {
  return x instanceof Uint8Array;
}

function decode(input) {
  let json;
  try {
    json = typeof input === 'string' || !isBytes(input) ? E.graphDecode(String(input)) : E.graphDecodeBytes(input);
  } catch (e) {
    rethrow(e);
  }
  const p = JSON.parse(json);
  // 2.5.2 gives every decoded edge a `status` key, undefined without one.
  const edges = p.edges;
  for (let i = 0; i < edges.length; i++) if (edges[i].status === '') edges[i].status = undefined;
  return p;
}

function encodeDelta(d) {
  try {
    return E.graphEncodeDelta(JSON.stringify(d));
  } catch (e) {
    rethrow(e);
  }
}

function decodeDelta(input) {
  let json;
  try {
    json = E.graphDecodeDelta(String(input));
  } catch (e) {
    rethrow(e);
  }
  return JSON.parse(json);
}

const NO_FLATTEN = 1;
const CONSTANT_COLUMNS = 2;

function encodeGeneric(data, opts) {
  let flags = 0;
  let largeInt = 'number';
  if (opts) {
    if (opts.noFlatten) flags |= NO_FLATTEN;
    if (opts.constantColumns) flags |= CONSTANT_COLUMNS;
    if (opts.largeInt !== undefined) largeInt = checkLargeIntMode(opts.largeInt);
  }
  const json = largeInt === 'error' ? require('./convert.cjs').toJSON(data, largeInt) : valueJSON(data, largeInt);
  try {
    return E.genericEncode(json, flags);
  } catch (e) {
    rethrow(e);
  }
}

function decodeGeneric(input, opts) {
  const largeInt = opts && opts.largeInt !== undefined ? checkLargeIntMode(opts.largeInt) : 'number';
  let tagged;
  try {
    tagged = typeof input === 'string' ? E.genericDecode(input) : isBytes(input) ? E.genericDecodeBytes(input) : E.genericDecode(String(input));
  } catch (e) {
    rethrow(e);
  }
  return fromTagged(JSON.parse(tagged), largeInt);
}

module.exports = {
  KIND_ABBREV,
  KIND_EXPAND,
  encode,
  decode,
  encodeDelta,
  decodeDelta,
  encodeGeneric,
  decodeGeneric,
  parseJSONOrdered,
  GcfError,
};
require('./deltas.cjs').install(E, module.exports);
require('./scalars.cjs').install(E, module.exports);
require('./stream.cjs').install(E, module.exports);
