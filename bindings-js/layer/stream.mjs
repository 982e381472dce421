// StreamEncoder (2.5.2's stream.ts) over the core's graph stream writer, and
// GenericStreamEncoder (2.5.2's stream_generic.ts) over the engine's generic
// stream (2.5.2's sequencing, the core's scalar grammar).
// 2.5.2 calls write() once per line; here the core's output is handed to the
// writer in chunks of about BATCH bytes (and the rest on close), so a
// million-row stream costs a few hundred write() calls.
//
// Sinks: any {write(string)}; toWebWritable() adapts a WHATWG
// WritableStream (`await sink.ready()` resolves once it can take more). The
// Node Writable adapter is Node-only and lives in bindings-node/lib/node.cjs.

import { rethrow, GcfError } from './errors.mjs';
import { valueJSON } from './convert.mjs';

const BATCH = 64 * 1024;

function call(fn) {
  try {
    return fn();
  } catch (e) {
    return rethrow(e);
  }
}

export function toWebWritable(stream) {
  const writer = stream.getWriter();
  let failed = null;
  return {
    write(chunk) {
      if (failed) throw failed;
      writer.write(chunk).catch((e) => {
        failed = e;
      });
    },
    ready() {
      return writer.ready;
    },
    close() {
      return writer.close();
    },
  };
}

export function install(E, gcf) {
  class StreamEncoder {
    constructor(w, tool, opts) {
      const o = opts || {};
      this._w = w;
      this._native = call(() => new E.NativeGraphStream(tool == null ? '' : String(tool), o.tokenBudget || 0, o.tokensUsed || 0, !!o.labeledTrailerCounts, o.packRoot ? String(o.packRoot) : '', !!o.session));
      this._symbols = 0;
      this._edges = 0;
    }
    writeSymbol(s) {
      const n = call(() => this._native.writeSymbol(s.qualifiedName, s.kind, s.score, s.provenance, s.distance));
      this._symbols++;
      if (n >= BATCH) this._drain();
    }
    writeEdge(e) {
      const n = call(() => this._native.writeEdge(e.source, e.target, e.edgeType, e.status || ''));
      this._edges++;
      if (n >= BATCH) this._drain();
    }
    writeBareRef() {
      // The core's stream writer has no bare-reference line yet (it needs
      // one that advances its ids and group counts); refusing is better
      // than a wire with wrong ids.
      throw new GcfError('usage', 'StreamEncoder: writeBareRef is not supported yet', null, null, 'usage');
    }
    close() {
      const rest = call(() => this._native.finish());
      if (rest) this._w.write(rest);
    }
    _drain() {
      const chunk = call(() => this._native.take());
      if (chunk) this._w.write(chunk);
    }
    get symbolCount() {
      return this._symbols;
    }
    get edgeCount_() {
      return this._edges;
    }
  }
  // A cell as 2.5.2's formatScalar sees it: anything but null, a boolean or
  // a number by its String() form (a bigint too, so it is a quoted string
  // there and here), undefined as null.
  function cell(v) {
    if (v === undefined || v === null) return null;
    const t = typeof v;
    return t === 'number' || t === 'boolean' || t === 'string' ? v : String(v);
  }
  const cellsJSON = (values) => valueJSON(Array.from(values, cell), 'number');
  const names = (fields) => JSON.stringify(Array.from(fields, String));

  /** 2.5.2's GenericStreamEncoder; output reaches `writer` in batches. */
  class GenericStreamEncoder {
    constructor(writer) {
      this._w = writer;
      this._native = new E.NativeGenericStream();
    }
    beginArray(name, fields) {
      this._after(call(() => this._native.beginArray(String(name), names(fields))));
    }
    beginKeyedMap(name, keyLabel, valueFields) {
      this._after(call(() => this._native.beginKeyedMap(String(name), String(keyLabel), names(valueFields))));
    }
    writeRow(values) {
      this._after(call(() => this._native.writeRow(cellsJSON(values))));
    }
    endArray() {
      this._native.endArray();
    }
    writeKV(key, value) {
      this._after(call(() => this._native.writeKV(String(key), valueJSON(cell(value), 'number'))));
    }
    writeSection(name) {
      this._after(call(() => this._native.writeSection(String(name))));
    }
    writeInlineArray(name, values) {
      this._after(call(() => this._native.writeInlineArray(String(name), cellsJSON(values))));
    }
    close() {
      let rest;
      try {
        rest = this._native.close();
      } catch (e) {
        // 2.5.2 has written every line before close throws.
        const written = this._native.take();
        if (written) this._w.write(written);
        rethrow(e);
      }
      if (rest) this._w.write(rest);
    }
    _after(n) {
      if (n >= BATCH) {
        const chunk = this._native.take();
        if (chunk) this._w.write(chunk);
      }
    }
  }

  Object.assign(gcf, { StreamEncoder, GenericStreamEncoder, toWebWritable });
}
