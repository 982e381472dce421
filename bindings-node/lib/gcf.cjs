'use strict';
// The CommonJS entry's API (lib/api.cjs), loading the engine through this
// module's require.
module.exports = require('./api.cjs').get(require);
