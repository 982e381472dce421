'use strict';
const assert = require('node:assert');
// Structural equality for decoded values: Maps compared as Maps (same keys in
// the same order), arrays element-wise, numbers by value (bigints equal to
// numbers of the same integer), everything else with Object.is except 0/-0.

function same(a, b, unordered) {
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    try {
      return BigInt(a) === BigInt(b);
    } catch (_) {
      return false;
    }
  }
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map && b instanceof Map) || a.size !== b.size) return false;
    const ka = [...a.keys()];
    const kb = [...b.keys()];
    for (let i = 0; i < ka.length; i++) {
      if (unordered) {
        if (!b.has(ka[i]) || !same(a.get(ka[i]), b.get(ka[i]), unordered)) return false;
      } else if (ka[i] !== kb[i] || !same(a.get(ka[i]), b.get(kb[i]))) return false;
    }
    return true;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!(Array.isArray(a) && Array.isArray(b)) || a.length !== b.length) return false;
    return a.every((x, i) => same(x, b[i], unordered));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && same(a[k], b[k], unordered));
  }
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  return a === b;
}

function show(v) {
  return JSON.stringify(v, (_, x) => (x instanceof Map ? Object.fromEntries(x) : typeof x === 'bigint' ? `${x}n` : x));
}

/** The error `fn` throws (an Error); fails the test if it returns. */
function failure(fn) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof Error, String(e));
    return e;
  }
  assert.fail('expected a throw');
}

module.exports = { same, show, failure };
