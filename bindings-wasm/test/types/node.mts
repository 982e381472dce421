// Type-checked by tsc (test/types.test.mjs) as a Node program resolves the
// package (nodenext: the `node` condition, node.d.ts).
import gcf, { ready, toNodeWritable, StreamEncoder, encode } from '@blackwell-systems/gcf-wasm';
import type { Payload } from '@blackwell-systems/gcf-wasm';

const writable = { write: (chunk: string) => chunk.length < 10, once: (_event: 'drain', fn: () => void) => fn() };
const sink = toNodeWritable(writable);
const enc = new StreamEncoder(sink, 'tool');
enc.close();
const done: Promise<void> = sink.ready();
const same: typeof gcf.toNodeWritable = (await ready).toNodeWritable;
const payload: Payload = { tool: 't', tokenBudget: 0, tokensUsed: 0, symbols: [], edges: [] };
console.log(encode(payload), done, same);
