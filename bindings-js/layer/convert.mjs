// Moving values across the engine boundary.
//
// In: a JSON text. Plain objects and arrays of plain data would go through
// JSON.stringify alone, but 2.5.2 also takes Maps (parseJSONOrdered's output)
// and bigints, which JSON.stringify cannot write, so generic values go
// through toJSON, which writes keys in the order 2.5.2 reads them (a Map's
// insertion order, Object.keys for objects) and every number so that the core
// reads it back as the same double.
//
// Out: the engine's tagged JSON (objects as [k, v, ...], arrays as {"a": [..]},
// large integers as {"i": "digits"}), turned into Maps and arrays in one walk.

import { GcfError } from './errors.mjs';

const LARGE_INT_MODES = ['number', 'string', 'bigint', 'error'];

function checkLargeIntMode(mode) {
  if (!LARGE_INT_MODES.includes(mode)) {
    throw new GcfError('usage', `largeInt must be one of ${LARGE_INT_MODES.join(', ')}, got ${String(mode)}`, null, null, 'usage');
  }
  return mode;
}

function number(n, largeInt) {
  if (Number.isSafeInteger(n)) return '' + n;
  if (!Number.isFinite(n)) {
    throw new GcfError('out_of_range', `${n} is not a finite number`, null, null, 'data');
  }
  if (Number.isInteger(n)) {
    if (largeInt === 'error') {
      throw new GcfError('out_of_range', `integer ${n} is beyond 2^53 and cannot be represented exactly`, null, null, 'data');
    }
    // An integral double past 2^53 goes as a double, which the core writes
    // as the spec says (5e18 is `5e+18`, numbers/024). 2.5.2 writes
    // String(n) ("5000000000000000000"); this package follows the spec. An
    // exact integer past 2^53 is a bigint.
    const s = '' + n;
    return s.includes('e') ? s : s + '.0';
  }
  return '' + n;
}

// The core's default depth limit (Limits::max_depth): containers on a
// value's deepest path, the outermost being 1. The walks here stop there,
// with the core's error, rather than recurse until the JS stack runs out
// (which a value that contains itself would do at any depth).
const MAX_DEPTH = 128;

function tooDeep() {
  return new GcfError('limit_exceeded', `value nests deeper than ${MAX_DEPTH} levels (or contains itself)`, null, null, 'limit');
}

function toJSON(v, largeInt, depth = 0) {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return number(v, largeInt);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'object': {
      if (v === null) return 'null';
      if (depth >= MAX_DEPTH) throw tooDeep();
      if (Array.isArray(v)) {
        let s = '[';
        for (let i = 0; i < v.length; i++) {
          if (i > 0) s += ',';
          s += toJSON(v[i], largeInt, depth + 1);
        }
        return s + ']';
      }
      if (v instanceof Map) {
        let s = '{';
        let first = true;
        for (const [k, x] of v) {
          if (!first) s += ',';
          first = false;
          s += JSON.stringify(String(k)) + ':' + toJSON(x, largeInt, depth + 1);
        }
        return s + '}';
      }
      const keys = Object.keys(v);
      let s = '{';
      for (let i = 0; i < keys.length; i++) {
        if (i > 0) s += ',';
        const k = keys[i];
        s += JSON.stringify(k) + ':' + toJSON(v[k], largeInt, depth + 1);
      }
      return s + '}';
    }
    case 'function':
    case 'symbol':
      // As 2.5.2 writes them: their String() form (a function's source,
      // `Symbol(x)`), a string like any other.
      return JSON.stringify(String(v));
    default:
      return 'null';
  }
}

// Whether JSON.stringify writes `v` exactly as toJSON would: only plain
// objects (no Map, no toJSON method), arrays, strings, booleans, null and
// numbers that are finite and either safe integers or not integers. The
// check walks without building anything, so V8's native stringify does the
// writing when it can (about 3x faster than toJSON on records).
function isPlain(v, depth) {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v) && (Number.isSafeInteger(v) || !Number.isInteger(v));
    case 'object': {
      if (v === null) return true;
      // Too deep (or cyclic): toJSON reports it.
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) if (!isPlain(v[i], depth + 1)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(v);
      if ((proto !== Object.prototype && proto !== null) || typeof v.toJSON === 'function') return false;
      for (const k in v) {
        if (!Object.prototype.hasOwnProperty.call(v, k)) return false;
        if (!isPlain(v[k], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

function valueJSON(v, largeInt) {
  return isPlain(v, 0) ? JSON.stringify(v) : toJSON(v, largeInt);
}

function largeInteger(digits, largeInt) {
  switch (largeInt) {
    case 'string':
      return digits;
    case 'bigint':
      return BigInt(digits);
    case 'error':
      throw new GcfError('out_of_range', `integer ${digits} is beyond 2^53 and cannot be represented exactly as a number`, null, null, 'data');
    default:
      return Number(digits);
  }
}

function fromTagged(x, largeInt) {
  if (typeof x !== 'object' || x === null) return x;
  if (Array.isArray(x)) {
    const m = new Map();
    for (let i = 0; i < x.length; i += 2) m.set(x[i], fromTagged(x[i + 1], largeInt));
    return m;
  }
  const a = x.a;
  if (a !== undefined) {
    for (let i = 0; i < a.length; i++) {
      const y = a[i];
      if (typeof y === 'object' && y !== null) a[i] = fromTagged(y, largeInt);
    }
    return a;
  }
  return largeInteger(x.i, largeInt);
}

export { valueJSON, isPlain, toJSON, fromTagged, checkLargeIntMode, largeInteger, LARGE_INT_MODES };
