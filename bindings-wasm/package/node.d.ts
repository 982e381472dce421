// node.mjs (`@blackwell-systems/gcf-wasm` under the `node` condition): the
// index entry, initialised synchronously, plus toNodeWritable as the Node
// package has it.
export * from './manual.js';
export { toNodeWritable } from './gcf.js';
import type * as Node from './gcf.js';

/** The API object: every named export, toNodeWritable included. */
export type Api = typeof Node;
/** Already resolved: node.mjs compiles the module synchronously on import. */
export declare const ready: Promise<Api>;
export declare function init(source?: unknown): Promise<Api>;
export declare function initSync(bytesOrModule?: unknown): Api;
declare const gcf: Api;
export default gcf;
