'use strict';
// The examples of README.md (the package's page on npm) run as written and
// print what their comments say (./readme_examples.cjs).
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { examples, check } = require('./readme_examples.cjs');

test('README.md: every js example runs and prints what it says', () => {
  const pkg = path.join(__dirname, '..');
  const blocks = examples(path.join(pkg, 'README.md'));
  assert.ok(blocks.length > 0);
  let claims = 0;
  for (const code of blocks) claims += check(pkg, code);
  assert.ok(claims >= 3, 'the examples say what they print');
});
