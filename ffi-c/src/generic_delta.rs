//! Generic-profile deltas (spec §10a): keyed sets in, full and delta payloads
//! out, verified application, the three-outcome answer, and a re-anchoring
//! producer session behind a handle.
//!
//! A keyed set travels as JSON `{"name"?, "key", "fields"?, "rows": [{...}]}`
//! (`gcf_bind::generic::keyed_set_from_slice`; `name` defaults to `rows`,
//! `fields` to the first row's members) and comes back in the same shape with
//! every member present (`gcf_bind::generic::KeyedSetJson`).

use gcf_core::generic::{self, DeltaSession, ReanchorPolicy};
use gcf_core::{ErrorKind, Outcome};

use crate::buf::{
    bytes_arg, gcf_buf, gcf_text_arg, json_arg, json_out, optional_str_arg, put, require_out,
    reset_out,
};
use crate::error::{boundary, gcf_error, gcf_status, FfiError};
use crate::generic::keyed_set_arg;
use crate::graph::gcf_outcome;
use crate::limits::{gcf_limits, limits_arg};

/// `policy` of [`gcf_generic_delta_session_new`]: turns `n`, `2n`, `3n`, ...
/// of the session are full payloads, counted from its start (failed turns
/// included) whatever a schema change sent in between, as the references
/// count them (spec §10a.8); `n == 0` means the spec's suggested 15.
pub const GCF_REANCHOR_FIXED_N: u32 = 0;
/// `policy` of [`gcf_generic_delta_session_new`]: a full payload once the
/// deltas sent since the last one, plus this turn's, reach the size of this
/// turn's full payload (`n` is ignored).
pub const GCF_REANCHOR_SIZE_GUARD: u32 = 1;

/// The tool argument: NULL or empty omits `tool=`.
///
/// # Safety
///
/// `tool` is NULL or points to `tool_len` readable bytes.
unsafe fn tool_arg<'a>(tool: *const u8, tool_len: usize) -> Result<&'a str, FfiError> {
    // SAFETY: forwarded from the caller.
    Ok(unsafe { optional_str_arg(tool, tool_len, "tool") }?.unwrap_or(""))
}

/// Encodes a keyed set as a delta-participating full payload (spec §10a.3):
/// `pack_root=` and `key=` in the header, the identity column marked `@`.
///
/// - `set` / `set_len`: the keyed set JSON.
/// - `tool` / `tool_len`: the producing tool (`tool=`), or NULL / empty to omit.
///
/// # Safety
///
/// `set` points to `set_len` readable bytes (or is NULL with 0); `tool` is
/// NULL or points to `tool_len` readable bytes; `out` is a writable
/// `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_encode_full(
    set: *const u8,
    set_len: usize,
    tool: *const u8,
    tool_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let set = keyed_set_arg(bytes_arg(set, set_len, "set")?, "set")?;
            let tool = tool_arg(tool, tool_len)?;
            let text = generic::encode_full(&set, tool)?;
            put(out, gcf_buf::from_vec(text.into_bytes()));
            Ok(())
        })
    }
}

/// Encodes a generic delta given as JSON (`{"tool", "key", "fields",
/// "baseRoot", "newRoot", "added": [{...}], "changed": [{...}], "removed":
/// [ids], "deltaTokens", "fullTokens"}`, spec §10a.2). With a non-zero
/// `fullTokens` the header carries `savings=`.
///
/// # Safety
///
/// `delta` points to `delta_len` readable bytes (or is NULL with 0); `out` is
/// a writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_encode_delta(
    delta: *const u8,
    delta_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let bytes = json_arg(bytes_arg(delta, delta_len, "delta")?, "delta")?;
            let delta = gcf_bind::generic::generic_delta_from_slice(bytes)
                .map_err(|f| FfiError::json(f, "delta"))?;
            let text = generic::encode_delta(&delta)?;
            put(out, gcf_buf::from_vec(text.into_bytes()));
            Ok(())
        })
    }
}

/// Decodes the delta text `delta` and applies it to the keyed set JSON
/// `base` (spec §10a.5), verifying `base_root` before and `new_root` after;
/// the result is the new keyed set as JSON. Atomic: on any error nothing is
/// output. A wrong root is a `GCF_STATUS_DATA_ERROR` of category
/// `root_mismatch`, a delta that breaks the wire rules one of
/// `malformed_delta`, `count_mismatch`, ... with a line and column.
///
/// # Safety
///
/// `base` and `delta` point to their lengths' readable bytes (or are NULL
/// with 0); `out` is a writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_apply_delta(
    base: *const u8,
    base_len: usize,
    delta: *const u8,
    delta_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        gcf_generic_apply_delta_with_limits(
            base,
            base_len,
            delta,
            delta_len,
            std::ptr::null(),
            out,
            err,
        )
    }
}

/// [`gcf_generic_apply_delta`] with the delta text decoded under the
/// caller's decode limits (NULL for the defaults; see [`gcf_limits`]).
///
/// # Safety
///
/// As for [`gcf_generic_apply_delta`]; `limits` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_apply_delta_with_limits(
    base: *const u8,
    base_len: usize,
    delta: *const u8,
    delta_len: usize,
    limits: *const gcf_limits,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let limits = limits_arg(limits)?;
            let base = keyed_set_arg(bytes_arg(base, base_len, "base")?, "base")?;
            let text = gcf_text_arg(delta, delta_len, "delta")?;
            let result = generic::apply_delta_with(&base, text, &limits)?;
            put(out, json_out(&gcf_bind::generic::KeyedSetJson(&result))?);
            Ok(())
        })
    }
}

/// Decodes generic delta text (spec §10a.2) into the delta JSON that
/// [`gcf_generic_encode_delta`] reads (`{"tool", "key", "fields", "baseRoot",
/// "newRoot", "added", "changed", "removed", "deltaTokens", "fullTokens"}`),
/// without applying it: for callers that inspect a delta before applying it
/// themselves (gcf-go's `DecodeGenericDelta`).
///
/// # Safety
///
/// `delta` points to `delta_len` readable bytes (or is NULL with 0); `out` is
/// a writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_decode_delta(
    delta: *const u8,
    delta_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe { gcf_generic_decode_delta_with_limits(delta, delta_len, std::ptr::null(), out, err) }
}

/// [`gcf_generic_decode_delta`] under the caller's decode limits (NULL for
/// the defaults; see [`gcf_limits`]).
///
/// # Safety
///
/// As for [`gcf_generic_decode_delta`]; `limits` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_decode_delta_with_limits(
    delta: *const u8,
    delta_len: usize,
    limits: *const gcf_limits,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let limits = limits_arg(limits)?;
            let text = gcf_text_arg(delta, delta_len, "delta")?;
            let decoded = generic::decode_delta_with(text, &limits)?;
            put(
                out,
                json_out(&gcf_bind::generic::GenericDeltaJson(&decoded))?,
            );
            Ok(())
        })
    }
}

/// A decoded full payload as `gcf_generic_decode_full` writes it.
struct FullJson<'a>(&'a generic::FullPayload);

impl serde::Serialize for FullJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("set", &gcf_bind::generic::KeyedSetJson(&self.0.set))?;
        m.serialize_entry("packRoot", &self.0.pack_root)?;
        m.serialize_entry("tool", &self.0.tool)?;
        m.end()
    }
}

/// Decodes a delta-participating full payload (spec §10a.1; the core's
/// `generic::decode_full`) into `{"set": keyed set JSON, "packRoot",
/// "tool"}`: the set's fields from the table's declaration, the header's
/// `pack_root=` and `tool=` as written (empty when absent). A repeated
/// identity is `duplicate_key`; anything but one table of records is
/// `invalid_input`.
///
/// # Safety
///
/// `text` points to `text_len` readable bytes (or is NULL with 0); `limits`
/// is NULL (the defaults) or readable; `out` is a writable `gcf_buf`; `err`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_decode_full(
    text: *const u8,
    text_len: usize,
    limits: *const gcf_limits,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let limits = limits_arg(limits)?;
            let text = gcf_text_arg(text, text_len, "text")?;
            let full = generic::decode_full_with(text, &limits)?;
            put(out, json_out(&FullJson(&full))?);
            Ok(())
        })
    }
}

/// The delta from keyed set `base` to keyed set `next` (core's
/// `generic::diff`) as delta JSON, or the JSON `null` when the schema changed
/// and only a full payload can carry `next` (spec §10a.7). Duplicate or
/// missing identities are `delta_invalid` errors.
///
/// # Safety
///
/// `base` and `next` point to their lengths' readable bytes (or are NULL
/// with 0); `out` is a writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_diff(
    base: *const u8,
    base_len: usize,
    next: *const u8,
    next_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let base = keyed_set_arg(bytes_arg(base, base_len, "base")?, "base")?;
            let next = keyed_set_arg(bytes_arg(next, next_len, "next")?, "next")?;
            match generic::diff(&base, &next)? {
                Some(d) => put(out, json_out(&gcf_bind::generic::GenericDeltaJson(&d))?),
                None => put(out, gcf_buf::from_vec(b"null".to_vec())),
            }
            Ok(())
        })
    }
}

/// Decodes graph delta text (spec §10.1) into the delta JSON that
/// `gcf_graph_encode_delta` reads (`{"tool", "baseRoot", "newRoot",
/// "removed", "added", "removedEdges", "addedEdges", "deltaTokens",
/// "fullTokens"}`, kinds expanded), without applying it: gcf-go's
/// `DecodeDelta`. Kept beside the generic decoders so the graph module's
/// file stays as it is.
///
/// # Safety
///
/// `delta` points to `delta_len` readable bytes (or is NULL with 0); `out` is
/// a writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_decode_delta(
    delta: *const u8,
    delta_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe { gcf_graph_decode_delta_with_limits(delta, delta_len, std::ptr::null(), out, err) }
}

/// [`gcf_graph_decode_delta`] under the caller's decode limits (NULL for the
/// defaults; see [`gcf_limits`]).
///
/// # Safety
///
/// As for [`gcf_graph_decode_delta`]; `limits` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_decode_delta_with_limits(
    delta: *const u8,
    delta_len: usize,
    limits: *const gcf_limits,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let limits = limits_arg(limits)?;
            let text = gcf_text_arg(delta, delta_len, "delta")?;
            let decoded = gcf_core::graph::decode_delta_with(text, &limits)?;
            put(out, json_out(&gcf_bind::graph::DeltaJson(&decoded))?);
            Ok(())
        })
    }
}

/// Answers a consumer of a keyed set (spec §10a.4): unchanged, a delta, or
/// the full payload, chosen by core's `generic::respond`.
///
/// - `held` / `held_len`: the keyed set JSON the producer still holds for the
///   root the consumer echoed, or NULL (or empty) when it holds none: a first
///   request or an unknown root, answered in full.
/// - `current` / `current_len`: the current keyed set JSON.
/// - `tool` / `tool_len`: the producing tool, or NULL / empty to omit.
/// - `outcome`: set to which answer was chosen (required).
/// - `out`: the answer's GCF text.
///
/// # Safety
///
/// Each non-NULL input points to its length's readable bytes; `outcome` and
/// `out` are writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_delta(
    held: *const u8,
    held_len: usize,
    current: *const u8,
    current_len: usize,
    tool: *const u8,
    tool_len: usize,
    outcome: *mut gcf_outcome,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            put(outcome, gcf_outcome::GCF_OUTCOME_NONE);
            reset_out(out)?;
            require_out(outcome, "outcome")?;
            let held = match bytes_arg(held, held_len, "held")? {
                [] => None,
                bytes => Some(keyed_set_arg(bytes, "held")?),
            };
            let current = keyed_set_arg(bytes_arg(current, current_len, "current")?, "current")?;
            let tool = tool_arg(tool, tool_len)?;
            let (kind, text) = match generic::respond(held.as_ref(), &current, tool)? {
                Outcome::Unchanged(t) => (gcf_outcome::GCF_OUTCOME_UNCHANGED, t),
                Outcome::Delta(t) => (gcf_outcome::GCF_OUTCOME_DELTA, t),
                Outcome::Full(t) => (gcf_outcome::GCF_OUTCOME_FULL, t),
            };
            put(outcome, kind);
            put(out, gcf_buf::from_vec(text.into_bytes()));
            Ok(())
        })
    }
}

/// A producer session over successive states of one keyed set (spec
/// §10a.8): a full payload first, then a delta per update, and a full
/// payload whenever the schema changes, a delta is not allowed, or the
/// re-anchor policy says so. Create with [`gcf_generic_delta_session_new`],
/// release with [`gcf_generic_delta_session_free`]. Not thread-safe: use one
/// session from one thread at a time.
pub struct gcf_generic_delta_session {
    session: DeltaSession,
}

/// Creates a session whose consumer first receives `base` in full.
///
/// - `base` / `base_len`: the first keyed set JSON.
/// - `tool` / `tool_len`: the tool named in full payloads, or NULL / empty.
/// - `policy`: `GCF_REANCHOR_FIXED_N` or `GCF_REANCHOR_SIZE_GUARD`; any other
///   value is a `GCF_STATUS_INVALID_ARGUMENT`.
/// - `n`: the cadence of `GCF_REANCHOR_FIXED_N` (0 for the default, 15);
///   ignored by `GCF_REANCHOR_SIZE_GUARD`.
///
/// # Safety
///
/// `base` points to `base_len` readable bytes (or is NULL with 0); `tool` is
/// NULL or points to `tool_len` readable bytes; `out` is writable; `err` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_delta_session_new(
    base: *const u8,
    base_len: usize,
    tool: *const u8,
    tool_len: usize,
    policy: u32,
    n: usize,
    out: *mut *mut gcf_generic_delta_session,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            put(out, core::ptr::null_mut());
            require_out(out, "out")?;
            let policy = match policy {
                GCF_REANCHOR_FIXED_N => ReanchorPolicy::FixedN(n),
                GCF_REANCHOR_SIZE_GUARD => ReanchorPolicy::SizeGuard,
                p => {
                    return Err(FfiError::argument(
                        ErrorKind::InvalidInput,
                        format!("policy: {p} is not a GCF_REANCHOR_* value"),
                    ))
                }
            };
            let base = keyed_set_arg(bytes_arg(base, base_len, "base")?, "base")?;
            let tool = tool_arg(tool, tool_len)?;
            let session = Box::new(gcf_generic_delta_session {
                session: DeltaSession::new(base, tool, policy),
            });
            put(out, Box::into_raw(session));
            Ok(())
        })
    }
}

/// The full payload of the set the consumer holds now: the first thing to
/// send, and at any time a valid manual re-anchor. It does not advance the
/// session.
///
/// # Safety
///
/// `session` is a live session not used concurrently; `out` is writable;
/// `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_delta_session_initial_full(
    session: *const gcf_generic_delta_session,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let session = session.as_ref().ok_or_else(|| FfiError::null("session"))?;
            let text = session.session.initial_full()?;
            put(out, gcf_buf::from_vec(text.into_bytes()));
            Ok(())
        })
    }
}

/// Moves the session to the keyed set JSON `set` and outputs the payload to
/// send: a delta, or a full payload (`*is_full` true). On error the session
/// holds the set it held; a call with a live session counts as a turn of the
/// `GCF_REANCHOR_FIXED_N` cadence even when it fails, as the references
/// count it.
///
/// # Safety
///
/// `session` is a live session not used concurrently; `set` points to
/// `set_len` readable bytes; `out` and `is_full` are writable; `err` is NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_delta_session_next(
    session: *mut gcf_generic_delta_session,
    set: *const u8,
    set_len: usize,
    out: *mut gcf_buf,
    is_full: *mut bool,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            put(is_full, false);
            reset_out(out)?;
            require_out(is_full, "is_full")?;
            let session = session.as_mut().ok_or_else(|| FfiError::null("session"))?;
            // A set that cannot be read is still a turn of the cadence.
            let set = match bytes_arg(set, set_len, "set").and_then(|b| keyed_set_arg(b, "set")) {
                Ok(set) => set,
                Err(e) => {
                    session.session.count_refused_turn();
                    return Err(e);
                }
            };
            let (text, full) = session.session.next(set)?;
            put(is_full, full);
            put(out, gcf_buf::from_vec(text.into_bytes()));
            Ok(())
        })
    }
}

/// Releases a session. NULL is a no-op.
///
/// # Safety
///
/// `session` is NULL or a session from [`gcf_generic_delta_session_new`] not
/// freed since.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_delta_session_free(session: *mut gcf_generic_delta_session) {
    if !session.is_null() {
        // SAFETY: created by `Box::into_raw` in `gcf_generic_delta_session_new`, freed once.
        drop(unsafe { Box::from_raw(session) });
    }
}
