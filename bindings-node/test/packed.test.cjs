'use strict';
// The packed graph route (bindings-js/layer/packed.mjs) gives what the JSON
// route gives: the same text for every payload it takes, and the JSON route
// (with its errors) for every payload it does not; its decode gives what
// the JSON decode gives.
const test = require('node:test');
const assert = require('node:assert');
const gcf = require('../index.cjs');
const E = require('../lib/engine/index.cjs').get();
const { make } = require('./random.cjs');

const SEED = Number(process.env.GCF_DIFF_SEED || Date.now() % 2147483647);

// The engine's failure as the layer reports it for a value: no line or
// column (they are in the JSON the layer wrote), and a failure to read that
// JSON is the caller's input (rethrowValue in bindings-js/layer/errors.mjs).
function viaJSON(p) {
  try {
    return { text: E.graphEncode(JSON.stringify(p)) };
  } catch (e) {
    const f = JSON.parse(e.message.slice(1));
    if (f.category === 'json') f.category = 'invalid_input';
    Object.assign(f, { line: null, column: null });
    return { error: `\u0001${JSON.stringify(f)}` };
  }
}

function viaApi(p) {
  try {
    return { text: gcf.encode(p) };
  } catch (e) {
    // The API's error carries the engine's failure; compare the failure.
    return { error: `\u0001${JSON.stringify({ class: e.errorClass, category: e.category, message: e.detail, line: e.line ?? null, column: e.column ?? null })}` };
  }
}

const sym = (over) => ({ qualifiedName: 'a.B', kind: 'function', score: 0.5, provenance: 'lsp', distance: 0, ...over });

const ODD = [
  { tool: 't', symbols: [sym({ qualifiedName: 5 })], edges: [] },
  { tool: 't', symbols: [sym({ qualifiedName: 'a\u0000b' })], edges: [] },
  { tool: 'x\u0000', symbols: [], edges: [] },
  { tool: 't', symbols: [sym({ qualifiedName: 'a\ud800' })], edges: [] },
  { tool: 't', symbols: [sym({ qualifiedName: 'a\ud83d\ude00' })], edges: [] },
  // UTF-8 of every length, and surrogates alone, at the end, reversed.
  { tool: 'tö€', symbols: [sym({ qualifiedName: 'é.ß\u07ff\u0800\uffff\ud800\udc00\udbff\udfff', kind: 'fünction', provenance: '\u00a0' })], edges: [] },
  { tool: 't', symbols: [sym({ qualifiedName: 'a\udc00' })], edges: [] },
  { tool: 't', symbols: [sym({ provenance: 'a\ud800' })], edges: [] },
  { tool: 't', symbols: [sym({ kind: '\udc00\ud800' })], edges: [] },
  { tool: 't', symbols: [sym({ qualifiedName: 'a\ud800b' })], edges: [] },
  { tool: 't', symbols: [sym()], edges: [{ source: 'a.B', target: 'a.B', edgeType: 'c\ud800', status: '' }] },
  { tool: 't', packRoot: 'p\u0000', symbols: [], edges: [] },
  { tool: 't', symbols: [sym()], edges: [{ source: 'a.B', target: 'a.B', edgeType: 'calls', status: 'new\u0000' }] },
  { tool: 't', tokenBudget: NaN, symbols: [], edges: [] },
  { tool: 't', tokensUsed: '5', symbols: [], edges: [] },
  { tool: 't', symbols: [sym({ distance: '1' })], edges: [] },
  { tool: 't', symbols: [sym({ score: Infinity }), sym({ qualifiedName: 'n', score: null, distance: null })], edges: [] },
  { tool: null, packRoot: undefined, symbols: null, edges: undefined },
  { tool: 't', symbols: [sym()], edges: [null] },
  { tool: 't', symbols: [sym()], edges: [{ source: 'a.B', target: 'a.B', edgeType: 'calls', toJSON: () => ({}) }] },
  { tool: 't', symbols: [sym({ score: NaN })], edges: [] },
  { tool: 't', symbols: [sym({ score: '0.5' })], edges: [] },
  { tool: 't', symbols: [sym({ distance: 1.5 })], edges: [] },
  { tool: 't', symbols: [sym({ distance: -1 })], edges: [] },
  { tool: 't', symbols: [sym({ distance: 2 ** 32 })], edges: [] },
  { tool: 't', symbols: [sym({ kind: null, provenance: undefined })], edges: [] },
  { tool: 't', symbols: [null], edges: [] },
  { tool: 't', symbols: [sym()], edges: [{ source: 'a.B', target: 'a.B', edgeType: 'calls', status: 7 }] },
  { tool: 't', symbols: [sym()], edges: [{ source: 'a.B', target: 'nope', edgeType: 'calls' }] },
  { tool: 't', symbols: [sym({ qualifiedName: 'has space' })], edges: [] },
  { tool: 't', tokenBudget: 1.5, symbols: [], edges: [] },
  { tool: 't', tokenBudget: -3, symbols: [], edges: [] },
  { tool: 't', tokenBudget: 2 ** 60, symbols: [], edges: [] },
  { tool: 't', symbols: [sym()], locations: [{ qualifiedName: 'a.B', file: 'f.go', line: 3, column: 1 }] },
  { tool: 't', symbols: [sym()], edges: [], toJSON: () => ({ tool: 'other', symbols: [], edges: [] }) },
  { tool: 't', symbols: 'nope', edges: [] },
  { tool: 't', packRoot: 'sha256:00', symbols: [sym({ score: -0 }), sym({ qualifiedName: 'c', score: 1e21, distance: 3 })] },
  {},
];

test('odd payloads encode (or fail) as through the JSON route', () => {
  for (const p of ODD) assert.deepStrictEqual(viaApi(p), viaJSON(p), JSON.stringify(p));
});

test('payloads past the scratch size (grown mid-payload) encode as through the JSON route', () => {
  for (const n of [300, 5000]) {
    const symbols = [];
    for (let i = 0; i < n; i++) symbols.push(sym({ qualifiedName: `pkg/é${'x'.repeat(i % 50)}.S${i}`, score: i / n, distance: i % 3 }));
    const edges = symbols.slice(1).map((s, i) => ({ source: s.qualifiedName, target: symbols[i].qualifiedName, edgeType: 'calls' }));
    const p = { tool: 't', tokenBudget: n, symbols, edges };
    assert.deepStrictEqual(viaApi(p), viaJSON(p));
    const text = gcf.encode(p);
    const back = JSON.parse(E.graphDecode(text));
    for (const e of back.edges) if (e.status === '') e.status = undefined;
    assert.deepStrictEqual(gcf.decode(text), back);
  }
});

test('an encode from inside a getter of the payload being encoded gives the same text', () => {
  const inner = { tool: 'inner', symbols: [sym({ qualifiedName: 'in.X' })], edges: [] };
  let nested = null;
  const outer = {
    tool: 'outer',
    symbols: [
      sym(),
      {
        get qualifiedName() {
          nested = gcf.encode(inner);
          return 'c.D';
        },
        kind: 'type',
        score: 0.25,
        provenance: 'lsp',
        distance: 1,
      },
    ],
    edges: [{ source: 'c.D', target: 'a.B', edgeType: 'calls' }],
  };
  const text = gcf.encode(outer);
  assert.equal(nested, viaJSON(inner).text);
  assert.equal(text, viaJSON({ ...outer, symbols: [sym(), { qualifiedName: 'c.D', kind: 'type', score: 0.25, provenance: 'lsp', distance: 1 }] }).text);
});

test('tokens go once each, found by object or by text, past the scanned few too', () => {
  const { toPacked } = require('../lib/layer.cjs');
  for (const distinct of [1, 3, 16, 17, 40, 300]) {
    const symbols = [];
    for (let i = 0; i < 600; i++) {
      // Every other kind is a fresh string object with the same text.
      const k = i % distinct;
      symbols.push(sym({ qualifiedName: `s${i}`, kind: i % 2 ? `kind${k}` : ['kind', k].join(''), provenance: `p${i % 3}` }));
    }
    const edges = symbols.slice(1).map((s, i) => ({ source: s.qualifiedName, target: `s${(i * 7) % 600}`, edgeType: `e${i % (distinct + 2)}`, status: i % 5 ? undefined : `st${i % 4}` }));
    const p = { tool: 't', symbols, edges };
    const args = toPacked(p);
    const nums = args[1];
    // The list: every kind, provenance, edge type and status once ("" too).
    const tokens = new Set([...symbols.flatMap((s) => [s.kind, s.provenance]), ...edges.flatMap((e) => [e.edgeType, e.status || ''])]);
    assert.strictEqual(nums[4], tokens.size, `${distinct}`);
    const packed = E.graphEncodePacked(...args);
    // The same arguments as exact copies, without lengths: the same text.
    assert.strictEqual(E.graphEncodePacked(args[0].slice(0, args[2]), nums.slice(0, args[3])), packed);
    assert.notStrictEqual(packed, '', 'the packed route takes it');
    assert.strictEqual(packed, viaJSON(p).text);
    assert.deepStrictEqual(viaApi(p), viaJSON(p));
  }
  // Strings go by length, so a NUL is a character like any other: the
  // core refuses it in a token, with the JSON route's error.
  const p = { tool: 't', symbols: [sym({ kind: 'a\u0000b' }), sym({ qualifiedName: 'c' })], edges: [] };
  assert.throws(() => E.graphEncodePacked(...toPacked(p)), /invalid_input/);
  assert.deepStrictEqual(viaApi(p), viaJSON(p));
});

test(`random payloads encode as through the JSON route (seed ${SEED})`, () => {
  const g = make(SEED ^ 0x3c6ef372);
  for (let i = 0; i < 2000; i++) {
    const p = g.graph();
    assert.deepStrictEqual(viaApi(p), viaJSON(p), `#${i}`);
  }
});

test('decode through the compact form equals decode through JSON', () => {
  const g = make(SEED ^ 0x1b873593);
  for (let i = 0; i < 2000; i++) {
    const text = gcf.encode(g.graph());
    const p = JSON.parse(E.graphDecode(text));
    for (const e of p.edges) if (e.status === '') e.status = undefined;
    assert.deepStrictEqual(gcf.decode(text), p, `#${i}`);
  }
});
