// 2.5.2 throws plain Errors whose messages start with the spec's category
// ("count_mismatch: ..."), and callers match on that prefix. GcfError keeps
// both (it is an Error, and its message starts the same way) and adds the
// category, the failure class and the position as properties.

class GcfError extends Error {
  constructor(category, message, line, column, errorClass) {
    const where = line != null ? (column != null ? ` (line ${line}, column ${column})` : ` (line ${line})`) : '';
    super(`${category}: ${message}${where}`);
    this.category = category;
    this.line = line == null ? undefined : line;
    this.column = column == null ? undefined : column;
    this.errorClass = errorClass || 'data';
    this.detail = message;
  }
}
Object.defineProperty(GcfError.prototype, 'name', { value: 'Error', writable: true, configurable: true });

// Engines throw an Error whose message is "\u0001" + the Failure as JSON.
function fromEngine(e) {
  if (e && typeof e.message === 'string' && e.message.charCodeAt(0) === 1) {
    let f;
    try {
      f = JSON.parse(e.message.slice(1));
    } catch (_) {
      return e;
    }
    return new GcfError(f.category, f.message, f.line, f.column, f.class);
  }
  return e;
}

function rethrow(e) {
  throw fromEngine(e);
}

// For an engine call whose input is JSON this layer wrote from the caller's
// values (a payload, a set, a row), not text the caller gave: a line and
// column there are in text the caller never saw, so they are left out, and
// the message leads with the path of the caller's field instead
// (`symbols[3].score: ...`, written by gcf-bind from that position). A
// failure to read that JSON (category `json`; it can only be a string that
// UTF-8 cannot carry, which gcf-bind names `invalid_surrogate`, or a bug
// here) is the caller's input, `invalid_input`.
function rethrowValue(e) {
  const f = fromEngine(e);
  if (!(f instanceof GcfError) || (f.line === undefined && f.category !== 'json')) throw f;
  throw new GcfError(f.category === 'json' ? 'invalid_input' : f.category, f.detail, null, null, f.errorClass);
}

// `fn()`, an engine call on GCF text the caller gave: its errors as GcfErrors,
// with their line and column.
function call(fn) {
  try {
    return fn();
  } catch (e) {
    return rethrow(e);
  }
}

// `fn()`, an engine call on JSON written here from the caller's values: its
// errors as rethrowValue reports them.
function callValue(fn) {
  try {
    return fn();
  } catch (e) {
    return rethrowValue(e);
  }
}

export { GcfError, rethrow, rethrowValue, call, callValue, fromEngine };

// The core's default container limit (`Limits::max_container_len`). A list
// past it is refused before it is read or stringified: an array's length can
// be far more than its memory (a sparse one), and JSON.stringify of 2e8
// holes ends the process rather than throwing.
const MAX_CONTAINER_LEN = 100_000_000;
export function checkLength(list, what) {
  if (Array.isArray(list) && list.length > MAX_CONTAINER_LEN) {
    throw new GcfError('limit_exceeded', `${what} holds ${list.length} items, over the limit of ${MAX_CONTAINER_LEN}`);
  }
}
