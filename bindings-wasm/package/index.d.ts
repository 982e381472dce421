// index.mjs (`@blackwell-systems/gcf-wasm` outside Node): manual.mjs
// initialised on import, and `ready`.
export * from './manual.js';
export { default } from './manual.js';
import type { Api } from './manual.js';

/** Resolves to the API once the module is instantiated. */
export declare const ready: Promise<Api>;
