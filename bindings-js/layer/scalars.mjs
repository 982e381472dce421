// 2.5.2's scalar helpers over the core's scalar grammar.

import { GcfError, call, callValue } from './errors.mjs';
import { toJSON, fromTagged } from './convert.mjs';
import { wellFormed } from './packed.mjs';

// The text a quoting helper writes: a lone surrogate would reach the engine
// as U+FFFD and come back as a character the caller did not give, so it is
// refused as in every other string (2.5.2 passes it through).
function text(x, what) {
  const s = String(x);
  if (!wellFormed(s)) {
    throw new GcfError('invalid_surrogate', `${what}: the string holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape), which UTF-8 cannot carry`, null, null, 'json');
  }
  return s;
}

export const MISSING = Symbol('missing');
export const ATTACHMENT = Symbol('attachment');

export function install(E, gcf) {
  const needsQuote = (s) => E.needsQuote(String(s));
  const quoteString = (s) => call(() => E.quoteString(text(s, 'quoteString')));
  const formatKey = (s) => call(() => E.formatKey(text(s, 'formatKey')));
  function formatScalar(v, delimiter = undefined) {
    if (v === undefined) v = null;
    if (typeof v === 'object' && v !== null) return formatScalar(String(v), delimiter);
    return callValue(() => E.formatScalar(toJSON(v, 'number'), delimiter ? Number(delimiter) : 0));
  }
  const canonicalCell = (v) => callValue(() => E.canonicalCell(toJSON(v === undefined ? null : v, 'number')));

  /**
   * One scalar token (§2.1 precedence, ASCII space and tab around it
   * trimmed); `~` and `^` only in a row cell (tabularContext), where they are
   * MISSING and ATTACHMENT (an inline schema `^{...}` its declaration).
   */
  function parseScalar(s, tabularContext) {
    s = String(s);
    if (!tabularContext) return fromTagged(JSON.parse(call(() => E.parseScalar(s))), 'number');
    // `~`, `^` with its declaration, or `=` and the value (the engine's parseCell).
    const cell = call(() => E.parseCell(s));
    if (cell === '~') return MISSING;
    if (cell === '^') return ATTACHMENT;
    if (cell[0] === '^') return { __inlineSchema: cell.slice(1) };
    return fromTagged(JSON.parse(cell.slice(1)), 'number');
  }

  Object.assign(gcf, { needsQuote, quoteString, formatKey, formatScalar, parseScalar, canonicalCell });
}
