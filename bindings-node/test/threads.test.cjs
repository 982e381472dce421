'use strict';
// The package in worker threads (a worker pool, as servers use): every
// worker loads the engine for itself, gets what the main thread gets,
// including per-call decode limits and streams, and a worker terminated in
// the middle of its calls leaves the others and the main thread working.
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const entry = path.join(__dirname, '..', 'index.cjs');

// What each worker (and the main thread) computes.
const WORK = `
  const gcf = require(${JSON.stringify(entry)});
  function work(seed) {
    const symbols = [];
    for (let i = 0; i < 50; i++) symbols.push({ qualifiedName: 'pkg.S' + ((i * 7 + seed) % 50), kind: 'function', score: (i % 10) / 10, provenance: 'lsp', distance: i % 3 });
    const edges = symbols.slice(1).map((s, i) => ({ source: s.qualifiedName, target: symbols[i].qualifiedName, edgeType: 'calls' }));
    const graph = gcf.encode({ tool: 't', symbols, edges });
    const back = gcf.decode(graph);
    const generic = gcf.encodeGeneric({ rows: symbols });
    let limited;
    const deep = gcf.encodeGeneric({ a: { b: { c: { d: seed } } } });
    try { gcf.decodeGeneric(deep, { limits: { maxDepth: 2 } }); limited = 'accepted'; } catch (e) { limited = e.category; }
    const unlimited = gcf.decodeGeneric(deep).get('a').get('b').get('c').get('d');
    const parts = [];
    const s = new gcf.GenericStreamEncoder({ write: (c) => parts.push(c) });
    s.beginArray('rows', ['a', 'b']);
    for (let i = 0; i < 2000; i++) s.writeRow([i, 'x' + i]);
    s.close();
    return { graph, symbols: back.symbols.length, generic, limited, unlimited, stream: parts.join('') };
  }
`;

function runWorker(code) {
  return new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

test('four workers at once get what the main thread gets', async () => {
  // eslint-disable-next-line no-new-func
  const work = new Function('require', `${WORK}; return work;`)(require);
  const results = await Promise.all([1, 2, 3, 4].map((seed) => runWorker(`${WORK}; require('node:worker_threads').parentPort.postMessage(work(${seed}));`)));
  results.forEach((got, k) => {
    const want = work(k + 1);
    assert.deepStrictEqual(got, want);
    assert.strictEqual(got.limited, 'limit_exceeded');
    assert.strictEqual(got.symbols, 50);
    assert.strictEqual(got.unlimited, k + 1);
  });
});

test('a worker terminated in the middle of its calls leaves the rest working', async () => {
  const busy = new Worker(`${WORK}; const { parentPort } = require('node:worker_threads'); parentPort.postMessage('started'); for (;;) work(1);`, { eval: true });
  await new Promise((resolve, reject) => {
    busy.once('message', resolve);
    busy.once('error', reject);
  });
  await busy.terminate();
  const gcf = require(entry);
  assert.strictEqual(gcf.encodeGeneric({ a: [1, 2] }), 'GCF profile=generic\na[2]: 1,2\n');
  const again = await runWorker(`${WORK}; require('node:worker_threads').parentPort.postMessage(work(5).limited);`);
  assert.strictEqual(again, 'limit_exceeded');
});
