// Type-checked by tsc (test/types.test.mjs): the browser entry as a page uses it.
import { init, ready, encode, decodeGeneric, GcfError } from '@blackwell-systems/gcf-wasm';
import type { Payload } from '@blackwell-systems/gcf-wasm';

const api = await init();
const same: typeof api = await ready;
const payload: Payload = { tool: 't', tokenBudget: 0, tokensUsed: 0, symbols: [], edges: [] };
const text: string = encode(payload);
const v: unknown = decodeGeneric(text);
try {
  same.decode('x');
} catch (e) {
  if (e instanceof GcfError) console.log(e.category, e.line, e.column, v);
}
