'use strict';
// Corners where a caller of 2.5.2 meets the same behaviour here (found by
// reading 2.5.2 against this package call by call).
const test = require('node:test');
const assert = require('node:assert');
const gcf = require('../index.cjs');
const ref = require('gcf-reference');

test('Session.record reads names only: a symbol without a kind takes its id, later ones follow', () => {
  for (const lib of [gcf, ref]) {
    const s = new lib.Session();
    s.record([{ qualifiedName: 'x' }]);
    s.record([{ qualifiedName: 'x', kind: 'function' }]);
    assert.deepStrictEqual([s.getID('x'), s.size(), s.nextSessionID()], [0, 1, 1]);
  }
  const ours = new gcf.Session();
  const theirs = new ref.Session();
  for (const s of [ours, theirs]) s.record([{ qualifiedName: 'a b' }, { qualifiedName: 'pkg.A', kind: 'function' }]);
  const p = {
    tool: 't',
    symbols: [
      { qualifiedName: 'pkg.A', kind: 'function', score: 0.5, provenance: 'p', distance: 0 },
      { qualifiedName: 'n', kind: 'function', score: 0.5, provenance: 'p', distance: 0 },
    ],
    edges: [],
  };
  assert.strictEqual(gcf.encodeWithSession(p, ours), ref.encodeWithSession(p, theirs));
  assert.deepStrictEqual([ours.getID('n'), ours.nextSessionID()], [theirs.getID('n'), theirs.nextSessionID()]);
});

test('a name twice in a session payload is declared at each occurrence, nothing dropped', () => {
  const s = new gcf.Session();
  const a = (score) => ({ qualifiedName: 'a', kind: 'function', score, provenance: 'p', distance: 0 });
  const text = gcf.encodeWithSession({ tool: 't', symbols: [a(0.5), a(0.6)], edges: [] }, s);
  assert.match(text, /symbols=2 session=true\n## targets\n@1 fn a 0\.60 p\n@0 fn a 0\.50 p\n$/);
  assert.deepStrictEqual(gcf.decode(text).symbols.map((x) => x.score), [0.6, 0.5]);
  assert.deepStrictEqual([s.getID('a'), s.size(), s.nextSessionID()], [0, 1, 2]);
});

test('decodeGeneric of graph-profile text is the payload as 2.5.2 returns it', () => {
  const text = 'GCF profile=graph tool=t budget=5 symbols=2 edges=1\n## targets\n@0 fn p.A 0.50 lsp\n@1 fn p.B 0.40 lsp\n## edges [1]\n@1<@0 calls\n';
  assert.deepStrictEqual(gcf.decodeGeneric(text), ref.decodeGeneric(text));
  assert.strictEqual(JSON.stringify(gcf.decodeGeneric(text)), JSON.stringify(ref.decodeGeneric(text)));
  assert.deepStrictEqual(gcf.decodeGeneric(new TextEncoder().encode(text)), ref.decodeGeneric(text));
  // Malformed graph text keeps the graph decoder's error.
  assert.throws(() => gcf.decodeGeneric('GCF profile=graph\n## targets\n@0 fn a\n'), (e) => e.category === 'invalid_node_line' && e.line === 3);
  // The header is read by the engine, whatever its length or line end.
  const long = text.replace('tool=t', `tool=${'t'.repeat(5000)}`);
  assert.deepStrictEqual(gcf.decodeGeneric(long), ref.decodeGeneric(long));
  assert.deepStrictEqual(gcf.decodeGeneric(new TextEncoder().encode(long)), ref.decodeGeneric(long));
  assert.strictEqual(gcf.decodeGeneric(long).tool.length, 5000);
  const crlf = text.replace('\n', '\r\n');
  assert.deepStrictEqual(gcf.decodeGeneric(crlf), ref.decodeGeneric(crlf));
});

test('parseJSONOrdered reads number literals of any length', () => {
  for (const text of ['{"1":0.' + '0'.repeat(500) + '1}', '{"x":1' + '0'.repeat(600) + '}', '[' + '9'.repeat(2000) + '.5]']) {
    assert.deepStrictEqual(gcf.parseJSONOrdered(text), ref.parseJSONOrdered(text), text.slice(0, 20));
  }
  assert.deepStrictEqual(gcf.parseJSONOrdered('{"1":12345678901234567890}', { largeInt: 'string' }), new Map([['1', '12345678901234567890']]));
});

test('reanchor policies are read as 2.5.2 reads them', () => {
  const set = (v) => ({ key: 'id', fields: ['id', 'v'], rows: [{ id: 1, v }] });
  for (const policy of [{ mode: 0, n: '3' }, { mode: 0, n: 2.5 }, { mode: 0, n: NaN }, { mode: 7, n: 3 }, { mode: 0 }, { mode: 0, n: -2 }]) {
    const ours = new gcf.GenericDeltaSession(set(0), 't', policy);
    const theirs = new ref.GenericDeltaSession(set(0), 't', policy);
    for (let turn = 1; turn <= 16; turn++) {
      assert.deepStrictEqual(ours.next(set(turn)), theirs.next(set(turn)), `${JSON.stringify(policy)} turn ${turn}`);
    }
  }
});

test('quoteString and formatKey refuse a lone surrogate rather than write U+FFFD', () => {
  for (const f of [gcf.quoteString, gcf.formatKey]) {
    assert.throws(() => f('a\udc00'), (e) => e instanceof gcf.GcfError && e.category === 'invalid_surrogate');
    assert.strictEqual(f('a b\ud83d\ude00'), (f === gcf.quoteString ? ref.quoteString : ref.formatKey)('a b\ud83d\ude00'));
  }
});

test('encode of no payload is 2.5.2 TypeError', () => {
  for (const p of [undefined, null]) {
    assert.throws(() => gcf.encode(p), (e) => e instanceof TypeError && /reading 'symbols'/.test(e.message));
  }
});

test('an array far longer than its memory is refused, not read (the process would end)', () => {
  const sparse = [];
  sparse.length = 2e8;
  assert.throws(() => gcf.encode({ tool: 't', symbols: sparse, edges: [] }), (e) => e.category === 'limit_exceeded');
  assert.throws(() => gcf.packRoot(sparse, []), (e) => e.category === 'limit_exceeded');
  assert.throws(() => gcf.verifyDelta(sparse, [], [], [], [], [], 'sha256:0'), (e) => e.category === 'limit_exceeded');
  const stream = new gcf.GenericStreamEncoder({ write() {} });
  stream.beginArray('t', ['a']);
  assert.throws(() => stream.writeRow(sparse), (e) => e.category === 'row_width_mismatch' && /2000000000|200000000 cells/.test(e.message));
  stream.writeRow([1]);
  stream.close();
});

test('parseJSONOrdered of JSON deeper than the stack is limit_exceeded, not a bare RangeError', () => {
  for (const opts of [undefined, { largeInt: 'string' }]) {
    const deep = '['.repeat(200000) + ']'.repeat(200000);
    assert.throws(() => gcf.parseJSONOrdered(deep, opts), (e) => e instanceof gcf.GcfError && e.category === 'limit_exceeded');
    assert.deepStrictEqual(gcf.parseJSONOrdered('[[[1]]]', opts), [[[1]]]);
  }
});

test('a surrogate pair (an emoji) is well formed on every Node, 18 included (no isWellFormed there)', () => {
  const chunks = [];
  const s = new gcf.GenericStreamEncoder({ write: (c) => chunks.push(c) });
  s.beginArray('t😀', ['a😀']);
  s.writeRow(['x😀']);
  s.close();
  const theirs = [];
  const r = new ref.GenericStreamEncoder({ write: (c) => theirs.push(c) });
  r.beginArray('t😀', ['a😀']);
  r.writeRow(['x😀']);
  r.close();
  assert.strictEqual(chunks.join(''), theirs.join(''));
  assert.strictEqual(gcf.quoteString('a b😀'), ref.quoteString('a b😀'));
  assert.throws(() => new gcf.GenericStreamEncoder({ write() {} }).beginArray('t\ud83d', ['a']), (e) => e.category === 'invalid_surrogate');
});
