// The conformance fixtures as [{ path, text }], read with node:fs, which
// Node, Bun and Deno all provide (check.mjs runs in each; run.mjs posts the
// same list to the Worker, which can read no files).
import fs from 'node:fs';
import path from 'node:path';

export function readFixtures(dir) {
  const walk = (d) =>
    fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(d, e.name);
      if (e.isDirectory()) return walk(p);
      return e.name.endsWith('.json') ? [{ path: path.relative(dir, p), text: fs.readFileSync(p, 'utf8') }] : [];
    });
  return walk(dir).sort((a, b) => (a.path < b.path ? -1 : 1));
}
