'use strict';
// SessionDecoder: the consumer side of a session (spec §9.2), which decodes
// what encodeWithSession writes, bare references included (2.5.2 has no
// such decoder; its decode, like ours, refuses them).
const test = require('node:test');
const assert = require('node:assert');
const gcf = require('../index.cjs');

// A symbol's fields follow from its name: a bare reference stands for the
// symbol as delivered before, so it must not change between payloads.
function payload(names, edges = []) {
  const symbols = names.map((n) => {
    let h = 0;
    for (const c of n) h += c.codePointAt(0);
    return { qualifiedName: n, kind: 'function', score: (h % 100) / 100, provenance: 'lsp', distance: n.length % 2 };
  });
  return { tool: 't', tokenBudget: 100, tokensUsed: 1, symbols, edges: edges.map(([source, target]) => ({ source, target, edgeType: 'calls' })) };
}
const byName = (p) => p.symbols.map((s) => JSON.stringify([s.qualifiedName, s.kind, s.score, s.provenance])).sort();
const edgePairs = (p) => p.edges.map((e) => `${e.source}>${e.target}`).sort();

test('bare references resolve to the symbols delivered before', () => {
  const producer = new gcf.Session();
  const consumer = new gcf.SessionDecoder();
  const first = payload(['a.A', 'a.B', 'a.C'], [['a.A', 'a.B']]);
  assert.deepStrictEqual(byName(consumer.decode(gcf.encodeWithSession(first, producer))), byName(first));
  const second = payload(['a.B', 'a.C', 'a.D'], [['a.D', 'a.B'], ['a.C', 'a.D']]);
  const t2 = gcf.encodeWithSession(second, producer);
  assert.match(t2, /previously transmitted/);
  // `decode` has no session: it refuses a bare reference at its line, as
  // 2.5.2's does, rather than dropping the symbol.
  const refLine = t2.split('\n').findIndex((l) => l.includes('previously')) + 1;
  assert.throws(() => gcf.decode(t2), (e) => e instanceof gcf.GcfError && e.category === 'invalid_node_line' && e.line === refLine);
  const alone = 'GCF profile=graph tool=t symbols=2 session=true\n## targets\n@0  # previously transmitted\n@1 fn c 0.50 p\n';
  assert.throws(() => gcf.decode(alone), (e) => e.category === 'invalid_node_line' && e.line === 3 && e.column === 1 && /^invalid_node_line: /.test(e.message));
  const back = consumer.decode(t2);
  assert.deepStrictEqual(byName(back), byName(second));
  assert.deepStrictEqual(edgePairs(back), ['a.C>a.D', 'a.D>a.B']);
  assert.ok('status' in back.edges[0] && back.edges[0].status === undefined);
  assert.strictEqual(consumer.size(), 4);
});

test('an unknown reference is refused at its line and nothing is remembered', () => {
  const producer = new gcf.Session();
  gcf.encodeWithSession(payload(['a.A']), producer);
  const t2 = gcf.encodeWithSession(payload(['a.A', 'a.B']), producer);
  const consumer = new gcf.SessionDecoder();
  assert.throws(() => consumer.decode(t2), (e) => e instanceof gcf.GcfError && e.category === 'unknown_edge_reference' && e.line > 1);
  assert.strictEqual(consumer.size(), 0);
});

test('a payload without session=true starts over; reset forgets; maxRetained bounds', () => {
  const consumer = new gcf.SessionDecoder();
  consumer.decode(gcf.encodeWithSession(payload(['a.A', 'a.B']), new gcf.Session()));
  assert.strictEqual(consumer.size(), 2);
  consumer.decode(gcf.encode(payload(['x.X'])));
  assert.strictEqual(consumer.size(), 0);
  consumer.decode(gcf.encodeWithSession(payload(['a.C']), new gcf.Session()));
  consumer.reset();
  assert.strictEqual(consumer.size(), 0);
  const bounded = new gcf.SessionDecoder({ maxRetained: 2 });
  bounded.decode(gcf.encodeWithSession(payload(['a.A', 'a.B', 'a.C']), new gcf.Session()));
  assert.strictEqual(bounded.size(), 0);
  for (const bad of [-1, 1.5, NaN, '3']) {
    assert.throws(() => new gcf.SessionDecoder({ maxRetained: bad }), (e) => e instanceof gcf.GcfError && e.category === 'usage');
  }
});

test('limits and locations', () => {
  const strict = new gcf.SessionDecoder();
  const text = gcf.encodeWithSession(payload(['a.very.long.name.Here']), new gcf.Session());
  assert.throws(() => strict.decode(text, { limits: { maxLineLen: 20 } }), (e) => e.category === 'limit_exceeded');
  assert.strictEqual(strict.decode(text).symbols.length, 1);
  const p = { ...payload(['a.A']), locations: [{ qualifiedName: 'a.A', file: 'a.go', line: 3, column: 4 }] };
  assert.deepStrictEqual(new gcf.SessionDecoder().decode(gcf.encodeWithSession(p, new gcf.Session())).locations, p.locations);
});

test('random sessions decode to every payload sent', () => {
  const { make } = require('./random.cjs');
  const SEED = Number(process.env.GCF_DIFF_SEED || Date.now() % 2147483647);
  const g = make(SEED ^ 0x5e55);
  const pool = Array.from({ length: 40 }, (_, i) => `pkg/m${i % 5}.S${i}`);
  for (let round = 0; round < 50; round++) {
    const producer = new gcf.Session();
    const consumer = new gcf.SessionDecoder();
    for (let k = 0; k < 10; k++) {
      const names = [...new Set(Array.from({ length: 1 + g.int(14) }, () => g.pick(pool)))];
      const edges = Array.from({ length: g.int(2 * names.length) }, () => [g.pick(names), g.pick(names)]);
      const p = payload(names, edges);
      const back = consumer.decode(gcf.encodeWithSession(p, producer));
      const msg = `seed ${SEED}, round ${round}, payload ${k}`;
      assert.deepStrictEqual(byName(back), byName(p), msg);
      assert.deepStrictEqual(edgePairs(back), edgePairs(p), msg);
    }
  }
});

test('UTF-8 bytes decode as the string does; malformed bytes are refused at their position', () => {
  const producer = new gcf.Session();
  const first = payload(['a.A', 'ü.B']);
  const t1 = gcf.encodeWithSession(first, producer);
  const t2 = gcf.encodeWithSession(payload(['ü.B', 'a.C'], [['a.C', 'ü.B']]), producer);
  const a = new gcf.SessionDecoder();
  const b = new gcf.SessionDecoder();
  assert.deepStrictEqual(b.decode(Buffer.from(t1)), a.decode(t1));
  assert.deepStrictEqual(b.decode(new TextEncoder().encode(t2)), a.decode(t2));
  const bad = Buffer.from(t1);
  bad[bad.indexOf('ü')] = 0xff;
  assert.throws(() => new gcf.SessionDecoder().decode(bad), (e) => e instanceof gcf.GcfError && e.category === 'invalid_utf8' && e.line > 1);
});
