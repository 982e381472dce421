// A static file server for the browser tests and for trying the playground by
// hand: the repository under `/`, and the official conformance fixtures (which
// live outside the repository and are never copied into it) under
// `/conformance/`, with `/conformance/index.json` listing them.
//
//   node bindings-wasm/test/browser/server.mjs [port]
//   -> http://127.0.0.1:<port>/bindings-wasm/playground/
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(here, '..', '..', '..');

// The fixtures sit beside the checkout (`../shared/conformance`); a worktree
// one level deeper finds them one level further up.
export function conformanceDir() {
  for (const up of ['..', '../..']) {
    const dir = path.resolve(REPO, up, 'shared', 'conformance');
    if (fs.existsSync(dir)) return dir;
  }
  throw new Error(`no conformance fixtures beside ${REPO}`);
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json; charset=utf-8',
};

function listFixtures(dir, base = dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listFixtures(p, base));
    else if (e.name.endsWith('.json')) out.push(path.relative(base, p).split(path.sep).join('/'));
  }
  return out.sort();
}

// Resolves a URL path under `root`, refusing anything that climbs out of it.
function under(root, urlPath) {
  const p = path.resolve(root, '.' + path.posix.normalize('/' + urlPath));
  return p === root || p.startsWith(root + path.sep) ? p : null;
}

export function startServer(port = 0) {
  const fixtures = conformanceDir();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let pathname = decodeURIComponent(url.pathname);
    let file;
    if (pathname === '/conformance/index.json') {
      res.writeHead(200, { 'content-type': TYPES['.json'], 'cache-control': 'no-store' });
      return res.end(JSON.stringify(listFixtures(fixtures)));
    }
    if (pathname.startsWith('/conformance/')) file = under(fixtures, pathname.slice('/conformance'.length));
    else file = under(REPO, pathname);
    if (file && fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!file || !fs.existsSync(file)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end(`not found: ${pathname}`);
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      'cache-control': 'no-store',
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` }));
  });
}

// Started as a program, not as a module discovered by `node --test`.
if (process.argv[1] === fileURLToPath(import.meta.url) && !process.env.NODE_TEST_CONTEXT) {
  const { origin } = await startServer(Number(process.argv[2] || 8019));
  console.log(`playground: ${origin}/bindings-wasm/playground/`);
}
