// The npm packages as a user gets them. The tests in test/ run the package
// from this repository; these pack what the publish workflow publishes
// (.github/workflows/node.yml) and install the tarballs into new projects,
// offline, so nothing reaches them from the repository tree:
//
//   @blackwell-systems/gcf                the main package (`npm pack`, which
//                                         builds lib/layer.cjs first)
//   @blackwell-systems/gcf-<platform>     this machine's platform package, as
//                                         `napi create-npm-dirs` lays it out,
//                                         holding the addon test-node.sh built
//   @blackwell-systems/gcf-wasm           bindings-wasm/package, built by
//                                         scripts/build-wasm.sh
//
// Project "native" installs all three, project "fallback" leaves out the
// platform package, as on a platform with no prebuilt binary. Bun and Deno
// (the versions bindings-wasm/test/runtimes pins, installed by
// scripts/test-wasm.sh) run the native project too. Run by
// scripts/test-npm-install.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const NODE_PKG = fileURLToPath(new URL('..', import.meta.url));
const WASM_PKG = fileURLToPath(new URL('../../bindings-wasm/package', import.meta.url));
const { platformTriple } = require('../lib/engine/native.cjs');
const TRIPLE = platformTriple();
const ADDON = process.env.GCF_PLATFORM_ADDON || join(NODE_PKG, `gcf.${TRIPLE}.node`);

const PAYLOAD = {
  tool: 't',
  symbols: [
    { qualifiedName: 'pkg.Open', kind: 'function', score: 0.91, provenance: 'lsp', distance: 0 },
    { qualifiedName: 'pkg.Close', kind: 'method', score: 0.5, provenance: 'lsp', distance: 1 },
  ],
  edges: [{ source: 'pkg.Open', target: 'pkg.Close', edgeType: 'calls' }],
};
const TEXT = 'GCF profile=graph tool=t symbols=2 edges=1\n## targets\n@0 fn pkg.Open 0.91 lsp\n## related\n@1 method pkg.Close 0.50 lsp\n## edges [1]\n@1<@0 calls\n';

let work = '';
const tarballs = {};

function npm(args, cwd) {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error' } });
  assert.equal(r.status, 0, `npm ${args.join(' ')} in ${cwd}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

// `npm pack` prints the tarball's name last.
function pack(dir) {
  const out = npm(['pack', '--pack-destination', join(work, 'tgz')], dir).trim().split('\n');
  return join(work, 'tgz', out[out.length - 1]);
}

function project(name, packages) {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `app-${name}`, version: '1.0.0', private: true }));
  // --offline: the optional platform packages of other machines are not on
  // any registry yet; npm skips them as it skips any optional package that
  // cannot be had.
  npm(['install', '--offline', '--no-audit', '--no-fund', ...packages], dir);
  return dir;
}

// Runs node in a project (its node_modules resolve the package), with
// GCF_DEBUG set so the engine choice is on stderr.
function node(dir, args, input) {
  const env = { ...process.env, GCF_DEBUG: '1' };
  delete env.GCF_ENGINE;
  const r = spawnSync(process.execPath, args, { cwd: dir, input, encoding: 'utf8', env });
  assert.equal(r.status, 0, `node ${args.join(' ')} in ${dir}:\n${r.stderr}`);
  return r;
}

before(() => {
  assert.ok(existsSync(ADDON), `build the addon first (scripts/test-node.sh): ${ADDON}`);
  assert.ok(existsSync(join(WASM_PKG, 'wasm/web/gcf_wasm_bg.wasm')), 'build the wasm package first (scripts/build-wasm.sh)');
  work = mkdtempSync(join(tmpdir(), 'gcf-npm-install-'));
  mkdirSync(join(work, 'tgz'));
  // The platform packages' directories, laid out by the napi CLI as the
  // publish workflow does (it must stay inside the package), with this
  // machine's addon copied in as `napi artifacts` moves it.
  const npmDir = join(NODE_PKG, '.install-test');
  rmSync(npmDir, { recursive: true, force: true });
  try {
    execFileSync(process.execPath, [join(NODE_PKG, 'node_modules/.bin/napi'), 'create-npm-dirs', '--npm-dir', '.install-test'], {
      cwd: NODE_PKG,
      stdio: 'pipe',
    });
    // The release build when the script made one (GCF_PLATFORM_ADDON), else
    // the development addon.
    copyFileSync(ADDON, join(npmDir, TRIPLE, `gcf.${TRIPLE}.node`));
    tarballs.platform = pack(join(npmDir, TRIPLE));
  } finally {
    rmSync(npmDir, { recursive: true, force: true });
  }
  tarballs.main = pack(NODE_PKG);
  tarballs.wasm = pack(WASM_PKG);
  project('native', [tarballs.main, tarballs.wasm, tarballs.platform]);
  project('fallback', [tarballs.main, tarballs.wasm]);
});

after(() => {
  if (work && !process.env.GCF_KEEP_INSTALL) rmSync(work, { recursive: true, force: true });
});

function listing(tgz) {
  return execFileSync('tar', ['-tzf', tgz], { encoding: 'utf8' }).trim().split('\n').map((p) => p.replace(/^package\//, ''));
}

test('the main package holds its JS layer and entries, and no addon and no sources', () => {
  const files = listing(tarballs.main);
  for (const f of ['package.json', 'README.md', 'index.cjs', 'index.mjs', 'index.d.ts', 'browser.mjs', 'browser.d.ts', 'bin/gcf.mjs', 'lib/gcf.cjs', 'lib/gcf.mjs', 'lib/api.cjs', 'lib/layer.cjs', 'lib/browser.node.mjs', 'lib/engine/index.cjs', 'lib/engine/native.cjs', 'lib/node.cjs']) {
    assert.ok(files.includes(f), `${f} is packed`);
  }
  for (const f of files) assert.doesNotMatch(f, /\.node$|^src\/|^test|Cargo|\.rs$/, `${f} is not packed`);
  const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarballs.main, 'package/package.json'], { encoding: 'utf8' }));
  assert.equal(manifest.private, undefined, 'the package can be published');
  assert.equal(manifest.optionalDependencies['@blackwell-systems/gcf-wasm'], manifest.version);
  assert.equal(manifest.optionalDependencies[`@blackwell-systems/gcf-${TRIPLE}`], manifest.version);
  assert.deepEqual(listing(tarballs.platform).sort(), [`gcf.${TRIPLE}.node`, 'package.json', 'README.md'].sort());
  // The packages' pages on npm: the user READMEs, whose examples are tests.
  assert.ok(listing(tarballs.wasm).includes('README.md'));
  // The module once: the Node glue reads the web glue's copy.
  assert.deepEqual(listing(tarballs.wasm).filter((f) => f.endsWith('.wasm')), ['wasm/web/gcf_wasm_bg.wasm']);
});

// What the release workflow ships for a glibc platform: an addon that loads
// on glibc 2.17 and later (no symbol of a newer version), with no debug
// info. The development build here needs glibc 2.34 and weighs 24 MB.
test('the platform addon needs no glibc past the release pin, and carries no debug info', { skip: !process.env.GCF_PLATFORM_GLIBC && 'a glibc release build only (scripts/test-npm-install.sh on Linux gnu)' }, () => {
  const pin = process.env.GCF_PLATFORM_GLIBC.split('.').map(Number);
  const symbols = execFileSync('objdump', ['-T', ADDON], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const versions = [...new Set(symbols.match(/GLIBC_[0-9.]+/g))].map((v) => v.slice(6).split('.').map(Number));
  assert.ok(versions.length > 0, 'the addon links glibc');
  const newer = versions.filter(([a, b = 0]) => a > pin[0] || (a === pin[0] && b > pin[1]));
  assert.deepEqual(newer, [], `glibc versions past ${process.env.GCF_PLATFORM_GLIBC}`);
  const sections = execFileSync('objdump', ['-h', ADDON], { encoding: 'utf8' });
  assert.doesNotMatch(sections, /\.debug_/, 'no debug sections');
  const size = readFileSync(ADDON).length;
  assert.ok(size < 8 << 20, `the addon is ${size} bytes`);
});

test('native project: require and import load the native engine from the platform package', () => {
  const dir = join(work, 'native');
  const cjs = node(dir, ['-e', `process.stdout.write(require('@blackwell-systems/gcf').encode(${JSON.stringify(PAYLOAD)}))`]);
  assert.equal(cjs.stdout, TEXT);
  assert.match(cjs.stderr, new RegExp(`using the native engine \\(${TRIPLE}\\)`));
  // The addon came from node_modules, not from a copy next to the package.
  assert.ok(!existsSync(join(dir, 'node_modules/@blackwell-systems/gcf', `gcf.${TRIPLE}.node`)));
  assert.ok(existsSync(join(dir, `node_modules/@blackwell-systems/gcf-${TRIPLE}`, `gcf.${TRIPLE}.node`)));
  const esm = node(dir, ['--input-type=module', '-e', `import { encode } from '@blackwell-systems/gcf'; import * as b from '@blackwell-systems/gcf/browser'; process.stdout.write(encode(${JSON.stringify(PAYLOAD)}) + String(b.encode === encode))`]);
  assert.equal(esm.stdout, `${TEXT}true`);
});

test('fallback project: with no platform package, the WebAssembly engine, saying so under GCF_DEBUG', () => {
  const dir = join(work, 'fallback');
  const r = node(dir, [
    '-e',
    `const g = require('@blackwell-systems/gcf');
     let e = null;
     try { g.decode('GCF profile=graph\\n@x\\n'); } catch (err) { e = err; }
     process.stdout.write(JSON.stringify([g.encode(${JSON.stringify(PAYLOAD)}), e instanceof g.GcfError, e.category, e.line]));`,
  ]);
  const [text, isGcfError, category, line] = JSON.parse(r.stdout);
  assert.equal(text, TEXT);
  assert.equal(isGcfError, true);
  assert.equal(typeof category, 'string');
  assert.equal(line, 2);
  assert.match(r.stderr, new RegExp(`no native binary for ${TRIPLE} loaded .*; using the WebAssembly engine`));
  // The WebAssembly package on its own, as Node imports it.
  const wasm = node(dir, ['--input-type=module', '-e', `import { encode } from '@blackwell-systems/gcf-wasm'; process.stdout.write(encode(${JSON.stringify(PAYLOAD)}))`]);
  assert.equal(wasm.stdout, TEXT);
});

test('the gcf bin in both projects', () => {
  for (const name of ['native', 'fallback']) {
    const dir = join(work, name);
    const bin = join(dir, 'node_modules/.bin/gcf');
    const r = node(dir, [bin, 'encode'], JSON.stringify(PAYLOAD));
    assert.equal(r.stdout, TEXT, name);
    const back = node(dir, [bin, 'decode'], TEXT);
    assert.deepEqual(JSON.parse(back.stdout).symbols.map((s) => s.qualifiedName), ['pkg.Open', 'pkg.Close'], name);
  }
});

test('a browser bundle of the main package and of its "./browser" entry: the WebAssembly engine, no Node module', async () => {
  const { build } = require('esbuild-wasm');
  const dir = join(work, 'fallback');
  for (const spec of ['@blackwell-systems/gcf', '@blackwell-systems/gcf/browser']) {
    const app = join(dir, 'app.mjs');
    writeFileSync(app, `import { encode, decodeGeneric } from ${JSON.stringify(spec)};
export const text = encode(${JSON.stringify(PAYLOAD)});
export const value = decodeGeneric('GCF profile=generic\\n## [2]{id,name}\\n1|Ann\\n2|Bob\\n');
`);
    const outDir = mkdtempSync(join(work, 'bundle-'));
    const out = join(outDir, 'bundle.mjs');
    await build({ entryPoints: [app], outfile: out, bundle: true, format: 'esm', platform: 'browser', target: 'es2022', logLevel: 'silent', absWorkingDir: dir });
    const bundled = readFileSync(out, 'utf8');
    assert.ok(!/\bnode:|require\(["'](fs|path)["']\)|\.node["']/.test(bundled), `${spec}: the browser bundle pulls in no Node module`);
    // The module file beside the bundle, as a bundler's asset step puts it.
    copyFileSync(join(dir, 'node_modules/@blackwell-systems/gcf-wasm/wasm/web/gcf_wasm_bg.wasm'), join(outDir, 'gcf_wasm_bg.wasm'));
    const saved = globalThis.fetch;
    globalThis.fetch = async (url) => new Response(await readFile(fileURLToPath(url)), { headers: { 'Content-Type': 'application/wasm' } });
    try {
      const m = await import(pathToFileURL(out).href);
      assert.equal(m.text, TEXT, spec);
      assert.equal(m.value[1].get('name'), 'Bob', spec);
    } finally {
      globalThis.fetch = saved;
    }
  }
});

// MCP servers are often shipped as one bundled file (esbuild, tsup), every
// pure-JS dependency inlined, as 2.5.2 is. The package's JS is bundled the
// same way; the engine is loaded at run time from the node_modules the
// bundle runs beside (an addon cannot be inlined).
test('a Node bundle of a program (ESM and CommonJS output) runs, on either engine', async () => {
  const { build } = require('esbuild-wasm');
  const dir = join(work, 'native');
  writeFileSync(join(dir, 'server.mjs'), `import { encode } from '@blackwell-systems/gcf';
process.stdout.write(encode(${JSON.stringify(PAYLOAD)}));
`);
  writeFileSync(join(dir, 'server.cjs'), `const { encode } = require('@blackwell-systems/gcf');
process.stdout.write(encode(${JSON.stringify(PAYLOAD)}));
`);
  for (const [entry, format] of [['server.mjs', 'esm'], ['server.cjs', 'cjs']]) {
    const out = join(dir, 'dist', `${entry}.${format === 'esm' ? 'mjs' : 'cjs'}`);
    await build({ entryPoints: [join(dir, entry)], outfile: out, bundle: true, format, platform: 'node', target: 'node18', logLevel: 'silent', absWorkingDir: dir });
    const bundled = readFileSync(out, 'utf8');
    assert.match(bundled, /createApi/, `${entry}: the package's layer is in the bundle`);
    const r = node(dir, [out]);
    assert.equal(r.stdout, TEXT, `${entry} as ${format}`);
    assert.match(r.stderr, /using the native engine/, `${entry} as ${format}`);
    const env = { ...process.env, GCF_ENGINE: 'wasm', GCF_DEBUG: '1' };
    const w = spawnSync(process.execPath, [out], { cwd: dir, encoding: 'utf8', env });
    assert.equal(w.status, 0, `${entry} as ${format} on wasm: ${w.stderr}`);
    assert.equal(w.stdout, TEXT, `${entry} as ${format} on wasm`);
    // Shipped without node_modules, a bundle cannot load an engine; the
    // error names the packages it lacks.
    const alone = mkdtempSync(join(tmpdir(), 'gcf-bundle-alone-'));
    try {
      const copy = join(alone, format === 'esm' ? 'server.mjs' : 'server.cjs');
      copyFileSync(out, copy);
      const a = spawnSync(process.execPath, [copy], { cwd: alone, encoding: 'utf8' });
      assert.notEqual(a.status, 0);
      assert.match(a.stderr, new RegExp(`no engine could be loaded: native \\(Cannot find module '@blackwell-systems/gcf-${TRIPLE}'.*\\), wasm \\(Cannot find module '@blackwell-systems/gcf-wasm/engine.cjs'`));
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  }
});

test('the declarations type-check a program in the installed project', () => {
  const dir = join(work, 'native');
  const types = join(NODE_PKG, 'test/types');
  for (const f of readdirSync(types)) cpSync(join(types, f), join(dir, f));
  writeFileSync(join(dir, 'browser.mts'), `import { encode, type Payload } from '@blackwell-systems/gcf/browser';
const p: Payload = { tool: 't', tokenBudget: 0, tokensUsed: 0, symbols: [], edges: [] };
const text: string = encode(p);
console.log(text);
`);
  const config = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'));
  config.files.push('browser.mts');
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
  const r = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

const RUNTIMES = fileURLToPath(new URL('../../bindings-wasm/test/runtimes/node_modules/.bin/', import.meta.url));
const runtimeSkip = (name) => !existsSync(join(RUNTIMES, name)) && `${name} is installed by scripts/test-wasm.sh (bindings-wasm/test/runtimes)`;

// A program importing the package by name, as a Bun or Deno server does.
const APP = `import gcf from '@blackwell-systems/gcf';
process.stdout.write(gcf.encode(${JSON.stringify(PAYLOAD)}));
`;

function runtime(name, args) {
  const dir = join(work, 'native');
  writeFileSync(join(dir, 'app.mjs'), APP);
  return spawnSync(join(RUNTIMES, name), args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, GCF_DEBUG: '1', GCF_ENGINE: '', NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
  });
}

test('Bun loads the native engine from the platform package', { skip: runtimeSkip('bun') }, () => {
  const r = runtime('bun', ['app.mjs']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, TEXT);
  assert.match(r.stderr, new RegExp(`using the native engine \\(${TRIPLE}\\)`));
});

// Deno asks for a permission per capability. The package reads GCF_ENGINE
// and GCF_DEBUG only where --allow-env grants it, and tells glibc from musl
// without --allow-sys; the addon needs --allow-ffi, the WebAssembly
// fallback --allow-read (its .wasm file). With neither, the error names both.
test('Deno: the engine each permission allows, and an error naming the flags when none does', { skip: runtimeSkip('deno') }, () => {
  const deno = (...perms) => runtime('deno', ['run', ...perms, '--no-lock', 'app.mjs']);
  for (const perms of [['--allow-ffi'], ['--allow-all']]) {
    const r = deno(...perms);
    assert.equal(r.status, 0, `${perms}: ${r.stderr}`);
    assert.equal(r.stdout, TEXT, String(perms));
  }
  // Only with --allow-env can GCF_DEBUG be read, and so say which engine.
  const all = deno('--allow-all');
  assert.match(all.stderr, new RegExp(`using the native engine \\(${TRIPLE}\\)`));
  const read = deno('--allow-read', '--allow-env');
  assert.equal(read.status, 0, read.stderr);
  assert.equal(read.stdout, TEXT);
  assert.match(read.stderr, /no native binary .* loaded \(.*--allow-ffi.*\); using the WebAssembly engine/);
  const readOnly = deno('--allow-read');
  assert.equal(readOnly.status, 0, readOnly.stderr);
  assert.equal(readOnly.stdout, TEXT);
  const none = deno();
  assert.notEqual(none.status, 0);
  assert.match(none.stderr, /no engine could be loaded: native \(.*--allow-ffi.*\), wasm \(.*--allow-read.*\)/);
});
