// parseJSONOrdered: JSON text to values with a Map per object, members in
// the order written (spec §7.4.3). V8's JSON.parse is the fast route and
// keeps member order except for integer-like keys, which objects move to the
// front; when any object of the result has one (they come first, so its first
// key shows it), or when large integers must keep their digits, the text is
// read again by the exact parser below. Malformed input is a SyntaxError,
// as in 2.5.2.

import { checkLargeIntMode, largeInteger } from './convert.mjs';
import { GcfError } from './errors.mjs';

function isIndexKey(k) {
  const c = k.charCodeAt(0);
  if (c < 48 || c > 57) return false;
  return k === '0' || (/^[1-9][0-9]*$/.test(k) && Number(k) < 4294967295);
}

class Reordered extends Error {}

function toMaps(v) {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x === 'object' && x !== null) v[i] = toMaps(x);
    }
    return v;
  }
  const m = new Map();
  let first = true;
  for (const k in v) {
    if (first && isIndexKey(k)) throw new Reordered();
    first = false;
    m.set(k, toMaps(v[k]));
  }
  return m;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

class Parser {
  constructor(text, largeInt) {
    this.s = text;
    this.i = 0;
    this.largeInt = largeInt;
  }
  fail(what) {
    if (this.i >= this.s.length) throw new SyntaxError('Unexpected end of JSON input');
    throw new SyntaxError(`${what} in JSON at position ${this.i}`);
  }
  ws() {
    const s = this.s;
    while (this.i < s.length && WS.has(s.charCodeAt(this.i))) this.i++;
  }
  value(depth) {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object(depth + 1);
    if (c === '[') return this.array(depth + 1);
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    return this.fail('Unexpected token');
  }
  object(depth) {
    this.i++;
    const m = new Map();
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return m;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail('Expected string key');
      const k = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail("Expected ':'");
      this.i++;
      m.set(k, this.value(depth));
      this.ws();
      const c = this.s[this.i];
      this.i++;
      if (c === '}') return m;
      if (c !== ',') {
        this.i--;
        this.fail("Expected ',' or '}'");
      }
    }
  }
  array(depth) {
    this.i++;
    const a = [];
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return a;
    }
    for (;;) {
      a.push(this.value(depth));
      this.ws();
      const c = this.s[this.i];
      this.i++;
      if (c === ']') return a;
      if (c !== ',') {
        this.i--;
        this.fail("Expected ',' or ']'");
      }
    }
  }
  string() {
    // The exact JSON string grammar, decoded by JSON.parse itself.
    const s = this.s;
    const start = this.i;
    this.i++;
    for (;;) {
      if (this.i >= s.length) this.fail('Unterminated string');
      const c = s.charCodeAt(this.i);
      if (c === 0x22) break;
      if (c < 0x20) this.fail('Unescaped control character');
      if (c === 0x5c) this.i++;
      this.i++;
    }
    this.i++;
    try {
      return JSON.parse(s.slice(start, this.i));
    } catch (_) {
      this.i = start;
      return this.fail('Invalid escape');
    }
  }
  number() {
    // Sticky, at the cursor: a literal of any length, without a copy of the
    // rest of the text.
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s);
    if (!m || m[0] === '-') return this.fail('Unexpected token');
    this.i += m[0].length;
    const n = Number(m[0]);
    if (!m[2] && !m[3] && !Number.isSafeInteger(n)) return largeInteger(m[0], this.largeInt);
    return n;
  }
}

const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

function parseExact(text, largeInt) {
  const p = new Parser(text, largeInt);
  const v = p.value(0);
  p.ws();
  if (p.i < text.length) p.fail('Unexpected non-whitespace character after JSON');
  return v;
}

function parseJSONOrdered(text, opts = undefined) {
  const largeInt = opts && opts.largeInt !== undefined ? checkLargeIntMode(opts.largeInt) : 'number';
  text = String(text);
  try {
    if (largeInt === 'number') {
      const v = JSON.parse(text);
      try {
        return toMaps(v);
      } catch (e) {
        if (!(e instanceof Reordered)) throw e;
      }
    }
    return parseExact(text, largeInt);
  } catch (e) {
    // Nesting deeper than the JS stack holds (a few thousand levels; the
    // encoders take 128): the limit's error, not a bare stack overflow.
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      throw new GcfError('limit_exceeded', 'the JSON nests deeper than the stack can read', null, null, 'json');
    }
    throw e;
  }
}

export { parseJSONOrdered };
