'use strict';
// Sessions (encodeWithSession) against 2.5.2 over runs of random payloads:
// new symbols and ones delivered before (bare references), with and without
// a pack root, edges in any order. Byte-identical, and the Session's counts
// and ids agree. 2.5.2 writes a payload's symbols in the order given, where
// spec §16.1 orders them (distance, then descending score) and so does this
// package, so the payloads list them in that order; names keep their kind
// (§9.1 identifies a symbol by kind and name, 2.5.2 by name alone); edges name
// known symbols (2.5.2 drops another's line but counts it in its header).
// README, "Where the spec and the references differ", lists the three.
const test = require('node:test');
const assert = require('node:assert');
const gcf = require('../index.cjs');
const ref = require('gcf-reference');
const { make } = require('./random.cjs');

const SEED = Number(process.env.GCF_DIFF_SEED || (process.env.CI ? 20261129 : Date.now() % 2147483647));
const RUNS = Math.max(200, Number(process.env.GCF_DIFF_N || 10000) / 20);

test(`sessions: ${RUNS} runs of four payloads match 2.5.2 (seed ${SEED})`, () => {
  const g = make(SEED ^ 0x5e55);
  let bare = 0;
  for (let run = 0; run < RUNS; run++) {
    const ours = new gcf.Session();
    const theirs = new ref.Session();
    let delivered = [];
    for (let call = 0; call < 4; call++) {
      const p = g.graph();
      // Names unique to the run, so that each keeps its kind.
      const rename = new Map(p.symbols.map((s, i) => [s.qualifiedName, `${s.qualifiedName}.r${run}c${call}i${i}`]));
      p.symbols = p.symbols.map((s) => ({ ...s, qualifiedName: rename.get(s.qualifiedName) }));
      p.edges = p.edges
        .filter((e) => rename.has(e.source) && rename.has(e.target))
        .map((e) => ({ ...e, source: rename.get(e.source), target: rename.get(e.target) }));
      const fresh = p.symbols.slice();
      for (const s of delivered) if (g.r() < 0.3) p.symbols.push({ ...s, score: g.r(), distance: g.int(3) });
      p.symbols.sort((a, b) => a.distance - b.distance || b.score - a.score);
      const names = p.symbols.map((s) => s.qualifiedName);
      for (let k = g.int(4); names.length && k > 0; k--) p.edges.push({ source: g.pick(names), target: g.pick(names), edgeType: 'calls' });
      const mine = gcf.encodeWithSession(p, ours);
      assert.strictEqual(mine, ref.encodeWithSession(p, theirs), `run ${run}, call ${call}`);
      bare += mine.split('# previously transmitted').length - 1;
      assert.strictEqual(ours.size(), theirs.size());
      for (const s of p.symbols) {
        assert.strictEqual(ours.transmitted(s.qualifiedName), theirs.transmitted(s.qualifiedName));
        assert.strictEqual(ours.getID(s.qualifiedName), theirs.getID(s.qualifiedName), s.qualifiedName);
      }
      delivered = delivered.concat(fresh);
    }
  }
  assert.ok(bare > 100, `${bare} bare references`);
});

// The ids a session declares are the ids it later refers to, whatever the
// order of the payload's symbols (new ones take ids in the payload's order,
// as in 2.5.2, and are written in emission order).
test('bare references name the symbols declared under their ids', () => {
  const ours = new gcf.Session();
  const B = { qualifiedName: 'pkg.B', kind: 'function', score: 0.5, provenance: 'lsp', distance: 1 };
  const A = { qualifiedName: 'pkg.A', kind: 'function', score: 0.9, provenance: 'lsp', distance: 0 };
  const first = gcf.encodeWithSession({ tool: 't', symbols: [B, A], edges: [] }, ours);
  assert.strictEqual(first, 'GCF profile=graph tool=t symbols=2 session=true\n## targets\n@1 fn pkg.A 0.90 lsp\n## related\n@0 fn pkg.B 0.50 lsp\n');
  const second = gcf.encodeWithSession({ tool: 't', symbols: [A], edges: [] }, ours);
  assert.ok(second.endsWith('## targets\n@1  # previously transmitted\n'), second);
  const decoder = new gcf.SessionDecoder();
  decoder.decode(first);
  assert.strictEqual(decoder.decode(second).symbols[0].qualifiedName, 'pkg.A');
});
