'use strict';
// JS values outside JSON's data model, which the random differential does
// not generate: encodeGeneric writes them as 2.5.2 does, byte for byte,
// except a Map's number keys and an array's holes (DESIGN.md, "Differences
// from 2.5.2").
const test = require('node:test');
const assert = require('node:assert');
const gcf = require('../index.cjs');
const ref = require('gcf-reference');

test('functions, symbols, undefined, getters and odd objects encode as in 2.5.2', () => {
  class Point {
    constructor() {
      this.x = 1;
    }
    norm() {
      return this.x;
    }
  }
  const cases = [
    { a: 1, u: undefined },
    { a: [1, undefined, 3] },
    { a: 1, f() {} },
    { a: [1, () => 2, function named() {}] },
    { a: 1, s: Symbol('x'), list: [Symbol.iterator] },
    { rows: [{ id: 1, f: () => 0 }, { id: 2, f: () => 1 }] },
    { d: new Date(0), p: new Point(), n: new Number(3) },
    {
      get g() {
        return 5;
      },
    },
    Object.create({ inherited: 1 }, { own: { value: 2, enumerable: true } }),
    Object.defineProperty({ a: 1 }, 'hidden', { value: 2, enumerable: false }),
    Object.assign([1, 2], { extra: 3 }),
    Object.assign(Object.create(null), { a: 1 }),
    { z: -0 },
  ];
  for (const v of cases) assert.equal(gcf.encodeGeneric(v), ref.encodeGeneric(v), String(Object.keys(v)));
});

test("a Map's number keys are written by their String() form, where 2.5.2 writes an empty key", () => {
  const m = new Map([
    [1, 'one'],
    [true, 'yes'],
    ['b', 2],
  ]);
  assert.equal(gcf.encodeGeneric(m), 'GCF profile=generic\n"1"=one\ntrue=yes\nb=2\n');
  assert.equal(ref.encodeGeneric(m), 'GCF profile=generic\n""=one\ntrue=yes\nb=2\n');
  // What decodes back is the keys as strings, all of them.
  assert.deepStrictEqual([...gcf.decodeGeneric(gcf.encodeGeneric(m)).keys()], ['1', 'true', 'b']);
});

test('an array hole is written as null, as JSON.stringify writes it, not as the empty cell of 2.5.2', () => {
  // 2.5.2 maps over the array (which skips holes) and joins, leaving an
  // empty cell, which every decoder reads as the empty string: a value the
  // array never held. A hole reads back as null here, as it does through JSON.
  const cases = [
    [[1, , 3], 'GCF profile=generic\n## [3]: 1,-,3\n', 'GCF profile=generic\n## [3]: 1,,3\n'],
    [[, 'a'], 'GCF profile=generic\n## [2]: -,a\n', 'GCF profile=generic\n## [2]: ,a\n'],
  ];
  for (const [v, ours, theirs] of cases) {
    assert.equal(gcf.encodeGeneric(v), ours);
    assert.equal(ref.encodeGeneric(v), theirs);
    assert.deepStrictEqual(gcf.decodeGeneric(ours), JSON.parse(JSON.stringify(v)));
    // 2.5.2's own text reads back with an empty string in the hole.
    assert.deepStrictEqual(ref.decodeGeneric(theirs), Array.from(v, (x) => (x === undefined ? '' : x)));
  }
  // Nested in a record's array, the same.
  assert.equal(gcf.encodeGeneric([{ a: [1, , 2] }]), 'GCF profile=generic\n## [1]{a}\n@0 ^\n.a [3]: 1,-,2\n');
  // An explicit undefined element is null in both.
  assert.equal(gcf.encodeGeneric([1, undefined, 3]), ref.encodeGeneric([1, undefined, 3]));
});
