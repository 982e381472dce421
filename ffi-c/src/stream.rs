//! The streaming graph writer behind an opaque handle, writing through a C
//! callback.

use core::ffi::{c_int, c_void};

use gcf_core::graph::{StreamOptions, StreamWriter, Symbol, TrailerForm};
use gcf_core::{ErrorKind, HostSink};

use crate::buf::{put, require_out, str_arg};
use crate::error::{boundary, gcf_error, gcf_status, FfiError};

/// Receives encoded bytes: `bytes[0..len]` is valid only during the call.
/// Return 0 to continue; any other value stops the writer, and the call that
/// was writing fails with `GCF_STATUS_SINK_ERROR`.
pub type gcf_write_callback =
    Option<unsafe extern "C" fn(user_data: *mut c_void, bytes: *const u8, len: usize) -> c_int>;

/// `gcf_graph_stream_options.trailer`: `counts=2,2,3` (spec §8.4, the default).
pub const GCF_TRAILER_POSITIONAL: u32 = 0;
/// `gcf_graph_stream_options.trailer`: `counts=targets:2,related:2,edges:3` (spec §8.4.1).
pub const GCF_TRAILER_LABELED: u32 = 1;
/// `gcf_graph_stream_options.trailer`: `## _summary ... sections=...`, the
/// first streaming drafts' form.
pub const GCF_TRAILER_LEGACY: u32 = 2;

/// Header fields and choices for [`gcf_graph_stream_new`]. Pass NULL for all
/// defaults; zero-initialise to get the defaults field by field.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gcf_graph_stream_options {
    /// Producing tool (`tool=`), UTF-8; NULL or empty writes `tool=` empty, as the reference SDKs do.
    pub tool: *const u8,
    /// Bytes of `tool`.
    pub tool_len: usize,
    /// `budget=`; 0 to omit.
    pub token_budget: u64,
    /// `tokens=`; 0 to omit.
    pub tokens_used: u64,
    /// `GCF_TRAILER_POSITIONAL` (0), `GCF_TRAILER_LABELED` or `GCF_TRAILER_LEGACY`.
    pub trailer: u32,
    /// Keep a name index so [`gcf_graph_stream_write_edge_by_name`] works; it
    /// costs a copy of every qualified name. Off: constant memory.
    pub index_names: bool,
    /// `pack_root=` (after `tokens=`), printable ASCII without spaces; NULL or
    /// empty to omit. Anything else fails [`gcf_graph_stream_new`] with
    /// `invalid_input` before a byte is written.
    pub pack_root: *const u8,
    /// Bytes of `pack_root`.
    pub pack_root_len: usize,
    /// Writes `session=true` (after `pack_root=`): the payload continues a
    /// session, and [`gcf_graph_stream_write_bare_ref`] names symbols sent before.
    pub session: bool,
}

/// The C callback as a core [`HostSink`]: a refusal's return code is the
/// host error it keeps.
pub(crate) type CallbackSink = HostSink<Box<dyn FnMut(&[u8]) -> Result<(), c_int>>, c_int>;

/// A sink calling `callback` with `user_data`; empty writes are not passed on.
pub(crate) fn callback_sink(
    callback: unsafe extern "C" fn(*mut c_void, *const u8, usize) -> c_int,
    user_data: *mut c_void,
) -> CallbackSink {
    HostSink::new(Box::new(move |bytes: &[u8]| {
        if bytes.is_empty() {
            return Ok(());
        }
        // SAFETY: the caller of the `*_stream_new` function promised a callback
        // that accepts `user_data` and reads `len` bytes for the duration of the call.
        match unsafe { callback(user_data, bytes.as_ptr(), bytes.len()) } {
            0 => Ok(()),
            rc => Err(rc),
        }
    }))
}

/// A streaming graph writer (spec §8): symbols and edges reach the callback as
/// they are written (through an 8 KiB buffer), counts come last in the trailer
/// written by [`gcf_graph_stream_finish`]. Release with
/// [`gcf_graph_stream_free`]. Not thread-safe.
///
/// The lifecycle is the core writer's, the same for both profiles: a call
/// refused for its input or order (an unknown id, a name with whitespace, a
/// symbol after an edge) writes nothing and leaves the stream usable; after a
/// callback refusal (`GCF_STATUS_SINK_ERROR`) every later call, finish
/// included, returns `GCF_STATUS_INVALID_STATE`. A panic (a bug) fails the
/// stream the same way.
pub struct gcf_graph_stream {
    writer: Option<StreamWriter<CallbackSink>>,
    panicked: bool,
}

/// Runs `op` on a stream's live writer; a panic inside fails the stream
/// for good (the core writer's own rule covers every other failure).
pub(crate) fn with_live<W, T>(
    writer: &mut Option<W>,
    panicked: &mut bool,
    op: impl FnOnce(&mut W) -> Result<T, gcf_core::Error>,
    sink: impl FnOnce(&W) -> &CallbackSink,
) -> Result<T, FfiError> {
    if *panicked {
        return Err(FfiError::state(
            "the stream failed earlier (a panic) and cannot be written",
        ));
    }
    let writer = writer
        .as_mut()
        .ok_or_else(|| FfiError::state("the stream is finished"))?;
    *panicked = true;
    let result = op(writer);
    *panicked = false;
    result.map_err(|e| sink_detail(e, sink(writer)))
}

impl gcf_graph_stream {
    fn with_writer<T>(
        &mut self,
        op: impl FnOnce(&mut StreamWriter<CallbackSink>) -> Result<T, gcf_core::Error>,
    ) -> Result<T, FfiError> {
        with_live(
            &mut self.writer,
            &mut self.panicked,
            op,
            StreamWriter::get_ref,
        )
    }
}

/// Adds the callback's return code to a sink error.
pub(crate) fn sink_detail(e: gcf_core::Error, sink: &CallbackSink) -> FfiError {
    let mut err = FfiError::from(e);
    if err.status == gcf_status::GCF_STATUS_SINK_ERROR {
        if let Some(rc) = sink.error() {
            err.message = format!("the write callback returned {rc}");
        }
    }
    err
}

/// Live stream from a pointer, or an error for NULL.
///
/// # Safety
///
/// `stream` is NULL or a live stream not used concurrently.
unsafe fn stream_arg<'a>(
    stream: *mut gcf_graph_stream,
) -> Result<&'a mut gcf_graph_stream, FfiError> {
    // SAFETY: NULL or live and exclusive, per the caller.
    unsafe { stream.as_mut() }.ok_or_else(|| FfiError::null("stream"))
}

/// Creates a stream and writes its header through `callback`.
///
/// # Safety
///
/// `callback` is a valid function (NULL is an error) that may be called with
/// `user_data` until the stream is freed; `options` is NULL or readable, its
/// `tool` pointing to `tool_len` bytes and `pack_root` (unless NULL) to
/// `pack_root_len`; `out` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_stream_new(
    callback: gcf_write_callback,
    user_data: *mut c_void,
    options: *const gcf_graph_stream_options,
    out: *mut *mut gcf_graph_stream,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            put(out, core::ptr::null_mut());
            require_out(out, "out")?;
            let callback = callback.ok_or_else(|| FfiError::null("callback"))?;
            let defaults = gcf_graph_stream_options {
                tool: core::ptr::null(),
                tool_len: 0,
                token_budget: 0,
                tokens_used: 0,
                trailer: 0,
                index_names: false,
                pack_root: core::ptr::null(),
                pack_root_len: 0,
                session: false,
            };
            let o = options.as_ref().copied().unwrap_or(defaults);
            let trailer = match o.trailer {
                GCF_TRAILER_POSITIONAL => TrailerForm::Positional,
                GCF_TRAILER_LABELED => TrailerForm::Labeled,
                GCF_TRAILER_LEGACY => TrailerForm::Legacy,
                n => {
                    return Err(FfiError::argument(
                        ErrorKind::InvalidInput,
                        format!("options.trailer: {n} is not a GCF_TRAILER_* value"),
                    ))
                }
            };
            let tool = if o.tool.is_null() {
                ""
            } else {
                str_arg(o.tool, o.tool_len, "options.tool")?
            };
            let pack_root = if o.pack_root.is_null() {
                ""
            } else {
                str_arg(o.pack_root, o.pack_root_len, "options.pack_root")?
            };
            let sink = callback_sink(callback, user_data);
            let options = StreamOptions {
                tool,
                token_budget: o.token_budget,
                tokens_used: o.tokens_used,
                trailer,
                index_names: o.index_names,
                pack_root,
                session: o.session,
            };
            // The header sits in the writer's buffer: it reaches the callback
            // with the first flush, so this cannot fail on the callback.
            let writer = StreamWriter::new(sink, options)?;
            let stream = Box::new(gcf_graph_stream {
                writer: Some(writer),
                panicked: false,
            });
            put(out, Box::into_raw(stream));
            Ok(())
        })
    }
}

/// Writes a symbol and sets `*id` to its id (0, 1, 2, ... in order written).
/// A distance different from the previous symbol's starts a new group.
///
/// # Safety
///
/// `stream` is a live stream; each `(pointer, length)` pair points to that
/// many readable bytes; `id` is NULL or writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_stream_write_symbol(
    stream: *mut gcf_graph_stream,
    qualified_name: *const u8,
    qualified_name_len: usize,
    kind: *const u8,
    kind_len: usize,
    score: f64,
    provenance: *const u8,
    provenance_len: usize,
    distance: u32,
    id: *mut u64,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = stream_arg(stream)?;
            let symbol = Symbol {
                qualified_name: str_arg(qualified_name, qualified_name_len, "qualified_name")?,
                kind: str_arg(kind, kind_len, "kind")?,
                score,
                provenance: str_arg(provenance, provenance_len, "provenance")?,
                distance,
            };
            let written = stream.with_writer(|w| w.write_symbol(&symbol))?;
            put(id, written);
            Ok(())
        })
    }
}

/// Writes a bare session reference (spec §9), `@id  # previously
/// transmitted`, for a symbol the reader already has, and sets `*id` to the
/// id it takes (the next one, as for a symbol). It counts as a symbol of
/// the group of `distance`. `qualified_name` is not written: with
/// `index_names` it names the reference for
/// [`gcf_graph_stream_write_edge_by_name`]; it may be NULL.
///
/// # Safety
///
/// As for [`gcf_graph_stream_write_symbol`].
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_stream_write_bare_ref(
    stream: *mut gcf_graph_stream,
    qualified_name: *const u8,
    qualified_name_len: usize,
    distance: u32,
    id: *mut u64,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = stream_arg(stream)?;
            let qualified_name = str_arg(qualified_name, qualified_name_len, "qualified_name")?;
            let written = stream.with_writer(|w| w.write_bare_ref(qualified_name, distance))?;
            put(id, written);
            Ok(())
        })
    }
}

/// Writes an edge `source -> target` between symbols already written, by id.
/// `status` may be NULL (no status).
///
/// # Safety
///
/// `stream` is a live stream; each non-NULL `(pointer, length)` pair points
/// to that many readable bytes; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_stream_write_edge(
    stream: *mut gcf_graph_stream,
    source: u64,
    target: u64,
    edge_type: *const u8,
    edge_type_len: usize,
    status: *const u8,
    status_len: usize,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = stream_arg(stream)?;
            let edge_type = str_arg(edge_type, edge_type_len, "edge_type")?;
            let status = str_arg(status, status_len, "status")?;
            stream.with_writer(|w| w.write_edge(source, target, edge_type, status))
        })
    }
}

/// Writes an edge between symbols named by qualified name; the stream needs
/// `index_names`. An unknown name is a `GCF_STATUS_DATA_ERROR` of category
/// `unknown_edge_reference` (the stream stays usable).
///
/// # Safety
///
/// As for [`gcf_graph_stream_write_edge`].
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_stream_write_edge_by_name(
    stream: *mut gcf_graph_stream,
    source: *const u8,
    source_len: usize,
    target: *const u8,
    target_len: usize,
    edge_type: *const u8,
    edge_type_len: usize,
    status: *const u8,
    status_len: usize,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = stream_arg(stream)?;
            let source = str_arg(source, source_len, "source")?;
            let target = str_arg(target, target_len, "target")?;
            let edge_type = str_arg(edge_type, edge_type_len, "edge_type")?;
            let status = str_arg(status, status_len, "status")?;
            stream.with_writer(|w| w.write_edge_by_name(source, target, edge_type, status))
        })
    }
}

/// Writes a source location (spec §6b) for a symbol already written.
/// `end_line`/`end_column` of 0 mean "no end position".
///
/// # Safety
///
/// As for [`gcf_graph_stream_write_edge`].
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_stream_write_location(
    stream: *mut gcf_graph_stream,
    id: u64,
    file: *const u8,
    file_len: usize,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = stream_arg(stream)?;
            let file = str_arg(file, file_len, "file")?;
            let end = (end_line != 0 || end_column != 0).then_some((end_line, end_column));
            stream.with_writer(|w| w.write_location(id, file, line, column, end))
        })
    }
}

/// Hands buffered bytes to the callback now.
///
/// # Safety
///
/// `stream` is a live stream; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_stream_flush(
    stream: *mut gcf_graph_stream,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe { boundary(err, || stream_arg(stream)?.with_writer(|w| w.flush())) }
}

/// Writes the trailer and hands every remaining byte to the callback. The
/// stream is finished afterwards, whatever the result; free it with
/// [`gcf_graph_stream_free`].
///
/// # Safety
///
/// `stream` is a live stream; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_stream_finish(
    stream: *mut gcf_graph_stream,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = stream_arg(stream)?;
            if stream.panicked {
                return Err(FfiError::state(
                    "the stream failed earlier (a panic) and cannot be finished",
                ));
            }
            let writer = stream
                .writer
                .take()
                .ok_or_else(|| FfiError::state("the stream is already finished"))?;
            writer.finish().map(drop).map_err(|e| {
                let mut err = FfiError::from(e);
                if err.status == gcf_status::GCF_STATUS_SINK_ERROR {
                    err.message = "the write callback refused the trailer".to_string();
                }
                err
            })
        })
    }
}

/// Releases a stream, finished or not (an unfinished stream's buffered bytes
/// are dropped, not written). NULL is a no-op.
///
/// # Safety
///
/// `stream` is NULL or a stream from [`gcf_graph_stream_new`] not freed since.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_stream_free(stream: *mut gcf_graph_stream) {
    if !stream.is_null() {
        // SAFETY: created by `Box::into_raw` in `gcf_graph_stream_new`, freed once.
        drop(unsafe { Box::from_raw(stream) });
    }
}
