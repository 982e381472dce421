'use strict';
// 2.5.2 runtime exports this package does not have yet (issue 17, step 3).
// The load test fails when one is added without being removed here.
const PENDING_EXPORTS = [];
module.exports = { PENDING_EXPORTS };
