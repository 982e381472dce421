'use strict';
// The compact graph route gives what the JSON route gives: the same text
// for every payload it takes, and the JSON route (with its errors) for
// every payload it does not.
const test = require('node:test');
const assert = require('node:assert');
const gcf = require('../index.cjs');
const E = require('../lib/engine/index.cjs').get();
const { make } = require('./random.cjs');

const SEED = Number(process.env.GCF_DIFF_SEED || Date.now() % 2147483647);

function viaJSON(p) {
  try {
    return { text: E.graphEncode(JSON.stringify(p)) };
  } catch (e) {
    return { error: e.message };
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
