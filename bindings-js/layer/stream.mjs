// StreamEncoder (2.5.2's stream.ts) over the core's graph stream writer.
// 2.5.2 calls write() once per line; here the core's output is handed to the
// writer in chunks of about BATCH bytes (and the rest on close), so a
// million-row stream costs a few hundred write() calls.
//
// Sinks: any {write(string)}; toWebWritable() adapts a WHATWG
// WritableStream (`await sink.ready()` resolves once it can take more). The
// Node Writable adapter is Node-only and lives in bindings-node/lib/node.cjs.

import { rethrow, GcfError } from './errors.mjs';

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
      if (o.packRoot || o.session) {
        // The core's stream writer has no pack_root= header or bare
        // references yet; refusing is better than a different wire.
        throw new GcfError('usage', 'StreamEncoder: the packRoot and session options are not supported yet', null, null, 'usage');
      }
      this._w = w;
      this._native = call(() => new E.NativeGraphStream(tool == null ? '' : String(tool), o.tokenBudget || 0, o.tokensUsed || 0, !!o.labeledTrailerCounts));
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
      throw new GcfError('usage', 'StreamEncoder: bare references (session mode) are not supported yet', null, null, 'usage');
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
  Object.assign(gcf, { StreamEncoder, toWebWritable });
}
