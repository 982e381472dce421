const ref = require('gcf-reference');
const w = require('../../bindings-js/bench/workloads.cjs');
const engine = require('../lib/engine/index.cjs').get();
const gcf = require('../index.cjs');
(async () => {
const { toPacked } = await import('../../bindings-js/layer/packed.mjs');
for (const n of [10, 100, 10000]) {
  const p = w.graph(n);
  const args = toPacked(p);
  const a0 = args[0].slice(), a1 = args[1].slice();
  for (let r = 0; r < 2; r++)
  console.log(n, 'toPacked', w.time(() => toPacked(p), 500).toFixed(4), 'engine', w.time(() => engine.graphEncodePacked(a0, a1), 500).toFixed(4),
    'whole', w.time(() => gcf.encode(p), 500).toFixed(4), 'ref', w.time(() => ref.encode(p), 500).toFixed(4));
}
})();
