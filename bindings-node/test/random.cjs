'use strict';
// Seeded random graph payloads and generic values for the differential tests.

function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    // xorshift32
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

function make(seed) {
  const r = rng(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (a) => a[int(a.length)];
  const KINDS = ['function', 'type', 'method', 'interface', 'var', 'const', 'class', 'field', 'route_handler', 'external', 'file', 'package', 'service', 'module', 'macro'];
  const PROV = ['lsp_resolved', 'ast_inferred', 'lsp', 'grep', 'heuristic'];
  const EDGE = ['calls', 'imports', 'implements', 'references', 'contains'];
  const WORDS = ['auth', 'Server', 'handle', 'db', 'Query', 'util', 'x', 'Élan', 'данные', 'init', 'v2', 'HTTP'];
  const qname = () => {
    const n = 1 + int(3);
    const parts = [];
    for (let i = 0; i < n; i++) parts.push(pick(WORDS) + (r() < 0.3 ? int(100) : ''));
    return pick(['pkg/', 'internal/', '', 'src.']) + parts.join(pick(['.', '/', '::']));
  };
  const score = () => pick([int(101) / 100, r(), Math.round(r() * 1000) / 1000, 0, 1, 0.125, 0.625, 0.005, -0.5, 2.675, 99.999, 1e-9]);

  function graph() {
    const n = int(40);
    const symbols = [];
    const names = new Set();
    for (let i = 0; i < n; i++) {
      let q = qname();
      while (names.has(q)) q += '_' + i;
      names.add(q);
      const s = { qualifiedName: q, kind: pick(KINDS), score: score(), provenance: pick(PROV), distance: pick([0, 0, 1, 1, 2, 3, 7]) };
      symbols.push(s);
    }
    const edges = [];
    const m = n ? int(2 * n) : 0;
    for (let i = 0; i < m; i++) {
      // Now and then an endpoint no symbol has: every encoder drops the edge.
      const end = () => (r() < 0.05 ? 'pkg/Missing.Sym' : pick(symbols).qualifiedName);
      const e = { source: end(), target: end(), edgeType: pick(EDGE) };
      if (r() < 0.2) e.status = pick(['added', 'removed', 'unchanged', 'renamed']);
      edges.push(e);
    }
    const p = { tool: pick(['context_for_task', 'search', 'find_refs', '']), tokenBudget: int(10000), tokensUsed: int(5000), symbols, edges };
    if (r() < 0.2) p.packRoot = 'sha256:' + 'ab'.repeat(32);
    return p;
  }

  const KEYS = ['id', 'name', 'type', 'value', 'email', 'tags', 'meta', 'a b', '5', '0', 'x>y', '', 'ключ', 'count', 'ok', 'a"b', '-', 'true', 'z', 'constructor', 'prototype'];
  const STRINGS = ['', 'alice', 'Bob Smith', '-', 'true', 'false', 'null', '1', '1.5', '-0', '007', 'a|b', 'a,b', 'line\nbreak', 'tab\there', ' lead', 'trail ', 'quote"d', 'back\\slash', '^', '~', '@x', '#c', '=', 'é', '日本', '😀', '[1]', '{x}', 'x:y', 'a>b'];
  // Integral doubles in [2^53, 1e21) are left out: the spec writes them in
  // exponent form where 2.5.2 writes every digit (a documented difference),
  // and `r() * 1e25` lands there about once in 10,000 values.
  const scalar = () => {
    switch (int(7)) {
      case 0:
        return null;
      case 1:
        return r() < 0.5;
      case 2:
        return int(2000) - 1000;
      case 3:
        return pick([0.5, -1.25, 1e-7, 1.5e300, 3.14159, 0.1, 100.0, 1e21, 123456.789, -0, r() * 1000, (r() - 0.5) * 1e-5, r() * 1e15, 1e21 + r() * 1e25]);
      default:
        return pick(STRINGS);
    }
  };
  function record(fields, depth) {
    const o = {};
    for (const f of fields) if (r() < 0.85) o[f] = depth > 0 && r() < 0.15 ? value(depth - 1) : scalar();
    return o;
  }
  function value(depth) {
    const k = depth <= 0 ? 0 : int(6);
    if (k === 0) return scalar();
    if (k === 1 || k === 2) {
      // a table-like array of records
      const fields = [];
      const nf = 1 + int(5);
      for (let i = 0; i < nf; i++) fields.push(pick(KEYS));
      const rows = [];
      const nested = r() < 0.3 ? { [pick(KEYS)]: scalar(), [pick(KEYS)]: scalar() } : null;
      for (let i = 0, n = int(6); i < n; i++) {
        const row = record(fields, depth - 1);
        if (nested && r() < 0.9) row.sub = { ...nested, [Object.keys(nested)[0]]: scalar() };
        rows.push(row);
      }
      return rows;
    }
    if (k === 3) {
      const a = [];
      for (let i = 0, n = int(5); i < n; i++) a.push(r() < 0.7 ? scalar() : value(depth - 1));
      return a;
    }
    const o = {};
    for (let i = 0, n = int(5); i < n; i++) o[pick(KEYS)] = value(depth - 1);
    return o;
  }
  const generic = () => value(1 + int(3));
  return { graph, generic, scalar, pick, int, r };
}

module.exports = { make };
