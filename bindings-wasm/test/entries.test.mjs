// The package's entries: manual.mjs (explicit init), index.mjs (init on
// import, for browsers and edge runtimes: exercised here through a fetch that
// serves file: URLs, as Node's fetch does not), node.mjs and engine.cjs; all
// expose one API surface over the same module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const PAYLOAD = {
  tool: 't',
  symbols: [{ qualifiedName: 'a.B', kind: 'function', score: 0.5, provenance: 'x', distance: 0 }],
  edges: [],
};
const TEXT = 'GCF profile=graph tool=t symbols=1\n## targets\n@0 fn a.B 0.50 x\n';

// What a browser's fetch does for the module next to the glue.
let fetched = null;
globalThis.fetch = async (url) => {
  fetched = String(url);
  const bytes = await readFile(fileURLToPath(url));
  return new Response(bytes, { headers: { 'Content-Type': 'application/wasm' } });
};

test('manual.mjs: every export exists before init, and a call says to call init()', async () => {
  const m = await import('../package/manual.mjs');
  assert.equal(m.isReady(), false);
  assert.equal(typeof m.encode, 'function');
  assert.throws(() => m.encode(PAYLOAD), /call init\(\)/);
  const api = await m.init();
  assert.equal(m.isReady(), true);
  assert.match(fetched, /package\/wasm\/web\/gcf_wasm_bg\.wasm$/);
  assert.equal(api, m.default);
  assert.equal(m.encode(PAYLOAD), TEXT);
  assert.equal(await m.init(), api, 'init() is idempotent');
});

test('index.mjs: initialised on import (top-level await), ready resolves to the API', async () => {
  {
    // In this process manual.mjs (the same module instance) was initialised
    // by the test above; a fresh page does that fetch on import.
    const m = await import('../package/index.mjs');
    assert.equal(m.encode(PAYLOAD), TEXT);
    assert.equal(await m.ready, m.default);
    const e = (() => {
      try {
        m.decode('GCF profile=graph\n@x\n');
      } catch (err) {
        return err;
      }
      return null;
    })();
    assert.ok(e instanceof m.GcfError);
    assert.equal(e.line, 2);
  }
});

test('node.mjs exports what index.mjs does plus toNodeWritable; engine.cjs is the engine interface', async () => {
  const node = await import('../package/node.mjs');
  const manual = await import('../package/manual.mjs');
  assert.deepEqual(Object.keys(node).sort(), Object.keys(manual).concat(['ready', 'toNodeWritable']).sort());
  const engine = require('../package/engine.cjs');
  for (const name of [
    'graphEncode', 'graphDecode', 'graphDecodeBytes', 'graphEncodePacked', 'graphDecodePacked', 'graphEncodeDelta', 'graphDecodeDelta',
    'graphPackRoot', 'graphVerifyDelta', 'genericEncode', 'genericEncodePacked', 'genericDecode', 'genericDecodePacked', 'genericDecodeBytes', 'genericDecodeBytesPacked',
    'genericPackRoot', 'genericEncodeFull', 'genericDecodeFull', 'genericEncodeDelta',
    'genericDecodeDelta', 'genericDiff', 'genericVerifyDelta', 'needsQuote', 'quoteString', 'profileOf',
    'formatKey', 'formatScalar', 'canonicalCell', 'NativeGraphSession', 'NativeGraphStream',
    'NativeGenericDeltaSession', 'NativeGenericStream',
  ]) {
    assert.equal(typeof engine[name], 'function', name);
  }
  // A failure crosses as the marker and the Failure's JSON.
  assert.throws(() => engine.graphDecode('GCF profile=graph\n@x\n'), (e) => {
    assert.equal(e.message.charCodeAt(0), 1);
    assert.equal(JSON.parse(e.message.slice(1)).line, 2);
    return true;
  });
  // Token counts cross as numbers (not BigInt).
  const s = new engine.NativeGraphStream('t', 5, 1, false, '', false);
  assert.match(s.take(), /^GCF profile=graph tool=t budget=5/);
  assert.equal(typeof s.symbolCount, 'number');
  assert.equal(typeof engine.NativeGenericStream.prototype.writeRows, 'function');
  assert.equal(typeof engine.NativeGenericStream.prototype.writeRowsPacked, 'function');
  const session = new engine.NativeGraphSession();
  assert.equal(session.idOf('function', 'nope'), -1);
});

test('manual.mjs: init(WebAssembly.Module), as an edge runtime hands the module over', async () => {
  // A fresh process: the module instance above is already initialised.
  const { spawnSync } = await import('node:child_process');
  const manualUrl = new URL('../package/manual.mjs', import.meta.url).href;
  const wasmPath = fileURLToPath(new URL('../package/wasm/web/gcf_wasm_bg.wasm', import.meta.url));
  const script = `
    import { readFileSync } from 'node:fs';
    const m = await import(${JSON.stringify(manualUrl)});
    globalThis.fetch = () => { throw new Error('no fetch expected'); };
    const module = await WebAssembly.compile(readFileSync(${JSON.stringify(wasmPath)}));
    const api = await m.init(module);
    process.stdout.write(api.quoteString('a b') + '|' + m.needsQuote('a|b'));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '"a b"|true');
});
