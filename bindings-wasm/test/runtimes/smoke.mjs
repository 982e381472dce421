// A smoke of the public API that runs in any JS runtime (no Node builtins):
// both profiles both ways, the two stream encoders (one through a WHATWG
// WritableStream), and a failure's category, line and column. Shared by the
// Bun and Deno check (check.mjs) and the Cloudflare Worker (worker.mjs).
//
// smoke(gcf) resolves to { passed, failed: [{ name, why }] }.
import { show, same } from '../browser/conformance.mjs';

const PAYLOAD = {
  tool: 'rt',
  tokenBudget: 0,
  tokensUsed: 0,
  symbols: [
    { qualifiedName: 'pkg.run', kind: 'function', score: 0.5, provenance: 'x', distance: 0 },
    { qualifiedName: 'pkg.Engine', kind: 'class', score: 0.25, provenance: 'y', distance: 1 },
  ],
  edges: [{ source: 'pkg.run', target: 'pkg.Engine', edgeType: 'calls' }],
};
// 2.5.2's output for PAYLOAD (checked against the npm package).
const GRAPH_TEXT = 'GCF profile=graph tool=rt symbols=2 edges=1\n## targets\n@0 fn pkg.run 0.50 x\n## related\n@1 class pkg.Engine 0.25 y\n## edges [1]\n@1<@0 calls\n';

function failureOf(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return null;
}

const CASES = {
  'graph encode (2.5.2 wire)'(gcf) {
    return [gcf.encode(PAYLOAD), GRAPH_TEXT];
  },
  'graph decode is structurally the payload'(gcf) {
    const back = gcf.decode(GRAPH_TEXT);
    return [same(back.symbols, PAYLOAD.symbols) && same(back.edges.map(({ source, target, edgeType }) => ({ source, target, edgeType })), PAYLOAD.edges) && back.tool === 'rt', true];
  },
  'generic encode: a table and exact int64'(gcf) {
    return [gcf.encodeGeneric({ rows: [{ id: 1, t: 'a b' }, { id: 2, t: 'c' }], n: 9007199254740993n }), 'GCF profile=generic\n## rows [2]{id,t}\n1|a b\n2|c\nn=9007199254740993\n'];
  },
  'generic decode: ordered Map, bigint on request'(gcf) {
    const v = gcf.decodeGeneric('GCF profile=generic\nb=1\na=9007199254740993\n', { largeInt: 'bigint' });
    return [show([...v.keys(), v.get('a')]), show(['b', 'a', 9007199254740993n])];
  },
  'StreamEncoder into a {write} sink'(gcf) {
    let out = '';
    const enc = new gcf.StreamEncoder({ write: (s) => (out += s) }, 'rt');
    for (const s of PAYLOAD.symbols) enc.writeSymbol(s);
    for (const e of PAYLOAD.edges) enc.writeEdge(e);
    enc.close();
    return [[out.startsWith('GCF profile=graph tool=rt'), out.includes('@1<@0 calls'), enc.symbolCount], [true, true, 2]];
  },
  async 'GenericStreamEncoder into a WHATWG WritableStream (toWebWritable)'(gcf) {
    let out = '';
    const sink = gcf.toWebWritable(new WritableStream({ write: (s) => void (out += s) }));
    const enc = new gcf.GenericStreamEncoder(sink);
    enc.beginArray('rows', ['id', 'name']);
    enc.writeRow([1, 'a']);
    enc.writeRow([2, 'b c']);
    enc.endArray();
    enc.close();
    await sink.close();
    const back = gcf.decodeGeneric(out);
    return [show(back.get('rows')), show([{ id: 1, name: 'a' }, { id: 2, name: 'b c' }])];
  },
  'a failure: GcfError with category, line, column'(gcf) {
    const e = failureOf(() => gcf.decodeGeneric('GCF profile=generic\n## [3]{a}\n1\n'));
    return [[e instanceof gcf.GcfError, e instanceof Error, e && e.category, e && e.line, typeof (e && e.column), /^count_mismatch: /.test(e && e.message)], [true, true, 'count_mismatch', 2, 'number', true]];
  },
  'a graph failure has its line'(gcf) {
    const e = failureOf(() => gcf.decode('GCF profile=graph\n@x\n'));
    return [[e instanceof gcf.GcfError, e && e.line], [true, 2]];
  },
};

export async function smoke(gcf) {
  const result = { passed: 0, failed: [] };
  for (const [name, run] of Object.entries(CASES)) {
    try {
      const [got, want] = await run(gcf);
      if (show(got) === show(want)) result.passed++;
      else result.failed.push({ name, why: `got ${show(got)}, want ${show(want)}` });
    } catch (e) {
      result.failed.push({ name, why: `threw ${e && e.stack}` });
    }
  }
  return result;
}
