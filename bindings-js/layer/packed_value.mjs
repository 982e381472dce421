// The packed form of generic values (gcf-js-engine's `packed_value` module,
// whose docs give the layout): one op byte per value, strings as UTF-8 back
// to back, numbers and the strings' lengths (UTF-16 units, which JS knows
// without reading a string) in a Float64Array, and an object's keys only
// when they differ from the last object's at the same depth, so the keys of
// records cross once. It replaces JSON.stringify (and the walk that checks a value
// is plain enough for it) on encodeGeneric's way in: measured in
// bindings-node/BENCH.md.
//
// It covers what JSON.stringify would write as the JSON route does
// (objects with Object.prototype or null as prototype and no toJSON,
// arrays, Maps, strings, booleans, null and undefined, finite numbers that
// are safe integers or not integers) and returns null for anything else
// (bigints, integral numbers past 2^53, non-finite numbers, class
// instances, inherited properties, nesting past 200), so the JSON route
// keeps handling, and reporting, every unusual value exactly as it did.
// A string with a lone surrogate is packed all the same: the engine sees
// U+FFFD and answers "", which sends the caller to the JSON route too.

import { Utf8Scratch, CHUNK, grow } from './packed.mjs';

// The op codes (the engine's stream rows use the scalar ones too).
export const NULL = 110; // n
export const TRUE = 116; // t
export const FALSE = 102; // f
export const STRING = 115; // s
export const NUMBER = 100; // d
const ARRAY = 91; // [
const OBJECT = 123; // {
const SAME_KEYS = 40; // (
const END = 46; // .
// Deeper values take the JSON route, whose walk stops at the engine's own
// limit (128, lower) and reports it (convert.mjs).
const MAX_DEPTH = 200;

// The writer and its scratch (one per module instance, reused by every call).
class ValuePacker {
  constructor() {
    this.text = new Utf8Scratch();
    this.ops = new Uint8Array(1024);
    this.o = 0;
    this.nums = new Float64Array(256);
    this.n = 0;
    // Strings not yet written to `text`, and how many.
    this.out = '';
    this.pending = 0;
    // Per depth, the keys of the last object closed there.
    this.shapes = [];
    // A getter on a value could call encodeGeneric again while its caller's
    // value is half written; such a nested call takes the JSON route.
    this.busy = false;
  }

  op(c) {
    if (this.o === this.ops.length) this.ops = grow(this.ops, this.o + 1);
    this.ops[this.o++] = c;
  }

  num(x) {
    if (this.n === this.nums.length) this.nums = grow(this.nums, this.n + 1);
    this.nums[this.n++] = x;
  }

  // No separator: the engine slices each string by its length, and a
  // chunk with half the pieces is cheaper for encodeInto to flatten.
  str(s) {
    this.num(s.length);
    this.out += s;
    if (++this.pending === CHUNK) {
      this.text.write(this.out);
      this.out = '';
      this.pending = 0;
    }
  }

  pack(v) {
    if (this.busy) return null;
    this.busy = true;
    this.o = 0;
    this.n = 0;
    this.text.pos = 0;
    this.out = '';
    this.pending = 0;
    try {
      if (!this.walk(v, 0)) return null;
      this.text.write(this.out);
      // The scratch arrays whole and the lengths in use (see toPacked).
      return [this.ops, this.text.bytes, this.nums, this.o, this.text.pos, this.n];
    } finally {
      this.out = '';
      this.shapes.length = 0;
      this.busy = false;
    }
  }

  // A value at depth d: containers here, everything else in scalar(). The
  // member loops call the two directly, so a record's scalars (most of
  // its values) cost one small call each.
  walk(v, d) {
    return typeof v === 'object' && v !== null ? this.container(v, d) : this.scalar(v);
  }

  scalar(v) {
    switch (typeof v) {
      case 'string':
        this.op(STRING);
        this.str(v);
        return true;
      case 'number':
        if (Number.isSafeInteger(v) || (Number.isFinite(v) && !Number.isInteger(v))) {
          this.op(NUMBER);
          this.num(v);
          return true;
        }
        return false;
      case 'boolean':
        this.op(v ? TRUE : FALSE);
        return true;
      case 'undefined':
      case 'object':
        // null, and undefined, which the JSON route writes as null.
        this.op(NULL);
        return true;
      default:
        // bigint, function, symbol: the JSON route writes these (a function
        // or symbol as the string 2.5.2 writes, its String() form).
        return false;
    }
  }

  container(v, d) {
    if (d > MAX_DEPTH) return false;
    if (Array.isArray(v)) {
      this.op(ARRAY);
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (!(typeof x === 'object' && x !== null ? this.container(x, d + 1) : this.scalar(x))) return false;
      }
      this.op(END);
      return true;
    }
    if (v instanceof Map) return this.map(v, d);
    const proto = Object.getPrototypeOf(v);
    if ((proto !== Object.prototype && proto !== null) || typeof v.toJSON === 'function') return false;
    return this.object(v, d);
  }

  // The keys so far of an object whose shape is being compared with `c`
  // (the last object's at its depth), its key `k` at `i` just read: null
  // while they match it, else the object's own keys. A method, as
  // everything the walk calls: in the ESM bundle (the wasm package's) a call
  // to a module-level function from the walk made it about a fifth slower
  // than in the CommonJS one.
  track(c, i, k, fresh) {
    if (fresh === null) {
      if (c[i] === k) return null;
      fresh = c.slice(0, i);
    }
    fresh.push(k);
    return fresh;
  }

  // A plain object's members, their keys tracked against the shape at its
  // depth.
  object(v, d) {
    const at = this.o;
    this.op(SAME_KEYS);
    const c = this.shapes[d];
    let fresh = c === undefined ? [] : null;
    let i = 0;
    for (const k in v) {
      if (!Object.prototype.hasOwnProperty.call(v, k)) return false;
      fresh = this.track(c, i++, k, fresh);
      const x = v[k];
      if (!(typeof x === 'object' && x !== null ? this.container(x, d + 1) : this.scalar(x))) return false;
    }
    return this.close(at, d, c, fresh, i);
  }

  // A Map's members, as object() does a plain object's.
  map(v, d) {
    const at = this.o;
    this.op(SAME_KEYS);
    const c = this.shapes[d];
    let fresh = c === undefined ? [] : null;
    let i = 0;
    for (const [key, x] of v) {
      const k = String(key);
      fresh = this.track(c, i++, k, fresh);
      if (!this.walk(x, d + 1)) return false;
    }
    return this.close(at, d, c, fresh, i);
  }

  // The end of an object of i members: its keys written when they are not
  // the last shape's, and kept as the shape at its depth.
  close(at, d, c, fresh, i) {
    this.op(END);
    if (fresh === null) {
      if (i === c.length) return true;
      fresh = c.slice(0, i);
    }
    this.ops[at] = OBJECT;
    this.shapes[d] = fresh;
    for (let j = 0; j < fresh.length; j++) this.str(fresh[j]);
    return true;
  }
}

const packer = new ValuePacker();

/**
 * The engine's packed arguments for value v, `[ops, text, nums, opsLen,
 * textLen, numsLen]` (the scratch arrays whole, valid until the next call,
 * and how much of each the value fills: see toPacked), or null for the
 * JSON route.
 */
export function toPackedValue(v) {
  return packer.pack(v);
}

// The decode direction (gcf-js-engine's generic_decode_packed, its
// packed_decode module): `t` starts with a NUL, then the ops, then every
// string the ops ask for, each after a NUL; `f` holds the numbers. The ops
// run a stack machine in the order the decoder finished the values: a scalar
// op pushes its value (`S` string, `D` number, `I` integer past 2^53 as
// digits, `N`/`T`/`F`); `A` (length), `O` + slot digit (size, keys kept in
// the slot) and `P` + slot digit (the slot's keys) pop their members and push
// the container; `a`, `o`, `p` gather their members by stack position (the
// next numbers) instead; `R` returns the value at the next position.
const D_NULL = 78; // N
const D_TRUE = 84; // T
const D_FALSE = 70; // F
const D_STRING = 83; // S
const D_NUMBER = 68; // D
const D_LARGE = 73; // I
const D_ARRAY = 65; // A
const D_OBJECT = 79; // O
const D_SAME_KEYS = 80; // P
const D_GATHER_ARRAY = 97; // a
const D_GATHER_OBJECT = 111; // o
const D_GATHER_SAME_KEYS = 112; // p
const D_ROOT = 82; // R
const D_SLOT0 = 48; // 0

/**
 * A decoded value (objects as Maps, as decodeGeneric gives them) from the
 * engine's packed form; integers beyond 2^53 go through `large(digits)`.
 */
export function fromPackedValue(t, f, large) {
  const s = t.split('\0');
  const ops = s[1];
  let o = 0;
  let si = 2;
  let ni = 0;
  const st = [];
  let sp = 0;
  const shapes = [];
  for (;;) {
    const op = ops.charCodeAt(o++);
    switch (op) {
      case D_STRING:
        st[sp++] = s[si++];
        break;
      case D_NUMBER:
        st[sp++] = f[ni++];
        break;
      case D_NULL:
        st[sp++] = null;
        break;
      case D_TRUE:
        st[sp++] = true;
        break;
      case D_FALSE:
        st[sp++] = false;
        break;
      case D_LARGE:
        st[sp++] = large(s[si++]);
        break;
      case D_ARRAY: {
        const n = f[ni++];
        const a = st.slice(sp - n, sp);
        sp -= n;
        st[sp++] = a;
        break;
      }
      case D_GATHER_ARRAY: {
        const n = f[ni++];
        const a = [];
        for (let i = 0; i < n; i++) a.push(st[f[ni++]]);
        st[sp++] = a;
        break;
      }
      case D_OBJECT:
      case D_SAME_KEYS:
      case D_GATHER_OBJECT:
      case D_GATHER_SAME_KEYS: {
        const slot = ops.charCodeAt(o++) - D_SLOT0;
        let keys;
        if (op === D_OBJECT || op === D_GATHER_OBJECT) {
          const n = f[ni++];
          keys = s.slice(si, si + n);
          si += n;
          shapes[slot] = keys;
        } else {
          keys = shapes[slot];
        }
        const n = keys.length;
        const m = new Map();
        if (op === D_OBJECT || op === D_SAME_KEYS) {
          const base = sp - n;
          for (let i = 0; i < n; i++) m.set(keys[i], st[base + i]);
          sp = base;
        } else {
          for (let i = 0; i < n; i++) m.set(keys[i], st[f[ni++]]);
        }
        st[sp++] = m;
        break;
      }
      case D_ROOT:
        return st[f[ni++]];
      default:
        throw new Error('gcf: malformed packed value from the engine');
    }
  }
}
