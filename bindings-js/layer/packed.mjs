// The packed form of graph payloads (gcf-js-engine's `packed` module, whose
// docs give the layout): strings as NUL-ended UTF-8 in a Uint8Array, numbers
// in a Float64Array, so no number is ever turned into text and back, and no
// megabyte-long string is concatenated (V8 flattens such a rope at a cost
// larger than the encode itself). Measured in bindings-node/BENCH.md.
//
// toPacked covers the plain shape only (strings, finite numbers, integer
// counts, no locations) and returns null for anything else, so the JSON
// route keeps handling, and reporting, every unusual payload exactly as it
// did.

const NO = Symbol('no');

// A lone surrogate would reach the engine as U+FFFD; the JSON route
// refuses it, so such a string goes that way (the streams check it here).
// Node 18 has no isWellFormed: any surrogate counts there.
export const wellFormed = String.prototype.isWellFormed
  ? (s) => s.isWellFormed()
  : (s) => !/[\ud800-\udfff]/.test(s);

// Scratch the arguments are written into, reused across calls (grown, never
// shrunk): a call allocates nothing for its arguments once warm.
let bytes = new Uint8Array(4096);
let nums = new Float64Array(256);
// A getter on a payload could call encode again while its caller's payload
// is half written into the scratch; such a nested call takes the JSON route.
let busy = false;

function grow(pos, need) {
  let n = bytes.length * 2;
  while (n < need) n *= 2;
  const b = new Uint8Array(n);
  b.set(bytes.subarray(0, pos));
  bytes = b;
}

// Writes s as UTF-8 and a NUL at pos; the new position, or -1 for a string
// the packed form cannot carry: one holding NUL (the field separator) or a
// lone surrogate (which JSON.stringify escapes and the JSON route refuses).
function put(s, pos) {
  const n = s.length;
  if (pos + 3 * n + 1 > bytes.length) grow(pos, pos + 3 * n + 1);
  const b = bytes;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(k);
    if (c < 0x80) {
      if (c === 0) return -1;
      b[pos++] = c;
    } else if (c < 0x800) {
      b[pos++] = 0xc0 | (c >> 6);
      b[pos++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      b[pos++] = 0xe0 | (c >> 12);
      b[pos++] = 0x80 | ((c >> 6) & 0x3f);
      b[pos++] = 0x80 | (c & 0x3f);
    } else {
      const d = k + 1 < n ? s.charCodeAt(k + 1) : 0;
      if (c > 0xdbff || d < 0xdc00 || d > 0xdfff) return -1;
      k++;
      const u = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      b[pos++] = 0xf0 | (u >> 18);
      b[pos++] = 0x80 | ((u >> 12) & 0x3f);
      b[pos++] = 0x80 | ((u >> 6) & 0x3f);
      b[pos++] = 0x80 | (u & 0x3f);
    }
  }
  b[pos++] = 0;
  return pos;
}

// A string field (null and undefined are "", as JSON.stringify omits them
// and the engine's serde read defaults them).
function field(x, pos) {
  return typeof x === 'string' ? put(x, pos) : x == null ? put('', pos) : -1;
}
const count = (x) => (x == null ? 0 : Number.isSafeInteger(x) && x >= 0 ? x : NO);
// JSON.stringify writes a non-finite number as null, which reads as 0.
const score = (x) => (typeof x === 'number' ? (Number.isFinite(x) ? x : 0) : x == null ? 0 : NO);
const distance = (x) => (x == null ? 0 : Number.isInteger(x) && x >= 0 && x <= 4294967295 ? x : NO);
const isRecord = (x) => x !== null && typeof x === 'object' && typeof x.toJSON !== 'function';

/**
 * The engine's packed arguments for payload p, `[bytes, nums]` (views of
 * the scratch, valid until the next call), or null for the JSON route.
 */
export function toPacked(p) {
  if (busy) return null;
  busy = true;
  try {
    return pack(p);
  } finally {
    busy = false;
  }
}

function pack(p) {
  if (!isRecord(p)) return null;
  const symbols = p.symbols == null ? [] : p.symbols;
  const edges = p.edges == null ? [] : p.edges;
  const locations = p.locations;
  if (!Array.isArray(symbols) || !Array.isArray(edges)) return null;
  if (locations != null && !(Array.isArray(locations) && locations.length === 0)) return null;
  const budget = count(p.tokenBudget);
  const used = count(p.tokensUsed);
  if (budget === NO || used === NO) return null;
  let pos = field(p.tool, 0);
  if (pos < 0 || (pos = field(p.packRoot, pos)) < 0) return null;
  const ns = symbols.length;
  const ne = edges.length;
  const nn = 4 + 2 * ns;
  if (nums.length < nn) {
    let n = nums.length * 2;
    while (n < nn) n *= 2;
    nums = new Float64Array(n);
  }
  const f = nums;
  f[0] = budget;
  f[1] = used;
  f[2] = ns;
  f[3] = ne;
  for (let i = 0, j = 4; i < ns; i++, j += 2) {
    const s = symbols[i];
    if (!isRecord(s)) return null;
    if ((pos = field(s.qualifiedName, pos)) < 0) return null;
    if ((pos = field(s.kind, pos)) < 0) return null;
    const sc = score(s.score);
    if (sc === NO) return null;
    if ((pos = field(s.provenance, pos)) < 0) return null;
    const d = distance(s.distance);
    if (d === NO) return null;
    f[j] = sc;
    f[j + 1] = d;
  }
  for (let i = 0; i < ne; i++) {
    const e = edges[i];
    if (!isRecord(e)) return null;
    if ((pos = field(e.source, pos)) < 0) return null;
    if ((pos = field(e.target, pos)) < 0) return null;
    if ((pos = field(e.edgeType, pos)) < 0) return null;
    if ((pos = field(e.status, pos)) < 0) return null;
  }
  return [bytes.subarray(0, pos), f.subarray(0, nn)];
}

/**
 * A decoded payload in 2.5.2's shape from the engine's packed form: the
 * string table `t` (starting with NUL, so entry i is split()[i]) and `f`.
 */
export function fromPacked(t, f) {
  const s = t.split('\0');
  const p = { tool: s[1], tokenBudget: f[0], tokensUsed: f[1] };
  if (s[2] !== '') p.packRoot = s[2];
  const ns = f[2];
  const ne = f[3];
  const symbols = [];
  let j = 4;
  for (let k = 0; k < ns; k++, j += 5) {
    symbols.push({ qualifiedName: s[f[j]], kind: s[f[j + 1]], score: f[j + 2], provenance: s[f[j + 3]], distance: f[j + 4] });
  }
  const edges = [];
  for (let k = 0; k < ne; k++, j += 4) {
    const st = f[j + 3];
    // 2.5.2 gives every decoded edge a `status` key, undefined without one.
    edges.push({ source: s[f[j]], target: s[f[j + 1]], edgeType: s[f[j + 2]], status: st === 0 ? undefined : s[st] });
  }
  p.symbols = symbols;
  p.edges = edges;
  return p;
}
