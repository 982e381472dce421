// Type-checked by tsc (test/load.test.cjs): the 2.5.2 API as an MCP server uses it.
import { encode, decode, encodeGeneric, decodeGeneric, parseJSONOrdered, KIND_ABBREV, GcfError } from '@blackwell-systems/gcf';
import type { Payload, Symbol, Edge, GenericOptions, Limits } from '@blackwell-systems/gcf';

const sym: Symbol = { qualifiedName: 'pkg.A', kind: 'function', score: 0.5, provenance: 'lsp', distance: 0 };
const edge: Edge = { source: 'pkg.A', target: 'pkg.A', edgeType: 'calls' };
const payload: Payload = { tool: 't', tokenBudget: 10, tokensUsed: 1, symbols: [sym], edges: [edge] };
const text: string = encode(payload);
const back: Payload = decode(text);
const opts: GenericOptions = { noFlatten: true };
const g: string = encodeGeneric(parseJSONOrdered('{"a":1}'), opts);
const v: unknown = decodeGeneric(g, { largeInt: 'bigint' });
// Decode limits (not in 2.5.2) on both decodes.
const limits: Limits = { maxDepth: 16, maxInputLen: 1 << 20 };
const bounded: Payload = decode(text, { limits });
const boundedValue: unknown = decodeGeneric(g, { largeInt: 'string', limits: { maxContainerLen: 1000 } });
const abbrev: string | undefined = KIND_ABBREV['function'];
try {
  decodeGeneric('x');
} catch (e) {
  if (e instanceof GcfError) {
    const where: number | undefined = e.line;
    console.log(e.category, where, e.column);
  }
}
console.log(back.symbols.length, v, abbrev);

import { Session, encodeWithSession, GenericDeltaSession, fixedN, StreamEncoder, genericPackRoot, formatScalar } from '@blackwell-systems/gcf';
import type { GenericSet, SessionEmission } from '@blackwell-systems/gcf';
const sess = new Session();
const withSession: string = encodeWithSession(payload, sess);
const set: GenericSet = { name: 'rows', key: 'id', fields: ['id'], rows: [{ id: 1 }] };
const gds = new GenericDeltaSession(set, 'tool', fixedN(3));
const emission: SessionEmission = gds.next(set);
const chunks: string[] = [];
const enc = new StreamEncoder({ write: (s) => chunks.push(s) }, 'tool', { tokenBudget: 100 });
enc.writeSymbol(sym);
enc.close();
const n: number = enc.symbolCount + enc.edgeCount_;
console.log(withSession, emission.isFull, genericPackRoot(set), formatScalar(1), n);

import { GenericStreamEncoder, decodeGenericFull } from '@blackwell-systems/gcf';
const rooted = new StreamEncoder({ write: (s) => chunks.push(s) }, 'tool', { packRoot: 'sha256:00', session: true });
rooted.close();
const genc = new GenericStreamEncoder({ write: (s) => chunks.push(s) });
genc.beginArray('rows', ['id', 'name']);
genc.writeRow([1, 'a']);
genc.endArray();
genc.beginKeyedMap('byId', 'id', ['name']);
genc.writeRow(['k', 'v']);
genc.writeKV('total', 2);
genc.writeSection('meta');
genc.writeInlineArray('tags', ['x', 1]);
genc.close();
const full: { set: GenericSet; packRoot: string } = decodeGenericFull(chunks.join(''));
console.log(full.packRoot);

// Additions: locations and the consumer side of a session.
import { SessionDecoder, type Location } from '@blackwell-systems/gcf';
const where: Location = { qualifiedName: 'pkg.A', file: 'a.go', line: 1, column: 2, endLine: 3, endColumn: 4 };
const located: Payload = { tool: 't', tokenBudget: 1, tokensUsed: 1, symbols: [], edges: [], locations: [where] };
const consumer = new SessionDecoder({ maxRetained: 1000 });
const seen: Payload = consumer.decode(encodeWithSession(located, new Session()), { limits: { maxLineLen: 4096 } });
const fromBytes: Payload = consumer.decode(new TextEncoder().encode('GCF profile=graph\n'));
const remembered: number = consumer.size();
consumer.reset();
console.log(seen.locations?.length, fromBytes.symbols.length, remembered);
