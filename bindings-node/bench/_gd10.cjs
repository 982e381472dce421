const gcf = require('../index.cjs');
const ref = require('gcf-reference');
const engine = require('../lib/engine/index.cjs').get();
const { fromPackedValue } = require('../lib/layer.cjs');
const w = require('../../bindings-js/bench/workloads.cjs');
for (const n of [10, 100]) {
  const v = w.records(n);
  const t = ref.encodeGeneric(v);
  const [pt, pf] = engine.genericDecodePacked(t);
  const rows = [
    ['ours decodeGeneric', () => gcf.decodeGeneric(t)],
    ['2.5.2 decodeGeneric', () => ref.decodeGeneric(t)],
    ['engine packed call', () => engine.genericDecodePacked(t)],
    ['fromPackedValue', () => fromPackedValue(pt, pf, Number)],
    ['t.split only', () => pt.split('\0')],
  ];
  for (const [k, f] of rows) console.log(n, k.padEnd(24), (w.time(f, 400) * 1e3).toFixed(2), 'us');
}
