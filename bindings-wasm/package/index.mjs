// The 2.5.2 API of @blackwell-systems/gcf over the WebAssembly engine, for
// browsers, edge runtimes, Deno, Bun and bundlers, initialised on import
// (top-level await; the module is fetched from next to this file): every
// export works as soon as the import resolves. `ready` resolves to the API
// object, for code that prefers to await something explicit. For a runtime
// that must hand over the module itself, import manual.mjs and call init().
import gcf, { init } from './manual.mjs';

export const ready = init();
await ready;

export * from './manual.mjs';
export default gcf;
