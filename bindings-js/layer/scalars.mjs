// 2.5.2's scalar helpers over the core's scalar grammar.

import { call, callValue, GcfError } from './errors.mjs';
import { toJSON } from './convert.mjs';

export const MISSING = Symbol('missing');
export const ATTACHMENT = Symbol('attachment');

export function install(E, gcf) {
  const needsQuote = (s) => E.needsQuote(String(s));
  const quoteString = (s) => call(() => E.quoteString(String(s)));
  const formatKey = (s) => call(() => E.formatKey(String(s)));
  function formatScalar(v, delimiter) {
    if (v === undefined) v = null;
    if (typeof v === 'object' && v !== null) return formatScalar(String(v), delimiter);
    return callValue(() => E.formatScalar(toJSON(v, 'number'), delimiter ? Number(delimiter) : 0));
  }
  const canonicalCell = (v) => callValue(() => E.canonicalCell(toJSON(v === undefined ? null : v, 'number')));

  /** One scalar token (§2.1 precedence); `~` and `^` only in a row cell. */
  function parseScalar(s, tabularContext) {
    s = String(s);
    if (s === '~') {
      if (!tabularContext) throw new GcfError('invalid_missing', '~ outside tabular row cell');
      return MISSING;
    }
    if (s === '^' || (s.startsWith('^{') && s.endsWith('}'))) {
      if (!tabularContext) throw new GcfError('invalid_attachment_marker', '^ outside tabular row cell');
      return s === '^' ? ATTACHMENT : { __inlineSchema: s.slice(1) };
    }
    if (s === '') return '';
    return gcf.decodeGeneric(`GCF profile=generic\nv=${s}\n`).get('v');
  }

  Object.assign(gcf, { needsQuote, quoteString, formatKey, formatScalar, parseScalar, canonicalCell });
}
