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
  const rows = ids.map((id) => {
    const row = {
      id,
      total: [g.int(1000), g.int(10000) / 100, null][g.int(3)],
      status: ['shipped', 'pending', 'a|b', '', '-', 'true'][g.int(6)],
      customer: ['Alice', 'Bob', 'Ω', 'x y', null][g.int(5)],
    };
    // A declared field a row lacks: written `-`, as 2.5.2 writes it.
    if (g.r() < 0.15) delete row.customer;
    return row;
  });
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
    // From the declaration, as 2.5.2 reads them (an empty table keeps them).
    assert.deepStrictEqual(back.set.fields, theirs.set.fields);
    const d = gcf.diffGenericSets(base, next);
    const r = ref.diffGenericSets(base, next);
    const wire = gcf.encodeGenericDelta(d);
    assert.strictEqual(wire, ref.encodeGenericDelta(r), `#${i} delta wire`);
    const decoded = gcf.decodeGenericDelta(wire);
    // 2.5.2's members in its order, so JSON.stringify gives its bytes.
    const text = (v) => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? `${x}n` : x));
    assert.strictEqual(text(d), text(r), `#${i} diff members`);
    assert.strictEqual(text(decoded), text(ref.decodeGenericDelta(wire)), `#${i} decoded delta members`);
    assert.deepStrictEqual(Object.keys(decoded), Object.keys(ref.decodeGenericDelta(wire)));
    const applied = gcf.verifyGenericDelta(base, decoded, d.newRoot);
    assert.strictEqual(gcf.genericPackRoot(applied), gcf.genericPackRoot(next));
  }
});

// A session's turns: rows renamed, added and removed, the schema widened and
// narrowed (a full payload the cadence did not ask for), and now and then an
// update both refuse (a repeated key), under fixed cadences and the size
// guard. Both re-anchor on turns n, 2n, ... counted from the start and count
// a failed turn (the engine's session once restarted the count at every full
// payload).
test(`GenericDeltaSession turns match 2.5.2 (seed ${SEED})`, () => {
  const g = make(SEED ^ 0x5e551);
  const keyed = (rows, wide) => ({
    name: 'users',
    key: 'id',
    fields: wide ? ['id', 'name', 'note'] : ['id', 'name'],
    rows: rows.map((r) => (wide ? { ...r, note: 'x' } : { ...r })),
  });
  let failed = 0;
  let fulls = 0;
  for (let run = 0; run < Math.max(100, N / 10); run++) {
    const n = [1, 2, 3, 5, 0][run % 5];
    const policy = (lib) => (n ? lib.fixedN(n) : lib.sizeGuard());
    const rows = [];
    for (let i = 1, k = 2 + g.int(10); i < k; i++) rows.push({ id: i, name: `n${i}` });
    let wide = false;
    let nextId = 100;
    const ours = new gcf.GenericDeltaSession(keyed(rows, wide), 't', policy(gcf));
    const theirs = new ref.GenericDeltaSession(keyed(rows, wide), 't', policy(ref));
    assert.strictEqual(ours.currentFull(), theirs.currentFull());
    for (let turn = 1; turn <= 12; turn++) {
      let widened = false;
      const step = g.int(6);
      if (step === 0) rows.push({ id: nextId++, name: 'new' });
      else if (step === 1 && rows.length > 1) rows.splice(g.int(rows.length), 1);
      else if (step === 2) (wide = !wide), (widened = true);
      else rows[g.int(rows.length)].name = `n${run}.${turn}`;
      const sent = rows.slice();
      // Not with a schema change: 2.5.2 then writes a full payload whose
      // identities repeat, which §10a.1 has every decoder reject and which is
      // refused here (README, "Where the spec and the references differ").
      if (!widened && g.r() < 0.08) sent.push({ ...rows[0] });
      const outcome = (s) => {
        try {
          return s.next(keyed(sent, wide));
        } catch (e) {
          return { error: true };
        }
      };
      const a = outcome(ours);
      const b = outcome(theirs);
      assert.deepStrictEqual(a, b, `run ${run} (n=${n}), turn ${turn}`);
      assert.strictEqual(ours.turn(), theirs.turn());
      if (a.error) failed++;
      else if (a.isFull) fulls++;
    }
  }
  assert.ok(failed > 0 && fulls > 0, `${failed} ${fulls}`);
  // A set that cannot even be sent (a cycle) is a turn too, counted on
  // this side before the engine sees anything.
  const loop = {};
  loop.self = loop;
  const cyclic = { key: 'id', fields: ['id', 'name'], rows: [{ id: 1, name: loop }] };
  const base = { key: 'id', fields: ['id', 'name'], rows: [{ id: 1, name: 'a' }] };
  const ours = new gcf.GenericDeltaSession(base, 't', gcf.fixedN(3));
  const theirs = new ref.GenericDeltaSession(base, 't', ref.fixedN(3));
  // (2.5.2 writes the cycle as the text "[object Object]"; it counts the
  // turn all the same.)
  assert.throws(() => ours.next(cyclic), (e) => e.category === 'limit_exceeded');
  theirs.next(cyclic);
  assert.strictEqual(ours.turn(), 1);
  assert.strictEqual(ours.turn(), theirs.turn());
  assert.strictEqual(ours.next(base).isFull, false);
  assert.strictEqual(ours.turn(), 2);
});

// Spec §10a.1: a decoder rejects duplicate identity values; 2.5.2's
// decodeGenericFull returns both rows (README, "Where the spec and the
// references differ"). 1 and 1.0 are one identity, "1" another.
test('a full payload that repeats an identity is refused', () => {
  const full = gcf.encodeGenericFull({ key: 'id', fields: ['id', 'v'], rows: [{ id: 1, v: 'a' }] }, 't').replace('[1]', '[2]');
  for (const extra of ['1|b\n', '1.0|b\n']) {
    assert.strictEqual(ref.decodeGenericFull(full + extra).set.rows.length, 2);
    let e;
    try {
      gcf.decodeGenericFull(full + extra);
    } catch (err) {
      e = err;
    }
    assert.ok(e instanceof gcf.GcfError, String(e));
    assert.deepStrictEqual([e.category, e.line, e.column], ['duplicate_key', 4, 1], e.message);
  }
  assert.deepStrictEqual(
    gcf.decodeGenericFull(full + '"1"|b\n').set.rows.map((r) => r.id),
    [1, '1'],
  );
});

test('row members outside the declared fields are left out, as 2.5.2 leaves them out', () => {
  // Rows taken from wider records: the set is its declared fields.
  const wide = {
    key: 'id',
    fields: ['id', 'name'],
    rows: [
      { id: 1, name: 'x', extra: 5, nested: { a: [1, 2] } },
      { id: 2, name: 'y', note: 'n' },
    ],
  };
  const narrow = { ...wide, rows: [{ id: 1, name: 'x' }, { id: 2, name: 'y' }] };
  assert.strictEqual(gcf.genericPackRoot(wide), ref.genericPackRoot(wide));
  assert.strictEqual(gcf.genericPackRoot(wide), gcf.genericPackRoot(narrow));
  assert.strictEqual(gcf.encodeGenericFull(wide, 't'), ref.encodeGenericFull(wide, 't'));
  const next = { ...wide, rows: [{ id: 1, name: 'z', extra: 6 }, { id: 3, name: 'w', more: true }] };
  const ours = gcf.diffGenericSets(wide, next);
  const theirs = ref.diffGenericSets(wide, next);
  assert.strictEqual(ours.newRoot, theirs.newRoot);
  assert.strictEqual(gcf.encodeGenericDelta(ours), ref.encodeGenericDelta(theirs));
  const mine = new gcf.GenericDeltaSession(wide, 't', gcf.sizeGuard());
  const refs = new ref.GenericDeltaSession(wide, 't', ref.sizeGuard());
  assert.strictEqual(mine.currentFull(), refs.currentFull());
  assert.deepStrictEqual(mine.next(next), refs.next(next));
});
