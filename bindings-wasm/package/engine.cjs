'use strict';
// The WebAssembly engine for Node's CommonJS loader: wasm-bindgen's nodejs
// glue (which compiles the module synchronously from the file next to it),
// with large arguments written by encodeInto (fastargs). The Node package
// (@blackwell-systems/gcf, lib/engine/index.cjs) loads this when its native
// addon does not load, or when GCF_ENGINE=wasm.
const { withFastArgs } = require('./fastargs.cjs');

module.exports = withFastArgs(require('./wasm/nodejs/gcf_wasm.js'));
