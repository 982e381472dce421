// Large string arguments into the wasm engine with TextEncoder.encodeInto.
//
// wasm-bindgen's glue copies an ASCII string into wasm memory one
// charCodeAt at a time in JS (its fast path for short strings), about 25
// times slower than encodeInto on a 1 MB payload, which made the copy a
// fifth of a 10,000-symbol encode. For the calls that take whole payloads,
// a string past SMALL characters is written once with encodeInto into the
// engine's argument buffer (src/lib.rs, argBuffer) and the matching *Arg
// export reads it there; results still come back through one TextDecoder
// call. Every other call, and short strings, go through the glue unchanged.
// The source of fastargs.cjs (tools/build-layer.mjs).

const SMALL = 256;

/** The engine interface over wasm-bindgen glue `glue` (web or nodejs). */
export function withFastArgs(glue) {
  const encoder = new TextEncoder();
  const memory = glue.wasmMemory();
  function put(s) {
    // UTF-16 code units to UTF-8 bytes: at most 3 bytes each.
    const capacity = s.length * 3;
    const ptr = glue.argBuffer(capacity);
    // After argBuffer: it may have grown (and so replaced) memory.buffer.
    return encoder.encodeInto(s, new Uint8Array(memory.buffer, ptr, capacity)).written;
  }
  const one = (plain, arg) => (s) => (typeof s === 'string' && s.length > SMALL ? arg(put(s)) : plain(s));
  const engine = {};
  for (const name of Object.keys(glue)) {
    if (name !== 'default' && name !== 'initSync' && !name.startsWith('__')) engine[name] = glue[name];
  }
  engine.graphEncode = one(glue.graphEncode, glue.graphEncodeArg);
  engine.graphDecode = one(glue.graphDecode, glue.graphDecodeArg);
  // The packed route's decode: the table, then its numbers (src/lib.rs),
  // as the napi engine answers: the table alone with the numbers copied
  // into the caller's scratch when they fit, else [table, numbers].
  const withNums = (t, scratch) => {
    if (scratch !== undefined) {
      const n = glue.graphPackedNumsLen();
      if (n <= scratch.length) {
        // A view of the module's memory, read before any other call.
        scratch.set(new Float64Array(memory.buffer, glue.graphPackedNumsPtr(), n));
        return t;
      }
    }
    return [t, glue.graphPackedNums()];
  };
  const table = one(glue.graphDecodePackedTable, glue.graphDecodePackedTableArg);
  engine.graphDecodePacked = (s, scratch) => withNums(table(s), scratch);
  engine.genericDecode = one(glue.genericDecode, glue.genericDecodeArg);
  const valueTable = one(glue.genericDecodePackedTable, glue.genericDecodePackedTableArg);
  engine.genericDecodePacked = (s, scratch) => withNums(valueTable(s), scratch);
  engine.genericDecodeBytesPacked = (b, scratch) => withNums(glue.genericDecodeBytesPackedTable(b), scratch);
  // The layer passes its scratch arrays whole with the lengths in use (the
  // napi engine reads them in place); wasm-bindgen copies what it is given
  // into the module's memory, so only the part in use goes.
  const upTo = (a, n) => (n === undefined ? a : a.subarray(0, n));
  engine.graphEncodePacked = (bytes, nums, bytesLen, numsLen) =>
    glue.graphEncodePacked(upTo(bytes, bytesLen), upTo(nums, numsLen));
  engine.genericEncodePacked = (ops, text, nums, flags, opsLen, textLen, numsLen) =>
    glue.genericEncodePacked(upTo(ops, opsLen), upTo(text, textLen), upTo(nums, numsLen), flags);
  engine.genericEncode = (s, flags) =>
    typeof s === 'string' && s.length > SMALL ? glue.genericEncodeArg(put(s), flags) : glue.genericEncode(s, flags);
  return seedOnFirstCall(glue, engine);
}

// The core's hash tables are keyed from crypto.getRandomValues when the
// module starts (src/lib.rs). Where that failed (a Cloudflare Worker
// refuses random values in its global scope, where Workers instantiate the
// module), every engine function and class tries again when first called,
// from a handler by then, until it succeeds: a flag test per call, only in
// such hosts.
function seedOnFirstCall(glue, engine) {
  if (typeof glue.__seedHashes !== 'function' || glue.__seedHashes()) return engine;
  let seeded = false;
  const seedFirst = {
    apply(f, self, args) {
      seeded ||= glue.__seedHashes();
      return Reflect.apply(f, self, args);
    },
    construct(f, args, newTarget) {
      seeded ||= glue.__seedHashes();
      return Reflect.construct(f, args, newTarget);
    },
  };
  for (const name of Object.keys(engine)) {
    if (typeof engine[name] === 'function') engine[name] = new Proxy(engine[name], seedFirst);
  }
  return engine;
}
