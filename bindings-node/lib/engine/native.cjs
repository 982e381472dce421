'use strict';
// The native engine: the napi-rs addon built from this crate. Looked for next
// to the package first (a local `napi build` or `cargo build` copy), then in
// the per-platform optional package npm installed for this machine.
const path = require('node:path');
const fs = require('node:fs');

// glibc or musl. Node's diagnostic report names the glibc it runs on; where
// the report is refused (Deno without --allow-sys) or missing, a musl
// system is told by its dynamic loader in /lib, and anything unreadable is
// taken for glibc, the common case (a wrong guess fails to load and the
// package falls back to WebAssembly).
function libc() {
  try {
    const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null;
    if (report && report.header) return report.header.glibcVersionRuntime ? 'gnu' : 'musl';
  } catch (_) {
    // refused: look at /lib instead
  }
  try {
    return fs.readdirSync('/lib').some((f) => f.startsWith('ld-musl-')) ? 'musl' : 'gnu';
  } catch (_) {
    return 'gnu';
  }
}

let triple = '';

function platformTriple() {
  if (triple) return triple;
  const { platform, arch } = process;
  if (platform === 'linux') triple = `linux-${arch}-${libc()}`;
  else if (platform === 'win32') triple = `win32-${arch}-msvc`;
  else triple = `${platform}-${arch}`;
  return triple;
}

function load() {
  const t = platformTriple();
  const local = path.join(__dirname, '..', '..', `gcf.${t}.node`);
  let here = false;
  try {
    here = fs.existsSync(local);
  } catch (_) {
    // no read access (Deno): only the platform package can be tried
  }
  if (here) return require(local);
  return require(`@blackwell-systems/gcf-${t}`);
}

module.exports = { load, platformTriple };
