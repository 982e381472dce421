// The one place the playground (and the browser tests) name their GCF engine.
// Until the WebAssembly package is in place this is the pure-TypeScript 2.5.2
// package's browser build; switching is the import line below.
import * as gcf from './node_modules/gcf-reference/dist/browser.js';

export default gcf;

/** Resolves once the engine can be called (the wasm package compiles its module first). */
export const ready = Promise.resolve(typeof gcf.init === 'function' ? gcf.init() : undefined);

/** True while the engine is the 2.5.2 stand-in (it has no init); the tests expect less of it. */
export const standIn = typeof gcf.init !== 'function';

/** What the page says it runs on. */
export const engineName = standIn ? '@blackwell-systems/gcf 2.5.2 · TypeScript' : 'Rust core · WebAssembly';
