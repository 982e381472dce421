'use strict';
// The Node entry: the shared layer (bindings-js/layer, bundled into
// lib/layer.cjs by `npm run build:layer`) over the engine lib/engine picks
// (native addon, else wasm), plus the Node-only adapter.

const engines = require('./engine/index.cjs');
const { createApi } = require('./layer.cjs');
const { toNodeWritable } = require('./node.cjs');

const gcf = createApi(engines.get());
gcf.toNodeWritable = toNodeWritable;

module.exports = gcf;
