// GCF text given as a JS string reaches the engine as UTF-8, and a lone
// UTF-16 surrogate has no UTF-8 form: the engine would read U+FFFD in its
// place and decode a value the text does not hold. Such text is refused
// instead, as UTF-8 text holding an encoded surrogate is (spec §2.2,
// `invalid_surrogate`), at the surrogate's line and column (counted in
// characters, as the core counts them), as the Python package refuses
// it. 2.5.2 passes the surrogate through.

import { GcfError } from './errors.mjs';
import { wellFormed } from './packed.mjs';

/** `input` as the string a decode reads; throws on a lone surrogate. */
export function gcfText(input) {
  const s = typeof input === 'string' ? input : String(input);
  if (!wellFormed(s)) refuseLoneSurrogate(s);
  return s;
}

// Throws at the first lone surrogate of `s` (Node 18's `wellFormed` says
// false for any surrogate, so finding none is possible: `s` is then fine).
function refuseLoneSurrogate(s) {
  let line = 1;
  let column = 1;
  for (let i = 0; i < s.length; i++, column++) {
    const c = s.charCodeAt(i);
    if (c === 10) {
      line++;
      column = 0;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const pair = c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      if (!pair) {
        throw new GcfError('invalid_surrogate', 'the text holds a lone UTF-16 surrogate, which UTF-8 cannot carry', line, column, 'syntax');
      }
      i++;
    }
  }
}
