'use strict';
// The native addon loads beside other native code that keeps thread-local
// state, a second copy of itself included (two versions of this package in
// one dependency tree). Its allocator's thread-locals use the dynamic TLS
// model (mimalloc's `local_dynamic_tls`): with the initial-exec model the
// addon needed 1,344 bytes of the static TLS block that glibc reserves for
// libraries opened at run time, and a second copy failed with "cannot
// allocate memory in static TLS block" (the package then fell back to the
// WebAssembly engine, two to three times slower, saying so only under
// GCF_DEBUG).
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const engine = require('../lib/engine/index.cjs');
const { platformTriple } = require('../lib/engine/native.cjs');

const addon = path.join(__dirname, '..', `gcf.${platformTriple()}.node`);
engine.get();

test('two copies of the native addon load in one process', { skip: (engine.name() !== 'native' || !fs.existsSync(addon)) && 'a local native build only' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gcf-coexist-'));
  try {
    const copies = [1, 2, 3].map((k) => path.join(dir, `copy${k}.node`));
    for (const c of copies) fs.copyFileSync(addon, c);
    // In a child process: the test runner's own process has the addon
    // loaded already, and a failed dlopen cannot be undone.
    const script = `
      const loaded = ${JSON.stringify(copies)}.map((file) => {
        const m = { exports: {} };
        process.dlopen(m, file);
        return m.exports;
      });
      const out = loaded.map((e) => e.genericEncode('{"a":[1,2]}', 0));
      process.stdout.write(JSON.stringify(out));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
    assert.deepStrictEqual(out, Array(3).fill('GCF profile=generic\na[2]: 1,2\n'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
