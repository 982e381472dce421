//! Generic-profile calls: any JSON value in, GCF text out, and back; the
//! keyed-set pack root; and the streaming table writer behind a handle.

use core::ffi::{c_char, c_void};

use gcf_core::generic::{self, Cell, KeyedSet, StreamOptions, StreamWriter, Value};
use gcf_core::{Error, ErrorKind};

use crate::buf::{
    bytes_arg, gcf_buf, json_arg, json_out, optional_str_arg, put, require_out, str_arg,
};
use crate::error::{boundary, gcf_error, gcf_status, FfiError};
use crate::limits::{gcf_limits, limits_arg};
use crate::stream::{callback_sink, gcf_write_callback, with_live, CallbackSink};

/// Encodes any JSON value (object member order is kept; integers beyond
/// int64 are an `out_of_range` data error) as a generic-profile payload. A
/// table column holding the same value in every row is declared once
/// (`{id,type=file}`), as the other GCF implementations write it;
/// `gcf_generic_encode_flags` can turn that off.
///
/// # Safety
///
/// `json` points to `json_len` readable bytes (or is NULL with 0); `out` is a
/// writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_encode(
    json: *const u8,
    json_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the same contract as gcf_generic_encode_flags, with no flags.
    unsafe { gcf_generic_encode_flags(json, json_len, 0, out, err) }
}

/// The generic value of a JSON argument, read through gcf-bind (key order
/// kept, integers exact).
///
/// # Safety
///
/// `json` points to `json_len` readable bytes (or is NULL with 0).
unsafe fn generic_json_arg(json: *const u8, json_len: usize) -> Result<Value, FfiError> {
    // SAFETY: forwarded from the caller's contract.
    let bytes = json_arg(unsafe { bytes_arg(json, json_len, "json")? }, "json")?;
    gcf_bind::value::from_slice(bytes).map_err(|f| FfiError::json(f, "json"))
}

/// `gcf_generic_encode_flags` flag: repeat a column's value in every row
/// even when it is the same in all of them, instead of declaring it once
/// (`{id,type=file}`), for consumers whose decoders predate constant columns.
pub const GCF_GENERIC_NO_CONSTANT_COLUMNS: u32 = 1;

/// `gcf_generic_encode_flags` flag: write a table field whose objects share
/// one shape as an inline schema or an attachment, not as `"a>b"` path
/// columns (§7.4.6 makes flattening optional), as the `NoFlatten` option of
/// gcf-go and the TypeScript package asks.
pub const GCF_GENERIC_NO_FLATTEN: u32 = 2;

/// The generic encoder `flags` ask for; an unknown flag bit is an
/// `invalid_input` argument error.
pub(crate) fn encoder_for(flags: u32) -> Result<generic::Encoder, FfiError> {
    if flags & !(GCF_GENERIC_NO_CONSTANT_COLUMNS | GCF_GENERIC_NO_FLATTEN) != 0 {
        return Err(FfiError::argument(
            ErrorKind::InvalidInput,
            format!("unknown flag bits {flags:#x}"),
        ));
    }
    Ok(generic::Encoder::new()
        .constant_columns(flags & GCF_GENERIC_NO_CONSTANT_COLUMNS == 0)
        .flatten(flags & GCF_GENERIC_NO_FLATTEN == 0))
}

/// [`gcf_generic_encode`] with `flags` (0, or a union of
/// `GCF_GENERIC_NO_CONSTANT_COLUMNS` and `GCF_GENERIC_NO_FLATTEN`). An
/// unknown flag bit is an `invalid_input` argument error.
///
/// # Safety
///
/// As for [`gcf_generic_encode`].
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_encode_flags(
    json: *const u8,
    json_len: usize,
    flags: u32,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            put(out, gcf_buf::EMPTY);
            require_out(out, "out")?;
            let encoder = encoder_for(flags)?;
            let value = generic_json_arg(json, json_len)?;
            put(out, gcf_buf::from_vec(encoder.encode(&value)?.into_bytes()));
            Ok(())
        })
    }
}

/// Encodes a JSON array of flat records as a value-grouped table: `key` is
/// the records' unique identity field, `group` the field whose value
/// clusters them. An input that cannot be grouped (not a non-empty array of
/// objects, the same or an absent field, a nested value, a missing or
/// repeated key, a record without the group field) is an `invalid_input`
/// data error.
///
/// # Safety
///
/// `json`, `key` and `group` point to their lengths' readable bytes (or are
/// NULL with 0); `out` is a writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_encode_grouped(
    json: *const u8,
    json_len: usize,
    key: *const u8,
    key_len: usize,
    group: *const u8,
    group_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            put(out, gcf_buf::EMPTY);
            require_out(out, "out")?;
            let key = str_arg(key, key_len, "key")?;
            let group = str_arg(group, group_len, "group")?;
            let value = generic_json_arg(json, json_len)?;
            let text = generic::encode_grouped(&value, key, group)?;
            put(out, gcf_buf::from_vec(text.into_bytes()));
            Ok(())
        })
    }
}

/// Decodes generic-profile GCF text into JSON (members in wire order).
///
/// # Safety
///
/// `input` points to `input_len` readable bytes (or is NULL with 0); `out` is
/// a writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_decode(
    input: *const u8,
    input_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe { gcf_generic_decode_with_limits(input, input_len, std::ptr::null(), out, err) }
}

/// [`gcf_generic_decode`] under the caller's decode limits (NULL for the
/// defaults; see [`gcf_limits`]).
///
/// # Safety
///
/// As for [`gcf_generic_decode`]; `limits` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_decode_with_limits(
    input: *const u8,
    input_len: usize,
    limits: *const gcf_limits,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            put(out, gcf_buf::EMPTY);
            require_out(out, "out")?;
            let decoder = generic::Decoder::new().limits(limits_arg(limits)?);
            let value = decoder.decode_bytes(bytes_arg(input, input_len, "input")?)?;
            put(out, json_out(&gcf_bind::value::Json(&value))?);
            Ok(())
        })
    }
}

/// A keyed set from `{"name"?, "key", "fields": [...], "rows": [{...}]}`
/// (`gcf_bind::generic`); malformed JSON or a wrong shape is a JSON error,
/// a bad value (an integer outside int64) a data error.
pub(crate) fn keyed_set_arg(bytes: &[u8], what: &str) -> Result<KeyedSet, FfiError> {
    gcf_bind::generic::keyed_set_from_slice(json_arg(bytes, what)?)
        .map_err(|f| FfiError::json(f, what))
}

/// The generic pack root (`sha256:<64 hex>`, spec §10a.3) of a keyed set
/// given as `{"name"?, "key", "fields": [...], "rows": [{...}]}`.
///
/// # Safety
///
/// As for [`gcf_generic_encode`].
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_pack_root(
    json: *const u8,
    json_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            put(out, gcf_buf::EMPTY);
            require_out(out, "out")?;
            let set = keyed_set_arg(bytes_arg(json, json_len, "json")?, "keyed set")?;
            put(
                out,
                gcf_buf::from_vec(generic::pack_root(&set)?.into_bytes()),
            );
            Ok(())
        })
    }
}

/// `gcf_cell.kind`: null, written `-`.
pub const GCF_CELL_NULL: u32 = 0;
/// `gcf_cell.kind`: a boolean in `int_value` (0 is false, anything else true).
pub const GCF_CELL_BOOL: u32 = 1;
/// `gcf_cell.kind`: an integer in `int_value`.
pub const GCF_CELL_INT: u32 = 2;
/// `gcf_cell.kind`: a finite double in `float_value`.
pub const GCF_CELL_FLOAT: u32 = 3;
/// `gcf_cell.kind`: UTF-8 text at `str_ptr`, `str_len` bytes.
pub const GCF_CELL_STR: u32 = 4;
/// `gcf_cell.kind`: the field is absent from this record, written `~`.
pub const GCF_CELL_MISSING: u32 = 5;

/// One typed cell of a streaming row or field. Only the member that `kind`
/// names is read.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gcf_cell {
    /// One of the `GCF_CELL_*` constants.
    pub kind: u32,
    /// The value of `GCF_CELL_INT` and `GCF_CELL_BOOL`.
    pub int_value: i64,
    /// The value of `GCF_CELL_FLOAT`.
    pub float_value: f64,
    /// The text of `GCF_CELL_STR` (NULL only with a length of 0).
    pub str_ptr: *const c_char,
    /// Bytes of `str_ptr`.
    pub str_len: usize,
}

/// A borrowed UTF-8 string: `(ptr, len)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gcf_str {
    /// The first byte (NULL only with a length of 0).
    pub ptr: *const c_char,
    /// Bytes.
    pub len: usize,
}

/// The core cell for a C cell.
///
/// # Safety
///
/// A `GCF_CELL_STR` cell's `str_ptr` points to `str_len` readable bytes for `'a`.
unsafe fn cell_arg<'a>(c: &gcf_cell, index: usize) -> Result<Cell<'a>, FfiError> {
    Ok(match c.kind {
        GCF_CELL_NULL => Cell::Null,
        GCF_CELL_BOOL => Cell::Bool(c.int_value != 0),
        GCF_CELL_INT => Cell::Int(c.int_value),
        GCF_CELL_FLOAT => Cell::Float(c.float_value),
        // SAFETY: forwarded from the caller.
        GCF_CELL_STR => Cell::Str(unsafe { str_arg(c.str_ptr.cast(), c.str_len, "cell text") }?),
        GCF_CELL_MISSING => Cell::Missing,
        k => {
            return Err(FfiError::argument(
                ErrorKind::InvalidInput,
                format!("cells[{index}].kind: {k} is not a GCF_CELL_* value"),
            ))
        }
    })
}

/// A declaration's field names.
///
/// # Safety
///
/// `fields` points to `count` readable `gcf_str`s (NULL only with 0), each
/// pointing to its bytes, for `'a`.
unsafe fn field_names_arg<'a>(
    fields: *const gcf_str,
    count: usize,
) -> Result<Vec<&'a str>, FfiError> {
    // SAFETY: forwarded from the caller.
    unsafe { slice_arg(fields, count, "fields")? }
        .iter()
        // SAFETY: each `gcf_str` points to its bytes, per the caller.
        .map(|f| unsafe { str_arg(f.ptr.cast(), f.len, "field name") })
        .collect()
}

/// `count` cells.
///
/// # Safety
///
/// `cells` points to `count` readable cells (NULL only with 0) whose text is
/// readable for `'a`.
unsafe fn cells_arg<'a>(cells: *const gcf_cell, count: usize) -> Result<Vec<Cell<'a>>, FfiError> {
    // SAFETY: forwarded from the caller.
    unsafe { slice_arg(cells, count, "cells")? }
        .iter()
        .enumerate()
        // SAFETY: each cell's text is readable, per the caller.
        .map(|(i, c)| unsafe { cell_arg(c, i) })
        .collect()
}

/// Borrows `len` elements at `ptr` (NULL only with 0).
///
/// # Safety
///
/// `ptr` is NULL or points to `len` readable elements for `'a`.
unsafe fn slice_arg<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [T], FfiError> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(&[])
        } else {
            Err(FfiError::null(what))
        };
    }
    if len > isize::MAX as usize / core::mem::size_of::<T>().max(1) {
        return Err(FfiError::argument(
            ErrorKind::InvalidInput,
            format!("{what}: length {len} is too large"),
        ));
    }
    // SAFETY: non-NULL and `len` readable elements, per the caller.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// Options for [`gcf_generic_stream_new`]; NULL for the defaults.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gcf_generic_stream_options {
    /// Producing tool (`tool=`), UTF-8; NULL or empty to omit.
    pub tool: *const u8,
    /// Bytes of `tool`.
    pub tool_len: usize,
}

/// A streaming generic writer (spec §7, §8): tables whose rows reach the
/// callback as they are written, with counts in a trailer written by
/// [`gcf_generic_stream_finish`]. Release with [`gcf_generic_stream_free`].
/// Not thread-safe. The lifecycle is the graph stream's (and the core
/// writers'): a rejected cell or an out-of-order call leaves it usable; after
/// a callback refusal or a panic every later call returns
/// `GCF_STATUS_INVALID_STATE`.
pub struct gcf_generic_stream {
    writer: Option<StreamWriter<CallbackSink>>,
    panicked: bool,
}

impl gcf_generic_stream {
    fn with_writer(
        &mut self,
        op: impl FnOnce(&mut StreamWriter<CallbackSink>) -> Result<(), Error>,
    ) -> Result<(), FfiError> {
        with_live(
            &mut self.writer,
            &mut self.panicked,
            op,
            StreamWriter::get_ref,
        )
    }
}

/// # Safety
///
/// `stream` is NULL or a live stream not used concurrently.
unsafe fn generic_stream_arg<'a>(
    stream: *mut gcf_generic_stream,
) -> Result<&'a mut gcf_generic_stream, FfiError> {
    // SAFETY: NULL or live and exclusive, per the caller.
    unsafe { stream.as_mut() }.ok_or_else(|| FfiError::null("stream"))
}

/// Creates a generic stream and writes its header through `callback`.
///
/// # Safety
///
/// `callback` is a valid function (NULL is an error) that may be called with
/// `user_data` until the stream is freed; `options` is NULL or readable;
/// `out` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_stream_new(
    callback: gcf_write_callback,
    user_data: *mut c_void,
    options: *const gcf_generic_stream_options,
    out: *mut *mut gcf_generic_stream,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            put(out, core::ptr::null_mut());
            require_out(out, "out")?;
            let callback = callback.ok_or_else(|| FfiError::null("callback"))?;
            let mut opts = StreamOptions::new();
            if let Some(o) = options.as_ref() {
                if !o.tool.is_null() && o.tool_len > 0 {
                    opts = opts.tool(str_arg(o.tool, o.tool_len, "options.tool")?);
                }
            }
            let writer = StreamWriter::new(callback_sink(callback, user_data), opts)?;
            put(
                out,
                Box::into_raw(Box::new(gcf_generic_stream {
                    writer: Some(writer),
                    panicked: false,
                })),
            );
            Ok(())
        })
    }
}

/// Writes a `key=value` line in the current object (`value` must not be
/// `GCF_CELL_MISSING`).
///
/// # Safety
///
/// `stream` is live; `key` points to `key_len` bytes; `value` is readable
/// (its text too); `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_stream_field(
    stream: *mut gcf_generic_stream,
    key: *const u8,
    key_len: usize,
    value: *const gcf_cell,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = generic_stream_arg(stream)?;
            let key = str_arg(key, key_len, "key")?;
            let cell = value.as_ref().ok_or_else(|| FfiError::null("value"))?;
            let value = match cell_arg(cell, 0)? {
                Cell::Null => Value::Null,
                Cell::Bool(b) => Value::Bool(b),
                Cell::Int(i) => Value::Int(i),
                Cell::Float(f) => Value::Float(f),
                Cell::Str(s) => Value::from(s),
                Cell::Missing => {
                    return Err(FfiError::argument(
                        ErrorKind::InvalidMissing,
                        "a field cannot be GCF_CELL_MISSING".to_string(),
                    ))
                }
            };
            stream.with_writer(|w| w.field_value(key, &value))
        })
    }
}

/// Opens a nested `## name` section.
///
/// # Safety
///
/// `stream` is live; `name` points to `name_len` bytes; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_stream_begin_section(
    stream: *mut gcf_generic_stream,
    name: *const u8,
    name_len: usize,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = generic_stream_arg(stream)?;
            let name = str_arg(name, name_len, "name")?;
            stream.with_writer(|w| w.begin_section(name))
        })
    }
}

/// Closes the innermost section.
///
/// # Safety
///
/// `stream` is live; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_stream_end_section(
    stream: *mut gcf_generic_stream,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            generic_stream_arg(stream)?.with_writer(|w| w.end_section())
        })
    }
}

/// Opens a table `## name [?]{fields}` (name NULL: the root array) whose
/// rows follow.
///
/// # Safety
///
/// `stream` is live; `name` is NULL or points to `name_len` bytes; `fields`
/// points to `field_count` readable `gcf_str`s, each pointing to its bytes;
/// `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_stream_begin_table(
    stream: *mut gcf_generic_stream,
    name: *const u8,
    name_len: usize,
    fields: *const gcf_str,
    field_count: usize,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = generic_stream_arg(stream)?;
            let name = optional_str_arg(name, name_len, "name")?;
            let names = field_names_arg(fields, field_count)?;
            stream.with_writer(|w| w.begin_table(name, &names))
        })
    }
}

/// Writes one row of the open table: `cell_count` cells, one per field.
///
/// # Safety
///
/// `stream` is live; `cells` points to `cell_count` readable cells whose text
/// is readable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_stream_row(
    stream: *mut gcf_generic_stream,
    cells: *const gcf_cell,
    cell_count: usize,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // Rows of up to this many cells convert without allocating.
    const INLINE: usize = 32;
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = generic_stream_arg(stream)?;
            let raw = slice_arg(cells, cell_count, "cells")?;
            if raw.len() <= INLINE {
                let mut row = [Cell::Null; INLINE];
                for (i, (slot, c)) in row.iter_mut().zip(raw).enumerate() {
                    *slot = cell_arg(c, i)?;
                }
                stream.with_writer(|w| w.row(&row[..raw.len()]))
            } else {
                let row = cells_arg(cells, cell_count)?;
                stream.with_writer(|w| w.row(&row))
            }
        })
    }
}

/// Opens a keyed map `## name [?:]{key_label,fields}` (spec §7.2a, §8.2):
/// each row is one member, written with [`gcf_generic_stream_keyed_row`].
///
/// - `key_label` / `key_label_len`: the key column's label, or NULL for
///   `key` (`_key`, ... when a value field is called that). A label that is
///   also a value field is `GCF_STATUS_DATA_ERROR` (`invalid_input`): the declaration would
///   name it twice.
/// - `name` / `fields` as for [`gcf_generic_stream_begin_table`].
///
/// # Safety
///
/// `stream` is live; `name` and `key_label` are NULL or point to readable
/// UTF-8 of their lengths; `fields` points to `field_count` readable strings;
/// `err` is NULL or writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gcf_generic_stream_begin_keyed_map(
    stream: *mut gcf_generic_stream,
    name: *const u8,
    name_len: usize,
    key_label: *const u8,
    key_label_len: usize,
    fields: *const gcf_str,
    field_count: usize,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = generic_stream_arg(stream)?;
            let name = optional_str_arg(name, name_len, "name")?;
            let label = optional_str_arg(key_label, key_label_len, "key_label")?;
            let names = field_names_arg(fields, field_count)?;
            stream.with_writer(|w| match label {
                Some(label) => w.begin_keyed_map_labeled(name, label, &names),
                None => w.begin_keyed_map(name, &names),
            })
        })
    }
}

/// Writes one member of the open keyed map: its key (`key` / `key_len`,
/// UTF-8) and `cell_count` cells, one per value field.
///
/// # Safety
///
/// `stream` is live; `key` points to `key_len` readable bytes; `cells`
/// points to `cell_count` readable cells whose text is readable; `err` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_stream_keyed_row(
    stream: *mut gcf_generic_stream,
    key: *const u8,
    key_len: usize,
    cells: *const gcf_cell,
    cell_count: usize,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = generic_stream_arg(stream)?;
            let key = str_arg(key, key_len, "key")?;
            let row = cells_arg(cells, cell_count)?;
            stream.with_writer(|w| w.keyed_row(key, &row))
        })
    }
}

/// Writes one member of the open keyed map from `cell_count` cells: its key
/// first, then one cell per value field, as the SDKs' streaming encoders
/// take a keyed-map row (`[key, ...values]`). A `GCF_CELL_STR` key is
/// written as [`gcf_generic_stream_keyed_row`] writes it; a number key bare
/// in its canonical form (`7|...`), which decoders read as that text; a
/// null, boolean or missing key is `GCF_STATUS_DATA_ERROR` (`invalid_input`:
/// decoders refuse such a key); no cell at all is
/// `GCF_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
///
/// `stream` is live; `cells` points to `cell_count` readable cells whose
/// text is readable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_stream_keyed_row_cells(
    stream: *mut gcf_generic_stream,
    cells: *const gcf_cell,
    cell_count: usize,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = generic_stream_arg(stream)?;
            let row = cells_arg(cells, cell_count)?;
            let Some((&key, values)) = row.split_first() else {
                return Err(FfiError::argument(
                    ErrorKind::InvalidInput,
                    "a keyed-map row starts with its key: cell_count is 0".into(),
                ));
            };
            stream.with_writer(|w| w.keyed_row_cell(key, values))
        })
    }
}

/// Writes a primitive array `name[N]: a,b,...` in the current object
/// (spec §7.5; `## name [0]` when `cell_count` is 0). A `GCF_CELL_MISSING`
/// element is `GCF_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
///
/// `stream` is live; `name` points to `name_len` readable bytes; `cells`
/// points to `cell_count` readable cells whose text is readable; `err` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_stream_inline_array(
    stream: *mut gcf_generic_stream,
    name: *const u8,
    name_len: usize,
    cells: *const gcf_cell,
    cell_count: usize,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = generic_stream_arg(stream)?;
            let name = str_arg(name, name_len, "name")?;
            let values = cells_arg(cells, cell_count)?
                .into_iter()
                .enumerate()
                .map(|(i, c)| match c {
                    Cell::Null => Ok(Value::Null),
                    Cell::Bool(b) => Ok(Value::Bool(b)),
                    Cell::Int(n) => Ok(Value::Int(n)),
                    Cell::Float(x) => Ok(Value::Float(x)),
                    Cell::Str(s) => Ok(Value::from(s)),
                    Cell::Missing => Err(FfiError::argument(
                        ErrorKind::InvalidInput,
                        format!("cells[{i}]: an inline array has no absent elements"),
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?;
            stream.with_writer(|w| w.inline_array(name, &values))
        })
    }
}

/// Closes the open table.
///
/// # Safety
///
/// `stream` is live; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_stream_end_table(
    stream: *mut gcf_generic_stream,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            generic_stream_arg(stream)?.with_writer(|w| w.end_table())
        })
    }
}

/// Hands buffered bytes to the callback now.
///
/// # Safety
///
/// `stream` is live; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_stream_flush(
    stream: *mut gcf_generic_stream,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            generic_stream_arg(stream)?.with_writer(|w| w.flush())
        })
    }
}

/// Closes what is open, writes the trailer and hands every remaining byte to
/// the callback. The stream is finished afterwards, whatever the result.
///
/// # Safety
///
/// `stream` is live; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_stream_finish(
    stream: *mut gcf_generic_stream,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            let stream = generic_stream_arg(stream)?;
            if stream.panicked {
                return Err(FfiError::state(
                    "the stream failed earlier (a panic) and cannot be finished",
                ));
            }
            let writer = stream
                .writer
                .take()
                .ok_or_else(|| FfiError::state("the stream is already finished"))?;
            writer.finish().map(drop).map_err(FfiError::from)
        })
    }
}

/// Releases a generic stream, finished or not. NULL is a no-op.
///
/// # Safety
///
/// `stream` is NULL or a stream from [`gcf_generic_stream_new`] not freed since.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_stream_free(stream: *mut gcf_generic_stream) {
    if !stream.is_null() {
        // SAFETY: created by `Box::into_raw` in `gcf_generic_stream_new`, freed once.
        drop(unsafe { Box::from_raw(stream) });
    }
}
