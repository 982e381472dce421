// The conformance fixtures through a GCF package's public API, browser-safe:
// no Buffer, no node:assert, no fs. The Node package's runner
// (bindings-node/test/conformance.test.cjs) is CommonJS over node:test and
// Buffer, so this is a second dispatch over the same operations and the same
// API calls; it runs in a page and in Node alike.
//
// runFixtures(gcf, fixtures) takes [{ path, text }] and returns
// { passed, failed: [{ path, operation, why }], missing: { api: count } },
// where `missing` counts fixtures whose operation needs an API the package
// does not export (they are failures too: none is skipped silently).

// Object members may come in any order ("structurally equal"); integers
// compare by value whether they arrive as number or bigint.
export function same(a, b) {
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    try {
      return BigInt(a) === BigInt(b);
    } catch {
      return false;
    }
  }
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map && b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !same(v, b.get(k))) return false;
    return true;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
  }
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  return a === b;
}

export function show(v) {
  return JSON.stringify(v, (_, x) => (x instanceof Map ? Object.fromEntries(x) : typeof x === 'bigint' ? `${x}n` : x));
}

class Mismatch extends Error {}
class Missing extends Error {}

function check(ok, why) {
  if (!ok) throw new Mismatch(typeof why === 'function' ? why() : why);
}
function equal(got, want, what) {
  check(got === want, () => `${what}: got ${show(got)}, want ${show(want)}`);
}

function base64Bytes(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const plain = (m) => JSON.parse(show(m));
const isGraph = (input) => input instanceof Map && input.has('symbols');
const isGraphText = (t) => /^GCF profile=graph\b/.test(t);

// Runs `fn` and returns the error category it fails with. A fixture may name
// a phrase of the message instead of a category (2.5.2's plain Errors).
function categoryOf(fn, expected) {
  try {
    fn();
  } catch (e) {
    if (e instanceof Missing) throw e;
    if (e.category !== expected && typeof e.message === 'string' && e.message.includes(expected)) return expected;
    return e.category || `(no category: ${e.message})`;
  }
  return '(no error)';
}

function graphEq(got, want) {
  const norm = (p) => ({
    ...p,
    packRoot: p.packRoot || '',
    tokenBudget: p.tokenBudget || 0,
    tokensUsed: p.tokensUsed || 0,
    edges: (p.edges || []).map((e) => ({ ...e, status: e.status || '' })),
  });
  return same(norm(got), norm(want));
}

function makeRunners(gcf) {
  // Every API an operation needs goes through `api`, so a package without it
  // reports the missing name instead of a TypeError.
  const api = new Proxy(gcf, {
    get(target, name) {
      if (!(name in target) || target[name] == null) throw new Missing(String(name));
      return target[name];
    },
  });
  const big = { largeInt: 'bigint' };
  const decodeAny = (text) => {
    const header = text.split('\n', 1)[0];
    if (isGraphText(header) && / delta=true\b/.test(header)) return api.decodeDelta(text);
    return isGraphText(text) ? api.decode(text) : api.decodeGeneric(text, big);
  };
  const R = {
    encode(f) {
      const input = f.get('input');
      if (isGraph(input)) return equal(api.encode(plain(input)), f.get('expected'), 'encode');
      const text = api.encodeGeneric(input);
      equal(text, f.get('expected'), 'encodeGeneric');
      const back = api.decodeGeneric(text, big);
      check(same(back, input), () => `decode(encode(input)) = ${show(back)}`);
    },
    roundtrip(f) {
      R.encode(f);
    },
    decode(f) {
      const text = f.get('input');
      if (isGraphText(text)) {
        const got = api.decode(text);
        return check(graphEq(got, plain(f.get('expected'))), () => `decode = ${show(got)}`);
      }
      const got = api.decodeGeneric(text, big);
      check(same(got, f.get('expected')), () => `decodeGeneric = ${show(got)}`);
    },
    'roundtrip-wire'(f) {
      equal(api.encodeGeneric(api.decodeGeneric(f.get('input'), big)), f.get('expected'), 're-encode');
    },
    error(f) {
      const want = f.get('expectedError');
      const run = f.has('inputBase64')
        ? () => api.decodeGeneric(base64Bytes(f.get('inputBase64')))
        : () => decodeAny(f.get('input'));
      equal(categoryOf(run, want), want, 'error category');
    },
    'encode-error'(f) {
      const input = f.get('input');
      const want = f.get('expectedError');
      equal(categoryOf(() => (isGraph(input) ? api.encode(plain(input)) : api.encodeGeneric(input)), want), want, 'error category');
    },
    session(f) {
      const sess = new api.Session();
      f.get('calls').forEach((call, i) => equal(api.encodeWithSession(plain(call.get('input')), sess), call.get('expected'), `call ${i}`));
    },
    'pack-root'(f) {
      const input = plain(f.get('input'));
      equal(api.packRoot(input.symbols || [], input.edges || []), f.get('expected'), 'packRoot');
    },
    delta(f) {
      if (f.get('input') instanceof Map) return equal(api.encodeDelta(plain(f.get('input'))), f.get('expected'), 'encodeDelta');
      const d = api.decodeDelta(f.get('input'));
      const base = plain(f.get('base_snapshot'));
      equal(api.packRoot(base.symbols, base.edges), f.get('base_root'), 'base packRoot');
      equal(d.baseRoot, f.get('base_root'), 'baseRoot');
      const next = api.verifyDelta(base.symbols, base.edges, d.removed, d.added, d.removedEdges, d.addedEdges, d.newRoot);
      equal(d.newRoot, f.get('new_root'), 'newRoot');
      // By content, whatever the objects' member order (verifyDelta returns
      // the caller's objects, decodeDelta's put `kind` first, as 2.5.2's).
      const canonical = (x) => show(Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
      const sorted = (xs) => [...xs].sort((a, b) => canonical(a).localeCompare(canonical(b)));
      const want = plain(f.get('expected_snapshot'));
      const wantEdges = want.edges.map((e) => ({ source: e.source, target: e.target, edgeType: e.edgeType }));
      check(same(sorted(next.symbols), sorted(want.symbols)), () => `symbols ${show(next.symbols)}`);
      check(same(sorted(next.edges), sorted(wantEdges)), () => `edges ${show(next.edges)}`);
    },
    'delta-verify'(f) {
      const base = plain(f.get('base_snapshot'));
      const want = f.get('expectedError');
      const got = categoryOf(() => {
        const d = api.decodeDelta(f.get('input'));
        if (d.baseRoot !== api.packRoot(base.symbols, base.edges)) throw Object.assign(new Error('root_mismatch'), { category: 'root_mismatch' });
        api.verifyDelta(base.symbols, base.edges, d.removed, d.added, d.removedEdges, d.addedEdges, d.newRoot);
      }, want);
      equal(got, want, 'error category');
    },
    'graph-stream-encode'(f) {
      const input = plain(f.get('input'));
      const opts = f.has('options') ? plain(f.get('options')) : {};
      let out = '';
      const enc = new api.StreamEncoder({ write: (s) => (out += s) }, input.tool, { tokenBudget: input.tokenBudget, tokensUsed: input.tokensUsed, ...opts });
      for (const s of input.symbols || []) enc.writeSymbol(s);
      for (const e of input.edges || []) enc.writeEdge(e);
      enc.close();
      equal(out, f.get('expected'), 'stream output');
    },
    'generic-pack-root'(f) {
      equal(api.genericPackRoot(f.get('input')), f.get('expected'), 'genericPackRoot');
    },
    'generic-delta'(f) {
      equal(api.encodeGenericDelta(f.get('input')), f.get('expected'), 'encodeGenericDelta');
    },
    'generic-delta-decode'(f) {
      const input = f.get('input');
      const run = () => {
        const d = api.decodeGenericDelta(input.get('wire'));
        return api.genericPackRoot(api.verifyGenericDelta(input.get('base'), d, input.get('expectedNewRoot') || d.newRoot));
      };
      if (f.has('expectedError')) return equal(categoryOf(run, f.get('expectedError')), f.get('expectedError'), 'error category');
      equal(run(), f.get('expected'), 'pack root');
    },
    'generic-delta-verify'(f) {
      const input = f.get('input');
      const run = () => api.genericPackRoot(api.verifyGenericDelta(input.get('base'), input.get('delta'), input.get('expectedNewRoot')));
      if (f.has('expectedError')) return equal(categoryOf(run, f.get('expectedError')), f.get('expectedError'), 'error category');
      equal(run(), f.get('expected'), 'pack root');
    },
    'generic-delta-session'(f) {
      const input = f.get('input');
      const policy = input.get('policy');
      const p = policy.get('mode') === 'sizeGuard' ? api.sizeGuard() : api.fixedN(Number(policy.get('n') || 0));
      const sess = new api.GenericDeltaSession(input.get('base'), input.get('tool') || '', p);
      const expected = f.get('expected');
      equal(sess.currentFull(), expected.get('initialFull'), 'initial full');
      expected.get('emissions').forEach((e, i) => {
        const got = sess.next(input.get('updates')[i]);
        equal(got.wire, e.get('wire'), `emission ${i} wire`);
        equal(got.isFull, e.get('isFull'), `emission ${i} isFull`);
      });
      equal(sess.turn(), expected.get('emissions').length, 'turn');
    },
  };
  return R;
}

export function runFixtures(gcf, fixtures) {
  const runners = makeRunners(gcf);
  const result = { passed: 0, failed: [], missing: {}, operations: {} };
  for (const { path, text } of fixtures) {
    let operation = '?';
    try {
      // Exact integers and key order: the package's own ordered parser.
      const f = gcf.parseJSONOrdered(text, { largeInt: 'bigint' });
      operation = f.get('operation');
      result.operations[operation] = (result.operations[operation] || 0) + 1;
      const run = runners[operation];
      if (!run) throw new Mismatch(`no runner for operation ${operation}`);
      run(f);
      result.passed++;
    } catch (e) {
      if (e instanceof Missing) result.missing[e.message] = (result.missing[e.message] || 0) + 1;
      const why = e instanceof Missing ? `the package exports no ${e.message}` : e instanceof Mismatch ? e.message : `threw ${e && e.message}`;
      result.failed.push({ path, operation, why });
    }
  }
  return result;
}
