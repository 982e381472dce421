// One list of export names (scripts/js-exports.mjs) for every ESM entry of
// both packages: the generated blocks are current, the list is 2.5.2's
// names plus the declared additions, the declarations give values exactly
// those names, and every entry exports exactly its share at run time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire, register } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { V252_EXPORTS, ADDITIONS, API_EXPORTS, BROWSER_EXPORTS, NODE_ONLY, declaredNames } from '../../scripts/js-exports.mjs';

const script = fileURLToPath(new URL('../../scripts/js-exports.mjs', import.meta.url));
const nodeRequire = createRequire(new URL('../../bindings-node/package.json', import.meta.url));
const sorted = (xs) => [...xs].sort();
const INIT = ['init', 'initSync', 'isReady'];

test('the generated export blocks are current (node scripts/js-exports.mjs --check)', () => {
  const r = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});

test("the list is exactly 2.5.2's runtime exports (ESM and CommonJS) plus the additions", async () => {
  const ref = await import(nodeRequire.resolve('gcf-reference'));
  // Importing a CommonJS file gives `default` and, from Node 23, `module.exports` too.
  assert.deepEqual(sorted(Object.keys(ref).filter((k) => k !== 'default' && k !== 'module.exports')), sorted(V252_EXPORTS));
  assert.deepEqual(sorted(Object.keys(nodeRequire('gcf-reference'))), sorted(V252_EXPORTS));
  assert.deepEqual(ADDITIONS.filter((k) => V252_EXPORTS.includes(k)), []);
  assert.equal(new Set([...API_EXPORTS, ...NODE_ONLY]).size, API_EXPORTS.length + NODE_ONLY.length);
  // An import-only subpath, which require.resolve cannot resolve.
  const refDir = fileURLToPath(new URL('../../bindings-node/node_modules/gcf-reference/', import.meta.url));
  const refPackage = JSON.parse(fs.readFileSync(path.join(refDir, 'package.json'), 'utf8'));
  const browser = await import(pathToFileURL(path.join(refDir, refPackage.exports['./browser'].import)).href);
  assert.deepEqual(sorted(Object.keys(browser).filter((k) => k !== 'default').concat(['GcfError'])), sorted(BROWSER_EXPORTS));
});

test('the declarations (bindings-node/index.d.ts) declare exactly the listed values', () => {
  const dts = fs.readFileSync(new URL('../../bindings-node/index.d.ts', import.meta.url), 'utf8');
  const values = declaredNames(dts).filter(({ kind }) => kind !== 'interface' && kind !== 'type').map(({ name }) => name);
  assert.deepEqual(sorted(values), sorted([...API_EXPORTS, ...NODE_ONLY]));
});

test('every entry exports its share of the list at run time, each name the API object member', async () => {
  const manual = await import('../package/manual.mjs');
  if (!manual.isReady()) manual.initSync(fs.readFileSync(new URL('../package/wasm/web/gcf_wasm_bg.wasm', import.meta.url)));
  // index.mjs's init on import finds the module instance initialised.
  const index = await import('../package/index.mjs');
  const node = await import('../package/node.mjs');
  const nodePackage = await import('../../bindings-node/index.mjs');
  // The Node package's browser entry imports @blackwell-systems/gcf-wasm,
  // this package, which an install puts in node_modules; here a resolve hook
  // gives it index.mjs, as a bundler does (the "browser" condition). Under
  // Node, "./browser" is lib/browser.node.mjs: the main entry's functions.
  register(
    `data:text/javascript,${encodeURIComponent(
      `export async function resolve(s, c, next) { return s === '@blackwell-systems/gcf-wasm' ? { url: ${JSON.stringify(new URL('../package/index.mjs', import.meta.url).href)}, shortCircuit: true } : next(s, c); }`,
    )}`,
  );
  const browser = await import('../../bindings-node/browser.mjs');
  const browserNode = await import('../../bindings-node/lib/browser.node.mjs');
  const cases = [
    ['manual.mjs', manual, API_EXPORTS, INIT],
    ['index.mjs', index, API_EXPORTS, [...INIT, 'ready']],
    ['node.mjs', node, [...API_EXPORTS, ...NODE_ONLY], [...INIT, 'ready']],
    ['bindings-node/index.mjs', nodePackage, [...API_EXPORTS, ...NODE_ONLY], []],
  ];
  for (const [name, m, api] of [['browser.mjs', browser, index], ['lib/browser.node.mjs', browserNode, nodePackage]]) {
    assert.deepEqual(sorted(Object.keys(m)), sorted([...BROWSER_EXPORTS, 'default']), name);
    for (const k of BROWSER_EXPORTS) assert.equal(m[k], api[k], `${name} ${k}`);
  }
  for (const [name, m, api, extra] of cases) {
    assert.deepEqual(sorted(Object.keys(m)), sorted([...api, ...extra, 'default']), name);
    assert.deepEqual(sorted(Object.keys(m.default)), sorted(api), `${name} default export`);
    for (const k of api) assert.equal(m[k], m.default[k], `${name} ${k}`);
  }
});

test("node.mjs's toNodeWritable waits for 'drain' after a full write, as the Node package's", async () => {
  const { toNodeWritable, StreamEncoder } = await import('../package/node.mjs');
  const chunks = [];
  let drain = null;
  const writable = { write: (c) => (chunks.push(c), false), once: (ev, fn) => ev === 'drain' && (drain = fn) };
  const sink = toNodeWritable(writable);
  const enc = new StreamEncoder(sink, 't');
  enc.close();
  assert.match(chunks.join(''), /^GCF profile=graph tool=t/);
  let drained = false;
  const wait = sink.ready().then(() => (drained = true));
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(drained, false);
  drain();
  await wait;
  assert.equal(drained, true);
});
