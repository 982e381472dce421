'use strict';
// The `limits` option of decode and decodeGeneric (spec §12's decode limits,
// an addition to 2.5.2): applied to that call only, checked by gcf-bind for
// every surface alike. Runs on the native engine and, with GCF_ENGINE=wasm,
// on the WebAssembly one (scripts/test-wasm.sh).
const test = require('node:test');
const assert = require('node:assert');
const gcf = require('../index.cjs');
const { failure } = require('./helpers.cjs');


const nested = (depth) => {
  let v = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

const graph = gcf.encode({
  tool: 't',
  tokenBudget: 0,
  tokensUsed: 0,
  symbols: ['a', 'b', 'c'].map((n) => ({ qualifiedName: `p.${n}`, kind: 'function', score: 0.5, provenance: 'lsp', distance: 0 })),
  edges: [],
});
const records = gcf.encodeGeneric({ rows: [1, 2, 3, 4].map((id) => ({ id, name: `n${id}` })) });

test('a limit the input passes changes nothing', () => {
  assert.deepStrictEqual(gcf.decode(graph, { limits: { maxContainerLen: 3 } }), gcf.decode(graph));
  const deep = gcf.encodeGeneric(nested(5));
  assert.deepStrictEqual(gcf.decodeGeneric(deep, { limits: { maxDepth: 5 } }), gcf.decodeGeneric(deep));
  assert.deepStrictEqual(gcf.decodeGeneric(records, { limits: {} }), gcf.decodeGeneric(records));
});

test('input past a limit fails with limit_exceeded at its line, on every input form', () => {
  for (const input of [graph, new TextEncoder().encode(graph)]) {
    const e = failure(() => gcf.decode(input, { limits: { maxContainerLen: 2 } }));
    assert.equal(e.category, 'limit_exceeded', e.message);
    assert.ok(e.line > 1, e.message);
  }
  const deep = gcf.encodeGeneric(nested(5));
  for (const input of [deep, new TextEncoder().encode(deep)]) {
    const e = failure(() => gcf.decodeGeneric(input, { limits: { maxDepth: 4 } }));
    assert.equal(e.category, 'limit_exceeded', e.message);
    assert.equal(typeof e.line, 'number', e.message);
  }
  const e = failure(() => gcf.decodeGeneric(records, { limits: { maxInputLen: records.length - 1 } }));
  assert.equal(e.category, 'limit_exceeded', e.message);
  assert.ok(gcf.decodeGeneric(records, { limits: { maxInputLen: records.length } }));
  const fields = failure(() => gcf.decodeGeneric(records, { limits: { maxFields: 1 } }));
  assert.equal(fields.category, 'limit_exceeded', fields.message);
});

test('the limits hold for one call: the next decode has the defaults again', () => {
  const deep = gcf.encodeGeneric(nested(5));
  const whole = gcf.decodeGeneric(deep);
  failure(() => gcf.decodeGeneric(deep, { limits: { maxDepth: 2 } }));
  assert.deepStrictEqual(gcf.decodeGeneric(deep), whole);
  failure(() => gcf.decode(graph, { limits: { maxLineLen: 4 } }));
  assert.equal(gcf.decode(graph).symbols.length, 3);
  // A call that throws for a reason of its own resets them too.
  const e = failure(() => gcf.decodeGeneric('GCF profile=generic\n## x [\n', { limits: { maxDepth: 2 } }));
  assert.notEqual(e.category, 'limit_exceeded', e.message);
  assert.deepStrictEqual(gcf.decodeGeneric(deep), whole);
  // largeInt and limits together.
  const big = gcf.encodeGeneric({ n: 2n ** 60n });
  assert.equal(gcf.decodeGeneric(big, { largeInt: 'bigint', limits: { maxDepth: 1 } }).get('n'), 2n ** 60n);
});

test('limits that cannot be are usage errors, before anything is decoded', () => {
  for (const [limits, detail] of [
    [{ maxDepth: 0 }, 'limits: maxDepth must be from 1 to 128, not 0'],
    [{ maxDepth: 129 }, 'limits: maxDepth must be from 1 to 128, not 129'],
    [{ maxFields: 0 }, 'limits: maxFields must be at least 1, not 0'],
    [{ maxDepht: 3 }, 'limits: unknown limit `maxDepht` (the limits are maxDepth, maxContainerLen, maxLineLen, maxFields, maxInputLen, maxExpansion, maxExpansionRatio)'],
    [{ maxDepth: -1 }, 'limits: maxDepth must be a whole number, not -1'],
    [{ maxDepth: 2.5 }, 'limits: maxDepth must be a whole number, not 2.5'],
    [{ maxDepth: NaN }, 'limits: maxDepth must be a whole number, not null'],
    [{ maxInputLen: '9' }, 'limits: maxInputLen must be a whole number, not a string'],
    [{ maxDepth: 1n }, 'limits: Do not know how to serialize a BigInt'],
    [7, 'limits must be an object, not 7'],
    [null, 'limits must be an object, not null'],
    [[], 'limits must be an object, not an array'],
  ]) {
    for (const run of [() => gcf.decode(graph, { limits }), () => gcf.decodeGeneric(records, { limits })]) {
      const e = failure(run);
      assert.equal(e.category, 'usage', `${String(limits)}: ${e.message}`);
      assert.ok(e.detail.startsWith(detail), `${JSON.stringify(detail)}: ${e.detail}`);
      assert.equal(e.line, undefined);
    }
  }
  // The refusal left no limits behind.
  assert.equal(gcf.decode(graph).symbols.length, 3);
});

test('a limit past the address space is no limit', () => {
  assert.equal(gcf.decode(graph, { limits: { maxInputLen: Number.MAX_SAFE_INTEGER } }).symbols.length, 3);
});

test('the delta decodes and decodeGenericFull take limits too', () => {
  const graphDelta = 'GCF profile=graph delta=true base_root=a new_root=b\n## removed\nfn a\nfn b\n';
  const genericDelta =
    'GCF profile=generic delta=true base_root=sha256:a new_root=sha256:b key=id\n## removed [2]{@id}\n7\n8\n';
  const set = { name: 'orders', key: 'id', fields: ['id', 'total'], rows: [{ id: 1, total: 2 }, { id: 2, total: 3 }] };
  const full = gcf.encodeGenericFull(set);
  const cases = [
    [(o) => gcf.decodeDelta(graphDelta, o)],
    [(o) => gcf.decodeGenericDelta(genericDelta, o)],
    [(o) => gcf.decodeGenericFull(full, o)],
  ];
  for (const [run] of cases) {
    const whole = run();
    assert.deepStrictEqual(run({ limits: { maxContainerLen: 2 } }), whole);
    const e = failure(() => run({ limits: { maxContainerLen: 1 } }));
    assert.equal(e.category, 'limit_exceeded', e.message);
    assert.equal(typeof e.line, 'number', e.message);
    assert.equal(failure(() => run({ limits: { maxDepth: 0 } })).category, 'usage');
    // And the next call has the defaults again.
    assert.deepStrictEqual(run(), whole);
  }
});
