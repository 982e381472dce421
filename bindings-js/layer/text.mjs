// GCF text given as a JS string reaches the engine as UTF-8, and a lone
// UTF-16 surrogate has no UTF-8 form: the engine reads U+FFFD in its place
// and would decode a value the text does not hold. Such text is refused
// instead, as UTF-8 text holding an encoded surrogate is (spec §2.2,
// `invalid_surrogate`), at the surrogate's line and column (counted in
// characters, as the core counts them), as the Python package refuses it.
// 2.5.2 passes the surrogate through.
//
// Scanning every text for surrogates cost a tenth of a decode of text that
// is not Latin-1 (V8 knows a Latin-1 string holds none), so the scan runs
// only where a surrogate can have mattered: when the engine's output holds
// a U+FFFD (a decoded string or key came from one, or the text had its own),
// or when the engine refused the text.

import { GcfError, fromEngine } from './errors.mjs';
import { wellFormed } from './packed.mjs';

/**
 * `decode(s)` of `input` as a string; `outputOf(result)` is the engine's
 * output text (the result itself by default). A lone surrogate in `input`
 * that reached the output, or that comes no later than the line the engine
 * refused, is thrown as `invalid_surrogate`.
 */
export function decodeText(input, decode, outputOf) {
  const s = typeof input === 'string' ? input : String(input);
  let result;
  try {
    result = decode(s);
  } catch (e) {
    const at = wellFormed(s) ? null : loneSurrogate(s);
    if (at !== null) {
      const refused = fromEngine(e);
      if (!(refused instanceof GcfError) || refused.line === undefined || refused.line >= at.line) throw surrogateError(at);
    }
    throw e;
  }
  const out = outputOf === undefined ? result : outputOf(result);
  if (out.indexOf('\ufffd') !== -1 && !wellFormed(s)) {
    const at = loneSurrogate(s);
    if (at !== null) throw surrogateError(at);
  }
  return result;
}

function surrogateError(at) {
  return new GcfError('invalid_surrogate', 'the text holds a lone UTF-16 surrogate, which UTF-8 cannot carry', at.line, at.column, 'syntax');
}

// The line and column of the first lone surrogate of `s`, or null (Node
// 18's `wellFormed` says false for any surrogate, so finding none is
// possible).
function loneSurrogate(s) {
  let line = 1;
  let column = 1;
  for (let i = 0; i < s.length; i++, column++) {
    const c = s.charCodeAt(i);
    if (c === 10) {
      line++;
      column = 0;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const pair = c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      if (!pair) return { line, column };
      i++;
    }
  }
  return null;
}
