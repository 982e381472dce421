// A Cloudflare Worker over the WebAssembly package, served by workerd
// (run.mjs). The module is imported the way Workers bundle it: `import wasm
// from './gcf_wasm_bg.wasm'` gives a WebAssembly.Module, which manual.mjs's
// initSync() instantiates at startup (no fetch, no file access: a Worker has
// neither). That import is the Worker's main module, written inline in
// worker.capnp, because Node cannot import a .wasm and `node --test` over
// test/ imports every module here; it hands the module to worker() below.
//   GET  /smoke        -> the API smoke (smoke.mjs) as JSON
//   POST /conformance  -> body [{ path, text }]: runFixtures' result as JSON
//   POST /encode       -> body JSON: its generic GCF text (what a Worker
//                         handing JSON to an LLM would do)
//   POST /decode       -> body GCF text: its JSON, or 400 with the failure's
//                         category, line and column
//   GET  /seed         -> whether the core's hash keys were seeded when the
//                         module started (a Worker refuses random values in
//                         its global scope) and whether they are now, after
//                         the requests before it
import gcf, { initSync, isReady } from '../../package/manual.mjs';
import * as glue from '../../package/wasm/web/gcf_wasm.js';
import { runFixtures } from '../browser/conformance.mjs';
import { smoke } from './smoke.mjs';

const plain = (_, x) => (x instanceof Map ? Object.fromEntries(x) : x);
const json = (v, status = 200) => new Response(JSON.stringify(v, plain), { status, headers: { 'content-type': 'application/json' } });

let seededAtStart = null;

export function worker(wasm) {
  initSync(wasm);
  seededAtStart = glue.__hashesSeeded();
  return { fetch: (request) => handle(request, wasm) };
}

async function handle(request, wasm) {
  const { pathname } = new URL(request.url);
  if (pathname === '/seed') return json({ atStart: seededAtStart, now: glue.__hashesSeeded() });
  if (pathname === '/smoke') return json({ ready: isReady(), moduleIsCompiled: wasm instanceof WebAssembly.Module, ...(await smoke(gcf)) });
  if (pathname === '/conformance' && request.method === 'POST') return json(runFixtures(gcf, await request.json()));
  if (pathname === '/encode' && request.method === 'POST') {
    const text = gcf.encodeGeneric(gcf.parseJSONOrdered(await request.text(), { largeInt: 'bigint' }));
    return new Response(text, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
  }
  if (pathname === '/decode' && request.method === 'POST') {
    try {
      const v = gcf.decodeGeneric(await request.text(), { largeInt: 'string' });
      return json(v);
    } catch (e) {
      return json({ category: e.category, line: e.line, column: e.column, isGcfError: e instanceof gcf.GcfError }, 400);
    }
  }
  return new Response('not found', { status: 404 });
}
