'use strict';
// Errors for values the caller passes (not text): they name the caller's
// field by its path and carry no line or column, since the only text
// involved is JSON the layer wrote itself (bindings-js/layer/errors.mjs,
// gcf-bind's json_path). Errors for text keep their line and column.
const test = require('node:test');
const assert = require('node:assert');
const gcf = require('../index.cjs');
const { failure } = require('./helpers.cjs');

const sym = (over) => ({ qualifiedName: 'a.B', kind: 'function', score: 0.5, provenance: 'lsp', distance: 0, ...over });


function assertValueError(e, category, detail) {
  assert.equal(e.category, category, e.message);
  assert.equal(e.detail, detail);
  assert.equal(e.message, `${category}: ${detail}`);
  assert.equal(e.line, undefined);
  assert.equal(e.column, undefined);
}

test('graph fields of the wrong type are named by their path', () => {
  const p = (over, edges = []) => ({ tool: 't', symbols: [sym(), sym({ qualifiedName: 'c.D', ...over })], edges });
  assertValueError(
    failure(() => gcf.encode(p({ score: '0.5' }))),
    'invalid_input',
    'symbols[1].score: invalid type: string "0.5", expected a number',
  );
  assertValueError(
    failure(() => gcf.encode(p({ distance: 1.5 }))),
    'invalid_input',
    'symbols[1].distance: invalid type: number `1.5`, expected an integer from 0 to 4294967295',
  );
  assertValueError(
    failure(() => gcf.encode(p({ distance: -1 }))),
    'invalid_input',
    'symbols[1].distance: invalid value: integer `-1`, expected an integer from 0 to 4294967295',
  );
  assertValueError(
    failure(() => gcf.encode(p({}, [{ source: 'a.B', target: 'c.D', edgeType: ['calls'] }]))),
    'invalid_input',
    'edges[0].edgeType: invalid type: array, expected a string',
  );
  assertValueError(
    failure(() => gcf.encode({ tool: 't', symbols: { 0: sym() } })),
    'invalid_input',
    'symbols: invalid type: object, expected an array',
  );
});

test('a lone surrogate is invalid_surrogate at its path, in values of every kind', () => {
  const detail = (path) => `${path}: a string holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape), which UTF-8 cannot carry`;
  assertValueError(failure(() => gcf.encode({ tool: 't', symbols: [sym({ qualifiedName: 'a\ud800' })] })), 'invalid_surrogate', detail('symbols[0].qualifiedName'));
  assertValueError(failure(() => gcf.encodeGeneric({ a: { b: ['x', 'y\udc00'] } })), 'invalid_surrogate', detail('a.b[1]'));
  assertValueError(failure(() => gcf.encodeGeneric(new Map([['k y', 'z\ud800']]))), 'invalid_surrogate', detail('["k y"]'));
  let out = '';
  const enc = new gcf.GenericStreamEncoder({ write: (s) => (out += s) });
  enc.beginArray('t', ['a', 'b']);
  assertValueError(failure(() => enc.writeRow([1, '\ud800'])), 'invalid_surrogate', detail('[1]'));
  enc.writeRow([2, 'ok']);
  // Names too, which reached the engine as U+FFFD.
  assertValueError(failure(() => enc.writeKV('k\ud800', 1)), 'invalid_surrogate', detail('key'));
  assertValueError(failure(() => enc.writeSection('s\udc00')), 'invalid_surrogate', detail('name'));
  assertValueError(failure(() => enc.writeInlineArray('\ud800', [1])), 'invalid_surrogate', detail('name'));
  assertValueError(failure(() => enc.beginArray('t\ud800', ['a'])), 'invalid_surrogate', detail('name'));
  assertValueError(failure(() => enc.beginArray('t', ['a', 'b\ud800'])), 'invalid_surrogate', detail('fields[1]'));
  assertValueError(failure(() => enc.beginKeyedMap('m', 'k\ud800', ['v'])), 'invalid_surrogate', detail('keyLabel'));
  enc.close();
  assert.match(out, /^2\|ok$/m);
  assert.ok(!out.includes('\ufffd'), out);
});

test('errors in text keep their line and column', () => {
  const e = failure(() => gcf.decode('GCF profile=graph symbols=1\n## targets\n@0 fn a.B notanumber x\n'));
  assert.equal(e.category, 'invalid_score');
  assert.equal(e.line, 3);
  assert.equal(e.column, 11);
  const g = failure(() => gcf.decodeGeneric('GCF profile=generic\na="\\uD800"\n'));
  assert.equal(g.category, 'invalid_surrogate');
  assert.equal(g.line, 2);
});

test('text holding a lone UTF-16 surrogate is refused at its line and column, not read as U+FFFD', () => {
  // 2.5.2 passes the surrogate through; the engine reads UTF-8, which
  // cannot carry it, so it would decode another value. Pairs are fine.
  const generic = 'GCF profile=generic\nx="\ud83d\ude00"\ny=a\ud83d?\n';
  const graph = 'GCF profile=graph symbols=1\n## targets\n@0 fn a.\udc00 0.50 x\n';
  const base = { key: 'id', fields: ['id', 'v'], rows: [{ id: 1, v: 'a' }] };
  const full = gcf.encodeGenericFull(base, 't');
  const delta = gcf.encodeGenericDelta(gcf.diffGenericSets(base, { ...base, rows: [{ id: 1, v: 'bb' }] }));
  for (const [call, line, column] of [
    [() => gcf.decodeGeneric(generic), 3, 4],
    [() => gcf.decodeGeneric(generic.replace('"\ud83d\ude00"', '\ud83d\ude00')), 3, 4],
    [() => gcf.decode(graph), 3, 9],
    [() => gcf.decodeDelta('GCF profile=graph delta=true base_root=a new_root=b\n## added\n@0 fn a.\udc00 0.50 x 0\n'), 3, 9],
    [() => gcf.decodeGenericFull(full.replace('|a', '|\udfff')), 3, 3],
    [() => gcf.decodeGenericDelta(delta.replace('|bb', '|b\ud800')), 3, 4],
  ]) {
    const e = failure(call);
    assert.ok(e instanceof gcf.GcfError, e.message);
    assert.deepStrictEqual([e.category, e.line, e.column], ['invalid_surrogate', line, column], e.message);
  }
  // In a key, in a line the engine refuses, before another error.
  for (const [text, line, column] of [
    ['GCF profile=generic\na\ud800=1\n', 2, 2],
    ['GCF profile=generic\n## [1]{a,b\udc00}\n1|2\n', 2, 11],
    ['GCF profile=generic\n## t\ud800 [1]{a}\n1\n', 2, 5],
    ['GCF profile=generic\n## [2]{a}\n1\n\ud800\n', 4, 1],
    ['GCF profile=generic tool=\ud800\n', 1, 26],
  ]) {
    const e = failure(() => gcf.decodeGeneric(text));
    assert.deepStrictEqual([e.category, e.line, e.column], ['invalid_surrogate', line, column], `${JSON.stringify(text)}: ${e.message}`);
  }
  // An error earlier in the text is reported as before; a surrogate in a
  // comment changes no value, so nothing is refused; U+FFFD itself is text.
  assert.strictEqual(failure(() => gcf.decodeGeneric('GCF profile=generic\n## [x]{a}\n1\nx=\ud800\n')).category, 'invalid_count');
  assert.strictEqual(gcf.decodeGeneric('GCF profile=generic\n# a \ud800\nx=1\n').get('x'), 1);
  assert.strictEqual(gcf.decodeGeneric('GCF profile=generic\nx=\ufffd\n').get('x'), '\ufffd');
  assert.strictEqual(gcf.decodeGeneric('GCF profile=generic\nx=\ud83d\ude00\n').get('x'), '\u{1f600}');
});

test('random texts with a lone surrogate put anywhere never decode to a U+FFFD', () => {
  // The engine reads UTF-8: a surrogate that got through would decode as
  // U+FFFD. Each text (from the encoders, so free of U+FFFD) takes a lone
  // surrogate at a random place: the decode refuses it, or reads a value
  // the surrogate was no part of (a place the decoder skips).
  const { make } = require('./random.cjs');
  const g = make(20261129);
  const has = (v) => (typeof v === 'string' ? v.includes('\ufffd') : v instanceof Map ? [...v].some(([k, x]) => has(k) || has(x)) : v && typeof v === 'object' ? Object.entries(v).some(([k, x]) => has(k) || has(x)) : false);
  let refused = 0;
  for (let i = 0; i < 2000; i++) {
    const graphCase = i % 3 === 0;
    let text;
    try {
      text = graphCase ? gcf.encode(g.graph()) : gcf.encodeGeneric(g.generic());
    } catch (_) {
      continue;
    }
    if (text.includes('\ufffd')) continue;
    const at = g.int(text.length + 1);
    const bad = text.slice(0, at) + g.pick(['\ud800', '\udfff', '\udbff']) + text.slice(at);
    let value;
    try {
      value = graphCase ? gcf.decode(bad) : gcf.decodeGeneric(bad);
    } catch (e) {
      assert.ok(e instanceof gcf.GcfError, String(e));
      refused += e.category === 'invalid_surrogate';
      continue;
    }
    assert.ok(!has(value), `${JSON.stringify(bad)} decoded to a U+FFFD`);
  }
  assert.ok(refused > 1000, `only ${refused} refused as invalid_surrogate`);
});

test('values past the depth limit, or containing themselves, are limit_exceeded, not a stack overflow', () => {
  const detail = 'value nests deeper than 128 levels (or contains itself)';
  const nest = (n, make) => {
    let v = 1;
    for (let i = 0; i < n; i++) v = make(v);
    return v;
  };
  // 128 levels (the root object and 127 arrays, or 128 Maps) encode; one more does not.
  assert.match(gcf.encodeGeneric({ a: nest(127, (v) => [v]) }), /^GCF profile=generic\n/);
  assert.match(gcf.encodeGeneric(nest(128, (v) => new Map([['k', v]]))), /^GCF profile=generic\n/);
  for (const n of [128, 200, 100000]) {
    assertValueError(failure(() => gcf.encodeGeneric({ a: nest(n, (v) => [v]) })), 'limit_exceeded', detail);
    assertValueError(failure(() => gcf.encodeGeneric(nest(n + 1, (v) => new Map([['k', v]])))), 'limit_exceeded', detail);
  }
  const self = { a: 1 };
  self.self = self;
  assertValueError(failure(() => gcf.encodeGeneric(self)), 'limit_exceeded', detail);
  const list = [1];
  list.push(list);
  assertValueError(failure(() => gcf.encodeGeneric({ list })), 'limit_exceeded', detail);
});

test('numbers the core cannot hold are named by their path', () => {
  const e = failure(() => gcf.encodeGeneric({ a: { b: [1, 10n ** 30n] } }));
  assert.equal(e.category, 'out_of_range');
  assert.match(e.detail, /^a\.b\[1\]: integer 1000000000000000000000000000000 is outside the int64 range/);
  assert.equal(e.line, undefined);
});
