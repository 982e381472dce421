// The examples of package/README.md (the WebAssembly package's page on npm)
// run in Node as written and print what their comments say (the check is
// the Node package's README test's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { examples, check } = require('../../bindings-node/test/readme_examples.cjs');
const PKG = fileURLToPath(new URL('../package/', import.meta.url));

test('package/README.md: every js example runs in Node and prints what it says', () => {
  const blocks = examples(`${PKG}README.md`);
  assert.ok(blocks.length > 0);
  // Inside the package, its own name resolves to itself (the node condition).
  for (const code of blocks) check(PKG, code);
});
