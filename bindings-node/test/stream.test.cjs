'use strict';
// StreamEncoder: byte-identical with 2.5.2 on random payloads, batched
// writes, and the Node Writable / WHATWG WritableStream adapters.
const test = require('node:test');
const assert = require('node:assert');
const { Writable } = require('node:stream');
const gcf = require('../index.cjs');
const ref = require('gcf-reference');
const { make } = require('./random.cjs');

const SEED = Number(process.env.GCF_DIFF_SEED || Date.now() % 2147483647);

function stream(lib, p, opts) {
  let out = '';
  let calls = 0;
  const enc = new lib.StreamEncoder({ write: (s) => { out += s; calls++; } }, p.tool, opts);
  for (const s of p.symbols) enc.writeSymbol(s);
  // 2.5.2 needs both ends written; the random edges may name any symbol.
  for (const e of p.edges) enc.writeEdge(e);
  enc.close();
  return { out, calls, symbols: enc.symbolCount, edges: enc.edgeCount_ };
}

test(`random graph streams match 2.5.2 byte for byte (seed ${SEED})`, () => {
  const g = make(SEED);
  for (let i = 0; i < 2000; i++) {
    const p = g.graph();
    // Streams take symbols in distance order, as 2.5.2 expects.
    p.symbols.sort((a, b) => a.distance - b.distance);
    const opts = [{}, { tokenBudget: p.tokenBudget, tokensUsed: p.tokensUsed }, { labeledTrailerCounts: true }][i % 3];
    const a = stream(gcf, p, opts);
    const b = stream(ref, p, opts);
    assert.strictEqual(a.out, b.out, `#${i}`);
    assert.deepStrictEqual([a.symbols, a.edges], [b.symbols, b.edges]);
  }
});

test('a large stream reaches the writer in batches', () => {
  const symbols = [];
  for (let i = 0; i < 100000; i++) symbols.push({ qualifiedName: `p.S${i}`, kind: 'function', score: 0.5, provenance: 'lsp', distance: 0 });
  const r = stream(gcf, { tool: 't', symbols, edges: [] }, {});
  assert.ok(r.calls < 100, `${r.calls} write calls`);
  assert.strictEqual(r.out, stream(ref, { tool: 't', symbols, edges: [] }, {}).out);
});

test('Node Writable adapter: chunks arrive in order and ready() waits for drain', async () => {
  const got = [];
  const w = new Writable({
    highWaterMark: 1024,
    write(chunk, _enc, cb) {
      got.push(chunk.toString());
      setImmediate(cb);
    },
  });
  const sink = gcf.toNodeWritable(w);
  const enc = new gcf.StreamEncoder(sink, 't');
  for (let i = 0; i < 20000; i++) {
    enc.writeSymbol({ qualifiedName: `p.S${i}`, kind: 'type', score: 0.25, provenance: 'x', distance: 1 });
    if (i % 5000 === 0) await sink.ready();
  }
  enc.close();
  await sink.ready();
  await new Promise((resolve) => w.end(resolve));
  const text = got.join('');
  assert.ok(text.startsWith('GCF profile=graph tool=t\n'));
  assert.match(text, /##! summary symbols=20000 edges=0/);
});

test('WHATWG WritableStream adapter', async () => {
  const parts = [];
  const ws = new WritableStream({ write: (chunk) => { parts.push(chunk); } });
  const sink = gcf.toWebWritable(ws);
  const enc = new gcf.StreamEncoder(sink, 't', { tokenBudget: 10 });
  enc.writeSymbol({ qualifiedName: 'a.A', kind: 'function', score: 1, provenance: 'lsp', distance: 0 });
  enc.close();
  await sink.ready();
  await sink.close();
  let expected = '';
  const r = new ref.StreamEncoder({ write: (s) => (expected += s) }, 't', { tokenBudget: 10 });
  r.writeSymbol({ qualifiedName: 'a.A', kind: 'function', score: 1, provenance: 'lsp', distance: 0 });
  r.close();
  assert.strictEqual(parts.join(''), expected);
});
