'use strict';
// The native engine: the napi-rs addon built from this crate. Looked for next
// to the package first (a local `napi build` or `cargo build` copy), then in
// the per-platform optional package npm installed for this machine.
const path = require('node:path');
const fs = require('node:fs');

function platformTriple() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null;
    const glibc = report && report.header && report.header.glibcVersionRuntime;
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

function load() {
  const triple = platformTriple();
  const local = path.join(__dirname, '..', '..', `gcf.${triple}.node`);
  if (fs.existsSync(local)) return require(local);
  return require(`@blackwell-systems/gcf-${triple}`);
}

module.exports = { load, platformTriple };
