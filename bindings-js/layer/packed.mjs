// The packed form of graph payloads (gcf-js-engine's `packed` module, whose
// docs give the layout): strings as UTF-8 back to back in a Uint8Array,
// numbers and the strings' lengths in a Float64Array, so no number is ever
// turned into text and back (V8
// spends a few hundred nanoseconds on each score). Measured in
// bindings-node/BENCH.md.
//
// toPacked covers the plain shape only (strings, finite numbers, integer
// counts, no locations) and returns null for anything else, so the JSON
// route keeps handling, and reporting, every unusual payload exactly as it
// did.

const NO = Symbol('no');

// A lone surrogate would reach the engine as U+FFFD; the JSON route
// refuses it, so such a string goes that way (the streams check it here).
// Node 18 has no isWellFormed: a surrogate without its other half is found
// by a pattern there (a pair, an emoji, is well formed: callers refuse what
// this rejects).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
export const wellFormed = String.prototype.isWellFormed
  ? (s) => s.isWellFormed()
  : (s) => !LONE_SURROGATE.test(s);

const encoder = new TextEncoder();

// Strings are concatenated CHUNK items at a time and each chunk written with
// encodeInto: a short rope flattens in cache, while one rope of the whole
// payload cost more to flatten than everything else (and a charCodeAt loop
// in JS ran at about 2 ns a character). Measured in bindings-node/BENCH.md.
export const CHUNK = 256;

/** A typed array of at least `need` elements holding `a`'s (twice as long, or more). */
export function grow(a, need) {
  let n = a.length * 2;
  while (n < need) n *= 2;
  const b = new a.constructor(n);
  b.set(a);
  return b;
}

/**
 * UTF-8 scratch the packed arguments' strings are written into, reused
 * across calls (grown, never shrunk): a call allocates nothing for its
 * arguments once warm. `pos` bytes are written; setting it to 0 starts over.
 */
export class Utf8Scratch {
  constructor() {
    this.bytes = new Uint8Array(4096);
    this.pos = 0;
  }

  /** Appends `s` as UTF-8 (a lone surrogate as U+FFFD). */
  write(s) {
    const pos = this.pos;
    // UTF-16 code units to UTF-8: at most 3 bytes each.
    const need = pos + 3 * s.length;
    if (need > this.bytes.length) this.bytes = grow(this.bytes, need);
    this.pos = pos + encoder.encodeInto(s, pos === 0 ? this.bytes : this.bytes.subarray(pos)).written;
  }

  /** The bytes written since the last reset (a view of the scratch). */
  view() {
    return this.bytes.subarray(0, this.pos);
  }
}

// The numbers of a packed decode (graph or generic), when they fit: the napi
// engine writes them here and answers the strings alone, since a new
// Float64Array per call cost V8 about 0.8 µs even for a few numbers (a
// backing store off its heap), more than a small decode's engine work.
// 4,096 numbers (32 KB) hold a graph of about 400 symbols and edges or a few
// hundred records; a larger result comes with an array of its own, whose
// cost is small beside it. Read at once by fromPacked or fromPackedValue,
// which run no other code meanwhile.
export const NUMS = new Float64Array(4096);

const scratch = new Utf8Scratch();
let nums = new Float64Array(256);
// A getter on a payload could call encode again while its caller's payload
// is half written into the scratch; such a nested call takes the JSON route.
let busy = false;

// A string field: null and undefined are "", as JSON.stringify omits them
// and the engine's serde read defaults them. A string holding NUL (the
// field separator) shifts the engine's field count, and a lone surrogate
// (which JSON.stringify escapes and the JSON route refuses) arrives as
// U+FFFD: the engine refuses both, and the caller takes the JSON route.
const text = (x) => (typeof x === 'string' ? x : x == null ? '' : NO);
const count = (x) => (x == null ? 0 : Number.isSafeInteger(x) && x >= 0 ? x : NO);
// JSON.stringify writes a non-finite number as null, which reads as 0.
const score = (x) => (typeof x === 'number' ? (Number.isFinite(x) ? x : 0) : x == null ? 0 : NO);
const distance = (x) => (x == null ? 0 : Number.isInteger(x) && x >= 0 && x <= 4294967295 ? x : NO);
const isRecord = (x) => x !== null && typeof x === 'object' && typeof x.toJSON !== 'function';

/**
 * The engine's packed arguments for payload p, `[bytes, nums, bytesLen,
 * numsLen]`: the scratch arrays whole (valid until the next call) and how
 * much of each the payload fills, or null for the JSON route. Whole arrays
 * and lengths rather than `subarray` views: V8 allocates an object for
 * every view, 80-100 ns each, a tenth of a one-symbol encode.
 */
export function toPacked(p) {
  if (busy) return null;
  busy = true;
  try {
    return pack(p);
  } finally {
    busy = false;
    // Only when it holds anything: V8's clear() allocates a new table even
    // for an empty Map (about 45 ns, on every call of a small payload).
    if (tokenOf.size !== 0) tokenOf.clear();
    tokenList.length = 0;
  }
}

// The payload's distinct tokens (kinds, provenances, edge types, statuses)
// of the call being packed, each with its place in the list: sent once
// rather than with every record (see the engine's packed module). A
// payload has a handful, found by scanning the list (`===` on the same
// string object is one comparison); past SCANNED the rest go in a Map,
// which cost a 10-symbol encode a third more when it held them all.
const SCANNED = 16;
const tokenList = [];
const tokenOf = new Map();
function token(t) {
  const n = tokenList.length;
  for (let i = 0; i < n && i < SCANNED; i++) if (tokenList[i] === t) return i;
  if (n > SCANNED) {
    const i = tokenOf.get(t);
    if (i !== undefined) return i;
  }
  tokenList.push(t);
  if (n >= SCANNED) tokenOf.set(t, n);
  return n;
}

// Names and endpoints are concatenated this many records at a time
// (without separators the pieces are fewer than CHUNK's streams and values
// concatenate: 0.35 -> 0.30 ms for the 20,000 strings of 10,000 symbols
// and edges, against 256).
const GRAPH_CHUNK = 1024;

function pack(p) {
  if (!isRecord(p)) return null;
  const symbols = p.symbols == null ? [] : p.symbols;
  const edges = p.edges == null ? [] : p.edges;
  const locations = p.locations;
  if (!Array.isArray(symbols) || !Array.isArray(edges)) return null;
  if (locations != null && !(Array.isArray(locations) && locations.length === 0)) return null;
  const tool = text(p.tool);
  const budget = count(p.tokenBudget);
  const used = count(p.tokensUsed);
  const root = text(p.packRoot);
  if (tool === NO || budget === NO || used === NO || root === NO) return null;
  const ns = symbols.length;
  const ne = edges.length;
  // The records' numbers; the tokens' lengths follow once they are known.
  let nn = 7 + 5 * ns + 4 * ne;
  if (nums.length < nn) nums = grow(nums, nn);
  let f = nums;
  f[0] = budget;
  f[1] = used;
  f[2] = ns;
  f[3] = ne;
  f[5] = tool.length;
  f[6] = root.length;
  scratch.pos = 0;
  // Strings back to back, each one's length (in UTF-16 units, as the engine
  // counts them) among the numbers: no separator to concatenate.
  let out = tool + root;
  let j = 7;
  for (let i = 0; i < ns; i++, j += 5) {
    const s = symbols[i];
    if (!isRecord(s)) return null;
    const q = text(s.qualifiedName);
    const k = text(s.kind);
    const sc = score(s.score);
    const pr = text(s.provenance);
    const d = distance(s.distance);
    if (q === NO || k === NO || sc === NO || pr === NO || d === NO) return null;
    out += q;
    f[j] = q.length;
    f[j + 1] = sc;
    f[j + 2] = d;
    f[j + 3] = token(k);
    f[j + 4] = token(pr);
    if (i % GRAPH_CHUNK === GRAPH_CHUNK - 1) {
      scratch.write(out);
      out = '';
    }
  }
  for (let i = 0; i < ne; i++, j += 4) {
    const e = edges[i];
    if (!isRecord(e)) return null;
    const src = text(e.source);
    const dst = text(e.target);
    const t = text(e.edgeType);
    const st = text(e.status);
    if (src === NO || dst === NO || t === NO || st === NO) return null;
    out += src + dst;
    f[j] = src.length;
    f[j + 1] = dst.length;
    f[j + 2] = token(t);
    f[j + 3] = token(st);
    if (i % GRAPH_CHUNK === GRAPH_CHUNK - 1) {
      scratch.write(out);
      out = '';
    }
  }
  const nt = tokenList.length;
  f[4] = nt;
  nn += nt;
  if (f.length < nn) nums = f = grow(f, nn);
  for (let i = 0; i < nt; i++, j++) {
    const t = tokenList[i];
    out += t;
    f[j] = t.length;
  }
  scratch.write(out);
  return [scratch.bytes, f, scratch.pos, nn];
}

/**
 * A decoded payload in 2.5.2's shape from the engine's packed form: the
 * string table `t` (starting with NUL, so entry i is split()[i]) and `f`.
 */
export function fromPacked(t, f) {
  const s = t.split('\0');
  const p = { tool: s[1], tokenBudget: f[0], tokensUsed: f[1] };
  const ns = f[2];
  const ne = f[3];
  // Sized once: grown by push, a 100,000-symbol result copied its arrays'
  // backing stores about twenty times each, garbage that the young generation
  // then has to sweep (about a tenth of this function's time at that size).
  const symbols = new Array(ns);
  let j = 4;
  for (let k = 0; k < ns; k++, j += 5) {
    symbols[k] = { qualifiedName: s[f[j]], kind: s[f[j + 1]], score: f[j + 2], provenance: s[f[j + 3]], distance: f[j + 4] };
  }
  const edges = new Array(ne);
  for (let k = 0; k < ne; k++, j += 4) {
    const st = f[j + 3];
    // 2.5.2 gives every decoded edge a `status` key, undefined without one.
    edges[k] = { source: s[f[j]], target: s[f[j + 1]], edgeType: s[f[j + 2]], status: st === 0 ? undefined : s[st] };
  }
  p.symbols = symbols;
  p.edges = edges;
  // After the edges, as 2.5.2's decoder adds it (its header is read after
  // the payload object is made), so JSON.stringify gives 2.5.2's bytes.
  if (s[2] !== '') p.packRoot = s[2];
  return p;
}
