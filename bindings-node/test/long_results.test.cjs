'use strict';
// A result longer than the longest string V8 can make (2^29 - 24 UTF-16
// units) cannot reach JavaScript as one string. The native engine says so
// as a GcfError (`limit_exceeded`, with the length) instead of napi's
// conversion failure, which named neither. The WebAssembly engine's strings
// are made by the JS engine's own TextDecoder, whose limit depends on the
// JS engine (V8, SpiderMonkey and JavaScriptCore differ), so it keeps that
// engine's own error; this test runs on the native engine only.
const test = require('node:test');
const assert = require('node:assert');
const gcf = require('../index.cjs');
const engine = require('../lib/engine/index.cjs');

const V8_MAX_STRING_LEN = 2 ** 29 - 24;

test('an encode past the longest V8 string is limit_exceeded with its length', { skip: engine.name() !== 'native' && 'native engine only' }, () => {
  // 520 records holding the same 1 MiB string: a small JS heap, 545 M
  // characters of GCF (2.5.2's join throws `RangeError: Invalid string
  // length` here; napi's conversion threw a bare Error before).
  const big = 'x'.repeat(1 << 20);
  const rows = Array.from({ length: 520 }, (_, i) => ({ id: i, text: big }));
  assert.throws(
    () => gcf.encodeGeneric(rows),
    (e) => {
      assert.strictEqual(e.category, 'limit_exceeded');
      assert.match(e.message, /the result is 545\d{6} characters long, past the longest string this JavaScript engine can make \(536870888\)/);
      assert.match(e.message, /stream encoders/);
      return true;
    },
  );
});

test('a decoded result past the longest V8 string is limit_exceeded with its length', { skip: engine.name() !== 'native' && 'native engine only' }, () => {
  // 3.7 MB of GCF whose constant column (spec §7.4.7) repeats 1,000
  // characters into each of 540,000 rows: the engine's form of the decoded
  // rows passes the limit, where the input and every row are small. The
  // expansion budget is raised (by default it refuses this document
  // first, as the next assertion shows).
  const n = 540_000;
  const text =
    `GCF profile=generic\n## [${n}]{id,t=${'x'.repeat(1000)}}\n` +
    Array.from({ length: n }, (_, i) => String(i)).join('\n') +
    '\n';
  assert.throws(
    () => gcf.decodeGeneric(text),
    (e) => e.category === 'limit_exceeded' && /expansion|repeated/.test(e.message),
  );
  assert.throws(
    () => gcf.decodeGeneric(text, { limits: { maxExpansion: 2 ** 40 } }),
    (e) => {
      assert.strictEqual(e.category, 'limit_exceeded');
      const m = /the result is (\d+) characters long, past the longest string this JavaScript engine can make \((\d+)\)/.exec(e.message);
      assert.ok(m, e.message);
      assert.ok(Number(m[1]) > V8_MAX_STRING_LEN);
      assert.strictEqual(Number(m[2]), V8_MAX_STRING_LEN);
      return true;
    },
  );
});

test('a result just inside the limit is not refused', { skip: engine.name() !== 'native' && 'native engine only' }, () => {
  // The same shape at half the rows: about 270 M characters, decoded whole.
  const n = 270_000;
  const text =
    `GCF profile=generic\n## [${n}]{id,t=${'x'.repeat(1000)}}\n` +
    Array.from({ length: n }, (_, i) => String(i)).join('\n') +
    '\n';
  const rows = gcf.decodeGeneric(text, { limits: { maxExpansion: 2 ** 40 } });
  assert.strictEqual(rows.length, n);
  assert.strictEqual(rows[n - 1].get('id'), n - 1);
  assert.strictEqual(rows[n - 1].get('t').length, 1000);
});
