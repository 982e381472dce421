'use strict';
// Same-process benchmark against the 2.5.2 package (devDependency
// gcf-reference): graph encode/decode at 10,000 and 100,000 symbols, generic
// encode/decode, small payloads, and where the time goes in a call (the JS
// half of the conversion vs the engine). Writes BENCH.md next to package.json.
//   node --expose-gc bench/bench.cjs [--quick] [--graph]
// --graph runs only the graph rows and the graph lines of the split, and
// replaces just those lines in BENCH.md (other rows keep their own run).
const fs = require('node:fs');
const path = require('node:path');
const gcf = require('../index.cjs');
const ref = require('gcf-reference');
const engine = require('../lib/engine/index.cjs').get();

const QUICK = process.argv.includes('--quick');
const GRAPH_ONLY = process.argv.includes('--graph');

const workloads = require('../../bindings-js/bench/workloads.cjs');
const { graph, records, nested, eachCall } = workloads;
const time = (fn, minMs = QUICK ? 150 : 600) => workloads.time(fn, minMs);

// Every field a packed encode reads, touched without copying anything.
function readAll(p) {
  let x = 0;
  for (const s of p.symbols) x += s.qualifiedName.length + s.kind.length + s.score + s.provenance.length + s.distance;
  for (const e of p.edges) x += e.source.length + e.target.length + e.edgeType.length;
  return x;
}

// The objects a decode returns, in the same shapes, naming strings split
// from one table (what any decode to 2.5.2's objects makes, with no
// parsing at all): each name a string of its own, shared by its edges.
function literalsNamed(table, ns, ne) {
  const names = table.split('\0');
  const symbols = [];
  for (let k = 0; k < ns; k++) symbols.push({ qualifiedName: names[k], kind: 'b', score: k / ns, provenance: 'c', distance: k & 3 });
  const edges = [];
  for (let k = 0; k < ne; k++) edges.push({ source: names[k + 1], target: names[(k * 31) % ns], edgeType: 'c', status: undefined });
  return { symbols, edges };
}

// Every value of a generic value read in JS, without copying anything: what
// any encode from JS values must do at least (a for-in over each object).
function readValue(v) {
  if (typeof v === 'string') return v.length;
  if (typeof v !== 'object' || v === null) return 1;
  let x = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) x += readValue(v[i]);
  } else {
    for (const k in v) x += readValue(v[k]);
  }
  return x;
}

// The string values of a generic value (and each object's keys, as if every
// object had new ones: an upper bound for records, whose keys the packed
// route sends once) concatenated 256 at a time and written as UTF-8 with
// encodeInto: what any encode whose engine reads text from a JS-filled
// buffer pays to hand the strings over.
const floorBytes = new Uint8Array(1 << 22);
const floorEncoder = new TextEncoder();
function stringsOut(v) {
  let out = '';
  let n = 0;
  let pos = 0;
  const put = (s) => {
    out += s;
    if (++n === 256) {
      pos += floorEncoder.encodeInto(out, floorBytes.subarray(pos)).written;
      out = '';
      n = 0;
    }
  };
  const walk = (x) => {
    if (typeof x === 'string') put(x);
    else if (Array.isArray(x)) for (let i = 0; i < x.length; i++) walk(x[i]);
    else if (typeof x === 'object' && x !== null) for (const k in x) walk(x[k]);
  };
  walk(v);
  return pos + floorEncoder.encodeInto(out, floorBytes.subarray(pos)).written;
}

// The layer's own scratch for packed decode numbers is private; the bench
// passes one of the same size.
const NUMS_SCRATCH = new Float64Array(4096);

// The objects a decode returns, in the same shapes, with no strings made.
function literals(ns, ne) {
  const symbols = [];
  for (let k = 0; k < ns; k++) symbols.push({ qualifiedName: 'a', kind: 'b', score: k / ns, provenance: 'c', distance: k & 3 });
  const edges = [];
  for (let k = 0; k < ne; k++) edges.push({ source: 'a', target: 'b', edgeType: 'c', status: undefined });
  return { symbols, edges };
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
// Real code graphs, one call per payload, as an MCP server makes them.
const code = workloads.codeGraphs();
if (code) {
  const texts = code.map((p) => ref.encode(p));
  code.forEach((p, i) => {
    if (gcf.encode(p) !== texts[i]) throw new Error('graph encode of a code graph differs');
  });
  row(`graph encode, ${code.length} code graphs (a call each)`, time(eachCall(gcf.encode, code)), time(eachCall(ref.encode, code)));
  row(`graph decode, ${code.length} code graphs (a call each)`, time(eachCall(gcf.decode, texts)), time(eachCall(ref.decode, texts)));
}
for (const [label, make, n] of GRAPH_ONLY ? [] : [['records (7 fields)', records, 10], ['records (7 fields)', records, 100], ['records (7 fields)', records, 10000], ['nested orders', nested, 10000]]) {
  const v = make(n);
  const text = ref.encodeGeneric(v);
  if (gcf.encodeGeneric(v) !== text) throw new Error('generic encode differs');
  row(`generic encode, ${label}, ${n} rows`, time(() => gcf.encodeGeneric(v)), time(() => ref.encodeGeneric(v)));
  row(`generic decode (Maps), ${label}, ${n} rows`, time(() => gcf.decodeGeneric(text)), time(() => ref.decodeGeneric(text)));
}

// Tool results, one call per object, as an MCP server answers one call at
// a time: mostly key=value lines, where the record rows above are tables.
for (const [label, small] of GRAPH_ONLY ? [] : [['tool results (13 members)', false], ['status objects (3 members)', true]]) {
  const objects = workloads.toolResults(1000, small);
  const texts = objects.map((o) => ref.encodeGeneric(o));
  objects.forEach((o, i) => {
    if (gcf.encodeGeneric(o) !== texts[i]) throw new Error(`generic encode of ${label} differs`);
  });
  row(`generic encode, 1,000 ${label} (a call each)`, time(eachCall(gcf.encodeGeneric, objects)), time(eachCall(ref.encodeGeneric, objects)));
  row(`generic decode (Maps), 1,000 ${label} (a call each)`, time(eachCall(gcf.decodeGeneric, texts)), time(eachCall(ref.decodeGeneric, texts)));
}

// Streaming 1,000,000 rows, once each (a sink that only counts, so the
// writers' own memory shows): time and the peak heap growth sampled every
// 100,000 rows.
const STREAM_N = QUICK ? 100000 : 1000000;
function streamRun(make) {
  if (global.gc) global.gc();
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  let bytes = 0;
  const sink = { write: (s) => (bytes += s.length) };
  const t = process.hrtime.bigint();
  make(sink, (i) => {
    if (i % 100000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed - base);
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  return { ms, peak, bytes };
}
const graphStream = (lib) => (sink, tick) => {
  const enc = new lib.StreamEncoder(sink, 'ctx');
  for (let i = 0; i < STREAM_N; i++) {
    enc.writeSymbol({ qualifiedName: `pkg/mod${i % 97}.Symbol${i}`, kind: 'function', score: (i % 100) / 100, provenance: 'lsp', distance: i < STREAM_N / 2 ? 0 : 1 });
    tick(i);
  }
  enc.close();
};
const genericStream = (lib) => (sink, tick) => {
  const enc = new lib.GenericStreamEncoder(sink);
  enc.beginArray('rows', ['id', 'name', 'score', 'ok']);
  for (let i = 0; i < STREAM_N; i++) {
    enc.writeRow([i, `user ${i}`, i / 8, i % 3 === 0]);
    tick(i);
  }
  enc.close();
};
const streams = [];
for (const [label, make] of GRAPH_ONLY ? [] : [['graph StreamEncoder', graphStream], ['GenericStreamEncoder', genericStream]]) {
  const a = streamRun(make(gcf));
  const b = streamRun(make(ref));
  if (a.bytes !== b.bytes) throw new Error(`${label}: output differs in length`);
  streams.push({ label, a, b });
  row(`${label}, ${STREAM_N} rows (one run)`, a.ms, b.ms);
}
// The floor of the stream rows: the same loops over encoders whose methods
// only keep their argument (the bench's own objects, strings and calls).
const storing = {
  StreamEncoder: class { writeSymbol(s) { this.last = s; } close() {} },
  GenericStreamEncoder: class { beginArray() {} writeRow(r) { this.last = r; } close() {} },
};
// The least a JS stream writer can do: join each row's cells as JS prints
// them (no quoting, no checks) and hand the text over 64 KB at a time.
const joining = {
  GenericStreamEncoder: class {
    constructor(w) {
      this.w = w;
      this.buf = '';
    }
    beginArray(name, fields) {
      this.buf += `## ${name} [?]{${fields.join(',')}}\n`;
    }
    writeRow(r) {
      this.buf += r.join('|') + '\n';
      if (this.buf.length > 65536) {
        this.w.write(this.buf);
        this.buf = '';
      }
    }
    close() {
      this.w.write(this.buf);
    }
  },
};
const streamFloors = GRAPH_ONLY ? [] : [
  [`graph StreamEncoder floor: the bench loop, ${STREAM_N} rows, an encoder that only keeps its argument`, streamRun(graphStream(storing)).ms],
  [`GenericStreamEncoder floor: the bench loop, ${STREAM_N} rows, an encoder that only keeps its argument`, streamRun(genericStream(storing)).ms],
  [`GenericStreamEncoder floor: the bench loop, ${STREAM_N} rows, a JS writer that only joins each row's cells (no quoting, no checks)`, streamRun(genericStream(joining)).ms],
];
const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;

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
  if (engine.graphEncodePacked) {
    const { toPacked, fromPacked } = require('../lib/layer.cjs');
    // Copies: toPacked's arrays are scratch it reuses (and lengths).
    const copies = (args) => [args[0].slice(0, args[2]), args[1].slice(0, args[3])];
    const [b, f] = copies(toPacked(p));
    const [table, nums] = engine.graphDecodePacked(text);
    split.push(['graph encode 10k, packed route: toPacked in JS', time(() => toPacked(p))]);
    split.push(['graph encode 10k, packed route: engine (read + encode)', time(() => engine.graphEncodePacked(b, f))]);
    split.push(['graph decode 10k, packed route: engine (decode + table)', time(() => engine.graphDecodePacked(text))]);
    split.push(['graph decode 10k, packed route: fromPacked in JS', time(() => fromPacked(table, nums))]);
    // Floors: what any route pays in JS alone.
    split.push(['graph encode 10k floor: reading every field in JS (no copy)', time(() => readAll(p))]);
    split.push(['graph decode 10k floor: split of the string table alone', time(() => table.split('\0'))]);
    split.push([
      'graph decode 10k floor: 10,000 symbol and 9,999 edge object literals in JS',
      time(() => literals(10000, 9999)),
    ]);
    if (!QUICK) {
      const big = graph(100000);
      const names = big.symbols.map((s) => s.qualifiedName).join('\0');
      split.push(['graph decode 100k floor: 100,000 symbol and 99,999 edge object literals in JS', time(() => literals(100000, 99999))]);
      split.push([
        'graph decode 100k floor: the same objects naming strings split from one table (no parsing)',
        time(() => literalsNamed(names, 100000, 99999)),
      ]);
    }
    const small = graph(10);
    const smallText = gcf.encode(small);
    const [sb, sf] = copies(toPacked(small));
    split.push(['graph encode 10 symbols, packed route: toPacked in JS', time(() => toPacked(small))]);
    split.push(['graph encode 10 symbols, packed route: engine', time(() => engine.graphEncodePacked(sb, sf))]);
    split.push(['graph decode 10 symbols, packed route: engine', time(() => engine.graphDecodePacked(smallText))]);
  }
  const small = graph(10);
  const smallText = gcf.encode(small);
  split.push(['graph encode 10 symbols: JSON.stringify in JS', time(() => JSON.stringify(small))]);
  split.push(['graph encode 10 symbols: engine, JSON route', time(() => engine.graphEncode(JSON.stringify(small)))]);
  split.push(['graph decode 10 symbols: engine, JSON route', time(() => engine.graphDecode(smallText))]);
}
if (!GRAPH_ONLY) {
  split.push(['one napi call with a 1-character string (fixed cost)', time(() => engine.needsQuote('x'))]);
  const v = records(10000);
  const { toJSON, isPlain, fromTagged, toPackedValue } = require('../lib/layer.cjs');
  const gj = toJSON(v, 'number');
  const gt = gcf.encodeGeneric(v);
  const tagged = engine.genericDecode(gt);
  if (!isPlain(v, 0) || gj !== JSON.stringify(v)) throw new Error('records should take the JSON.stringify path');
  if (engine.genericEncodePacked) {
    // Copies: toPackedValue's arrays are scratch it reuses (and lengths).
    const args = toPackedValue(v);
    const [o, t, f] = [0, 1, 2].map((k) => args[k].slice(0, args[k + 3]));
    if (engine.genericEncodePacked(o, t, f, 0) !== gt) throw new Error('records should take the packed route');
    split.push(['generic encode 10k rows, packed route: toPackedValue in JS (the path taken)', time(() => toPackedValue(v))]);
    split.push(['generic encode 10k rows, packed route: engine (read, encode, string out)', time(() => engine.genericEncodePacked(o, t, f, 0))]);
  }
  // Floors: what any encode from JS values to a JS string pays, whatever its
  // engine (the sum is against the whole call's budget at 3x, a third of
  // 2.5.2's time).
  const out = Buffer.from(gt);
  const strings = v.employees.map((r) => [r.name, r.email, r.dept, r.manager]);
  split.push(['generic encode 10k rows floor: reading every value in JS (no copy)', time(() => readValue(v))]);
  split.push(['generic encode 10k rows floor: its string values concatenated and written as UTF-8 (encodeInto)', time(() => stringsOut(strings))]);
  split.push([`generic encode 10k rows floor: the result (${out.length.toLocaleString('en-US')} bytes) made a JS string`, time(() => out.toString('utf8'))]);
  split.push(['generic encode 10k rows, JSON route: isPlain check in JS', time(() => isPlain(v, 0))]);
  split.push(['generic encode 10k rows, JSON route: JSON.stringify in JS', time(() => JSON.stringify(v))]);
  split.push(['generic encode 10k rows, JSON route: toJSON in JS (values the packed route leaves)', time(() => toJSON(v, 'number'))]);
  split.push(['generic encode 10k rows, JSON route: engine (string in, read, encode, string out)', time(() => engine.genericEncode(gj, 0))]);
  if (engine.genericDecodePacked) {
    const { fromPackedValue } = require('../lib/layer.cjs');
    const [pt, pf] = engine.genericDecodePacked(gt);
    if (pt.charCodeAt(0) !== 0) throw new Error('records should decode to the packed form');
    split.push(['generic decode 10k rows, packed route: engine (decode, ops, strings, numbers)', time(() => engine.genericDecodePacked(gt))]);
    split.push(['generic decode 10k rows, packed route: fromPackedValue in JS (Maps)', time(() => fromPackedValue(pt, pf, Number))]);
  }
  if (engine.genericDecodePacked) {
    // A small decode's floors in JS: the result's string table split, and
    // 2.5.2's Maps built from ready keys and values.
    const { fromPackedValue } = require('../lib/layer.cjs');
    const small = gcf.encodeGeneric(records(10));
    const [st, sf] = engine.genericDecodePacked(small);
    const keys = ['id', 'name', 'email', 'dept', 'salary', 'active', 'manager'];
    const maps = () => {
      const rows = [];
      for (let r = 0; r < 10; r++) {
        const m = new Map();
        for (let i = 0; i < 7; i++) m.set(keys[i], i);
        rows.push(m);
      }
      return new Map([['employees', rows]]);
    };
    split.push(['generic decode 10 rows, packed route: engine (decode, numbers into the scratch)', time(() => engine.genericDecodePacked(small, NUMS_SCRATCH))]);
    split.push(['generic decode 10 rows, packed route: fromPackedValue in JS (Maps)', time(() => fromPackedValue(st, sf, Number))]);
    split.push(['generic decode 10 rows floor: split of the string table alone', time(() => st.split('\0'))]);
    split.push(['generic decode 10 rows floor: the result\'s 11 Maps from ready keys and values', time(maps)]);
  }
  split.push(['generic decode 10k rows, tagged route: engine (tagged JSON)', time(() => engine.genericDecode(gt))]);
  split.push(['generic decode 10k rows, tagged route: JSON.parse + Maps in JS', time(() => fromTagged(JSON.parse(tagged), 'number'))]);
}
for (const [k, v] of split) process.stdout.write(`${k.padEnd(84)} ${fmt(v)}\n`);

if (GRAPH_ONLY) {
  // Replace the graph lines of both tables in BENCH.md, where they stand.
  const file = path.join(__dirname, '..', 'BENCH.md');
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  // The first run of lines isOurs matches (the table's graph block).
  const splice = (isOurs, fresh) => {
    const at = lines.findIndex(isOurs);
    if (at < 0) throw new Error('BENCH.md: no graph lines to replace');
    let end = at;
    while (end < lines.length && isOurs(lines[end])) end++;
    lines.splice(at, end - at, ...fresh);
  };
  splice((l) => /^\| graph (en|de)code, \d+ (symbols|code graphs \(a call each\)) \|/.test(l), rows.map((r) => `| ${r.name} | ${fmt(r.ours)} | ${fmt(r.ref)} | ${r.x.toFixed(2)}x |`));
  splice((l) => /^\| graph (en|de)code (10k|100k|10 symbols)[ ,:]/.test(l), split.map(([k, v]) => `| ${k} | ${fmt(v)} |`));
  const note = `The graph rows and the graph lines of the split are from \`node --expose-gc bench/bench.cjs --graph\` (Node ${process.version}, load average ${require('node:os').loadavg()[0].toFixed(1)} on ${require('node:os').cpus().length} cores), timed in process CPU time (user + system), which a loaded machine does not inflate as wall time, each measurement starting from a collected heap; the other rows are from the full run above.`;
  const old = lines.findIndex((l) => l.startsWith('The graph rows and the graph lines of the split are from'));
  if (old >= 0) lines[old] = note;
  else lines.splice(lines.findIndex((l) => l.startsWith('times. Every encode')) + 1, 0, note);
  // The notes (NOTES.md) close the file, as in a full run.
  const notes = lines.findIndex((l) => l.startsWith('## Engine instruction counts'));
  if (notes >= 0) lines.splice(notes, lines.length - notes, ...fs.readFileSync(path.join(__dirname, 'NOTES.md'), 'utf8').split('\n'));
  fs.writeFileSync(file, lines.join('\n'));
  process.exit(0);
}

const md = [
  '# Benchmarks: this package vs @blackwell-systems/gcf 2.5.2',
  '',
  `Same process, Node ${process.version}, ${process.platform}-${process.arch}, load average ${require('node:os').loadavg()[0].toFixed(1)} on ${require('node:os').cpus().length} cores; median of 5 batches after warm-up, in process CPU time`,
  '(`node --expose-gc bench/bench.cjs`). The machine is shared with other builds, so ratios matter more than absolute',
  'times. Every encode is checked byte-identical with 2.5.2 before it is timed.',
  '',
  '| operation | this package | 2.5.2 | speed-up |',
  '| --- | ---: | ---: | ---: |',
  ...rows.map((r) => `| ${r.name} | ${fmt(r.ours)} | ${fmt(r.ref)} | ${r.x.toFixed(2)}x |`),
  '',
  '## Where a call spends its time (conversion choice)',
  '',
  'Graph encode and decode take the packed route when the engine offers it (names and endpoints as UTF-8 back to',
  'back in a `Uint8Array`, each kind, provenance, edge type and status once, and numbers, lengths and token',
  'numbers in a `Float64Array`, read in place by the engine; back, a string table and a `Float64Array` of',
  'numbers and indices, so no number crosses as text). Generic values take a packed route of',
  'their own both ways (an op byte per value, strings back to back with their lengths among the numbers of a',
  '`Float64Array` on the way in, NUL-ended on the way out; an object\'s keys once per shape; see bench/NOTES.md),',
  'and the JSON route for what they leave (bigints, numbers past 2^53, class instances; a NUL in a string on the',
  'way out: a small serializer in, tagged JSON back). Everything else goes as JSON. The split:',
  '',
  '| step | time |',
  '| --- | ---: |',
  ...split.map(([k, v]) => `| ${k} | ${fmt(v)} |`),
  ...streamFloors.map(([k, v]) => `| ${k} | ${fmt(v)} |`),
  '',
  '## Streaming memory',
  '',
  'Peak JS heap growth while streaming (sampled every 100,000 rows; the sink only counts bytes). The engine\'s own',
  'memory is outside this measure: the graph stream keeps a name index there (for `writeEdge` by name), which',
  'grows with the stream as 2.5.2\'s `symIndex` does; the generic stream holds only its current batch.',
  '',
  '| stream | this package | 2.5.2 |',
  '| --- | ---: | ---: |',
  ...streams.map((x) => `| ${x.label}, ${STREAM_N} rows | ${mb(x.a.peak)} | ${mb(x.b.peak)} |`),
  '',
  ...fs.readFileSync(path.join(__dirname, 'NOTES.md'), 'utf8').split('\n'),
];
fs.writeFileSync(path.join(__dirname, '..', 'BENCH.md'), md.join('\n'));
