#!/usr/bin/env node
// The `gcf` command of the package: the 2.5.2 commands over the native core.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { encode, decode, encodeGeneric, decodeGeneric, parseJSONOrdered } from '../index.mjs';

const require = createRequire(import.meta.url);
const HELP = `gcf - GCF (Graph Compact Format) for LLM tool responses

Usage:
  gcf encode [file]           graph payload JSON -> GCF (stdin without a file)
  gcf decode [file]           graph GCF -> JSON
  gcf encode-generic [file]   any JSON -> generic GCF
  gcf decode-generic [file]   generic GCF -> JSON
  gcf stats [file]            estimated tokens, JSON vs GCF
  gcf version                 print the version
`;

// Maps back to JSON text with members in decoded order.
function toText(v, indent, level = 0) {
  const pad = ' '.repeat(indent * (level + 1));
  const end = ' '.repeat(indent * level);
  if (v instanceof Map) {
    if (v.size === 0) return '{}';
    const parts = [...v].map(([k, x]) => `${pad}${JSON.stringify(k)}: ${toText(x, indent, level + 1)}`);
    return `{\n${parts.join(',\n')}\n${end}}`;
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((x) => pad + toText(x, indent, level + 1)).join(',\n')}\n${end}]`;
  }
  return typeof v === 'bigint' ? v.toString() : JSON.stringify(v);
}

// The input's bytes (the file, or stdin when there is none or it is `-`, as
// in 2.5.2): the decoders take them as they are and report malformed UTF-8
// at its line and column.
function bytes(file) {
  return readFileSync(file == null || file === '-' ? 0 : file);
}

// The input as text; bytes that are not UTF-8 are an error, not U+FFFD
// (2.5.2 reads them as U+FFFD and goes on).
function input(file) {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes(file));
  } catch (e) {
    if (e instanceof TypeError) throw new Error(`invalid_utf8: ${file == null || file === '-' ? 'stdin' : file} is not UTF-8`);
    throw e;
  }
}

function main(argv) {
  const [cmd, file] = argv;
  switch (cmd) {
    case 'encode':
      return process.stdout.write(encode(JSON.parse(input(file))));
    case 'decode': {
      // 2.5.2's JSON form: its member order, `packRoot` always, an edge's
      // `status` only when it has one; a payload's locations after them.
      const p = decode(bytes(file));
      const out = {
        tool: p.tool,
        tokensUsed: p.tokensUsed,
        tokenBudget: p.tokenBudget,
        packRoot: p.packRoot ?? '',
        symbols: p.symbols.map((s) => ({
          qualifiedName: s.qualifiedName,
          kind: s.kind,
          score: s.score,
          provenance: s.provenance,
          distance: s.distance,
        })),
        edges: p.edges.map((e) => ({
          source: e.source,
          target: e.target,
          edgeType: e.edgeType,
          ...(e.status ? { status: e.status } : {}),
        })),
      };
      if (p.locations && p.locations.length) out.locations = p.locations;
      return process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    }
    case 'encode-generic':
      return process.stdout.write(encodeGeneric(parseJSONOrdered(input(file), { largeInt: 'bigint' })));
    case 'decode-generic':
      return process.stdout.write(toText(decodeGeneric(bytes(file), { largeInt: 'bigint' }), 2) + '\n');
    case 'stats': {
      // 2.5.2's layout, so scripts reading it keep working; a value that is
      // not a graph payload is measured as generic GCF (2.5.2 encodes it as
      // an empty graph).
      const text = input(file);
      const value = parseJSONOrdered(text, { largeInt: 'bigint' });
      const graph = value instanceof Map && value.has('symbols') ? JSON.parse(text) : null;
      const out = graph ? encode(graph) : encodeGeneric(value);
      const jsonTokens = Math.floor(text.trim().length / 4);
      const gcfTokens = Math.floor(out.trim().length / 4);
      const saved = jsonTokens > 0 ? 100 * (1 - gcfTokens / jsonTokens) : 0;
      const width = 30;
      const filled = jsonTokens > 0 ? Math.min(width, Math.round((gcfTokens * width) / jsonTokens)) : 0;
      const what = graph
        ? `${(graph.symbols || []).length} symbols, ${(graph.edges || []).length} edges`
        : 'a generic JSON value';
      return process.stdout.write(
        `Payload: ${what}\n\n` +
          `  JSON  ${'█'.repeat(width)}  ${jsonTokens} tokens\n` +
          `  GCF   ${'█'.repeat(filled)}${'░'.repeat(width - filled)}  ${gcfTokens} tokens\n` +
          `\n  Savings: ${Math.round(saved)}% fewer tokens with GCF\n`,
      );
    }
    case 'version':
      return process.stdout.write(`${require('../package.json').version}\n`);
    case 'help':
    case '-h':
    case '--help':
      return process.stdout.write(HELP);
    case undefined:
      // As 2.5.2: the usage on stderr, exit 1.
      process.stderr.write(HELP);
      return process.exit(1);
    default:
      process.stderr.write(`unknown command: ${cmd}\n\n${HELP}`);
      return process.exit(1);
  }
}

try {
  main(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`gcf: ${e.message}\n`);
  process.exit(1);
}
