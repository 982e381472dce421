'use strict';
// A payload's `locations` (the `## loc` section of spec 3.6.0, which 2.5.2
// predates) decode back as they were encoded, on every decode route; a text
// without the section decodes to 2.5.2's shape, with no `locations` key.
const test = require('node:test');
const assert = require('node:assert');
const gcf = require('../index.cjs');
const ref = require('gcf-reference');

function payload(n, withEnds) {
  const symbols = [];
  const locations = [];
  for (let i = 0; i < n; i++) {
    const qualifiedName = `pkg/m${i % 7}.S${i}`;
    symbols.push({ qualifiedName, kind: 'function', score: (i % 10) / 10, provenance: 'lsp', distance: i % 2 });
    const loc = { qualifiedName, file: ['a.go', 'dir with space/b.go', 'ü/c.go'][i % 3], line: 1 + i, column: 1 + (i % 5) };
    if (withEnds && i % 2 === 0) Object.assign(loc, { endLine: 2 + i, endColumn: 9 });
    locations.push(loc);
  }
  const edges = [];
  for (let i = 1; i < n; i++) edges.push({ source: symbols[i].qualifiedName, target: symbols[i - 1].qualifiedName, edgeType: 'calls' });
  return { tool: 'where', tokenBudget: 100, tokensUsed: 5, symbols, edges, locations };
}

// What decode gives for edges: 2.5.2's `status` key, undefined without one.
function asDecoded(p) {
  return { ...p, edges: p.edges.map((e) => ({ ...e, status: undefined })) };
}

for (const n of [1, 5, 3000]) {
  test(`locations of ${n} symbols decode as they were encoded (string and bytes)`, () => {
    for (const withEnds of [false, true]) {
      const p = payload(n, withEnds);
      const text = gcf.encode(p);
      assert.match(text, /\n## loc \[\d+\]\n/);
      const back = gcf.decode(text);
      // Decoded symbols come in emission order; locations name them.
      const byName = (a, b) => (a.qualifiedName < b.qualifiedName ? -1 : a.qualifiedName > b.qualifiedName ? 1 : 0);
      assert.deepStrictEqual([...back.locations].sort(byName), [...p.locations].sort(byName));
      assert.deepStrictEqual(back.symbols.slice().sort(byName), p.symbols.slice().sort(byName));
      assert.deepStrictEqual(gcf.decode(Buffer.from(text)), back);
      // Encoding what decode gave writes the same text.
      assert.strictEqual(gcf.encode(back), text);
    }
  });
}

test('a text without a ## loc section decodes without a locations key, as 2.5.2 decodes it', () => {
  const p = payload(5, false);
  delete p.locations;
  const text = gcf.encode(p);
  assert.strictEqual(text, ref.encode(p));
  const back = gcf.decode(text);
  assert.ok(!('locations' in back));
  assert.deepStrictEqual(back, ref.decode(text));
  assert.deepStrictEqual(gcf.encode({ ...p, locations: [] }), text);
});

test('random payloads with locations decode to what they encode, and encode again to the same text', () => {
  const { make } = require('./random.cjs');
  const SEED = Number(process.env.GCF_DIFF_SEED || Date.now() % 2147483647);
  const g = make(SEED ^ 0x10c);
  const FILES = ['a.go', 'src/x.ts', 'dir with space/b.go', 'ü/c.go', 'q"uote.py', '', 'tab\there.rs'];
  const key = (l) => JSON.stringify([l.qualifiedName, l.file, l.line, l.column, l.endLine, l.endColumn]);
  for (let k = 0; k < 2000; k++) {
    const p = g.graph();
    // An edge to a name no symbol has is dropped, and its empty edges
    // section would not come back: only edges that resolve.
    const known = new Set(p.symbols.map((s) => s.qualifiedName));
    p.edges = p.edges.filter((e) => known.has(e.source) && known.has(e.target));
    const locations = [];
    for (let i = 0, n = g.int(2 * p.symbols.length + 2); i < n; i++) {
      const l = {
        qualifiedName: p.symbols.length && g.r() < 0.9 ? g.pick(p.symbols).qualifiedName : `no.such${i}`,
        file: g.pick(FILES),
        line: 1 + g.int(5000),
        column: 1 + g.int(200),
      };
      if (g.r() < 0.3) Object.assign(l, { endLine: l.line + g.int(50), endColumn: 1 + g.int(200) });
      locations.push(l);
    }
    p.locations = locations;
    const text = gcf.encode(p);
    const named = new Set(p.symbols.map((s) => s.qualifiedName));
    const kept = locations.filter((l) => named.has(l.qualifiedName));
    const back = gcf.decode(text);
    const msg = `seed ${SEED}, payload ${k}`;
    if (kept.length === 0) {
      assert.ok(!('locations' in back), msg);
    } else {
      assert.deepStrictEqual(back.locations.map(key).sort(), kept.map(key).sort(), msg);
    }
    assert.strictEqual(gcf.encode(back), text, msg);
  }
});
