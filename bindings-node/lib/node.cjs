'use strict';
// The Node-only part of the surface: an adapter from a Node Writable to the
// {write} sink StreamEncoder takes.

/**
 * `write` as StreamEncoder calls it; `await sink.ready()` resolves once a
 * full buffer has drained (backpressure), at once when it has room.
 */
function toNodeWritable(writable) {
  let blocked = null;
  return {
    write(chunk) {
      if (!writable.write(chunk) && !blocked) {
        blocked = new Promise((resolve) =>
          writable.once('drain', () => {
            blocked = null;
            resolve();
          }),
        );
      }
    },
    ready() {
      return blocked || Promise.resolve();
    },
  };
}

module.exports = { toNodeWritable };
