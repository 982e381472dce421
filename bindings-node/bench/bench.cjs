'use strict';
// Same-process benchmark against the 2.5.2 package (devDependency
// gcf-reference): graph encode/decode at 10,000 and 100,000 symbols, generic
// encode/decode, small payloads, and where the time goes in a call (the JS
// half of the conversion vs the engine). Writes BENCH.md next to package.json.
//   node bench/bench.cjs [--quick]
const fs = require('node:fs');
const path = require('node:path');
const gcf = require('../index.cjs');
const ref = require('gcf-reference');
const engine = require('../lib/engine/index.cjs').get();

const QUICK = process.argv.includes('--quick');

function time(fn, minMs = QUICK ? 150 : 600) {
  // Warm up, then run for at least minMs; the median of 5 batches.
  fn();
  let n = 1;
  for (;;) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (ms > minMs / 5) break;
    n *= 2;
  }
  const runs = [];
  for (let b = 0; b < 5; b++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    runs.push(Number(process.hrtime.bigint() - t) / 1e6 / n);
  }
  runs.sort((a, b) => a - b);
  return runs[2];
}

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
  for (let i = 1; i < n; i++) edges.push({ source: symbols[i].qualifiedName, target: symbols[(i * 31) % i].qualifiedName, edgeType: i % 2 ? 'calls' : 'imports' });
  return { tool: 'context_for_task', tokenBudget: 100000, tokensUsed: 5000, symbols, edges };
}

function records(n) {
  const rows = [];
  for (let i = 0; i < n; i++) {
    rows.push({ id: i, name: `user ${i}`, email: `u${i}@example.com`, dept: ['eng', 'sales', 'ops'][i % 3], salary: 50000 + (i % 1000) * 13.5, active: i % 5 !== 0, manager: i % 7 === 0 ? null : `m${i % 50}` });
  }
  return { employees: rows };
}

function nested(n) {
  const orders = [];
  for (let i = 0; i < n; i++) orders.push({ id: i, total: i * 1.25, customer: { name: `c${i % 100}`, tier: i % 2 ? 'gold' : 'basic' }, items: [{ sku: `s${i}`, qty: 1 + (i % 3) }] });
  return { orders };
}

const rows = [];
function row(name, a, b) {
  const r = { name, ours: a, ref: b, x: b / a };
  rows.push(r);
  process.stdout.write(`${name.padEnd(46)} ours ${fmt(a).padStart(10)}  2.5.2 ${fmt(b).padStart(10)}  ${r.x.toFixed(2)}x\n`);
}
const fmt = (ms) => (ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`);

for (const n of [10, 100, 10000, 100000]) {
  if (QUICK && n === 100000) continue;
  const p = graph(n);
  const text = ref.encode(p);
  if (gcf.encode(p) !== text) throw new Error('graph encode differs');
  row(`graph encode, ${n} symbols`, time(() => gcf.encode(p)), time(() => ref.encode(p)));
  row(`graph decode, ${n} symbols`, time(() => gcf.decode(text)), time(() => ref.decode(text)));
}
for (const [label, make, n] of [['records (7 fields)', records, 10], ['records (7 fields)', records, 100], ['records (7 fields)', records, 10000], ['nested orders', nested, 10000]]) {
  const v = make(n);
  const text = ref.encodeGeneric(v);
  if (gcf.encodeGeneric(v) !== text) throw new Error('generic encode differs');
  row(`generic encode, ${label}, ${n} rows`, time(() => gcf.encodeGeneric(v)), time(() => ref.encodeGeneric(v)));
  row(`generic decode (Maps), ${label}, ${n} rows`, time(() => gcf.decodeGeneric(text)), time(() => ref.decodeGeneric(text)));
}

// Where the time goes: the JS half and the engine half of each call.
const split = [];
{
  const p = graph(10000);
  const json = JSON.stringify(p);
  const text = gcf.encode(p);
  const out = engine.graphDecode(text);
  split.push(['graph encode 10k: JSON.stringify in JS', time(() => JSON.stringify(p))]);
  split.push(['graph encode 10k: engine (serde read + encode)', time(() => engine.graphEncode(json))]);
  split.push(['graph decode 10k: engine (decode + JSON write)', time(() => engine.graphDecode(text))]);
  split.push(['graph decode 10k: JSON.parse in JS', time(() => JSON.parse(out))]);
  const v = records(10000);
  const { toJSON, fromTagged } = require('../lib/layer.cjs');
  const gj = toJSON(v, 'number');
  const gt = gcf.encodeGeneric(v);
  const tagged = engine.genericDecode(gt);
  split.push(['generic encode 10k rows: toJSON in JS', time(() => toJSON(v, 'number'))]);
  split.push(['generic encode 10k rows: JSON.stringify (plain objects only)', time(() => JSON.stringify(v))]);
  split.push(['generic encode 10k rows: engine', time(() => engine.genericEncode(gj, 0))]);
  split.push(['generic decode 10k rows: engine (tagged JSON)', time(() => engine.genericDecode(gt))]);
  split.push(['generic decode 10k rows: JSON.parse + Maps in JS', time(() => fromTagged(JSON.parse(tagged), 'number'))]);
}
for (const [k, v] of split) process.stdout.write(`${k.padEnd(62)} ${fmt(v)}\n`);

const md = [
  '# Benchmarks: this package vs @blackwell-systems/gcf 2.5.2',
  '',
  `Same process, Node ${process.version}, ${process.platform}-${process.arch}, load average ${require('node:os').loadavg()[0].toFixed(1)} on ${require('node:os').cpus().length} cores; median of 5 batches after warm-up`,
  '(`node bench/bench.cjs`). The machine is shared with other builds, so ratios matter more than absolute',
  'times. Every encode is checked byte-identical with 2.5.2 before it is timed.',
  '',
  '| operation | this package | 2.5.2 | speed-up |',
  '| --- | ---: | ---: | ---: |',
  ...rows.map((r) => `| ${r.name} | ${fmt(r.ours)} | ${fmt(r.ref)} | ${r.x.toFixed(2)}x |`),
  '',
  '## Where a call spends its time (conversion choice)',
  '',
  'Every operation crosses the boundary as strings: JS hands the engine JSON text (V8\'s native',
  '`JSON.stringify` for graph payloads; a small serializer for generic values, which may hold `Map`s and',
  'bigints) and gets GCF text, or JSON that `JSON.parse` turns into objects (tagged for generic values so',
  '`Map` order and large integers survive). The split:',
  '',
  '| step | time |',
  '| --- | ---: |',
  ...split.map(([k, v]) => `| ${k} | ${fmt(v)} |`),
  '',
  '## Reading these numbers',
  '',
  '- The issue\'s targets (5x on graph encode/decode, 3x generic encode, 2x generic decode, small payloads',
  '  never slower) are not met yet. Only the string route is implemented; reading objects through napi',
  '  property access and building results from a compact buffer were not built or measured.',
  '- The split shows why: at 10,000 symbols half of a graph call is V8 turning objects into JSON or JSON into',
  '  objects, and the engine half (serde read plus encode) costs about as much as 2.5.2\'s whole encode on this',
  '  loaded machine. Small payloads pay a fixed cost per call (stringify, a napi call, a string copy each way,',
  '  parse) that 2.5.2\'s JIT-compiled code does not.',
  '- Generic encode builds a full `Value` tree from the JSON before encoding; generic decode (Maps) is where',
  '  the native path already wins (about 2x at 10,000 rows).',
  '',
];
fs.writeFileSync(path.join(__dirname, '..', 'BENCH.md'), md.join('\n'));
