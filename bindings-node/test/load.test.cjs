'use strict';
// The package loads as CommonJS and as ESM through its own exports map (a
// self-reference by name), both give one module, and the bin runs.
const test = require('node:test');
const assert = require('node:assert');
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const EXPORTS = ['KIND_ABBREV', 'KIND_EXPAND', 'encode', 'decode', 'encodeGeneric', 'decodeGeneric', 'parseJSONOrdered'];

test('require by package name (exports "require")', () => {
  const gcf = require('@blackwell-systems/gcf');
  for (const name of EXPORTS) assert.ok(name in gcf, name);
  assert.strictEqual(gcf.encodeGeneric({ a: 1 }), 'GCF profile=generic\na=1\n');
});

test('import by package name (exports "import") gives the same functions', async () => {
  const esm = await import('@blackwell-systems/gcf');
  const cjs = require('@blackwell-systems/gcf');
  for (const name of EXPORTS) assert.strictEqual(esm[name], cjs[name], name);
  const browser = await import('@blackwell-systems/gcf/browser');
  assert.strictEqual(browser.encode, cjs.encode);
});

test('every named ESM export of 2.5.2 (main and browser entries) is a named ESM export here', async () => {
  const { PENDING_EXPORTS } = require('./pending.cjs');
  const cjs = require('@blackwell-systems/gcf');
  const pairs = [
    [await import('gcf-reference'), await import('@blackwell-systems/gcf')],
    [await import('gcf-reference/browser'), await import('@blackwell-systems/gcf/browser')],
  ];
  for (const [ref, ours] of pairs) {
    const missing = Object.keys(ref).filter(
      (k) => k !== 'default' && !PENDING_EXPORTS.includes(k) && !(k in ours && ours[k] === cjs[k]),
    );
    assert.deepStrictEqual(missing, []);
  }
});

test('every runtime export of 2.5.2 is here', () => {
  const ref = require('gcf-reference');
  const ours = require('@blackwell-systems/gcf');
  const missing = Object.keys(ref).filter((k) => !(k in ours));
  assert.deepStrictEqual(missing, require('./pending.cjs').PENDING_EXPORTS);
});

test("2.5.2's functions and classes: the same kind, arity (fn.length) and public methods and getters", () => {
  const ref = require('gcf-reference');
  const ours = require('@blackwell-systems/gcf');
  // TypeScript-private in 2.5.2 (not in its .d.ts): its own steps.
  const PRIVATE = ['GenericDeltaSession.reanchor', 'GenericStreamEncoder.endArrayInternal', 'StreamEncoder.writeHeader'];
  const problems = [];
  for (const [name, theirs] of Object.entries(ref)) {
    const mine = ours[name];
    if (typeof theirs !== typeof mine) problems.push(`${name}: ${typeof theirs} there, ${typeof mine} here`);
    if (typeof theirs !== 'function' || typeof mine !== 'function') continue;
    if (theirs.length !== mine.length) problems.push(`${name}: length ${theirs.length} there, ${mine.length} here`);
    for (const member of Object.getOwnPropertyNames(theirs.prototype || {})) {
      if (member === 'constructor' || PRIVATE.includes(`${name}.${member}`)) continue;
      const t = Object.getOwnPropertyDescriptor(theirs.prototype, member);
      const m = mine.prototype && Object.getOwnPropertyDescriptor(mine.prototype, member);
      if (!m) problems.push(`${name}.${member}: missing`);
      else if (!!t.get !== !!m.get) problems.push(`${name}.${member}: a getter in one package only`);
      else if (typeof t.value === 'function' && t.value.length !== m.value.length) {
        problems.push(`${name}.${member}: length ${t.value.length} there, ${m.value.length} here`);
      }
    }
  }
  assert.deepStrictEqual(problems, []);
});

test('errors: an Error whose message starts with the category, with category, line and column', () => {
  const gcf = require('@blackwell-systems/gcf');
  const ref = require('gcf-reference');
  const text = 'GCF profile=generic\n## [3]{a}\n1\n';
  assert.throws(() => ref.decodeGeneric(text), /^Error: count_mismatch: /);
  try {
    gcf.decodeGeneric(text);
    assert.fail('no error');
  } catch (e) {
    assert.ok(e instanceof Error);
    assert.match(String(e), /^Error: count_mismatch: /);
    assert.strictEqual(e.category, 'count_mismatch');
    assert.strictEqual(e.line, 2);
    assert.strictEqual(typeof e.column, 'number');
  }
});

test('largeInt modes on decode', () => {
  const gcf = require('@blackwell-systems/gcf');
  const text = 'GCF profile=generic\nn=9007199254740993\n';
  assert.strictEqual(gcf.decodeGeneric(text).get('n'), 9007199254740992);
  assert.strictEqual(gcf.decodeGeneric(text, { largeInt: 'string' }).get('n'), '9007199254740993');
  assert.strictEqual(gcf.decodeGeneric(text, { largeInt: 'bigint' }).get('n'), 9007199254740993n);
  assert.throws(() => gcf.decodeGeneric(text, { largeInt: 'error' }), (e) => e.category === 'out_of_range');
  assert.throws(() => gcf.decodeGeneric(text, { largeInt: 'nope' }), (e) => e.category === 'usage');
  assert.strictEqual(gcf.parseJSONOrdered('{"n":9007199254740993}', { largeInt: 'bigint' }).get('n'), 9007199254740993n);
  assert.strictEqual(gcf.encodeGeneric({ n: 9007199254740993n }), text);
  assert.throws(() => gcf.encodeGeneric({ n: 2 ** 60 }, { largeInt: 'error' }), (e) => e.category === 'out_of_range');
});

test('constant columns are off by default and on when asked', () => {
  const gcf = require('@blackwell-systems/gcf');
  const rows = [{ id: 1, t: 'f' }, { id: 2, t: 'f' }];
  assert.strictEqual(gcf.encodeGeneric(rows), 'GCF profile=generic\n## [2]{id,t}\n1|f\n2|f\n');
  assert.strictEqual(gcf.encodeGeneric(rows, { constantColumns: true }), 'GCF profile=generic\n## [2]{id,t=f}\n1\n2\n');
});

test('the gcf bin encodes and decodes', () => {
  const bin = path.join(__dirname, '..', 'bin', 'gcf.mjs');
  const out = execFileSync(process.execPath, [bin, 'encode-generic'], { input: '{"5":1,"a":[{"x":1},{"x":2}]}' }).toString();
  assert.strictEqual(out, 'GCF profile=generic\n"5"=1\n## a [2]{x}\n1\n2\n');
  const back = execFileSync(process.execPath, [bin, 'decode-generic'], { input: out }).toString();
  assert.deepStrictEqual(JSON.parse(back), { 5: 1, a: [{ x: 1 }, { x: 2 }] });
});

test('gcf stats, encode and decode print what 2.5.2 prints for a graph payload; stats measures other JSON as generic', () => {
  const bin = path.join(__dirname, '..', 'bin', 'gcf.mjs');
  const theirs = path.join(__dirname, '..', 'node_modules', 'gcf-reference', 'dist', 'cli.js');
  const { make } = require('./random.cjs');
  const g = make(7);
  for (let i = 0; i < 20; i++) {
    const input = JSON.stringify(g.graph(), null, i % 2 ? 2 : 0);
    const run = (cli, cmd, text) => execFileSync(process.execPath, [cli, cmd], { input: text }).toString();
    assert.strictEqual(run(bin, 'stats', input), run(theirs, 'stats', input), input);
    // encode, and decode back to 2.5.2's JSON form (member order, `packRoot`,
    // `status` only when set).
    const text = run(theirs, 'encode', input);
    assert.strictEqual(run(bin, 'encode', input), text, input);
    assert.strictEqual(run(bin, 'decode', text), run(theirs, 'decode', text), text);
  }
  const out = execFileSync(process.execPath, [bin, 'stats'], { input: '[{"a":1},{"a":2}]' }).toString();
  assert.match(out, /^Payload: a generic JSON value\n\n {2}JSON {2}█{30} {2}4 tokens\n/);
});

test('gcf refuses input that is not UTF-8 (2.5.2 reads it as U+FFFD), at its line and column where it decodes', () => {
  const bin = path.join(__dirname, '..', 'bin', 'gcf.mjs');
  const run = (cmd, bytes) => {
    try {
      execFileSync(process.execPath, [bin, cmd], { input: bytes, stdio: 'pipe' });
    } catch (e) {
      return [e.status, e.stderr.toString()];
    }
    return [0, ''];
  };
  const latin1 = Buffer.from('GCF profile=generic\na=\xe9\n', 'latin1');
  assert.deepStrictEqual(run('decode-generic', latin1), [1, 'gcf: invalid_utf8: malformed UTF-8 (byte 0xE9) (line 2, column 3)\n']);
  assert.deepStrictEqual(run('encode-generic', Buffer.from('{"a":"\xe9"}', 'latin1')), [1, 'gcf: invalid_utf8: stdin is not UTF-8\n']);
  const graph = Buffer.from('GCF profile=graph symbols=1\n## targets\n@0 fn \xe9 0.50 x\n', 'latin1');
  assert.deepStrictEqual(run('decode', graph), [1, 'gcf: invalid_utf8: malformed UTF-8 (byte 0xE9) (line 3, column 7)\n']);
});

test('the .d.ts type-checks a sample program with tsc', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', path.join(__dirname, 'types', 'tsconfig.json')], { stdio: 'pipe' });
});
