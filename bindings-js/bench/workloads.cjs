'use strict';
// The workloads and the timer of both JS packages' benches
// (bindings-node/bench/bench.cjs, bindings-wasm/bench/bench.mjs), so the two
// BENCH.md files measure the same payloads the same way.

// Process CPU time (user + system, all threads): on a shared, loaded
// machine, wall time also counts the time spent waiting for a core, which
// swung single rows by 2-3x between runs; CPU time does not.
function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

// The median of 5 batches of at least minMs / 5 each, after a warm-up call,
// starting from a collected heap (with --expose-gc) so that no row pays for
// the garbage the previous row left (2.5.2's runs leave most).
function time(fn, minMs) {
  if (global.gc) global.gc();
  fn();
  let n = 1;
  for (;;) {
    const t = cpuMs();
    for (let i = 0; i < n; i++) fn();
    if (cpuMs() - t > minMs / 5) break;
    n *= 2;
  }
  const runs = [];
  for (let b = 0; b < 5; b++) {
    const t = cpuMs();
    for (let i = 0; i < n; i++) fn();
    runs.push((cpuMs() - t) / n);
  }
  runs.sort((a, b) => a - b);
  return runs[2];
}

// A code graph of n symbols, each with a name of its own allocation, and
// n - 1 edges naming them.
function graph(n) {
  const KINDS = ['function', 'type', 'method', 'interface', 'field'];
  const symbols = [];
  for (let i = 0; i < n; i++) {
    symbols.push({
      qualifiedName: `pkg/mod${i % 97}/sub.Symbol${i}`,
      kind: KINDS[i % KINDS.length],
      score: ((i * 7919) % 1000) / 1000,
      provenance: i % 3 ? 'lsp_resolved' : 'ast_inferred',
      distance: i % 4,
    });
  }
  const edges = [];
  for (let i = 1; i < n; i++) {
    edges.push({ source: symbols[i].qualifiedName, target: symbols[(i * 31) % i].qualifiedName, edgeType: i % 2 ? 'calls' : 'imports' });
  }
  return { tool: 'context_for_task', tokenBudget: 100000, tokensUsed: 5000, symbols, edges };
}

// A function that calls f on each of xs, one call per item, as a server
// makes one call per request (the rows "a call each").
function eachCall(f, xs) {
  return () => {
    for (const x of xs) f(x);
  };
}

// n flat 7-field records.
function records(n) {
  const rows = [];
  for (let i = 0; i < n; i++) {
    rows.push({
      id: i,
      name: `user ${i}`,
      email: `u${i}@example.com`,
      dept: ['eng', 'sales', 'ops'][i % 3],
      salary: 50000 + (i % 1000) * 13.5,
      active: i % 5 !== 0,
      manager: i % 7 === 0 ? null : `m${i % 50}`,
    });
  }
  return { employees: rows };
}

// n orders with a nested customer and an item list.
function nested(n) {
  const orders = [];
  for (let i = 0; i < n; i++) {
    orders.push({ id: i, total: i * 1.25, customer: { name: `c${i % 100}`, tier: i % 2 ? 'gold' : 'basic' }, items: [{ sku: `s${i}`, qty: 1 + (i % 3) }] });
  }
  return { orders };
}

// n objects of the shapes a tool call returns one at a time, each its own
// call: an issue (13 members: integers, strings, booleans, a null, a float,
// a nested object, a list of two records) when `small` is false, else a
// status (3 members: a boolean, a string, a float). Each object and string
// is built on its own, as JSON.parse or a tool's code hands them over.
function toolResults(n, small = false) {
  const STATES = ['open', 'closed'];
  const LABELS = ['bug', 'decoder', 'encoder', 'docs', 'perf'];
  const out = [];
  for (let i = 0; i < n; i++) {
    if (small) {
      out.push({ ok: i % 9 !== 0, message: `indexed ${i % 500} files`, elapsed_ms: (i % 2000) / 4 });
      continue;
    }
    out.push({
      id: 4000 + i,
      number: 1 + (i % 900),
      title: `decode fails on input ${i}`,
      state: STATES[i % 2],
      locked: i % 10 === 0,
      comments: i % 40,
      created_at: `2026-11-${String(1 + (i % 28)).padStart(2, '0')}T10:${String(i % 60).padStart(2, '0')}:00Z`,
      user: { login: `dev${i % 100}`, id: 10000 + ((i * 7919) % 900000), site_admin: false },
      labels: [
        { name: LABELS[i % 5], color: 'd73a4a' },
        { name: LABELS[(i + 2) % 5], color: '0e8a16' },
      ],
      assignee: null,
      score: (i % 10000) / 100,
    });
  }
  return out;
}

// Graph payloads made from real code (scripts/corpus/code_graphs.py over
// python3's standard library: real qualified names, mostly the size of an MCP
// tool result, median 12 symbols), read from GCF_CODE_GRAPHS or
// target/bench-inputs/code-graphs, made there first if missing. Payloads
// naming a symbol twice are left out: 2.5.2 writes those differently (README,
// "Where the spec and the references differ"). null without python3.
function codeGraphs() {
  const fs = require('node:fs');
  const path = require('node:path');
  const root = path.join(__dirname, '..', '..');
  const dir = process.env.GCF_CODE_GRAPHS || path.join(root, 'target', 'bench-inputs', 'code-graphs');
  if (!fs.existsSync(dir)) {
    try {
      require('node:child_process').execFileSync('python3', [path.join(root, 'scripts', 'corpus', 'code_graphs.py'), dir], { stdio: 'ignore' });
    } catch {
      return null;
    }
  }
  const payloads = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')))
    .filter((p) => new Set(p.symbols.map((s) => s.qualifiedName)).size === p.symbols.length);
  return payloads.length ? payloads : null;
}

module.exports = { cpuMs, time, eachCall, graph, records, nested, toolResults, codeGraphs };
