'use strict';
// The packed routes of encodeGeneric and decodeGeneric
// (bindings-js/layer/packed_value.mjs) give what the JSON routes give: the
// same text, or the same error, for every value, whether they take it or
// leave it to the JSON route; the same value (Maps in the same order,
// numbers and large integers alike in every largeInt mode) for every text.
// The JSON routes here are the same layer over the same engine without the
// engine's genericEncodePacked and genericDecodePacked.
const test = require('node:test');
const assert = require('node:assert');
const gcf = require('../index.cjs');
const { createApi, toPackedValue } = require('../lib/layer.cjs');
const E = require('../lib/engine/index.cjs').get();
const { make } = require('./random.cjs');

const SEED = Number(process.env.GCF_DIFF_SEED || Date.now() % 2147483647);
const jsonRoute = createApi(Object.assign({}, E, { genericEncodePacked: undefined, genericDecodePacked: undefined, genericDecodeBytesPacked: undefined }));

function run(api, v, opts) {
  try {
    return { text: api.encodeGeneric(v, opts) };
  } catch (e) {
    return { error: [e.constructor.name, e.category, e.message, e.line, e.column] };
  }
}

function same(v, opts, what) {
  assert.deepStrictEqual(run(gcf, v, opts), run(jsonRoute, v, opts), what);
}

const OPTIONS = [undefined, { noFlatten: true }, { constantColumns: true }, { largeInt: 'error' }, { largeInt: 'bigint', constantColumns: true }];

function nest(depth, leaf) {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
  return v;
}

class Point {
  constructor() {
    this.x = 1;
  }
}
const inherited = Object.create({ up: 1 });
inherited.own = 2;
const nullProto = Object.create(null);
nullProto.b = 1;
nullProto.a = 'x';

const ODD = [
  null,
  'x',
  0,
  -0,
  true,
  [],
  {},
  [{}, {}],
  { a: 'x\u0000y' },
  { 'k\u0000': 1 },
  new Map([['k\u0000', 1]]),
  [{ a: 1 }, { a: 'x\u0000' }],
  { a: 'lone \ud800' },
  { ['\udc00k']: 1 },
  new Map([['a\ud800', 1]]),
  { a: 'replacement \ufffd' },
  { a: NaN },
  { a: [1, Infinity] },
  { a: 2 ** 53 },
  { a: -(2 ** 53) },
  { a: 1e21 },
  { a: 2 ** 53 - 1, b: -(2 ** 53 - 1), c: 0.1, d: 5e-324, e: 1.7976931348623157e308 },
  { a: 5n },
  { a: 2n ** 70n },
  { a: undefined, b: 1 },
  [undefined, 1],
  // eslint-disable-next-line no-sparse-arrays
  [1, , 3],
  { f() {}, s: Symbol('s'), n: 1 },
  { when: new Date(0) },
  { p: new Point() },
  { j: { toJSON: () => 'replaced' } },
  nullProto,
  inherited,
  new Map([
    [1, 'a'],
    ['1', 'b'],
    ['z', 'c'],
  ]),
  [new Map([[1, 'a'], ['1', 'b']]), new Map([[1, 'c'], ['1', 'd']])],
  new Map([[{ o: 1 }, 'object key'], [null, 'null key'], [true, 'bool']]),
  { m: new Map([['x', new Map([['y', [1, 2]]])]]) },
  { ['$serde_json::private::Number']: '5' },
  { ['$serde_json::private::Number']: 'x', b: 1 },
  { 2: 'b', 1: 'a', z: 'c', '-1': 'd' },
  // Records whose shapes change: fewer keys, more, reordered, empty.
  { rows: [{ a: 1, b: 2 }, { a: 3 }, { a: 4, b: 5, c: 6 }, { b: 7, a: 8 }, {}, { a: 9, b: 10 }] },
  { rows: [{ a: { x: 1 } }, { a: { y: 2 } }, { a: { x: 3 } }, { b: [{ x: 1 }, { x: 2, y: 3 }] }] },
  // Map keys past the small-object check, with a repeat.
  new Map(Array.from({ length: 40 }, (_, i) => [i % 37, i]).concat([['5', 'last']])),
  { long: 'é'.repeat(100000), many: Array.from({ length: 1000 }, (_, i) => `s${i}\u00e9`) },
  nest(120, 1),
  nest(127, 'x'),
  nest(128, 'x'),
  nest(129, 'x'),
  nest(199, 'x'),
  nest(230, 'x'),
];

test('odd values encode (or fail) as through the JSON route', () => {
  for (const v of ODD) {
    for (const opts of OPTIONS) same(v, opts, `${String(v && Object.keys(v))} ${JSON.stringify(opts)}`);
  }
});

test('values the packed form covers are taken by it', () => {
  // toPackedValue answers null only where the JSON route must decide.
  for (const v of [null, [{ a: 1, b: 'x' }, { a: 2, b: null }], new Map([['k', [1.5, true]]]), nest(150, 1)]) {
    assert.notEqual(toPackedValue(v), null);
  }
  for (const v of [5n, [Infinity], { a: 2 ** 60 }, new Date(0), inherited, nest(230, 1)]) {
    assert.equal(toPackedValue(v), null);
  }
});

test('a packed decode writes its numbers into the caller\'s scratch when they fit, else returns its own array', { skip: !E.genericDecodePacked }, () => {
  const cases = [
    [(t, s) => E.genericDecodePacked(t, s), gcf.encodeGeneric({ rows: [{ a: 1, b: 'x', c: 2.5 }, { a: 2, b: 'y', c: -1 }] })],
    [(t, s) => E.genericDecodeBytesPacked(Buffer.from(t), s), gcf.encodeGeneric([1, 2, 3, { k: 4 }])],
    [(t, s) => E.graphDecodePacked(t, s), gcf.encode({ tool: 't', symbols: [{ qualifiedName: 'a.B', kind: 'function', score: 0.5, provenance: 'lsp', distance: 1 }], edges: [] })],
  ];
  for (const [decode, text] of cases) {
    const [strings, nums] = decode(text);
    assert.ok(nums instanceof Float64Array && nums.length > 0);
    // Room for exactly its numbers: the strings alone, the numbers in place.
    const exact = new Float64Array(nums.length).fill(NaN);
    assert.equal(decode(text, exact), strings);
    assert.deepStrictEqual([...exact], [...nums]);
    // Room to spare: the rest untouched.
    const roomy = new Float64Array(nums.length + 3).fill(-7);
    assert.equal(decode(text, roomy), strings);
    assert.deepStrictEqual([...roomy.subarray(nums.length)], [-7, -7, -7]);
    // One short: untouched, and the pair as without a scratch.
    const short = new Float64Array(nums.length - 1).fill(-7);
    const pair = decode(text, short);
    assert.ok(Array.isArray(pair));
    assert.equal(pair[0], strings);
    assert.deepStrictEqual([...pair[1]], [...nums]);
    assert.ok(short.every((x) => x === -7));
  }
});

test('strings cross by length: a NUL, astral and BMP characters stay on the packed route', () => {
  // The engine slices each string by its UTF-16 length, so no character is
  // a separator; only a lone surrogate (U+FFFD after encodeInto) sends the
  // value to the JSON route ("" from the engine).
  for (const v of [{ a: 'x\u0000y' }, { 'k\u0000': 1 }, ['\u0000', '', 'é😀', 'ü'.repeat(300)], [{ a: 'p\u0000' }, { a: 'q' }]]) {
    const args = toPackedValue(v);
    const text = E.genericEncodePacked(args[0], args[1], args[2], 0, args[3], args[4], args[5]);
    // The same arguments as exact copies, without lengths: the same text.
    assert.equal(E.genericEncodePacked(...[0, 1, 2].map((k) => args[k].slice(0, args[k + 3])), 0), text);
    assert.notEqual(text, '', JSON.stringify(v));
    assert.equal(text, jsonRoute.encodeGeneric(v));
  }
  const lone = toPackedValue({ a: 'lone \ud800' });
  assert.equal(E.genericEncodePacked(lone[0], lone[1], lone[2], 0, lone[3], lone[4], lone[5]), '');
});

test('large values (every scratch grown mid-value) encode as through the JSON route', () => {
  for (const n of [300, 20000]) {
    const rows = [];
    for (let i = 0; i < n; i++) {
      rows.push({ id: i, name: `user ${i} ${'ü'.repeat(i % 40)}`, score: i / 7, ok: i % 3 === 0, tags: i % 5 ? ['a', `t${i}`] : [], sub: { x: i, y: i % 2 ? 'odd' : null } });
    }
    for (const opts of OPTIONS) same({ rows }, opts, `${n} ${JSON.stringify(opts)}`);
  }
});

test('an encodeGeneric from inside a getter of the value being encoded gives the same text', () => {
  const inner = { rows: [{ a: 1 }, { a: 2 }] };
  let nested = null;
  const outer = {
    rows: [
      { a: 1, b: 'x' },
      {
        get a() {
          nested = gcf.encodeGeneric(inner);
          return 2;
        },
        b: 'y',
      },
    ],
  };
  const text = gcf.encodeGeneric(outer);
  assert.equal(nested, jsonRoute.encodeGeneric(inner));
  assert.equal(text, jsonRoute.encodeGeneric({ rows: [{ a: 1, b: 'x' }, { a: 2, b: 'y' }] }));
});

test(`random values encode as through the JSON route (seed ${SEED})`, () => {
  const g = make(SEED ^ 0x2545f491);
  for (let i = 0; i < 3000; i++) {
    const v = g.generic();
    same(v, OPTIONS[i % OPTIONS.length], `#${i}`);
  }
});

// Maps as ['Map', [key, value]...] so that order counts, -0 apart from 0,
// bigints apart from numbers.
function plain(x) {
  if (x instanceof Map) return ['Map', [...x].map(([k, v]) => [k, plain(v)])];
  if (Array.isArray(x)) return x.map(plain);
  if (typeof x === 'bigint') return ['bigint', String(x)];
  if (Object.is(x, -0)) return ['-0'];
  return x;
}

function decoded(api, text, opts) {
  try {
    return { value: plain(api.decodeGeneric(text, opts)) };
  } catch (e) {
    return { error: [e.constructor.name, e.category, e.message, e.line, e.column] };
  }
}

const DECODE_OPTIONS = [undefined, { largeInt: 'string' }, { largeInt: 'bigint' }, { largeInt: 'error' }];

function sameDecode(text, what) {
  for (const opts of DECODE_OPTIONS) assert.deepStrictEqual(decoded(gcf, text, opts), decoded(jsonRoute, text, opts), `${what} ${JSON.stringify(opts)}`);
}

test('decode through the packed form equals decode through tagged JSON', () => {
  const texts = [
    'GCF profile=generic\n## rows [3]{a,b}\n1|x\n2|-\n3|\n',
    // A NUL in a string (tagged JSON comes back instead), in a key, in a value of a table.
    jsonRoute.encodeGeneric({ a: 'x\u0000y' }),
    jsonRoute.encodeGeneric({ 'k\u0000': [1, 2] }),
    jsonRoute.encodeGeneric({ rows: [{ a: 'p\u0000' }, { a: 'q' }] }),
    jsonRoute.encodeGeneric({ big: 2n ** 60n, neg: -(2n ** 63n), edge: 9007199254740991, over: 9007199254740992n, f: -0.5, z: -0, e: 1e300 }),
    jsonRoute.encodeGeneric({ 2: 'b', 1: 'a', z: 'c', '-1': 'd', '': 'empty' }),
    jsonRoute.encodeGeneric([[], {}, [{}], [[]], { a: {} }, null, true, false, '', 'N', 'S', '0']),
    jsonRoute.encodeGeneric({ rows: [{ a: { x: 1 } }, { a: { y: 2 } }, { a: { x: 3 } }, { b: [{ x: 1 }, { x: 2, y: 3 }] }] }),
    jsonRoute.encodeGeneric(nest(127, 'deep')),
    jsonRoute.encodeGeneric({ rows: Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `n${i}é`, v: i / 3, tags: i % 4 ? ['a'] : [] })) }),
    // Errors come from the engine either way.
    'GCF profile=generic\n## rows [2]{a}\n1\n',
    'GCF profile=generic\nx = "unterminated\n',
  ];
  for (const text of texts) sameDecode(text, JSON.stringify(text.slice(0, 60)));
  // Bytes too (their own entry, packed or tagged alike, invalid UTF-8
  // reported the same); a non-string input is read as its String.
  for (const text of texts) {
    const bytes = new TextEncoder().encode(text);
    for (const opts of DECODE_OPTIONS) assert.deepStrictEqual(decoded(gcf, bytes, opts), decoded(jsonRoute, bytes, opts));
  }
  const broken = Uint8Array.from([...new TextEncoder().encode('GCF profile=generic\nname = '), 0xff, 0x0a]);
  assert.deepStrictEqual(decoded(gcf, broken), decoded(jsonRoute, broken));
  assert.strictEqual(decoded(gcf, broken).error[1], 'invalid_utf8');
  assert.deepStrictEqual(decoded(gcf, { toString: () => texts[0] }), decoded(jsonRoute, texts[0]));
});

test(`random values decode through the packed form as through tagged JSON (seed ${SEED})`, () => {
  const g = make(SEED ^ 0x68e31da4);
  for (let i = 0; i < 3000; i++) {
    const text = gcf.encodeGeneric(g.generic(), OPTIONS[i % 3]);
    sameDecode(text, `#${i}`);
  }
});
