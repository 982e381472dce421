'use strict';
// The one API object of the package: the shared layer (bindings-js/layer,
// bundled into lib/layer.cjs by `npm run build:layer`) over the engine
// lib/engine picks (native addon, else wasm), plus the Node-only adapter.
// Both entries ask for it here, so when Node loads the package's files
// (CommonJS and ESM callers in one process) they get the same object; in a
// bundle, whichever entry the bundler took makes its own.

const { createApi } = require('./layer.cjs');
const { toNodeWritable } = require('./node.cjs');
const engines = require('./engine/index.cjs');

let api = null;

// This repository's files as an entry's require resolves them: both entries
// are in lib/ (see lib/engine/index.cjs's get()).
const PATHS = { addon: '../gcf.', wasm: '../../bindings-wasm/package/engine.cjs' };

// `req` is the entry's own require (lib/gcf.cjs, lib/gcf.mjs).
function get(req) {
  if (!api) {
    api = createApi(engines.get(req, PATHS));
    api.toNodeWritable = toNodeWritable;
  }
  return api;
}

module.exports = { get };
