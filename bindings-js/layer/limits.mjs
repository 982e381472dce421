// The `limits` option of the decodes (spec §12's decode limits, an
// addition to 2.5.2): the engine applies them to this thread's decodes
// (bindings-js/engine, set_decode_limits) until they are reset, right after
// `run`. gcf-bind checks them (`usage` for an unknown member or a value out
// of range), as it does for every surface.

import { GcfError, callValue } from './errors.mjs';

/** `run()` with `opts.limits` set in engine `E`, when there are any. */
export function withLimits(E, opts, run) {
  const limits = opts == null ? undefined : opts.limits;
  if (limits === undefined) return run();
  let json;
  try {
    json = JSON.stringify(limits);
  } catch (e) {
    throw new GcfError('usage', `limits: ${e.message}`, null, null, 'usage');
  }
  callValue(() => E.setDecodeLimits(json === undefined ? 'null' : json));
  try {
    return run();
  } finally {
    E.setDecodeLimits('');
  }
}
