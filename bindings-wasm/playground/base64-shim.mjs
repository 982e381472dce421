// js-tiktoken imports the CommonJS package base64-js for one function; the
// page's import map points that import here so no bundler is needed.
export function toByteArray(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
export default { toByteArray };
