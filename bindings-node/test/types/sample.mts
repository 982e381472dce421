// Type-checked by tsc (test/load.test.cjs): the 2.5.2 API as an MCP server uses it.
import { encode, decode, encodeGeneric, decodeGeneric, parseJSONOrdered, KIND_ABBREV, GcfError } from '@blackwell-systems/gcf';
import type { Payload, Symbol, Edge, GenericOptions } from '@blackwell-systems/gcf';

const sym: Symbol = { qualifiedName: 'pkg.A', kind: 'function', score: 0.5, provenance: 'lsp', distance: 0 };
const edge: Edge = { source: 'pkg.A', target: 'pkg.A', edgeType: 'calls' };
const payload: Payload = { tool: 't', tokenBudget: 10, tokensUsed: 1, symbols: [sym], edges: [edge] };
const text: string = encode(payload);
const back: Payload = decode(text);
const opts: GenericOptions = { noFlatten: true };
const g: string = encodeGeneric(parseJSONOrdered('{"a":1}'), opts);
const v: unknown = decodeGeneric(g, { largeInt: 'bigint' });
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
