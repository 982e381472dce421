// The core's hash tables are keyed per instance from the host's entropy
// (crypto.getRandomValues, in the module's start function). A WebAssembly
// instance has none of its own: unseeded, every instance of a build hashes
// alike, so input crafted once against the published module would collide
// in the decoders' tables everywhere. Each probe runs in a fresh process
// and prints a hash made under a new table's keys (the engine's hidden
// `__hashProbe`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL('../package/', import.meta.url));

function probe(entry, { withoutCrypto = false } = {}) {
  const hide = withoutCrypto
    ? "Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true });"
    : '';
  const load = {
    // wasm-bindgen's nodejs glue (under engine.cjs, which hides `__` names),
    // instantiated on require.
    node: `const e = require(${JSON.stringify(PACKAGE + 'wasm/nodejs/gcf_wasm.js')}); console.log(e.__hashProbe());`,
    // The web glue, instantiated by initSync from the module's bytes.
    web: `import(${JSON.stringify(PACKAGE + 'wasm/web/gcf_wasm.js')}).then((w) => {
      const bytes = require('node:fs').readFileSync(${JSON.stringify(PACKAGE + 'wasm/web/gcf_wasm_bg.wasm')});
      w.initSync({ module: bytes });
      console.log(w.__hashProbe());
    });`,
  }[entry];
  return execFileSync(process.execPath, ['-e', hide + load], { encoding: 'utf8' }).trim();
}

for (const entry of ['node', 'web']) {
  test(`${entry} glue: two instances hash with different keys`, () => {
    const a = probe(entry);
    const b = probe(entry);
    assert.match(a, /^[0-9a-f]{16}$/);
    assert.notEqual(a, b);
  });
}

test('without Web Crypto the keys are the build\'s own: the same in every instance (what the seed prevents)', () => {
  // The control that makes the test above able to fail: a module whose
  // start found no entropy hashes alike in two processes.
  const a = probe('node', { withoutCrypto: true });
  const b = probe('node', { withoutCrypto: true });
  assert.equal(a, b);
  // And the module still works there.
  const out = execFileSync(process.execPath, ['-e',
    "Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true });" +
    `const e = require(${JSON.stringify(PACKAGE + 'engine.cjs')}); console.log(e.graphEncode('{"symbols":[],"edges":[]}'));`,
  ], { encoding: 'utf8' });
  assert.match(out, /^GCF profile=graph/);
});

test('where the start could not seed (a Worker\'s global scope), the first call does', () => {
  const glue = JSON.stringify(PACKAGE + 'wasm/nodejs/gcf_wasm.js');
  const out = execFileSync(process.execPath, ['-e', `
    const real = globalThis.crypto;
    Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true });
    const engine = require(${JSON.stringify(PACKAGE + 'engine.cjs')});
    const glue = require(${glue});
    const atStart = glue.__hashesSeeded();
    Object.defineProperty(globalThis, 'crypto', { value: real, configurable: true });
    const afterLoad = glue.__hashesSeeded();
    const session = new engine.NativeGraphSession();
    const afterConstruct = glue.__hashesSeeded();
    console.log(JSON.stringify({ atStart, afterLoad, afterConstruct, idOf: session.idOf('function', 'x'),
      encoded: engine.graphEncode('{"symbols":[],"edges":[]}').split(' ')[0] }));
  `], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), { atStart: false, afterLoad: false, afterConstruct: true, idOf: -1, encoded: 'GCF' });
});
