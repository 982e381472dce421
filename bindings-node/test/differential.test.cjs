'use strict';
// Differential against the real 2.5.2 package (devDependency gcf-reference):
// random graph payloads and generic values, byte-identical encode, equal
// decode (Maps compared as Maps, in order). GCF_DIFF_N sets the count per kind
// (default 10,000), GCF_DIFF_SEED the seed (printed on failure).
const test = require('node:test');
const assert = require('node:assert');
const gcf = require('../index.cjs');
const ref = require('gcf-reference');
const { make } = require('./random.cjs');
const { same, show } = require('./helpers.cjs');

const N = Number(process.env.GCF_DIFF_N || 10000);
// A fixed seed in CI (CI set), so a run is reproducible; a fresh one per run
// elsewhere, so local runs keep exploring. GCF_DIFF_SEED picks one.
const SEED = Number(process.env.GCF_DIFF_SEED || (process.env.CI ? 20261123 : Date.now() % 2147483647));

// Whether GCF text names a path column (`"a>b"`) with a segment named
// `__proto__`, `constructor` or `prototype`.
function throughPrototypeName(text) {
  for (const [, name] of text.matchAll(/"((?:[^"\\]|\\.)*>(?:[^"\\]|\\.)*)"/g)) {
    if (name.split('>').some((s) => s === '__proto__' || s === 'constructor' || s === 'prototype')) return true;
  }
  return false;
}

function outcome(fn) {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    return { ok: false, error: e };
  }
}

test(`graph payloads: ${N} random, seed ${SEED}`, () => {
  const g = make(SEED);
  for (let i = 0; i < N; i++) {
    const p = g.graph();
    const ours = outcome(() => gcf.encode(p));
    const theirs = outcome(() => ref.encode(p));
    assert.strictEqual(ours.ok, theirs.ok, `#${i} ${show(p)}: ${ours.error || theirs.error}`);
    if (!ours.ok) continue;
    assert.strictEqual(ours.value, theirs.value, `#${i} encode of ${show(p)}`);
    const a = gcf.decode(ours.value);
    const b = ref.decode(ours.value);
    assert.ok(same(a, b), `#${i} decode of ${JSON.stringify(ours.value)}: ${show(a)} vs ${show(b)}`);
    // Members in 2.5.2's order too (`packRoot` after the edges), so a
    // caller's JSON.stringify of the result gives 2.5.2's bytes.
    assert.strictEqual(JSON.stringify(a), JSON.stringify(b), `#${i} member order of the decode of ${JSON.stringify(ours.value)}`);
  }
});

test(`generic values: ${N} random, seed ${SEED}`, () => {
  const g = make(SEED ^ 0x5bd1e995);
  let encoded = 0;
  let tables = 0;
  for (let i = 0; i < N; i++) {
    const v = g.generic();
    const noFlatten = g.r() < 0.25;
    const opts = noFlatten ? { noFlatten: true } : undefined;
    const input = g.r() < 0.3 ? gcf.parseJSONOrdered(JSON.stringify(v)) : v;
    const ours = outcome(() => gcf.encodeGeneric(input, opts));
    const theirs = outcome(() => ref.encodeGeneric(input, opts));
    assert.strictEqual(ours.ok, theirs.ok, `#${i} ${show(v)}: ${ours.error || theirs.error}`);
    if (!ours.ok) continue;
    if (ours.value !== theirs.value && !outcome(() => ref.decodeGeneric(theirs.value)).ok) {
      // 2.5.2 wrote what its own decoder refuses (a later row's `.f [N]`
      // with no `{fields}` whose first row was not tabular, as for objects
      // keyed only by `>` names): ours must read back as the input.
      const want = gcf.parseJSONOrdered(JSON.stringify(v));
      assert.ok(same(gcf.decodeGeneric(ours.value), want, true), `#${i} ${show(v)}: ${ours.value}`);
      continue;
    }
    assert.strictEqual(ours.value, theirs.value, `#${i} encode of ${show(v)} ${show(opts)}`);
    encoded++;
    if (ours.value.includes('}\n')) tables++;
    const a = gcf.decodeGeneric(ours.value);
    const b = ref.decodeGeneric(ours.value);
    if (!same(a, b) && throughPrototypeName(ours.value)) {
      // 2.5.2's decoder drops a path column through `__proto__`,
      // `constructor` or `prototype` (its encoder writes one when the field
      // itself is so named); ours reads it back (README, "Where the spec and
      // the references differ"): the input comes back, its members in
      // the table's column order.
      const want = gcf.parseJSONOrdered(JSON.stringify(v));
      assert.ok(same(a, want, true), `#${i} decode of ${JSON.stringify(ours.value)}: ${show(a)} vs ${show(want)}`);
      continue;
    }
    assert.ok(same(a, b), `#${i} decode of ${JSON.stringify(ours.value)}: ${show(a)} vs ${show(b)}`);
  }
  // The generator must reach the encoder's table forms, not only errors.
  assert.ok(encoded > N * 0.9, `only ${encoded} of ${N} encoded`);
  assert.ok(tables > N * 0.2, `only ${tables} of ${N} wrote a table`);
});

test('parseJSONOrdered agrees with 2.5.2 on random JSON texts', () => {
  const g = make(SEED ^ 0x1234567);
  for (let i = 0; i < N / 10; i++) {
    const text = JSON.stringify(g.generic());
    assert.ok(same(gcf.parseJSONOrdered(text), ref.parseJSONOrdered(text)), text);
  }
});

// A number literal beyond a double's range (`9e999`).
const pastDouble = (s) => /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(s) && !Number.isFinite(Number(s));

test('a number past a double\'s range is refused where 2.5.2 reads Infinity', () => {
  for (const token of ['9e999', '-1e400', '1.5e309']) {
    assert.ok(pastDouble(token));
    assert.throws(() => gcf.parseScalar(token), (e) => e.category === 'out_of_range');
    assert.strictEqual(Math.abs(ref.parseScalar(token)), Infinity);
  }
  assert.ok(!pastDouble('1e308') && !pastDouble('1e-400') && !pastDouble('9e99x'));
});

test('scalar helpers agree with 2.5.2 on random strings and scalars', () => {
  const g = make(SEED ^ 0x7f4a7c15);
  const ALPHABET = ['a', 'Z', '_', '0', '9', ' ', '-', '.', '|', ',', ':', '"', '\\', '\n', '\t', '~', '^', '@', '#', '=', '[', ']', '{', '}', 'é', '日', '😀', '\u0001', 'e', '+'];
  for (let i = 0; i < N; i++) {
    let s = '';
    for (let j = 0, n = g.int(6); j < n; j++) s += ALPHABET[g.int(ALPHABET.length)];
    for (const fn of ['needsQuote', 'quoteString', 'formatKey', 'canonicalCell']) {
      assert.strictEqual(gcf[fn](s), ref[fn](s), `${fn}(${JSON.stringify(s)})`);
    }
    assert.strictEqual(gcf.formatScalar(s, 124), ref.formatScalar(s, 124), `formatScalar(${JSON.stringify(s)}, '|')`);
    const v = [null, true, false, g.int(1000) - 500, g.r() * 1000, s][g.int(6)];
    assert.strictEqual(gcf.formatScalar(v), ref.formatScalar(v), `formatScalar(${JSON.stringify(v)})`);
    // parseScalar: the same value, or both refusing. Whitespace around a
    // token is structural here (§4.2) and data in 2.5.2 (README), a number
    // past a double's range is refused here and Infinity there (README),
    // and a token with two faults may be reported by either.
    if (s === s.replace(/^[ \t]+|[ \t]+$/g, '') && !pastDouble(s)) {
      for (const tabular of [false, true]) {
        const a = outcome(() => gcf.parseScalar(s, tabular));
        const b = outcome(() => ref.parseScalar(s, tabular));
        const what = `parseScalar(${JSON.stringify(s)}, ${tabular})`;
        assert.strictEqual(a.ok, b.ok, `${what}: ${a.ok ? show(a.value) : a.error.message} vs ${b.ok ? show(b.value) : b.error.message}`);
        // The row-cell markers are each package's own symbols.
        const mark = (x) => (typeof x === 'symbol' ? x.toString() : x);
        if (a.ok) assert.ok(same(mark(a.value), mark(b.value)), `${what}: ${show(mark(a.value))} vs ${show(mark(b.value))}`);
      }
    }
  }
});

test(`graph deltas decode with 2.5.2's members in its order (seed ${SEED})`, () => {
  const g = make(SEED + 7);
  let checked = 0;
  for (let i = 0; i < 300; i++) {
    const p = g.graph();
    const names = new Set(p.symbols.map((s) => s.qualifiedName));
    const d = {
      tool: p.tool,
      baseRoot: 'sha256:' + '0'.repeat(64),
      newRoot: 'sha256:' + '1'.repeat(64),
      removed: p.symbols.slice(0, 2).map((s) => ({ qualifiedName: s.qualifiedName, kind: s.kind })),
      added: p.symbols.slice(2),
      removedEdges: [],
      addedEdges: p.edges.filter((e) => names.has(e.source) && names.has(e.target)),
      deltaTokens: 0,
      fullTokens: 0,
    };
    const text = outcome(() => ref.encodeDelta(d));
    if (!text.ok) continue;
    const ours = outcome(() => gcf.decodeDelta(text.value));
    const theirs = outcome(() => ref.decodeDelta(text.value));
    if (!ours.ok || !theirs.ok) continue;
    // deltaTokens: 2.5.2 does not read the header's tokens= (README).
    const plain = (x) => JSON.stringify({ ...x, deltaTokens: 0 });
    assert.strictEqual(plain(ours.value), plain(theirs.value), `#${i} ${text.value}`);
    checked++;
  }
  assert.ok(checked > 100, `${checked} deltas compared`);
});

test(`verifyDelta returns the caller's own objects, as 2.5.2 does (seed ${SEED})`, () => {
  const g = make(SEED + 11);
  let checked = 0;
  for (let i = 0; i < 200; i++) {
    const p = g.graph();
    const seen = new Set();
    const symbols = p.symbols.filter((s) => !seen.has(`${s.kind}\t${s.qualifiedName}`) && seen.add(`${s.kind}\t${s.qualifiedName}`));
    if (symbols.length < 2) continue;
    const base = symbols.slice(1).map((s) => ({ ...s, signature: `sig ${s.qualifiedName}` }));
    const added = [{ kind: symbols[0].kind, qualifiedName: symbols[0].qualifiedName, score: symbols[0].score, provenance: symbols[0].provenance, distance: symbols[0].distance, extra: i }];
    const names = new Set(symbols.map((s) => s.qualifiedName));
    const edgeSeen = new Set();
    const edges = p.edges.filter((e) => names.has(e.source) && names.has(e.target) && !edgeSeen.has(`${e.source}\t${e.target}\t${e.edgeType}`) && edgeSeen.add(`${e.source}\t${e.target}\t${e.edgeType}`));
    const root = outcome(() => gcf.packRoot(base.concat(added), edges));
    if (!root.ok) continue;
    const ours = outcome(() => gcf.verifyDelta(base, edges, [], added, [], [], root.value));
    const theirs = outcome(() => ref.verifyDelta(base, edges, [], added, [], [], root.value));
    assert.strictEqual(ours.ok, theirs.ok, `#${i}: ${ours.error || theirs.error}`);
    if (!ours.ok) continue;
    assert.strictEqual(JSON.stringify(ours.value), JSON.stringify(theirs.value), `#${i}`);
    assert.ok(ours.value.symbols.every((s) => base.includes(s) || added.includes(s)), `#${i} identity`);
    checked++;
  }
  assert.ok(checked > 50, `${checked} compared`);
});
