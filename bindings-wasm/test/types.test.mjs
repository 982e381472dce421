// The package's declarations type-check a sample program (tsc from the
// Node package's devDependencies).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

test('index.d.ts type-checks a sample program with tsc', () => {
  const require = createRequire(new URL('../../bindings-node/package.json', import.meta.url));
  const tsc = require.resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', fileURLToPath(new URL('./types/tsconfig.json', import.meta.url))], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
