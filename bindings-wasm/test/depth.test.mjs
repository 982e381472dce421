// The recursion budget on the wasm build: the module is linked with a 1 MiB
// shadow stack (a browser main thread's budget; scripts/build-wasm.sh), and
// within it the default depth limit (Limits::max_depth) holds on encode and
// decode: the deepest value allowed round-trips, one level deeper is the
// limit error (category limit_exceeded, at its position in text), and input
// thousands of levels deep is the same error, never a trap ("unreachable",
// "memory access out of bounds") or a RangeError. Checked to fail: linked
// with a 32 KiB stack instead, the deep cases trap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import gcf from '../package/node.mjs';
import * as manual from '../package/manual.mjs';
import engine from '../package/engine.cjs';

const WASM = new URL('../package/wasm/web/gcf_wasm_bg.wasm', import.meta.url);
const STACK = 1024 * 1024;

// The initial value of the module's first mutable i32 global, which lld
// makes the stack pointer (the stack sits below it, growing down from it).
function stackPointer(bytes) {
  let i = 8;
  const leb = () => {
    let r = 0;
    let s = 0;
    for (;;) {
      const b = bytes[i++];
      r += (b & 0x7f) * 2 ** s;
      s += 7;
      if (b < 0x80) return r;
    }
  };
  while (i < bytes.length) {
    const id = bytes[i++];
    const size = leb();
    const end = i + size;
    if (id === 6) {
      const count = leb();
      for (let g = 0; g < count; g++) {
        const type = bytes[i++];
        const mutable = bytes[i++];
        const op = bytes[i++];
        const value = op === 0x41 ? leb() : null; // i32.const
        while (bytes[i++] !== 0x0b); // end of the init expression
        if (type === 0x7f && mutable === 1 && value !== null) return value;
      }
    }
    i = end;
  }
  return null;
}

function nestedObjects(depth) {
  let v = 1;
  for (let d = 0; d < depth; d++) v = new Map([['a', v]]);
  return v;
}

// `depth` nested sections, as the decoder reads them.
function nestedSections(depth) {
  let s = 'GCF profile=generic\n';
  for (let d = 0; d < depth; d++) s += '  '.repeat(d) + '## a\n';
  return s + '  '.repeat(depth) + 'a=1\n';
}

// `depth` nested one-item arrays, as the encoder writes them.
function nestedArrays(depth) {
  let s = 'GCF profile=generic\n## [1]\n';
  for (let d = 0; d < depth - 2; d++) s += '  '.repeat(d) + '@0 [1]\n';
  return s + '  '.repeat(depth - 2) + '@0 [1]: 1\n';
}

// The limit error of a decode: at its line and column in the text.
function isLimit(e) {
  assert.ok(e instanceof gcf.GcfError || e.category, `not a GcfError: ${e && e.stack}`);
  assert.equal(e.category, 'limit_exceeded', e.message);
  assert.equal(e.errorClass, 'limit');
  assert.ok(e.line >= 1 && e.column >= 1, e.message);
  return true;
}

// The limit error of an encode: a value has no line or column (the layer
// reports values by path, bindings-js/layer/errors.mjs).
function isValueLimit(e) {
  assert.ok(e instanceof gcf.GcfError || e.category, `not a GcfError: ${e && e.stack}`);
  assert.equal(e.category, 'limit_exceeded', e.message);
  assert.equal(e.errorClass, 'limit');
  assert.equal(e.line, undefined, e.message);
  return true;
}

test('the module is linked with a 1 MiB stack', () => {
  assert.equal(stackPointer(readFileSync(WASM)), STACK);
});

test('the engine reads JSON 200,000 levels deep as the limit error', () => {
  const arrays = '['.repeat(200000) + ']'.repeat(200000);
  assert.throws(() => engine.genericEncode(arrays, 0), (e) => {
    const f = JSON.parse(e.message.slice(1));
    assert.equal(f.category, 'limit_exceeded');
    return true;
  });
});

for (const [name, api] of [
  ['nodejs glue', gcf],
  ['web glue', manual],
]) {
  test(`${name}: the deepest value allowed encodes and decodes; one deeper is the limit error`, () => {
    if (api === manual) manual.initSync(readFileSync(WASM));
    // Limits::max_depth = 128 containers, the root one counted as 1, on
    // every side: the JSON reader, the encoder and the decoder.
    const deepest = nestedObjects(128);
    const text = api.encodeGeneric(deepest);
    assert.equal(text.split('\n').filter((l) => l.trimStart().startsWith('## a')).length, 127);
    const back = api.decodeGeneric(text);
    let v = back;
    for (let d = 0; d < 128; d++) v = v.get('a');
    assert.equal(v, 1);
    assert.throws(() => api.encodeGeneric(nestedObjects(129)), isValueLimit);

    api.decodeGeneric(nestedSections(127));
    assert.throws(() => api.decodeGeneric(nestedSections(128)), isLimit);

    // Arrays take more stack per level than sections (a 32 KiB stack
    // overflows at 100 of them).
    let deepArray = 1;
    for (let d = 0; d < 128; d++) deepArray = [deepArray];
    assert.equal(api.encodeGeneric(deepArray), nestedArrays(128));
    assert.throws(() => api.encodeGeneric([deepArray]), isValueLimit);
    let a = api.decodeGeneric(nestedArrays(128));
    for (let d = 0; d < 128; d++) a = a[0];
    assert.equal(a, 1);
    assert.throws(() => api.decodeGeneric(nestedArrays(129)), isLimit);
  });

  test(`${name}: input thousands of levels deep fails cleanly`, () => {
    assert.throws(() => api.decodeGeneric(nestedSections(5000)), isLimit);
    assert.throws(() => api.decodeGeneric(nestedArrays(5000)), isLimit);
  });
}
