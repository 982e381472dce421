// The Node package's engine choice (bindings-node/lib/engine/index.cjs):
// GCF_ENGINE=wasm gives this package's engine under the Node package's API,
// an unknown value is refused, and GCF_DEBUG says which engine loaded. Each
// case runs in a child process (the choice is made once per process).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const NODE_PKG = fileURLToPath(new URL('../../bindings-node/index.cjs', import.meta.url));

function run(env, code) {
  return spawnSync(process.execPath, ['-e', code], {
    env: { ...process.env, GCF_ENGINE: '', GCF_DEBUG: '', ...env },
    encoding: 'utf8',
  });
}

const SCRIPT = `
const gcf = require(${JSON.stringify(NODE_PKG)});
const engines = require(${JSON.stringify(fileURLToPath(new URL('../../bindings-node/lib/engine/index.cjs', import.meta.url)))});
const text = gcf.encode({ tool: 't', symbols: [{ qualifiedName: 'a.B', kind: 'function', score: 0.5, provenance: 'x', distance: 0 }], edges: [] });
let line = null;
try { gcf.decode('GCF profile=graph\\n@x\\n'); } catch (e) { line = e.line; }
process.stdout.write(JSON.stringify({ engine: engines.name(), text, line }));
`;

test('GCF_ENGINE=wasm runs the Node package on the wasm engine', () => {
  const r = run({ GCF_ENGINE: 'wasm', GCF_DEBUG: '1' }, SCRIPT);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.engine, 'wasm');
  assert.equal(out.text, 'GCF profile=graph tool=t symbols=1\n## targets\n@0 fn a.B 0.50 x\n');
  assert.equal(out.line, 2);
  assert.match(r.stderr, /using the WebAssembly engine \(GCF_ENGINE=wasm\)/);
});

test('an unknown GCF_ENGINE is refused', () => {
  const r = run({ GCF_ENGINE: 'both' }, SCRIPT);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /GCF_ENGINE must be "native" or "wasm", got "both"/);
});

test('without GCF_ENGINE an engine loads (native when built, else the wasm fallback)', () => {
  const r = run({ GCF_DEBUG: '1' }, SCRIPT);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.ok(['native', 'wasm'].includes(out.engine));
  if (out.engine === 'wasm') assert.match(r.stderr, /no native binary .* loaded .*; using the WebAssembly engine/);
  assert.equal(out.line, 2);
});
