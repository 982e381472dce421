// The WebAssembly package in the runtimes besides Node and Chromium that
// issue 19 names: Bun and Deno (every entry in its own process: all
// conformance fixtures and the API smoke, check.mjs), and Cloudflare's
// workerd serving a Worker that imports the .wasm as a module (worker.mjs,
// worker.capnp), checked over HTTP on 127.0.0.1.
//
// The runtimes are npm packages pinned in package.json/package-lock.json
// here; scripts/test-wasm.sh installs them (npm ci) and sets
// GCF_RUNTIME_TESTS=1. Without it (a plain `node --test` over test/) the
// suite is reported as skipped.
import { test as nodeTest, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { conformanceDir } from '../browser/server.mjs';
import { readFixtures } from './fixtures.mjs';

const ENABLED = process.env.GCF_RUNTIME_TESTS === '1';
const test = (name, fn) => nodeTest(name, { skip: !ENABLED && 'run by scripts/test-wasm.sh (GCF_RUNTIME_TESTS=1)' }, fn);

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = (name) => path.join(here, 'node_modules', '.bin', name);
const run = promisify(execFile);

const FIXTURES = ENABLED ? readFixtures(conformanceDir()) : [];

// Deno: read access only, no lockfile or config of its own, no update check.
// The Node package's napi addon needs --allow-ffi in Deno (and check.mjs
// sets GCF_ENGINE=native so it cannot fall back: --allow-env).
const RUNTIMES = {
  bun: (entry) => [bin('bun'), ['check.mjs', entry, conformanceDir()]],
  deno: (entry) => [
    bin('deno'),
    ['run', '--allow-read', ...(entry === 'native' ? ['--allow-ffi', '--allow-env'] : []), '--no-lock', '--no-config', 'check.mjs', entry, conformanceDir()],
  ],
};
// index.mjs fetches the .wasm from a file: URL, which both runtimes' fetch
// serves; manual.mjs is started both ways an edge runtime or a page would;
// node.mjs goes through createRequire and wasm-bindgen's nodejs glue;
// native is the Node package (bindings-node) on its addon, which Bun and
// Deno programs get from npm as Node programs do.
const ENTRIES = ['index', 'manual-sync', 'manual-module', 'node', 'native'];

async function check(runtime, entry) {
  const [cmd, args] = RUNTIMES[runtime](entry);
  let out;
  try {
    out = (await run(cmd, args, { cwd: here, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }, maxBuffer: 1 << 24 })).stdout;
  } catch (e) {
    assert.fail(`${runtime} ${entry} exited ${e.code}:\n${e.stdout}\n${e.stderr}`);
  }
  const r = JSON.parse(out.trim().split('\n').pop());
  assert.deepEqual(r.conformance.failed, []);
  assert.deepEqual(r.smoke.failed, []);
  assert.equal(r.fixtures, FIXTURES.length);
  assert.equal(r.conformance.passed, FIXTURES.length);
  assert.equal(r.smoke.passed, 8);
  assert.deepEqual(r.detached, []);
  assert.equal(r.ok, true);
  return r;
}

for (const runtime of Object.keys(RUNTIMES)) {
  test(`${runtime}: the version package.json pins`, async () => {
    const { stdout } = await run(bin(runtime), ['--version']);
    const pinned = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8')).devDependencies[runtime];
    assert.match(stdout, new RegExp(`\\b${pinned.replace(/\./g, '\\.')}\\b`));
  });
  for (const entry of ENTRIES) {
    test(`${runtime}: ${entry} entry runs all conformance fixtures and the API smoke`, async () => {
      const r = await check(runtime, entry);
      const manual = await import('../../package/manual.mjs');
      const names = Object.keys(manual).filter((k) => k !== 'default');
      // The same names in this runtime as in Node (node.mjs adds `ready`).
      if (entry === 'node') assert.deepEqual(r.exports, (await import('../../package/node.mjs').then(Object.keys)).filter((k) => k !== 'default').sort());
      else if (entry === 'native') assert.deepEqual(r.exports, (await import('../../../bindings-node/index.mjs').then(Object.keys)).filter((k) => k !== 'default').sort());
      else assert.deepEqual(r.exports, (entry === 'index' ? [...names, 'ready'] : names).sort());
    });
  }
}

// By name, as an application imports it: a node_modules link to package/.
// Both runtimes honour the `node` condition (node.mjs); the module is
// reachable by name for a Worker's bundler (`./gcf_wasm_bg.wasm`).
const BY_NAME = `
import * as m from '@blackwell-systems/gcf-wasm';
import * as manual from '@blackwell-systems/gcf-wasm/manual';
const rel = (u) => u.slice(u.indexOf('/package/') + 1);
console.log(JSON.stringify([
  rel(import.meta.resolve('@blackwell-systems/gcf-wasm')),
  rel(import.meta.resolve('@blackwell-systems/gcf-wasm/manual')),
  rel(import.meta.resolve('@blackwell-systems/gcf-wasm/gcf_wasm_bg.wasm')),
  m.encodeGeneric({ a: 1 }),
  manual.isReady(),
]));
`;

function appDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gcf-wasm-app-'));
  fs.mkdirSync(path.join(dir, 'node_modules', '@blackwell-systems'), { recursive: true });
  fs.symlinkSync(path.resolve(here, '..', '..', 'package'), path.join(dir, 'node_modules', '@blackwell-systems', 'gcf-wasm'), 'dir');
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  fs.writeFileSync(path.join(dir, 'app.mjs'), BY_NAME);
  return dir;
}

for (const [runtime, args] of [
  ['bun', ['app.mjs']],
  ['deno', ['run', '--allow-read', '--no-lock', 'app.mjs']],
]) {
  test(`${runtime}: the package by name resolves node.mjs, ./manual and ./gcf_wasm_bg.wasm`, async () => {
    const dir = appDir();
    try {
      const { stdout } = await run(bin(runtime), args, { cwd: dir, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } });
      assert.deepEqual(JSON.parse(stdout), ['package/node.mjs', 'package/manual.mjs', 'package/wasm/web/gcf_wasm_bg.wasm', 'GCF profile=generic\na=1\n', false]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

// ------------------------------------------------------------- workerd ---

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// Its own suite: a workerd that does not start fails these tests only.
describe('workerd', () => {
  let workerd = null;
  let origin = null;
  let workerdLog = '';

  before(async () => {
    if (!ENABLED) return;
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    workerd = spawn(bin('workerd'), ['serve', 'worker.capnp', '--socket-addr', `http=127.0.0.1:${port}`], { cwd: here, stdio: ['ignore', 'pipe', 'pipe'] });
    workerd.stdout.on('data', (d) => (workerdLog += d));
    workerd.stderr.on('data', (d) => (workerdLog += d));
    // Bounded: up to 30 s for workerd to compile the Worker and listen.
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (workerd.exitCode !== null) throw new Error(`workerd exited ${workerd.exitCode}:\n${workerdLog}`);
      try {
        if ((await fetch(`${origin}/smoke`)).ok) break;
      } catch {}
      if (Date.now() > deadline) throw new Error(`workerd did not answer within 30 s:\n${workerdLog}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  after(() => {
    workerd?.kill();
  });

  test('the Worker instantiated the imported WebAssembly.Module and passes the API smoke', async () => {
    const r = await (await fetch(`${origin}/smoke`)).json();
    assert.equal(r.moduleIsCompiled, true);
    assert.equal(r.ready, true);
    assert.deepEqual(r.failed, []);
    assert.equal(r.passed, 8);
  });

  test('the hash keys are seeded by the first call from a handler (the global scope refuses random values)', async () => {
    await (await fetch(`${origin}/smoke`)).json();
    const r = await (await fetch(`${origin}/seed`)).json();
    assert.equal(r.now, true);
    // At start the Worker's global scope refused (workerd 1.20261023): the
    // retry above is what seeded them. Either answer is correct there.
    assert.equal(typeof r.atStart, 'boolean');
  });

  test('every conformance fixture through the Worker over HTTP', async () => {
    const res = await fetch(`${origin}/conformance`, { method: 'POST', body: JSON.stringify(FIXTURES) });
    assert.equal(res.status, 200);
    const r = await res.json();
    assert.deepEqual(r.failed, []);
    assert.equal(r.passed, FIXTURES.length);
    assert.ok(FIXTURES.length > 0);
  });

  test('JSON in, GCF out, byte-identical to the package in Node; a failure answers with category, line, column', async () => {
    const gcf = await import('../../package/node.mjs');
    const body = '{"rows":[{"id":1,"t":"a b"},{"id":2,"t":"c|d"}],"n":9007199254740993,"z":{"k":[1,2]}}';
    const res = await fetch(`${origin}/encode`, { method: 'POST', body });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.equal(text, gcf.encodeGeneric(gcf.parseJSONOrdered(body, { largeInt: 'bigint' })));
    assert.match(text, /^n=9007199254740993$/m);
    const back = await fetch(`${origin}/decode`, { method: 'POST', body: text });
    assert.deepEqual(await back.json(), { rows: [{ id: 1, t: 'a b' }, { id: 2, t: 'c|d' }], n: '9007199254740993', z: { k: [1, 2] } });
    // The position of the `[3]` whose count the rows do not meet, as in Node.
    const badText = 'GCF profile=generic\n## [3]{a}\n1\n';
    const bad = await fetch(`${origin}/decode`, { method: 'POST', body: badText });
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { category: 'count_mismatch', line: 2, column: 4, isGcfError: true });
    assert.throws(() => gcf.decodeGeneric(badText), (e) => e.line === 2 && e.column === 4);
  });
});
