// The compact form of graph payloads (gcf-js-engine's `compact` module):
// fields joined by NUL, no keys, no escapes. Building it is a string
// concatenation and reading it a split, both cheaper in V8 than
// JSON.stringify and JSON.parse of the same payload (bindings-node/BENCH.md).
//
// toCompact covers the plain shape only (strings, finite numbers, integer
// counts, no locations) and returns null for anything else, so the JSON
// route keeps handling, and reporting, every unusual payload exactly as it
// did. A string holding NUL shifts the engine's field count and the engine
// answers "" (use JSON).

const SEP = '\0';
const NO = Symbol('no');

// A lone surrogate would reach the engine as U+FFFD; the JSON route
// refuses it, so such a string goes that way. (Node 18 has no
// isWellFormed: any surrogate sends the payload to JSON there.)
export const wellFormed = String.prototype.isWellFormed
  ? (s) => s.isWellFormed()
  : (s) => !/[\ud800-\udfff]/.test(s);
const text = (x) => (typeof x === 'string' ? (wellFormed(x) ? x : NO) : x == null ? '' : NO);
const count = (x) => (x == null ? 0 : Number.isSafeInteger(x) && x >= 0 ? x : NO);
// JSON.stringify writes a non-finite number as null, which reads as 0.
const score = (x) => (typeof x === 'number' ? (Number.isFinite(x) ? x : 0) : x == null ? 0 : NO);
const distance = (x) => (x == null ? 0 : Number.isInteger(x) && x >= 0 && x <= 4294967295 ? x : NO);
const isRecord = (x) => x !== null && typeof x === 'object' && typeof x.toJSON !== 'function';

export function toCompact(p) {
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
  let out = tool + SEP + budget + SEP + used + SEP + root + SEP + symbols.length + SEP + edges.length + SEP;
  for (let i = 0; i < symbols.length; i++) {
    const s = symbols[i];
    if (!isRecord(s)) return null;
    const q = text(s.qualifiedName);
    const k = text(s.kind);
    const sc = score(s.score);
    const pr = text(s.provenance);
    const d = distance(s.distance);
    if (q === NO || k === NO || sc === NO || pr === NO || d === NO) return null;
    out += q + SEP + k + SEP + sc + SEP + pr + SEP + d + SEP;
  }
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i];
    if (!isRecord(e)) return null;
    const src = text(e.source);
    const dst = text(e.target);
    const t = text(e.edgeType);
    const st = text(e.status);
    if (src === NO || dst === NO || t === NO || st === NO) return null;
    out += src + SEP + dst + SEP + t + SEP + st + SEP;
  }
  return out;
}

/**
 * A decoded payload in 2.5.2's shape from the engine's compact form (which
 * starts with NUL, so f[0] is empty).
 */
export function fromCompact(c) {
  const f = c.split(SEP);
  const p = { tool: f[1], tokenBudget: +f[2], tokensUsed: +f[3] };
  if (f[4] !== '') p.packRoot = f[4];
  const ns = +f[5];
  const ne = +f[6];
  const symbols = [];
  let i = 7;
  for (let k = 0; k < ns; k++, i += 5) {
    symbols.push({ qualifiedName: f[i], kind: f[i + 1], score: +f[i + 2], provenance: f[i + 3], distance: +f[i + 4] });
  }
  const edges = [];
  for (let k = 0; k < ne; k++, i += 4) {
    // 2.5.2 gives every decoded edge a `status` key, undefined without one.
    edges.push({ source: f[i], target: f[i + 1], edgeType: f[i + 2], status: f[i + 3] === '' ? undefined : f[i + 3] });
  }
  p.symbols = symbols;
  p.edges = edges;
  return p;
}
