'use strict';
// The native engine: the napi-rs addon built from this crate. Looked for next
// to the package first (a local `napi build` or `cargo build` copy), then in
// the per-platform optional package npm installed for this machine.
//
// Every load goes through the `req` the caller passes (see ./index.cjs), and
// the package's entries never let a bare `require` run here: an ESM bundle of
// a program (esbuild, tsup, rollup) turns a CommonJS module's bare `require`
// of a Node module or of a computed name into a stub that throws. (The
// default, this module's require, is for the tests.)

// glibc or musl. Node's diagnostic report names the glibc it runs on; where
// the report is refused (Deno without --allow-sys) or missing, a musl
// system is told by its dynamic loader in /lib, and anything unreadable is
// taken for glibc, the common case (a wrong guess fails to load and the
// package falls back to WebAssembly).
function libc(req) {
  try {
    const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null;
    if (report && report.header) return report.header.glibcVersionRuntime ? 'gnu' : 'musl';
  } catch (_) {
    // refused: look at /lib instead
  }
  try {
    return req('node:fs').readdirSync('/lib').some((f) => f.startsWith('ld-musl-')) ? 'musl' : 'gnu';
  } catch (_) {
    return 'gnu';
  }
}

let triple = '';

function platformTriple(req = require) {
  if (triple) return triple;
  const { platform, arch } = process;
  if (platform === 'linux') triple = `linux-${arch}-${libc(req)}`;
  else if (platform === 'win32') triple = `win32-${arch}-msvc`;
  else triple = `${platform}-${arch}`;
  return triple;
}

// Whether `e` says that `specifier` itself is missing (not something it
// requires in turn).
const missing = (e, specifier) => e && e.code === 'MODULE_NOT_FOUND' && String(e.message).includes(specifier);

// `local` is the addon's path beside the package, relative to the module
// `req` resolves from, without the `<triple>.node` ending.
function load(req, local) {
  const t = platformTriple(req);
  const here = `${local}${t}.node`;
  try {
    return req(here);
  } catch (e) {
    if (!missing(e, `gcf.${t}.node`)) throw e;
  }
  return req(`@blackwell-systems/gcf-${t}`);
}

module.exports = { load, platformTriple, missing };
