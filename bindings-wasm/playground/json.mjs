// JSON text of a decoded value, in key order. Values come from the engine's
// ordered parser and decoders, so objects are Maps (a plain object would move
// integer-like keys to the front) and big integers may be BigInts.

/** The value as JSON text: compact without `indent`, else like JSON.stringify(v, null, indent). */
export function stringify(value, indent = 0) {
  const pad = ' '.repeat(indent);
  const walk = (v, depth) => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : 'null';
    if (typeof v !== 'object') return JSON.stringify(v);
    const entries = Array.isArray(v)
      ? v.map((x) => walk(x, depth + 1))
      : [...(v instanceof Map ? v : Object.entries(v))].map(([k, x]) => JSON.stringify(String(k)) + (indent ? ': ' : ':') + walk(x, depth + 1));
    const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
    if (!entries.length) return open + close;
    if (!indent) return open + entries.join(',') + close;
    const inner = '\n' + pad.repeat(depth + 1);
    return open + inner + entries.join(',' + inner) + '\n' + pad.repeat(depth) + close;
  };
  return walk(value, 0);
}

/** Maps to plain objects, for the graph profile's payload objects. */
export function toPlain(v) {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, toPlain(x)]));
  if (Array.isArray(v)) return v.map(toPlain);
  return typeof v === 'bigint' ? Number(v) : v;
}
