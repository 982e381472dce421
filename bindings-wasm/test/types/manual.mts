// Type-checked by tsc (test/types.test.mjs): a Worker starting manual.mjs
// with the module its bundler compiled (`./manual`, manual.d.ts).
import gcf, { initSync, init, isReady, encodeGeneric, GcfError } from '@blackwell-systems/gcf-wasm/manual';
// @ts-expect-error manual.mjs has no `ready`
import { ready } from '@blackwell-systems/gcf-wasm/manual';
// @ts-expect-error toNodeWritable exists only in the node entry
import { toNodeWritable } from '@blackwell-systems/gcf-wasm/manual';

declare const wasm: WebAssembly.Module;
const api = initSync(wasm);
const again: Promise<typeof api> = init(new URL('https://example.invalid/gcf_wasm_bg.wasm'));
const ok: boolean = isReady();
const text: string = api === gcf ? encodeGeneric({ a: 1 }) : gcf.encodeGeneric([1]);
try {
  gcf.decodeGeneric(text);
} catch (e) {
  if (e instanceof GcfError) console.log(e.category, again, ok, ready, toNodeWritable);
}
