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

import { rethrowValue as rethrow, callValue as call, GcfError } from './errors.mjs';
import { valueJSON } from './convert.mjs';
import { wellFormed, Utf8Scratch, grow } from './packed.mjs';
import { NULL, TRUE, FALSE, NUMBER, STRING } from './packed_value.mjs';

const BATCH = 64 * 1024;

// Everything a stream takes is the caller's values, some crossing as JSON
// written here: failures are reported as for values (see rethrowValue).

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
  // Symbols wait here and cross SYMBOLS at a time in the engine's packed
  // form (GraphStream::write_symbols_packed, an optional engine capability:
  // names, kinds and provenances NUL-ended, scores and distances in a
  // Float64Array, so no score is turned into text). Only a symbol the
  // writer is sure to take is queued, so a refused one still throws from
  // its own writeSymbol: names, kinds and provenances of printable ASCII
  // without spaces (always tokens), a finite score and a distance that is
  // a u32. Anything else, and every other call, sends the queue first.
  //
  // A score of -0 is written as 0.00 (the engine adds 0 on the batch
  // path, and the single call is given 0): 2.5.2 tests `x < 0`, which -0
  // is not, while the core keeps the sign (-0.00).
  const SYMBOLS = 1024;
  const packedSymbols = typeof E.NativeGraphStream.prototype.writeSymbolsPacked === 'function';
  // Printable ASCII without spaces, non-empty (`/^[!-~]+$/`). A loop,
  // because RegExp.prototype.test cost about 90 ns a name, a third of a
  // streamed symbol's time, and this about 60 (bench/NOTES.md, "Streams").
  const plain = (s) => {
    const n = s.length;
    if (n === 0) return false;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x21 || c > 0x7e) return false;
    }
    return true;
  };
  // A streamed symbol's or edge's fields as encode reads them: a string
  // (null and undefined are "", which the writer then refuses where a
  // token is required, as encode does), a score (null and undefined are
  // 0), a distance (null and undefined are 0, otherwise an integer from 0
  // to 2^32 - 1). Anything else is refused here, with encode's category:
  // the engine's u32 conversion wrapped a distance (-1 was written as
  // `## distance_4294967295`, 1.5 as 1) and refused a field of another type
  // with an error that had no category.
  const describe = (x) => (typeof x === 'string' ? `string ${JSON.stringify(x)}` : typeof x === 'object' ? (x === null ? 'null' : 'an object') : `${typeof x} ${String(x)}`);
  const badField = (what, detail) => new GcfError('invalid_input', `${what}: ${detail}`, null, null, 'input');
  function str(x, what) {
    if (typeof x === 'string') return x;
    if (x == null) return '';
    throw badField(what, `invalid type: ${describe(x)}, expected a string`);
  }
  function scoreOf(x) {
    // -0 is written as 0.00, as 2.5.2 writes it (see SYMBOLS above).
    if (typeof x === 'number') return x === 0 ? 0 : x;
    if (x == null) return 0;
    throw badField('score', `invalid type: ${describe(x)}, expected a number`);
  }
  // A header count (tokenBudget, tokensUsed): unset (any falsy value, as
  // 2.5.2 tests it) is 0, otherwise a safe non-negative integer (-5 was
  // written as no budget, 1.5 as 1).
  function countOf(x, what) {
    if (!x) return 0;
    if (Number.isSafeInteger(x) && x > 0) return x;
    throw badField(what, `invalid value: ${describe(x)}, expected a non-negative integer`);
  }
  function distanceOf(x) {
    if (x == null) return 0;
    if (typeof x === 'number' && x >>> 0 === x) return x;
    throw badField('distance', `invalid value: ${describe(x)}, expected an integer from 0 to 4294967295`);
  }

  // The UTF-8 of a batch's strings (symbols or rows), shared by every
  // encoder: a batch is written and handed over within one call.
  const batchText = new Utf8Scratch();

  class StreamEncoder {
    constructor(w, tool, opts = undefined) {
      const o = opts || {};
      this._w = w;
      const budget = countOf(o.tokenBudget, 'tokenBudget');
      const used = countOf(o.tokensUsed, 'tokensUsed');
      this._native = call(() => new E.NativeGraphStream(tool == null ? '' : String(tool), budget, used, !!o.labeledTrailerCounts, o.packRoot ? String(o.packRoot) : '', !!o.session));
      this._symbols = 0;
      this._edges = 0;
      // The queue (null once symbols must go one call each: after an
      // edge, whose phase refuses them, or after close).
      this._queue = packedSymbols ? '' : null;
      this._queued = 0;
      // Score and distance per queued symbol.
      this._nums = packedSymbols ? new Float64Array(2 * SYMBOLS) : null;
      // The distance, kind and provenance of the last queued symbol, and
      // the text of the last two (they rarely change from one to the next).
      this._d = NaN;
      this._kind = null;
      this._provenance = null;
      this._tail = '';
      // The header now, as 2.5.2 writes it: a reader sees the stream begin.
      this._handOver();
    }
    _handOver() {
      const chunk = call(() => this._native.take());
      if (chunk) this._w.write(chunk);
    }
    writeSymbol(s) {
      if (this._queue !== null) {
        const q = s.qualifiedName;
        const k = s.kind;
        const p = s.provenance;
        const score = s.score;
        const d = s.distance;
        if (typeof q === 'string' && typeof score === 'number' && Number.isFinite(score) && plain(q)) {
          if (d !== this._d || k !== this._kind || p !== this._provenance) {
            if (typeof d !== 'number' || d >>> 0 !== d || typeof k !== 'string' || !plain(k) || typeof p !== 'string' || !plain(p)) {
              this._send();
              return this._single(s);
            }
            this._d = d;
            this._kind = k;
            this._provenance = p;
            this._tail = '\0' + k + '\0' + p + '\0';
          }
          // The engine's order: name, kind, provenance; score, distance.
          this._queue += q + this._tail;
          const i = 2 * this._queued;
          this._nums[i] = score;
          this._nums[i + 1] = d;
          this._symbols++;
          if (++this._queued >= SYMBOLS) this._after(this._send());
          return;
        }
        this._send();
      }
      this._single(s);
    }
    _single(s) {
      const q = str(s.qualifiedName, 'qualifiedName');
      const k = str(s.kind, 'kind');
      const score = scoreOf(s.score);
      const p = str(s.provenance, 'provenance');
      const d = distanceOf(s.distance);
      const n = call(() => this._native.writeSymbol(q, k, score, p, d));
      this._symbols++;
      this._after(n);
    }
    writeEdge(e) {
      if (this._queue !== null) {
        this._send();
        this._queue = null;
      }
      const source = str(e.source, 'source');
      const target = str(e.target, 'target');
      const edgeType = str(e.edgeType, 'edgeType');
      const status = str(e.status, 'status');
      let n;
      try {
        n = call(() => this._native.writeEdge(source, target, edgeType, status));
      } catch (err) {
        // An edge naming a symbol this stream has not written is dropped,
        // not counted, as 2.5.2 (and `encode`, and the Python package's
        // stream) drop it; every other refusal throws.
        if (err instanceof GcfError && err.category === 'unknown_edge_reference') return;
        throw err;
      }
      this._edges++;
      this._after(n);
    }
    writeBareRef(qname, distance) {
      this._send();
      const d = distanceOf(distance);
      const n = call(() => this._native.writeBareRef(String(qname), d));
      this._symbols++;
      this._after(n);
    }
    /** Hands everything written so far to the writer now (an addition to
     * 2.5.2, whose writer saw every line at once): for a reader that should
     * see the stream progress between batches. */
    flush() {
      this._send();
      this._handOver();
    }
    close() {
      this._send();
      this._queue = null;
      const rest = call(() => this._native.finish());
      if (rest) this._w.write(rest);
    }
    _send() {
      if (this._queued === 0) return 0;
      batchText.pos = 0;
      batchText.write(this._queue);
      const nums = this._nums.subarray(0, 2 * this._queued);
      this._queue = '';
      this._queued = 0;
      return call(() => this._native.writeSymbolsPacked(batchText.view(), nums));
    }
    _after(n) {
      if (n >= BATCH) {
        const chunk = call(() => this._native.take());
        if (chunk) this._w.write(chunk);
      }
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
  // there and here), undefined as null. A non-finite number is refused
  // here, at its own call, as the engine would refuse it.
  function cell(v) {
    if (v === undefined || v === null) return null;
    const t = typeof v;
    if (t === 'number') {
      if (!Number.isFinite(v)) throw new GcfError('out_of_range', `${v} is not a finite number`, null, null, 'data');
      return v;
    }
    // A bigint is an exact integer (spec §2.3.2): written as its digits,
    // or refused with out_of_range outside int64, as encodeGeneric does
    // (2.5.2 writes String(v), a quoted string).
    return t === 'boolean' || t === 'string' || t === 'bigint' ? v : String(v);
  }
  const cellsJSON = (values) => valueJSON(Array.from(values, cell), 'number');
  // A section, key or field name as the engine receives it: a lone
  // surrogate would reach it as U+FFFD, a name the caller did not give, so
  // it is refused as the same string in a value is (invalid_surrogate).
  function name(x, what) {
    const s = String(x);
    if (!wellFormed(s)) {
      throw new GcfError('invalid_surrogate', `${what}: a string holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape), which UTF-8 cannot carry`, null, null, 'json');
    }
    return s;
  }
  const names = (fields) => JSON.stringify(Array.from(fields, (f, i) => name(f, `fields[${i}]`)));

  // Rows wait here and cross ROWS at a time (one engine call and one text
  // per batch instead of per row); every other call sends them first,
  // so the wire keeps the call order.
  const ROWS = 1024;

  // The packed row form (an optional engine capability, see gcf-js-engine's
  // GenericStream::write_rows_packed): per row an `r` op, then an op per
  // cell, numbers in a Float64Array and strings NUL-ended, so that no number
  // is turned into text (most of a row's time in JS when rows went as
  // text). A row with a string holding NUL or a lone surrogate goes as JSON.
  const packedRows = typeof E.NativeGenericStream.prototype.writeRowsPacked === 'function';
  // A row's op; its cells take the ops of packed values (packed_value.mjs).
  const ROW = 114; // r
  /** 2.5.2's GenericStreamEncoder; output reaches `writer` in batches. */
  class GenericStreamEncoder {
    constructor(writer) {
      this._w = writer;
      this._native = new E.NativeGenericStream();
      this._rows = [];
      // The packed batch: ops, numbers, strings (each followed by NUL).
      this._ops = packedRows ? new Uint8Array(8 * ROWS) : null;
      this._o = 0;
      this._nums = packedRows ? new Float64Array(4 * ROWS) : null;
      this._n = 0;
      this._text = '';
      this._pending = 0;
      // A row's cells are read (which may run a getter, or a toString that
      // writes a row of its own) before any is packed: `_cells` holds them,
      // or a fresh array when such a nested call is reading.
      this._cells = [];
      this._reading = false;
      // The open table as the engine keeps it (rowWidth 0: none, rows are
      // dropped), read again after every call that opens or ends one.
      this._width = 0;
      this._keyed = false;
      // The header now, and each table's header when it begins, as 2.5.2
      // writes them; rows still go in batches.
      this._handOver();
    }
    _handOver() {
      const chunk = this._native.take();
      if (chunk) this._w.write(chunk);
    }
    _syncTable() {
      this._width = this._native.rowWidth();
      this._keyed = this._width !== 0 && this._native.keyed();
    }
    beginArray(tableName, fields) {
      this._send();
      try {
        call(() => this._native.beginArray(name(tableName, 'name'), names(fields)));
      } finally {
        this._syncTable();
      }
      this._handOver();
    }
    beginKeyedMap(mapName, keyLabel, valueFields) {
      this._send();
      try {
        call(() => this._native.beginKeyedMap(name(mapName, 'name'), name(keyLabel, 'keyLabel'), names(valueFields)));
      } finally {
        this._syncTable();
      }
      this._handOver();
    }
    writeRow(values) {
      // A row longer than its table is refused before its cells are read: an
      // array's length can be far more than its memory (a sparse one), and
      // reading 2e8 holes would end the process.
      if (this._width > 0 && values && values.length > this._width && !this._keyed) {
        throw new GcfError('row_width_mismatch', `row has ${values.length} cells but the section declares ${this._width} fields`);
      }
      if (!packedRows) {
        this._rows.push(Array.from(values, cell));
        if (this._rows.length >= ROWS) this._send();
        return;
      }
      const nested = this._reading;
      const cells = nested ? [] : this._cells;
      const n = values.length;
      let plain = true;
      this._reading = true;
      try {
        for (let i = 0; i < n; i++) {
          const v = cell(values[i]);
          if (typeof v === 'string' ? v.indexOf('\0') !== -1 || !wellFormed(v) : typeof v === 'bigint') plain = false;
          cells[i] = v;
        }
      } finally {
        this._reading = nested;
      }
      // A row the engine refuses (a width other than the table's, a keyed
      // map's null or boolean key) goes as JSON too, so that its refusal is
      // thrown by this call, not by the batch it would have crossed in.
      // (Read after the cells: a cell's toString may have begun a table.)
      if (n !== this._width || (this._keyed && (cells[0] === null || typeof cells[0] === 'boolean'))) plain = false;
      if (!plain) {
        this._send();
        this._rows.push(cells.slice(0, n));
        this._send();
        return;
      }
      this._pack(cells, n);
      if (++this._pending >= ROWS) this._send();
    }
    _pack(cells, n) {
      // At most one op a cell, one number a cell: grown before the row.
      if (this._o + n + 1 > this._ops.length) this._ops = grow(this._ops, this._o + n + 1);
      if (this._n + n > this._nums.length) this._nums = grow(this._nums, this._n + n);
      const ops = this._ops;
      let o = this._o;
      ops[o++] = ROW;
      for (let i = 0; i < n; i++) {
        const v = cells[i];
        if (typeof v === 'string') {
          ops[o++] = STRING;
          this._text += v + '\0';
        } else if (typeof v === 'number') {
          ops[o++] = NUMBER;
          this._nums[this._n++] = v;
        } else if (v === null) {
          ops[o++] = NULL;
        } else {
          ops[o++] = v ? TRUE : FALSE;
        }
      }
      this._o = o;
    }
    endArray() {
      this._send();
      this._native.endArray();
      this._syncTable();
    }
    writeKV(key, value) {
      this._send();
      this._after(call(() => this._native.writeKV(name(key, 'key'), valueJSON(cell(value), 'number'))));
    }
    writeSection(sectionName) {
      this._send();
      try {
        this._after(call(() => this._native.writeSection(name(sectionName, 'name'))));
      } finally {
        this._syncTable();
      }
    }
    writeInlineArray(arrayName, values) {
      this._send();
      this._after(call(() => this._native.writeInlineArray(name(arrayName, 'name'), cellsJSON(values))));
    }
    /** Hands everything written so far to the writer now (an addition to
     * 2.5.2), rows waiting for their batch included. */
    flush() {
      this._send();
      this._handOver();
    }
    close() {
      let rest;
      try {
        this._send();
        rest = this._native.close();
      } catch (e) {
        // 2.5.2 has written every line before close throws.
        const written = this._native.take();
        if (written) this._w.write(written);
        rethrow(e);
      } finally {
        this._syncTable();
      }
      if (rest) this._w.write(rest);
    }
    _send() {
      if (this._pending > 0) {
        batchText.pos = 0;
        batchText.write(this._text);
        const ops = this._ops.subarray(0, this._o);
        const nums = this._nums.subarray(0, this._n);
        this._text = '';
        this._o = 0;
        this._n = 0;
        this._pending = 0;
        // All or nothing; a malformed batch cannot come from _pack.
        this._after(call(() => this._native.writeRowsPacked(ops, batchText.view(), nums)));
      }
      if (this._rows.length === 0) return;
      const rows = this._rows;
      this._rows = [];
      let n;
      try {
        n = this._native.writeRows(valueJSON(rows, 'number'));
      } catch (_) {
        // The engine wrote nothing of the batch: row by row, the rows it
        // takes are written as their own calls would have written them, and
        // the first refusal is thrown (from this call, not the row's).
        let first = null;
        for (const r of rows) {
          try {
            n = this._native.writeRow(valueJSON(r, 'number'));
          } catch (e) {
            if (first === null) first = e;
          }
        }
        if (first !== null) rethrow(first);
      }
      this._after(n);
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
