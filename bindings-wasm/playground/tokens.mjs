// Token counts with o200k_base (GPT-4o and later), via js-tiktoken. The rank
// table (2.3 MB of JavaScript) is loaded from the local node_modules on first
// use; nothing is fetched from the network. Shared by the page and the tests.
import { Tiktoken } from 'js-tiktoken/lite';

let encoder = null;

/** Loads the o200k_base ranks once; resolves when countTokens can be called. */
export async function loadTokenizer() {
  if (!encoder) {
    const { default: ranks } = await import('js-tiktoken/ranks/o200k_base');
    encoder = new Tiktoken(ranks);
  }
  return encoder;
}

/** The number of o200k_base tokens in `text`, or null before loadTokenizer resolved. */
export function countTokens(text) {
  return encoder ? encoder.encode(text).length : null;
}

/** UTF-8 bytes of `text`. */
export function countBytes(text) {
  return new TextEncoder().encode(text).length;
}
