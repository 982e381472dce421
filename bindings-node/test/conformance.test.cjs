'use strict';
// Every official conformance fixture through the package's public API.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const gcf = require('../index.cjs');
const helpers = require('./helpers.cjs');
const { show } = helpers;
// Fixtures list object members in any order ("structurally equal").
const same = (a, b) => helpers.same(a, b, true);

const ROOT = path.resolve(__dirname, '..', '..', '..', 'shared', 'conformance');
const DIR = fs.existsSync(ROOT) ? ROOT : path.resolve(__dirname, '..', '..', '..', '..', 'shared', 'conformance');

function fixtures(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...fixtures(p));
    else if (e.name.endsWith('.json')) out.push(p);
  }
  return out.sort();
}

const exact = (text) => gcf.parseJSONOrdered(text, { largeInt: 'bigint' });
const plain = (m) => JSON.parse(show(m));
const isGraph = (input) => input instanceof Map && input.has('symbols');

function graphPayload(m) {
  return JSON.parse(show(m));
}

// The category, or the message when the fixture names a phrase of it.
function categoryOf(fn, expected) {
  try {
    fn();
  } catch (e) {
    if (e.category !== expected && typeof e.message === 'string' && e.message.includes(expected)) return expected;
    return e.category || `(no category: ${e.message})`;
  }
  return '(no error)';
}

function decodeAny(text) {
  const header = text.split('\n', 1)[0];
  if (/^GCF profile=graph\b/.test(header) && / delta=true\b/.test(header)) return gcf.decodeDelta(text);
  return /^GCF profile=graph\b/.test(text) ? gcf.decode(text) : gcf.decodeGeneric(text, { largeInt: 'bigint' });
}

function graphEq(got, expected) {
  const norm = (p) => {
    const q = { ...p, packRoot: p.packRoot || '', tokenBudget: p.tokenBudget || 0, tokensUsed: p.tokensUsed || 0 };
    q.edges = (p.edges || []).map((e) => ({ ...e, status: e.status || '' }));
    return q;
  };
  return same(norm(got), norm(expected));
}

const RUNNERS = {
  encode(f) {
    const input = f.get('input');
    if (isGraph(input)) return assert.strictEqual(gcf.encode(graphPayload(input)), f.get('expected'));
    const text = gcf.encodeGeneric(input);
    assert.strictEqual(text, f.get('expected'));
    assert.ok(same(gcf.decodeGeneric(text, { largeInt: 'bigint' }), input), 'decode(encode(input)) == input');
  },
  roundtrip(f) {
    RUNNERS.encode(f);
  },
  decode(f) {
    const text = f.get('input');
    if (/^GCF profile=graph\b/.test(text)) {
      return assert.ok(graphEq(gcf.decode(text), plain(f.get('expected'))), show(gcf.decode(text)));
    }
    const got = gcf.decodeGeneric(text, { largeInt: 'bigint' });
    assert.ok(same(got, f.get('expected')), `got ${show(got)}`);
  },
  'roundtrip-wire'(f) {
    const v = gcf.decodeGeneric(f.get('input'), { largeInt: 'bigint' });
    assert.strictEqual(gcf.encodeGeneric(v), f.get('expected'));
  },
  error(f) {
    let text = f.get('input');
    if (f.has('inputBase64')) text = Buffer.from(f.get('inputBase64'), 'base64');
    const input = typeof text === 'string' ? text : text.toString('latin1');
    assert.strictEqual(
      categoryOf(() => (Buffer.isBuffer(text) ? gcf.decodeGeneric(text) : decodeAny(input)), f.get('expectedError')),
      f.get('expectedError'),
    );
  },
  'encode-error'(f) {
    const input = f.get('input');
    assert.strictEqual(
      categoryOf(() => (isGraph(input) ? gcf.encode(graphPayload(input)) : gcf.encodeGeneric(input)), f.get('expectedError')),
      f.get('expectedError'),
    );
  },
  session(f) {
    const sess = new gcf.Session();
    for (const call of f.get('calls')) {
      assert.strictEqual(gcf.encodeWithSession(plain(call.get('input')), sess), call.get('expected'));
    }
  },
  'pack-root'(f) {
    const input = plain(f.get('input'));
    assert.strictEqual(gcf.packRoot(input.symbols || [], input.edges || []), f.get('expected'));
  },
  delta(f) {
    if (f.get('input') instanceof Map) return assert.strictEqual(gcf.encodeDelta(plain(f.get('input'))), f.get('expected'));
    const d = gcf.decodeDelta(f.get('input'));
    const base = plain(f.get('base_snapshot'));
    assert.strictEqual(gcf.packRoot(base.symbols, base.edges), f.get('base_root'));
    assert.strictEqual(d.baseRoot, f.get('base_root'));
    const next = gcf.verifyDelta(base.symbols, base.edges, d.removed, d.added, d.removedEdges, d.addedEdges, d.newRoot);
    assert.strictEqual(d.newRoot, f.get('new_root'));
    // By content, whatever the objects' member order (verifyDelta returns
    // the caller's objects, and decodeDelta's put `kind` first, as 2.5.2's).
    const canonical = (x) => show(Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
    const sortBy = (xs) => [...xs].sort((a, b) => canonical(a).localeCompare(canonical(b)));
    const exp = plain(f.get('expected_snapshot'));
    assert.ok(same(sortBy(next.symbols), sortBy(exp.symbols)), show(next));
    assert.ok(same(sortBy(next.edges), sortBy(exp.edges.map((e) => ({ source: e.source, target: e.target, edgeType: e.edgeType })))), show(next));
  },
  'delta-verify'(f) {
    const base = plain(f.get('base_snapshot'));
    const err = categoryOf(() => {
      const d = gcf.decodeDelta(f.get('input'));
      if (d.baseRoot !== gcf.packRoot(base.symbols, base.edges)) throw Object.assign(new Error('root_mismatch'), { category: 'root_mismatch' });
      gcf.verifyDelta(base.symbols, base.edges, d.removed, d.added, d.removedEdges, d.addedEdges, d.newRoot);
    }, f.get('expectedError'));
    assert.strictEqual(err, f.get('expectedError'));
  },
  'graph-stream-encode'(f) {
    const input = plain(f.get('input'));
    const opts = f.has('options') ? plain(f.get('options')) : {};
    let out = '';
    const enc = new gcf.StreamEncoder({ write: (s) => (out += s) }, input.tool, { tokenBudget: input.tokenBudget, tokensUsed: input.tokensUsed, ...opts });
    for (const s of input.symbols || []) enc.writeSymbol(s);
    for (const e of input.edges || []) enc.writeEdge(e);
    enc.close();
    assert.strictEqual(out, f.get('expected'));
  },
  'generic-pack-root'(f) {
    assert.strictEqual(gcf.genericPackRoot(f.get('input')), f.get('expected'));
  },
  'generic-delta'(f) {
    assert.strictEqual(gcf.encodeGenericDelta(f.get('input')), f.get('expected'));
  },
  'generic-delta-decode'(f) {
    const input = f.get('input');
    const run = () => {
      const d = gcf.decodeGenericDelta(input.get('wire'));
      const next = gcf.verifyGenericDelta(input.get('base'), d, input.get('expectedNewRoot') || d.newRoot);
      return gcf.genericPackRoot(next);
    };
    if (f.has('expectedError')) return assert.strictEqual(categoryOf(run, f.get('expectedError')), f.get('expectedError'));
    assert.strictEqual(run(), f.get('expected'));
  },
  'generic-delta-verify'(f) {
    const input = f.get('input');
    const run = () => gcf.genericPackRoot(gcf.verifyGenericDelta(input.get('base'), input.get('delta'), input.get('expectedNewRoot')));
    if (f.has('expectedError')) return assert.strictEqual(categoryOf(run, f.get('expectedError')), f.get('expectedError'));
    assert.strictEqual(run(), f.get('expected'));
  },
  'generic-delta-session'(f) {
    const input = f.get('input');
    const policy = input.get('policy');
    const p = policy.get('mode') === 'sizeGuard' ? gcf.sizeGuard() : gcf.fixedN(Number(policy.get('n') || 0));
    const sess = new gcf.GenericDeltaSession(input.get('base'), input.get('tool') || '', p);
    const expected = f.get('expected');
    assert.strictEqual(sess.currentFull(), expected.get('initialFull'));
    const got = input.get('updates').map((u) => sess.next(u));
    const want = expected.get('emissions').map((e) => ({ wire: e.get('wire'), isFull: e.get('isFull') }));
    assert.deepStrictEqual(got, want);
    assert.strictEqual(sess.turn(), want.length);
  },
};

const all = fixtures(DIR);
test('the conformance fixtures are there', () => assert.ok(all.length >= 281, `${all.length} fixtures in ${DIR}`));

const pending = {};
for (const file of all) {
  const f = exact(fs.readFileSync(file, 'utf8'));
  const op = f.get('operation');
  const run = RUNNERS[op] || (gcf._conformance && gcf._conformance[op]);
  if (!run) {
    pending[op] = (pending[op] || 0) + 1;
    continue;
  }
  test(`${path.relative(DIR, file)} (${op})`, () => run(f, gcf));
}
module.exports = { pending };
test('operations without a runner yet are listed', () => {
  process.stdout.write(`# conformance operations not run yet: ${JSON.stringify(pending)}\n`);
});
