//! Buffered graph-profile calls: JSON text in, GCF text out, and back.
//!
//! JSON uses the camelCase field names of the conformance fixtures
//! (`qualifiedName`, `edgeType`, `tokenBudget`, ...); the conversions are
//! `gcf_bind::graph`'s, reading straight from the argument's bytes.

use gcf_core::graph::{self, Outcome, Session, SessionDecoder};

use std::borrow::Cow;

use gcf_bind::graph as json;

use crate::buf::{
    bytes_arg, gcf_buf, gcf_text_arg, json_arg, json_out, optional_str_arg, put, require_out,
    reset_out,
};
use crate::error::{boundary, gcf_error, gcf_status, FfiError};
use crate::limits::{gcf_limits, limits_arg};

/// Which answer [`gcf_graph_delta`] chose (spec §10.3). The numbers are part
/// of the ABI.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum gcf_outcome {
    /// No answer (only seen after a failed call).
    GCF_OUTCOME_NONE = 0,
    /// The consumer's root is current: a header-only `unchanged=true` payload.
    GCF_OUTCOME_UNCHANGED = 1,
    /// A delta against the consumer's snapshot.
    GCF_OUTCOME_DELTA = 2,
    /// The full payload, with `pack_root=` in its header.
    GCF_OUTCOME_FULL = 3,
}

fn payload_arg<'a>(bytes: &'a [u8], what: &str) -> Result<graph::Payload<Cow<'a, str>>, FfiError> {
    json::payload_from_slice(json_arg(bytes, what)?).map_err(|f| FfiError::json(f, what))
}

fn snapshot_arg(bytes: &[u8], what: &str) -> Result<graph::Snapshot, FfiError> {
    let snapshot =
        json::snapshot_from_slice(json_arg(bytes, what)?).map_err(|f| FfiError::json(f, what))?;
    Ok(json::owned_snapshot(&snapshot))
}

/// Encodes a graph payload given as JSON (`{"tool", "tokenBudget",
/// "tokensUsed", "packRoot", "symbols": [...], "edges": [...],
/// "locations": [...]}`) into GCF text.
///
/// # Safety
///
/// `json` points to `json_len` readable bytes (or is NULL with 0); `out` is a
/// writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_encode(
    json: *const u8,
    json_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let payload = payload_arg(bytes_arg(json, json_len, "json")?, "json")?;
            let text = graph::encode(&payload)?;
            put(out, gcf_buf::from_vec(text.into_bytes()));
            Ok(())
        })
    }
}

/// Decodes graph-profile GCF text into payload JSON. Bytes that are not UTF-8
/// are a `GCF_STATUS_DATA_ERROR` of category `invalid_utf8` with a position.
/// A delta payload (`delta=true`) is rejected: apply it with
/// [`gcf_graph_apply_delta`].
///
/// # Safety
///
/// `input` points to `input_len` readable bytes (or is NULL with 0); `out` is
/// a writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_decode(
    input: *const u8,
    input_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe { gcf_graph_decode_with_limits(input, input_len, std::ptr::null(), out, err) }
}

/// [`gcf_graph_decode`] under the caller's decode limits (NULL for the
/// defaults; see [`gcf_limits`]).
///
/// # Safety
///
/// As for [`gcf_graph_decode`]; `limits` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_decode_with_limits(
    input: *const u8,
    input_len: usize,
    limits: *const gcf_limits,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let decoder = graph::Decoder::new()
                .limits(limits_arg(limits)?)
                .refuse_references(true);
            let payload = decoder.decode_bytes(bytes_arg(input, input_len, "input")?)?;
            put(out, json_out(&json::PayloadJson(&payload))?);
            Ok(())
        })
    }
}

/// Encodes a delta payload given as JSON (`{"tool", "baseRoot", "newRoot",
/// "removed": [{"kind", "qualifiedName"}], "added": [...], "removedEdges",
/// "addedEdges", "deltaTokens", "fullTokens"}`).
///
/// # Safety
///
/// As for [`gcf_graph_encode`].
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_encode_delta(
    json: *const u8,
    json_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let bytes = json_arg(bytes_arg(json, json_len, "json")?, "json")?;
            let delta = json::delta_from_slice(bytes).map_err(|f| FfiError::json(f, "json"))?;
            put(
                out,
                gcf_buf::from_vec(graph::encode_delta(&delta)?.into_bytes()),
            );
            Ok(())
        })
    }
}

/// Decodes the delta text `delta` and applies it to the snapshot JSON `base`
/// (`{"symbols": [...], "edges": [...]}`), verifying both pack roots; the
/// result is the new snapshot as JSON. Atomic: on any error nothing is output.
///
/// # Safety
///
/// `base` and `delta` point to their lengths' readable bytes (or are NULL
/// with 0); `out` is a writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_apply_delta(
    base: *const u8,
    base_len: usize,
    delta: *const u8,
    delta_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        gcf_graph_apply_delta_with_limits(
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

/// [`gcf_graph_apply_delta`] with the delta text decoded under the caller's
/// decode limits (NULL for the defaults; see [`gcf_limits`]): a producer's
/// delta is input like any other.
///
/// # Safety
///
/// As for [`gcf_graph_apply_delta`]; `limits` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_apply_delta_with_limits(
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
            let base = snapshot_arg(bytes_arg(base, base_len, "base")?, "base")?;
            let text = gcf_text_arg(delta, delta_len, "delta")?;
            let result = graph::apply_delta_with(&base, text, &limits)?;
            put(out, json_out(&json::SnapshotJson(&result))?);
            Ok(())
        })
    }
}

/// Answers a consumer who echoed a pack root (spec §10.3): unchanged, a
/// delta, or the full payload, chosen by core's `graph::respond`.
///
/// - `held` / `held_len`: the snapshot JSON the producer still holds for the
///   echoed root, or NULL when it holds none.
/// - `payload` / `payload_len`: the current payload JSON.
/// - `echoed_root` / `echoed_root_len`: the root the consumer sent, or NULL
///   on a first request.
/// - `outcome`: set to which answer was chosen (required).
/// - `out`: the answer's GCF text.
///
/// # Safety
///
/// Each non-NULL input points to its length's readable bytes; `outcome` and
/// `out` are writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_delta(
    held: *const u8,
    held_len: usize,
    payload: *const u8,
    payload_len: usize,
    echoed_root: *const u8,
    echoed_root_len: usize,
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
            let held = if held.is_null() {
                None
            } else {
                Some(snapshot_arg(bytes_arg(held, held_len, "held")?, "held")?)
            };
            let current = payload_arg(bytes_arg(payload, payload_len, "payload")?, "payload")?
                .to_owned_payload();
            let root = optional_str_arg(echoed_root, echoed_root_len, "echoed_root")?;
            let (kind, text) = match graph::respond(root, held.as_ref(), &current)? {
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

/// The graph pack root (`sha256:<64 hex>`, spec §10.2) of a snapshot or
/// payload JSON (only `symbols` and `edges` are read).
///
/// # Safety
///
/// As for [`gcf_graph_encode`].
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_pack_root(
    json: *const u8,
    json_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let snapshot = snapshot_arg(bytes_arg(json, json_len, "json")?, "json")?;
            put(out, gcf_buf::from_vec(snapshot.pack_root()?.into_bytes()));
            Ok(())
        })
    }
}

/// A graph session (spec §9): symbols already sent in earlier payloads are
/// written as bare `@N` references. Create with [`gcf_graph_session_new`],
/// release with [`gcf_graph_session_free`]. Not thread-safe: use one session
/// from one thread at a time.
pub struct gcf_graph_session {
    session: Session,
}

/// Creates a session.
///
/// # Safety
///
/// `out` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_session_new(
    out: *mut *mut gcf_graph_session,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            put(out, core::ptr::null_mut());
            require_out(out, "out")?;
            let session = Box::new(gcf_graph_session {
                session: Session::new(),
            });
            put(out, Box::into_raw(session));
            Ok(())
        })
    }
}

/// Encodes a payload JSON within the session. The session records the new
/// symbols only when the whole payload was encoded.
///
/// # Safety
///
/// `session` is a live session not used concurrently; `json` points to
/// `json_len` readable bytes; `out` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_session_encode(
    session: *mut gcf_graph_session,
    json: *const u8,
    json_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let session = session.as_mut().ok_or_else(|| FfiError::null("session"))?;
            let payload = payload_arg(bytes_arg(json, json_len, "json")?, "json")?;
            let text = session.session.encode(&payload)?;
            put(out, gcf_buf::from_vec(text.into_bytes()));
            Ok(())
        })
    }
}

/// Releases a session. NULL is a no-op.
///
/// # Safety
///
/// `session` is NULL or a session from [`gcf_graph_session_new`] not freed since.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_session_free(session: *mut gcf_graph_session) {
    if !session.is_null() {
        // SAFETY: created by `Box::into_raw` in `gcf_graph_session_new`, freed once.
        drop(unsafe { Box::from_raw(session) });
    }
}

/// The consumer side of a graph session (spec §9.2): decode every payload
/// of one session with the same decoder, and a bare `@N  # previously
/// transmitted` line comes back as the full symbol an earlier payload
/// delivered, edges to it resolved. A reference to an id never delivered is
/// `GCF_ERROR_UNKNOWN_EDGE_REFERENCE` (spec §9.4: ask the producer for a full
/// payload); a payload without `session=true` starts a new session; on
/// error nothing is remembered. Create with
/// [`gcf_graph_session_decoder_new`], release with
/// [`gcf_graph_session_decoder_free`]. Not thread-safe: use one decoder from
/// one thread at a time.
pub struct gcf_graph_session_decoder {
    decoder: SessionDecoder,
}

/// Creates a session decoder that decodes under `limits` (NULL for the
/// defaults; see [`gcf_limits`]) and remembers at most `max_retained`
/// symbols, past which it forgets the session (0: no bound).
///
/// # Safety
///
/// `limits` is NULL or readable; `out` is writable; `err` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_session_decoder_new(
    limits: *const gcf_limits,
    max_retained: usize,
    out: *mut *mut gcf_graph_session_decoder,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            put(out, core::ptr::null_mut());
            require_out(out, "out")?;
            let mut decoder = SessionDecoder::new().limits(limits_arg(limits)?);
            if max_retained > 0 {
                decoder = decoder.with_max_retained(max_retained);
            }
            put(
                out,
                Box::into_raw(Box::new(gcf_graph_session_decoder { decoder })),
            );
            Ok(())
        })
    }
}

/// Decodes one payload of the session into JSON (as [`gcf_graph_decode`]).
///
/// # Safety
///
/// `decoder` is a live decoder not used concurrently; `input` points to
/// `input_len` readable bytes (or is NULL with 0); `out` is writable; `err`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_session_decoder_decode(
    decoder: *mut gcf_graph_session_decoder,
    input: *const u8,
    input_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let decoder = decoder.as_mut().ok_or_else(|| FfiError::null("decoder"))?;
            let text = gcf_text_arg(input, input_len, "input")?;
            let payload = decoder.decoder.decode(text)?;
            put(out, json_out(&json::PayloadJson(&payload))?);
            Ok(())
        })
    }
}

/// How many symbols the decoder remembers (0 for NULL).
///
/// # Safety
///
/// `decoder` is NULL or a live decoder not used concurrently.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_session_decoder_len(
    decoder: *const gcf_graph_session_decoder,
) -> usize {
    // SAFETY: NULL or live, per the contract.
    unsafe { decoder.as_ref() }.map_or(0, |d| d.decoder.len())
}

/// Forgets the session. NULL is a no-op.
///
/// # Safety
///
/// `decoder` is NULL or a live decoder not used concurrently.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_session_decoder_reset(decoder: *mut gcf_graph_session_decoder) {
    // SAFETY: NULL or live, per the contract.
    if let Some(d) = unsafe { decoder.as_mut() } {
        d.decoder.reset();
    }
}

/// Releases a session decoder. NULL is a no-op.
///
/// # Safety
///
/// `decoder` is NULL or a decoder from [`gcf_graph_session_decoder_new`] not
/// freed since.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_session_decoder_free(decoder: *mut gcf_graph_session_decoder) {
    if !decoder.is_null() {
        // SAFETY: created by `Box::into_raw` in
        // `gcf_graph_session_decoder_new`, freed once.
        drop(unsafe { Box::from_raw(decoder) });
    }
}
