// The declarations of the 2.5.2 API are the Node package's (bindings-node/
// index.d.ts), copied to gcf.d.ts by scripts/build-wasm.sh so the two cannot
// drift; this file adds what initialising the module takes. (gcf.d.ts also
// declares toNodeWritable, which only the Node package exports.)
export * from './gcf.js';
import type * as Api from './gcf.js';

/** Resolves to the API once the module is instantiated (at once in node.mjs). */
export declare const ready: Promise<typeof Api>;
/**
 * Instantiates the module, once: from `source` (a URL, Response, BufferSource
 * or WebAssembly.Module) or, without one, by fetching the .wasm next to the glue.
 */
export declare function init(source?: string | URL | Response | BufferSource | WebAssembly.Module): Promise<typeof Api>;
/** Instantiates the module from its bytes or a compiled module, synchronously. */
export declare function initSync(bytesOrModule: BufferSource | WebAssembly.Module): typeof Api;
/** Whether the module is instantiated. */
export declare function isReady(): boolean;
