import { toPackedValue } from '../../bindings-js/layer/packed_value.mjs';
import w from '../../bindings-js/bench/workloads.cjs';
import fs from 'node:fs';
for (const n of [10, 10000]) {
  const v = w.records(n);
  const r = toPackedValue(v);
  console.log(n, r && r.length, r && r.map((x) => x && x.length));
  fs.writeFileSync(`/tmp/rec${n}.ops`, Buffer.from(r[0].buffer, r[0].byteOffset, r[0].byteLength));
  fs.writeFileSync(`/tmp/rec${n}.text`, Buffer.from(r[1].buffer, r[1].byteOffset, r[1].byteLength));
  fs.writeFileSync(`/tmp/rec${n}.nums`, Buffer.from(r[2].buffer, r[2].byteOffset, r[2].byteLength));
  fs.writeFileSync(`/tmp/rec${n}.json`, JSON.stringify(v));
}
