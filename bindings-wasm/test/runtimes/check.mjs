// Loads the WebAssembly package through one entry in the runtime running
// this file (Bun, Deno, or Node for comparison), runs every conformance
// fixture and the API smoke through it, prints the result as one JSON line
// and exits non-zero when anything failed.
//
//   bun check.mjs ENTRY FIXTURES_DIR
//   deno run --allow-read check.mjs ENTRY FIXTURES_DIR
//
// ENTRY is one way a program starts the package, each in its own process
// (the entries share one module instance, so a second one in the same
// process would find it initialised):
//   index          index.mjs: initialised on import (fetch of the .wasm
//                  beside the glue, a file: URL here)
//   manual-sync    manual.mjs + initSync(bytes)
//   manual-module  manual.mjs + await init(WebAssembly.Module)
//   node           node.mjs: wasm-bindgen's nodejs glue through require
//   native         not this package: the Node package (bindings-node) on
//                  its napi addon (GCF_ENGINE=native: no fallback)
// Only node: modules both runtimes provide are used (fs, path, process).
import fs from 'node:fs';
import process from 'node:process';
import { runFixtures } from '../browser/conformance.mjs';
import { smoke } from './smoke.mjs';
import { readFixtures } from './fixtures.mjs';

const [entry, fixturesDir] = process.argv.slice(2);
if (!entry) {
  // Imported by a test runner that collects every module under test/.
  console.log('check.mjs: run by runtimes.test.mjs with ENTRY FIXTURES_DIR');
  process.exit(0);
}
const WASM = new URL('../../package/wasm/web/gcf_wasm_bg.wasm', import.meta.url);

async function load(entry) {
  switch (entry) {
    case 'index':
      return import('../../package/index.mjs');
    case 'manual-sync': {
      const m = await import('../../package/manual.mjs');
      if (m.isReady()) throw new Error('manual.mjs initialised before initSync');
      m.initSync(fs.readFileSync(WASM));
      return m;
    }
    case 'manual-module': {
      const m = await import('../../package/manual.mjs');
      await m.init(await WebAssembly.compile(fs.readFileSync(WASM)));
      return m;
    }
    case 'node':
      return import('../../package/node.mjs');
    case 'native': {
      // The Node package (bindings-node) with its napi addon, as a Bun or
      // Deno program gets it from npm; it must not fall back to wasm.
      process.env.GCF_ENGINE = 'native';
      return import('../../../bindings-node/index.mjs');
    }
    default:
      throw new Error(`unknown entry ${entry}`);
  }
}

const m = await load(entry);
const fixtures = readFixtures(fixturesDir);
const conformance = runFixtures(m, fixtures);
const api = await smoke(m);
// Every entry's default export is the same API object its names come from.
const named = Object.keys(m).filter((k) => k !== 'default');
const detached = named.filter((k) => k in m.default && m.default[k] !== m[k]);
const ok = fixtures.length > 0 && conformance.failed.length === 0 && api.failed.length === 0 && detached.length === 0;
console.log(
  JSON.stringify({
    ok,
    entry,
    fixtures: fixtures.length,
    conformance: { passed: conformance.passed, failed: conformance.failed },
    smoke: api,
    exports: named.sort(),
    detached,
  }),
);
process.exitCode = ok ? 0 : 1;
