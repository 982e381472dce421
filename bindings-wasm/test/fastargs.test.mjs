// Large arguments written by encodeInto into the engine's argument buffer
// (package/fastargs.mjs) give what the glue's own string passing gives:
// the same results and the same failures, for ASCII and non-ASCII text,
// a long argument after a longer one (the buffer is reused, never shrunk),
// and arguments on both sides of the size threshold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const glue = require('../package/wasm/nodejs/gcf_wasm.js');
const fast = require('../package/engine.cjs');

function payload(n, name) {
  const symbols = [];
  for (let i = 0; i < n; i++) symbols.push({ qualifiedName: `${name}${i}`, kind: 'function', score: i / n, provenance: 'lsp', distance: i % 3 });
  return JSON.stringify({ tool: 't', tokenBudget: 0, tokensUsed: 0, symbols, edges: [] });
}

function same(call, ...args) {
  let a;
  let b;
  try {
    a = glue[call](...args);
  } catch (e) {
    a = `throws ${e.message}`;
  }
  try {
    b = fast[call](...args);
  } catch (e) {
    b = `throws ${e.message}`;
  }
  assert.equal(b, a, call);
  return b;
}

test('large and small arguments give the glue\'s results', () => {
  for (const [n, name] of [[2000, 'pkg.Symbol'], [3, 'pkg.S'], [500, 'pkg.é€𝄞'], [1000, 'a.b']]) {
    const json = payload(n, name);
    const text = same('graphEncode', json);
    assert.ok(text.startsWith('GCF profile=graph'));
    same('graphDecode', text);
    same('genericEncode', json, 0);
    same('genericEncode', json, 3);
    same('genericDecode', same('genericEncode', json, 0));
  }
});

test('failures are the same through the argument buffer', () => {
  const bad = 'GCF profile=graph\n@x\n' + '#'.repeat(1000);
  assert.match(same('graphDecode', bad), /^throws \u0001/);
  assert.match(same('graphEncode', '{' + ' '.repeat(1000)), /^throws \u0001/);
  same('genericDecode', 'GCF profile=generic\n' + '  x\n'.repeat(300));
});

test('the *Arg exports refuse a length beyond what was reserved', () => {
  assert.throws(() => glue.graphDecodeArg(1 << 30), /beyond the argument buffer/);
});
