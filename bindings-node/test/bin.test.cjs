'use strict';
// The `gcf` bin against 2.5.2's (its bin file run the same way): the same
// bytes and exit codes for the commands and arguments 2.5.2 takes, `-` for
// stdin included.
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const OURS = path.join(__dirname, '..', 'bin', 'gcf.mjs');
const THEIRS = path.join(__dirname, '..', 'node_modules', 'gcf-reference', 'dist', 'cli.js');
const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'codegraph.json');

function run(bin, args, input) {
  const r = spawnSync(process.execPath, [bin, ...args], { input, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const graph = JSON.stringify({
  tool: 't',
  tokenBudget: 100,
  tokensUsed: 10,
  symbols: [
    { qualifiedName: 'pkg.A', kind: 'function', score: 0.9, provenance: 'lsp', distance: 0 },
    { qualifiedName: 'pkg.B', kind: 'type', score: 0.5, provenance: 'ast', distance: 1 },
  ],
  edges: [{ source: 'pkg.B', target: 'pkg.A', edgeType: 'calls' }],
});

test('encode and decode read a file, stdin, or stdin named `-`, as 2.5.2 does', () => {
  const text = run(THEIRS, ['encode'], graph).stdout;
  assert.match(text, /^GCF profile=graph/);
  for (const args of [['encode'], ['encode', '-']]) {
    const ours = run(OURS, args, graph);
    assert.deepStrictEqual([ours.status, ours.stdout], [0, text], args.join(' '));
  }
  for (const args of [['decode'], ['decode', '-']]) {
    assert.deepStrictEqual(run(OURS, args, text), run(THEIRS, args, text), args.join(' '));
  }
  const generic = '{"b":1,"a":[{"x":1,"y":"q"},{"x":2,"y":"r"}]}';
  for (const args of [['encode-generic', '-'], ['encode-generic']]) {
    assert.deepStrictEqual(run(OURS, args, generic), run(THEIRS, args, generic), args.join(' '));
  }
});

test('no command and an unknown one exit 1 with the usage on stderr, as in 2.5.2', () => {
  for (const args of [[], ['frob']]) {
    const ours = run(OURS, args, '');
    const theirs = run(THEIRS, args, '');
    assert.strictEqual(ours.status, theirs.status, args.join(' '));
    assert.strictEqual(ours.stdout, '');
    assert.match(ours.stderr, /Usage:/);
  }
  assert.match(run(OURS, ['frob'], '').stderr, /^unknown command: frob\n/);
  assert.strictEqual(run(OURS, ['help'], '').status, 0);
});

test('a missing file and a bad payload exit 1 with one line on stderr', () => {
  const missing = run(OURS, ['encode', path.join(__dirname, 'no-such-file.json')], '');
  assert.strictEqual(missing.status, 1);
  assert.match(missing.stderr, /^gcf: ENOENT/);
  const bad = run(OURS, ['decode', '-'], 'GCF profile=graph tool=t\n## targets\n@0 fn a\n');
  assert.strictEqual(bad.status, 1);
  assert.match(bad.stderr, /^gcf: invalid_node_line: .*\(line 3, column 1\)\n$/);
  assert.strictEqual(run(OURS, ['encode', EXAMPLE], '').status, 0);
});
