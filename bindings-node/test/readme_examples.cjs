'use strict';
// Runs a README's examples: every ```js block, as an ES module in its own
// Node process, must exit 0 and print what its comments say: each
// `console.log(...); // text` line's text is a line of the output, in order.
// Used by readme.test.cjs here and bindings-wasm/test/readme.test.mjs.
const assert = require('node:assert');
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');

function examples(readme) {
  return [...fs.readFileSync(readme, 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
}

// `dir` is the package's own folder, where its name resolves to itself
// (package self-reference), as it does for an application that installed it.
function check(dir, code) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: dir, encoding: 'utf8' });
  assert.strictEqual(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  let at = 0;
  const said = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
  for (const text of said) {
    const found = lines.indexOf(text, at);
    assert.ok(found >= 0, `"${text}" is printed (after line ${at}):\n${r.stdout}`);
    at = found + 1;
  }
  return said.length;
}

module.exports = { examples, check };
