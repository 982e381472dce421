// Cargo runner for `--target wasm32-wasip1`: runs a test binary (a WASI
// command module) in Node's WASI, so the core's own unit tests execute as
// WebAssembly, on the portable code paths (no x86 SIMD on wasm32). Exits
// with the module's status; a trap (a panic under panic=abort, or a stack
// overflow) is a failure too.
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
import { argv, env, exit } from 'node:process';

const [file, ...args] = argv.slice(2);
const wasi = new WASI({
  version: 'preview1',
  args: [file, ...args],
  env,
  // The tests read no files; `/` lets a test that does fail with a clear error.
  preopens: { '/': '/' },
  returnOnExit: true,
});
const module = await WebAssembly.compile(await readFile(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
let code;
try {
  code = wasi.start(instance);
} catch (e) {
  console.error(`wasi-run: ${file} trapped: ${e && e.stack ? e.stack : e}`);
  exit(101);
}
exit(code);
