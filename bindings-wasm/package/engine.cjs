'use strict';
// The WebAssembly engine for Node's CommonJS loader: wasm-bindgen's nodejs
// glue, which compiles the module synchronously from the file next to it.
// The Node package (@blackwell-systems/gcf, lib/engine/index.cjs) loads this
// when its native addon does not load, or when GCF_ENGINE=wasm.
module.exports = require('./wasm/nodejs/gcf_wasm.js');
