// Type-checked by tsc (test/types.test.mjs) as a browser app resolves the
// package (bundler resolution: the default condition, index.d.ts).
import gcf, { init, ready, encode, decodeGeneric, GcfError, toWebWritable, StreamEncoder } from '@blackwell-systems/gcf-wasm';
import type { Payload, Api } from '@blackwell-systems/gcf-wasm';
// @ts-expect-error toNodeWritable exists only in the node entry
import { toNodeWritable } from '@blackwell-systems/gcf-wasm';
import { initSync, isReady } from '@blackwell-systems/gcf-wasm';

const api: Api = await init();
const same: typeof api = await ready;
const payload: Payload = { tool: 't', tokenBudget: 0, tokensUsed: 0, symbols: [], edges: [] };
const text: string = encode(payload);
const v: unknown = decodeGeneric(text);
const enc = new StreamEncoder(toWebWritable(new WritableStream<string>()), 't');
enc.close();
// @ts-expect-error the API object has no toNodeWritable outside Node either
gcf.toNodeWritable;
try {
  same.decode('x');
} catch (e) {
  if (e instanceof GcfError) console.log(e.category, e.line, e.column, v, toNodeWritable, initSync, isReady());
}
