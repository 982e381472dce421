// The package's declarations are true for each entry: tsc type-checks a
// sample per entry (test/types/*.mts, with @ts-expect-error where an entry
// must NOT have a name), resolving the package by name through its exports
// map from a node_modules link, as an application would:
//   index.mts   bundler resolution (default condition: index.d.ts)
//   manual.mts  bundler resolution, `./manual` (manual.d.ts)
//   node.mts    nodenext resolution (`node` condition: node.d.ts)
// tsc is the Node package's devDependency.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const tsc = createRequire(path.join(here, '../../bindings-node/package.json')).resolve('typescript/bin/tsc');

const ENTRIES = {
  index: { module: 'esnext', moduleResolution: 'bundler' },
  manual: { module: 'esnext', moduleResolution: 'bundler' },
  node: { module: 'nodenext', moduleResolution: 'nodenext' },
};

function typecheck(entry, source) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `gcf-wasm-types-${entry}-`));
  try {
    fs.mkdirSync(path.join(dir, 'node_modules', '@blackwell-systems'), { recursive: true });
    fs.symlinkSync(path.join(here, '..', 'package'), path.join(dir, 'node_modules', '@blackwell-systems', 'gcf-wasm'), 'dir');
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
    fs.writeFileSync(path.join(dir, 'sample.mts'), source);
    const compilerOptions = { strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], types: [], ...ENTRIES[entry] };
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['sample.mts'] }));
    return spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

for (const entry of Object.keys(ENTRIES)) {
  test(`${entry} entry: its declarations type-check test/types/${entry}.mts with tsc`, () => {
    const r = typecheck(entry, fs.readFileSync(path.join(here, 'types', `${entry}.mts`), 'utf8'));
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });
}

test('the samples can fail: a name an entry lacks is a type error', () => {
  const r = typecheck('index', "import { toNodeWritable } from '@blackwell-systems/gcf-wasm';\nconsole.log(toNodeWritable);\n");
  assert.notEqual(r.status, 0);
  assert.match(r.stdout, /has no exported member.*toNodeWritable/);
});
