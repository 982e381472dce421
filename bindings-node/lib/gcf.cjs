'use strict';
// The CommonJS entry's API (lib/api.cjs), loading the engine through this
// module's require (the paths are relative to lib/, as in lib/gcf.mjs).
module.exports = require('./api.cjs').get(require, {
  addon: '../gcf.',
  wasm: '../../bindings-wasm/package/engine.cjs',
});
