// The package through a bundler: esbuild (esbuild-wasm, a devDependency)
// bundles an app importing the browser entry into one ESM file for the
// browser platform, with the module file beside it as a bundler's asset
// step puts it (the glue finds it through `new URL(..., import.meta.url)`,
// the pattern webpack 5, Vite and Parcel resolve). The bundle then runs
// (init on import included) with a fetch that serves file: URLs as a
// browser serves its origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, copyFileSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild-wasm';

const PKG = fileURLToPath(new URL('../package/', import.meta.url));

test('a browser bundle of index.mjs initialises and encodes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gcf-wasm-bundle-'));
  const app = join(dir, 'app.mjs');
  writeFileSync(
    app,
    `import { encode, decodeGeneric, ready } from ${JSON.stringify(join(PKG, 'index.mjs'))};
export { ready };
export const text = encode({ tool: 't', symbols: [{ qualifiedName: 'a.B', kind: 'function', score: 0.5, provenance: 'x', distance: 0 }], edges: [] });
export const value = decodeGeneric('GCF profile=generic\\n## [2]{id,name}\\n1|Ann\\n2|Bob\\n');
`,
  );
  const out = join(dir, 'out', 'bundle.mjs');
  await build({
    entryPoints: [app],
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
  const bundled = readFileSync(out, 'utf8');
  assert.ok(!bundled.includes('node:'), 'the browser bundle pulls in no Node module');
  copyFileSync(join(PKG, 'wasm/web/gcf_wasm_bg.wasm'), join(dir, 'out', 'gcf_wasm_bg.wasm'));
  globalThis.fetch = async (url) => new Response(await readFile(fileURLToPath(url)), { headers: { 'Content-Type': 'application/wasm' } });
  const m = await import(pathToFileURL(out).href);
  assert.equal(m.text, 'GCF profile=graph tool=t symbols=1\n## targets\n@0 fn a.B 0.50 x\n');
  assert.equal(m.value.length, 2);
  assert.equal(m.value[1].get('name'), 'Bob');
});
