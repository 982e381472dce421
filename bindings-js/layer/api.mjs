// The public surface of @blackwell-systems/gcf (the 2.5.2 API) over one
// engine, shared by every JavaScript package: the Node package bundles it
// into lib/layer.cjs (CommonJS) and passes the native addon or the wasm
// engine; the WebAssembly package imports it as ESM and passes its wasm
// engine. Nothing here may use Node-only APIs (fs, process, Buffer, stream).
//
// Everything format-related happens in the engine; this layer only moves
// values across (JSON text in, GCF or tagged JSON out; see
// bindings-node/BENCH.md for why strings beat per-property napi calls) and
// shapes results and errors the way 2.5.2 callers expect. The engine
// interface is documented in bindings-js/engine (the Rust crate both hosts
// wrap) and bindings-node/DESIGN.md ("Engines").

import { GcfError, checkLength, rethrow, rethrowValue } from './errors.mjs';
import { withLimits } from './limits.mjs';
import { valueJSON, isPlain, toJSON, fromTagged, checkLargeIntMode, largeInteger } from './convert.mjs';
import { parseJSONOrdered } from './json_ordered.mjs';
import { decodeText } from './text.mjs';
import { toPacked, fromPacked, NUMS } from './packed.mjs';
import { toPackedValue, fromPackedValue } from './packed_value.mjs';
import * as deltas from './deltas.mjs';
import * as scalars from './scalars.mjs';
import * as stream from './stream.mjs';

// Internals for this repository's benches and tests (not on the API object).
export { GcfError, parseJSONOrdered, toJSON, isPlain, fromTagged, toPacked, fromPacked, toPackedValue, fromPackedValue };

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

/**
 * The 2.5.2 API over `E` (an engine: see bindings-node/DESIGN.md, "Engines").
 * Each call builds a fresh API object; an engine needs only one.
 */
export function createApi(E) {
  // The packed route (an optional engine capability, see packed.mjs)
  // when the engine has it and the payload has the plain shape it covers;
  // otherwise, or when the engine answers "", the JSON route, which also
  // reports every malformed payload.
  const packed = typeof E.graphEncodePacked === 'function' && typeof E.graphDecodePacked === 'function';
  // The same for generic values (packed_value.mjs), each way on its own.
  const packedValue = typeof E.genericEncodePacked === 'function';
  const packedDecode = typeof E.genericDecodePacked === 'function';
  const packedDecodeBytes = typeof E.genericDecodeBytesPacked === 'function';

  function encode(p) {
    // 2.5.2 reads `p.symbols` first: the same TypeError, not the engine's
    // conversion error.
    if (p == null) throw new TypeError(`Cannot read properties of ${p} (reading 'symbols')`);
    checkLength(p.symbols, 'symbols');
    checkLength(p.edges, 'edges');
    if (packed) {
      const args = toPacked(p);
      if (args !== null) {
        let out;
        try {
          out = E.graphEncodePacked(args[0], args[1], args[2], args[3]);
        } catch (e) {
          rethrow(e);
        }
        if (out !== '') return out;
      }
    }
    let json;
    try {
      json = JSON.stringify(p);
    } catch (e) {
      throw new GcfError('invalid_input', `payload is not serializable: ${e.message}`);
    }
    try {
      return E.graphEncode(json);
    } catch (e) {
      rethrowValue(e);
    }
  }

  // A packed decode answers its strings alone when the numbers went into
  // NUMS (the napi engine writes them there when they fit), else
  // [strings, numbers].
  const first = (r) => (typeof r === 'string' ? r : r[0]);
  const numbers = (r) => (typeof r === 'string' ? NUMS : r[1]);

  // Bytes are decoded as UTF-8 by the core, which reports malformed
  // sequences (invalid_utf8) at their line and column.
  function isBytes(x) {
    return x instanceof Uint8Array;
  }

  // An optional argument has a default, so that `fn.length` counts what
  // 2.5.2's counts (its optional parameters have defaults too).
  function decode(input, opts = undefined) {
    return withLimits(E, opts, () => decodeGraph(input));
  }

  function decodeGraph(input) {
    let out;
    let nums = null;
    try {
      if (typeof input === 'string' || !isBytes(input)) {
        if (packed) {
          // [string table, numbers], or [JSON, []] for what the table
          // cannot carry.
          const r = decodeText(input, (s) => E.graphDecodePacked(s, NUMS), first);
          out = first(r);
          nums = numbers(r);
        } else {
          out = decodeText(input, (s) => E.graphDecode(s));
        }
      } else {
        out = E.graphDecodeBytes(input);
      }
    } catch (e) {
      rethrow(e);
    }
    if (out.charCodeAt(0) === 0) return fromPacked(out, nums);
    const p = JSON.parse(out);
    // 2.5.2 gives every decoded edge a `status` key, undefined without one.
    const edges = p.edges;
    for (let i = 0; i < edges.length; i++) if (edges[i].status === '') edges[i].status = undefined;
    return p;
  }

  function encodeDelta(d) {
    try {
      return E.graphEncodeDelta(JSON.stringify(d));
    } catch (e) {
      rethrowValue(e);
    }
  }

  function decodeDelta(input, opts = undefined) {
    let json;
    try {
      json = withLimits(E, opts, () => decodeText(input, (s) => E.graphDecodeDelta(s)));
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
    // The packed route writes exactly what the JSON route would, in every
    // largeInt mode: it leaves the numbers the modes treat apart to it.
    if (packedValue) {
      const args = toPackedValue(data);
      if (args !== null) {
        let out;
        try {
          out = E.genericEncodePacked(args[0], args[1], args[2], flags, args[3], args[4], args[5]);
        } catch (e) {
          rethrow(e);
        }
        if (out !== '') return out;
      }
    }
    const json = largeInt === 'error' ? toJSON(data, largeInt) : valueJSON(data, largeInt);
    try {
      return E.genericEncode(json, flags);
    } catch (e) {
      rethrowValue(e);
    }
  }

  function decodeGeneric(input, opts = undefined) {
    const largeInt = opts && opts.largeInt !== undefined ? checkLargeIntMode(opts.largeInt) : 'number';
    try {
      return withLimits(E, opts, () => decodeValue(input, largeInt));
    } catch (e) {
      // Graph-profile text decodes too, as 2.5.2 decodes it: the payload as
      // a plain object (asked only once the generic decoder refused it).
      if (e instanceof GcfError && e.category === 'invalid_input' && e.line === 1 && isGraphText(input)) {
        return graphValue(decode(input, opts));
      }
      throw e;
    }
  }

  // Whether the header declares the graph profile, as the core reads it:
  // only the first line crosses to the engine.
  function isGraphText(input) {
    let head;
    if (isBytes(input)) {
      const end = input.indexOf(10);
      head = new TextDecoder().decode(end < 0 ? input : input.subarray(0, end));
    } else {
      const text = String(input);
      const end = text.indexOf('\n');
      head = end < 0 ? text : text.slice(0, end);
    }
    return E.profileOf(head) === 'graph';
  }

  // 2.5.2's decodeGeneric of graph text: its members in its order, an
  // edge's status always (empty when it has none).
  function graphValue(p) {
    return {
      tool: p.tool,
      tokenBudget: p.tokenBudget,
      tokensUsed: p.tokensUsed,
      packRoot: p.packRoot ?? '',
      symbols: p.symbols.map((s) => ({
        qualifiedName: s.qualifiedName,
        kind: s.kind,
        score: s.score,
        provenance: s.provenance,
        distance: s.distance,
      })),
      edges: p.edges.map((e) => ({ source: e.source, target: e.target, edgeType: e.edgeType, status: e.status ?? '' })),
    };
  }

  function decodeValue(input, largeInt) {
    let tagged;
    let nums = null;
    try {
      if (isBytes(input)) {
        if (packedDecodeBytes) {
          const r = E.genericDecodeBytesPacked(input, NUMS);
          tagged = first(r);
          nums = numbers(r);
        } else {
          tagged = E.genericDecodeBytes(input);
        }
      } else if (packedDecode) {
        // [packed strings, numbers], or [tagged JSON, []] for a value
        // with a NUL in a string (bytes alike, above).
        const r = decodeText(input, (s) => E.genericDecodePacked(s, NUMS), first);
        tagged = first(r);
        nums = numbers(r);
      } else {
        tagged = decodeText(input, (s) => E.genericDecode(s));
      }
    } catch (e) {
      rethrow(e);
    }
    if (tagged.charCodeAt(0) === 0) return fromPackedValue(tagged, nums, (digits) => largeInteger(digits, largeInt));
    return fromTagged(JSON.parse(tagged), largeInt);
  }

  const gcf = {
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
  deltas.install(E, gcf);
  scalars.install(E, gcf);
  stream.install(E, gcf);
  return gcf;
}
