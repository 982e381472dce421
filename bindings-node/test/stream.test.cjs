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

test('an edge naming a symbol the stream has not written is dropped, as 2.5.2 drops it', () => {
  const p = {
    tool: '',
    symbols: [
      { qualifiedName: 'a.A', kind: 'function', score: 0.5, provenance: 'lsp', distance: 0 },
      { qualifiedName: 'a.B', kind: 'type', score: 0.4, provenance: 'lsp', distance: 1 },
    ],
    edges: [
      { source: 'a.A', target: 'a.Missing', edgeType: 'calls' },
      { source: 'a.B', target: 'a.A', edgeType: 'calls' },
      { source: 'nowhere', target: 'a.B', edgeType: 'uses', status: 'added' },
      { source: 'a.A', target: 'a.B', edgeType: 'uses', status: 'added' },
    ],
  };
  const a = stream(gcf, p, {});
  const b = stream(ref, p, {});
  assert.strictEqual(a.out, b.out);
  assert.match(a.out, /^GCF profile=graph tool=\n/);
  assert.match(a.out, /## edges \[\?\]\n@0<@1 calls\n@1<@0 uses added\n##! summary symbols=2 edges=2 /);
  assert.deepStrictEqual([a.symbols, a.edges], [b.symbols, b.edges]);
  // Other refusals still throw from their own call.
  const enc = new gcf.StreamEncoder({ write() {} }, 't');
  enc.writeSymbol(p.symbols[0]);
  assert.throws(() => enc.writeEdge({ source: 'a.A', target: 'a.A', edgeType: 'has space' }), gcf.GcfError);
});

test('a large stream reaches the writer in batches', () => {
  const symbols = [];
  for (let i = 0; i < 100000; i++) symbols.push({ qualifiedName: `p.S${i}`, kind: 'function', score: 0.5, provenance: 'lsp', distance: 0 });
  const r = stream(gcf, { tool: 't', symbols, edges: [] }, {});
  assert.ok(r.calls < 100, `${r.calls} write calls`);
  assert.strictEqual(r.out, stream(ref, { tool: 't', symbols, edges: [] }, {}).out);
});

test('flush() hands what was written to the writer between batches, and the bytes stay 2.5.2\'s', () => {
  let out = '';
  const enc = new gcf.StreamEncoder({ write: (s) => { out += s; } }, 'live');
  const header = out;
  enc.writeSymbol({ qualifiedName: 'pkg.A', kind: 'function', score: 0.5, provenance: 'lsp', distance: 0 });
  assert.strictEqual(out, header, 'a symbol waits for its batch');
  enc.flush();
  assert.strictEqual(out, header + '## targets\n@0 fn pkg.A 0.50 lsp\n');
  enc.flush();
  enc.writeSymbol({ qualifiedName: 'pkg.B', kind: 'type', score: 0.25, provenance: 'x', distance: 1 });
  enc.writeEdge({ source: 'pkg.A', target: 'pkg.B', edgeType: 'calls' });
  enc.flush();
  assert.ok(out.endsWith('@1<@0 calls\n'), out);
  enc.close();
  let theirs = '';
  const ref2 = new ref.StreamEncoder({ write: (s) => { theirs += s; } }, 'live');
  ref2.writeSymbol({ qualifiedName: 'pkg.A', kind: 'function', score: 0.5, provenance: 'lsp', distance: 0 });
  ref2.writeSymbol({ qualifiedName: 'pkg.B', kind: 'type', score: 0.25, provenance: 'x', distance: 1 });
  ref2.writeEdge({ source: 'pkg.A', target: 'pkg.B', edgeType: 'calls' });
  ref2.close();
  assert.strictEqual(out, theirs);
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

// Symbols cross to the engine in batches; a symbol the writer refuses must
// still throw from its own writeSymbol, with every symbol before it written
// in order, and unusual but valid symbols (the ones that skip the batch)
// must come out as 2.5.2 writes them.
test('batched symbols: refusals throw at their own call, odd symbols match 2.5.2', () => {
  const g = make(SEED ^ 0x5a5a);
  const odd = [
    { qualifiedName: 'pkg.Zero', kind: 'function', score: -0, provenance: 'lsp' },
    { qualifiedName: 'pkg.Ünïcode', kind: 'type', score: 0.25, provenance: 'lsp' },
    { qualifiedName: 'pkg.' + 'L'.repeat(600), kind: 'method', score: 1, provenance: 'lsp' },
    { qualifiedName: 'pkg.Tiny', kind: 'function', score: 5e-324, provenance: 'ast' },
    { qualifiedName: 'pkg.Kind', kind: 'clâss', score: 0.5, provenance: 'lsp' },
    // The ends of the batched range (printable ASCII, '!' to '~').
    { qualifiedName: '!pkg~', kind: 'function', score: 0.5, provenance: 'lsp' },
  ];
  const bad = [
    { qualifiedName: 'has space', kind: 'function', score: 0.5, provenance: 'lsp' },
    { qualifiedName: 'pkg.K', kind: 'bad kind', score: 0.5, provenance: 'lsp' },
    { qualifiedName: 'pkg.P', kind: 'function', score: 0.5, provenance: '' },
    { qualifiedName: 'pkg.N', kind: 'function', score: NaN, provenance: 'lsp' },
    { qualifiedName: 'nul\0inside', kind: 'function', score: 0.5, provenance: 'lsp' },
    { qualifiedName: 'del\x7f', kind: 'function', score: 0.5, provenance: 'lsp' },
    { qualifiedName: '', kind: 'function', score: 0.5, provenance: 'lsp' },
    { qualifiedName: 'tab\there', kind: 'function', score: 0.5, provenance: 'lsp' },
    { qualifiedName: 'nb\u00a0sp', kind: 'function', score: 0.5, provenance: 'lsp' },
    { qualifiedName: 'pkg.D', kind: 'func\x7f', score: 0.5, provenance: 'lsp' },
  ];
  for (let round = 0; round < 200; round++) {
    const p = g.graph();
    p.symbols.sort((a, b) => a.distance - b.distance);
    const ours = [];
    const theirs = [];
    const a = new gcf.StreamEncoder({ write: (s) => ours.push(s) }, 't');
    const b = new ref.StreamEncoder({ write: (s) => theirs.push(s) }, 't');
    // Enough symbols per round that several batches fill up.
    const count = 1 + ((round * 37) % 3000);
    for (let i = 0; i < count; i++) {
      const base = p.symbols[i % p.symbols.length] || { qualifiedName: 'x', kind: 'function', score: 0.5, provenance: 'lsp', distance: 0 };
      // Distances in order, as 2.5.2 expects of a stream.
      const distance = i < count / 2 ? 0 : i < (3 * count) / 4 ? 1 : 5;
      const r = (round * 131 + i * 7) % 97;
      if (r === 0) {
        const s = { ...bad[i % bad.length], distance };
        assert.throws(() => a.writeSymbol(s), (e) => e instanceof gcf.GcfError, `round ${round} symbol ${i}`);
        continue;
      }
      const s = r === 1 ? { ...odd[i % odd.length], qualifiedName: `${odd[i % odd.length].qualifiedName}${i}`, distance } : { ...base, qualifiedName: `${base.qualifiedName}#${i}`, distance };
      a.writeSymbol(s);
      b.writeSymbol(s);
    }
    a.close();
    b.close();
    assert.strictEqual(ours.join(''), theirs.join(''), `round ${round}`);
    assert.strictEqual(a.symbolCount, b.symbolCount);
    assert.throws(() => a.writeSymbol({ qualifiedName: 'late', kind: 'function', score: 0.5, provenance: 'lsp', distance: 0 }));
  }
});

test('a first symbol with no kind, provenance or distance is not queued', () => {
  for (const odd of [{ distance: NaN }, { distance: -1 }, { distance: undefined }]) {
    let out = '';
    const a = new gcf.StreamEncoder({ write: (s) => (out += s) }, 't');
    assert.throws(() => a.writeSymbol({ qualifiedName: 'pkg.Q', kind: null, score: 0.5, provenance: null, ...odd }));
    a.writeSymbol({ qualifiedName: 'pkg.R', kind: 'function', score: 0.5, provenance: 'lsp', distance: 0 });
    a.close();
    let theirs = '';
    const b = new ref.StreamEncoder({ write: (s) => (theirs += s) }, 't');
    b.writeSymbol({ qualifiedName: 'pkg.R', kind: 'function', score: 0.5, provenance: 'lsp', distance: 0 });
    b.close();
    assert.strictEqual(out, theirs);
  }
});

test("a streamed symbol's, edge's and bare reference's fields are read as encode reads them", () => {
  const sym = (o) => ({ qualifiedName: 'a.B', kind: 'function', score: 0.5, provenance: 'lsp', distance: 0, ...o });
  const one = (write) => {
    let out = '';
    const enc = new gcf.StreamEncoder({ write: (s) => (out += s) }, 't', { session: true });
    write(enc);
    enc.close();
    return out.split('\n').slice(1, -2).join('\n');
  };
  // Absent fields, as encode writes them (its JSON drops them): 0, and
  // distance 0 (`## targets`).
  for (const o of [{ score: undefined }, { score: null }, { distance: undefined }, { distance: null }]) {
    const text = gcf.encode({ tool: 't', symbols: [sym(o)] });
    assert.strictEqual(one((e) => e.writeSymbol(sym(o))), text.split('\n').slice(1, 3).join('\n'), JSON.stringify(o));
  }
  assert.strictEqual(one((e) => e.writeBareRef('a.B', undefined)), '## targets\n@0  # previously transmitted');
  // A distance that is not a u32 was wrapped (-1 written as distance
  // 4294967295, 1.5 as 1, 2^32 as 0); a field of another type was refused
  // with no category. Both are invalid_input now, from any of the calls.
  const refused = [
    (e) => e.writeSymbol(sym({ distance: -1 })),
    (e) => e.writeSymbol(sym({ distance: 1.5 })),
    (e) => e.writeSymbol(sym({ distance: 2 ** 32 })),
    (e) => e.writeSymbol(sym({ distance: NaN })),
    (e) => e.writeSymbol(sym({ distance: '2' })),
    (e) => e.writeSymbol(sym({ score: '0.5' })),
    (e) => e.writeSymbol(sym({ kind: 5 })),
    (e) => e.writeSymbol(sym({ qualifiedName: 7 })),
    (e) => e.writeBareRef('a.B', -1),
    (e) => (e.writeSymbol(sym()), e.writeEdge({ source: 5, target: 'a.B', edgeType: 'calls' })),
    (e) => (e.writeSymbol(sym()), e.writeEdge({ source: 'a.B', target: 'a.B', edgeType: 'calls', status: 7 })),
  ];
  for (const budget of [-5, 1.5, '7']) {
    assert.throws(() => new gcf.StreamEncoder({ write() {} }, 't', { tokenBudget: budget }), (e) => e.category === 'invalid_input', String(budget));
    assert.throws(() => new gcf.StreamEncoder({ write() {} }, 't', { tokensUsed: budget }), (e) => e.category === 'invalid_input', String(budget));
  }
  for (const write of refused) {
    const enc = new gcf.StreamEncoder({ write() {} }, 't', { session: true });
    assert.throws(() => write(enc), (e) => e instanceof gcf.GcfError && e.category === 'invalid_input', write.toString());
  }
});

test('stream headers reach the writer when they begin, as 2.5.2 writes them', () => {
  for (const lib of [gcf, ref]) {
    const out = [];
    const sink = { write: (s) => out.push(s) };
    const enc = new lib.StreamEncoder(sink, 't');
    assert.deepEqual(out, ['GCF profile=graph tool=t\n']);
    const g = new lib.GenericStreamEncoder(sink);
    g.beginArray('rows', ['id']);
    assert.equal(out.slice(1).join(''), 'GCF profile=generic\n## rows [?]{id}\n');
    enc.close();
    g.close();
  }
});

test('a graph delta header always carries tokens= and savings=, as 2.5.2 writes it', () => {
  const d = { tool: 't', baseRoot: 'x', newRoot: 'y', deltaTokens: 10, fullTokens: 0, removed: [], added: [], addedEdges: [], removedEdges: [] };
  assert.equal(gcf.encodeDelta(d), ref.encodeDelta(d));
  assert.equal(gcf.encodeDelta(d), 'GCF profile=graph tool=t delta=true base_root=x new_root=y tokens=10 savings=0%\n');
});
