// The one place the playground (and the browser tests) name their GCF engine:
// the WebAssembly package, ../package/ (built by scripts/build-wasm.sh).
// Browsers take its entry that initialises on import (it fetches the .wasm
// from beside itself); Node, where the tests recompute what the page shows,
// takes its Node entry (Node cannot fetch file: URLs). Any module with the
// 2.5.2 API works here: before the wasm package existed this imported the
// 2.5.2 package's browser build.
const gcf = await import(typeof window === 'undefined' ? '../package/node.mjs' : '../package/index.mjs');

export default gcf;

/** Resolves once the engine can be called. */
export const ready = Promise.resolve(gcf.ready);

/** What the page says it runs on. */
export const engineName = 'Rust core · WebAssembly';
