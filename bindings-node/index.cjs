'use strict';
module.exports = require('./lib/gcf.cjs');
