//! Status codes, the opaque error, and the panic boundary every export runs in.

use core::ffi::c_char;
use std::ffi::CString;
use std::panic::{catch_unwind, AssertUnwindSafe};

use gcf_bind::Failure;
use gcf_core::{Error, ErrorClass, ErrorKind};

/// The result of every call. The numbers are part of the ABI: they never
/// change meaning and are never reused.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum gcf_status {
    /// Success.
    GCF_STATUS_OK = 0,
    /// The data was rejected: malformed GCF input, or a value the encoder
    /// cannot represent. The error's category names the rule
    /// (`count_mismatch`, `invalid_input`, ...), with line and column for input.
    GCF_STATUS_DATA_ERROR = 1,
    /// A NULL pointer where one is required, text that is not UTF-8, or an
    /// out-of-range option value.
    GCF_STATUS_INVALID_ARGUMENT = 2,
    /// The write callback returned non-zero; the stream is unusable afterwards.
    GCF_STATUS_SINK_ERROR = 3,
    /// The library panicked (a bug); the panic was caught at the boundary.
    GCF_STATUS_PANIC = 4,
    /// An API call out of order, such as writing to a finished stream or a
    /// symbol after an edge.
    GCF_STATUS_INVALID_STATE = 5,
    /// A JSON argument is not valid JSON or does not have the expected shape.
    GCF_STATUS_JSON_ERROR = 6,
}

/// The details of a failed call: a category, a message and, for errors in
/// GCF or JSON input, a 1-based line and column. Release it with
/// [`gcf_error_free`].
pub struct gcf_error {
    status: gcf_status,
    class: &'static core::ffi::CStr,
    category: &'static str,
    /// The category as a C string when the static table lacks it (never, while
    /// the table's test passes).
    category_fallback: CString,
    message: CString,
    line: u64,
    column: u64,
}

/// A failure on its way to the boundary, where it becomes a [`gcf_error`].
#[derive(Debug)]
pub(crate) struct FfiError {
    pub(crate) status: gcf_status,
    /// The shared error model's class (`ErrorClass::name()`).
    pub(crate) class: ErrorClass,
    /// A snake_case `ErrorKind::name()`, or `"panic"`.
    pub(crate) category: &'static str,
    pub(crate) message: String,
    pub(crate) line: u64,
    pub(crate) column: u64,
}

impl FfiError {
    pub(crate) fn argument(kind: ErrorKind, message: String) -> FfiError {
        FfiError {
            status: gcf_status::GCF_STATUS_INVALID_ARGUMENT,
            class: ErrorClass::Usage,
            category: kind.name(),
            message,
            line: 0,
            column: 0,
        }
    }

    pub(crate) fn null(what: &str) -> FfiError {
        FfiError::argument(
            ErrorKind::InvalidInput,
            format!("{what} is NULL (NULL is only allowed with a length of 0)"),
        )
    }

    pub(crate) fn state(message: &str) -> FfiError {
        FfiError {
            status: gcf_status::GCF_STATUS_INVALID_STATE,
            class: ErrorClass::State,
            category: ErrorKind::InvalidState.name(),
            message: message.to_string(),
            line: 0,
            column: 0,
        }
    }

    /// A failure reading the JSON argument `what`, named in the message.
    pub(crate) fn json(f: Failure, what: &str) -> FfiError {
        FfiError::from(f.context(what))
    }

    fn panic(payload: &(dyn std::any::Any + Send)) -> FfiError {
        let detail = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("no message");
        FfiError {
            status: gcf_status::GCF_STATUS_PANIC,
            class: ErrorClass::Panic,
            category: "panic",
            message: format!("libgcf panicked (a bug, please report it): {detail}"),
            line: 0,
            column: 0,
        }
    }

    fn into_error(self) -> gcf_error {
        // Messages may quote input, which may hold NUL; C strings cannot.
        let message = CString::new(self.message.replace('\0', "\u{FFFD}"))
            .unwrap_or_else(|_| CString::from(c"libgcf error"));
        gcf_error {
            status: self.status,
            class: class_name(self.class),
            category: self.category,
            category_fallback: CString::new(self.category).unwrap_or_default(),
            message,
            line: self.line,
            column: self.column,
        }
    }
}

/// The C status of each error class: the one mapping from the shared
/// error model ([`gcf_bind::Failure`]) to this ABI.
pub(crate) fn status_of(class: ErrorClass) -> gcf_status {
    match class {
        ErrorClass::Sink => gcf_status::GCF_STATUS_SINK_ERROR,
        ErrorClass::State => gcf_status::GCF_STATUS_INVALID_STATE,
        ErrorClass::Json => gcf_status::GCF_STATUS_JSON_ERROR,
        ErrorClass::Usage => gcf_status::GCF_STATUS_INVALID_ARGUMENT,
        ErrorClass::Panic => gcf_status::GCF_STATUS_PANIC,
        // Syntax, limit, reference, delta, input; no call does I/O of its own.
        _ => gcf_status::GCF_STATUS_DATA_ERROR,
    }
}

impl From<Failure> for FfiError {
    fn from(f: Failure) -> FfiError {
        FfiError {
            status: status_of(f.class),
            class: f.class,
            category: f.category,
            message: f.message,
            line: f.line.unwrap_or(0),
            column: f.column.unwrap_or(0),
        }
    }
}

impl From<Error> for FfiError {
    fn from(e: Error) -> FfiError {
        FfiError::from(Failure::from(e))
    }
}

/// Runs `body` inside the panic boundary: resets `*err`, catches any panic,
/// and turns a failure into a status and (when `err` is not NULL) a
/// heap-allocated [`gcf_error`].
///
/// # Safety
///
/// `err` is NULL or valid for writing one pointer.
pub(crate) unsafe fn boundary(
    err: *mut *mut gcf_error,
    body: impl FnOnce() -> Result<(), FfiError>,
) -> gcf_status {
    // SAFETY: the caller guarantees `err` is NULL or writable.
    unsafe { crate::buf::put(err, core::ptr::null_mut()) };
    let outcome =
        catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|p| Err(FfiError::panic(&*p)));
    match outcome {
        Ok(()) => gcf_status::GCF_STATUS_OK,
        Err(e) => {
            let status = e.status;
            if !err.is_null() {
                // Building the error allocates; a failure there must not unwind either.
                if let Ok(boxed) = catch_unwind(AssertUnwindSafe(|| Box::new(e.into_error()))) {
                    // SAFETY: checked non-NULL above; writable per the contract.
                    unsafe { *err = Box::into_raw(boxed) };
                }
            }
            status
        }
    }
}

/// Releases an error. NULL is a no-op.
///
/// # Safety
///
/// `err` is NULL or an error returned by this library and not freed since.
#[no_mangle]
pub unsafe extern "C" fn gcf_error_free(err: *mut gcf_error) {
    if !err.is_null() {
        // SAFETY: `err` came from `Box::into_raw` in `boundary` and is freed once.
        drop(unsafe { Box::from_raw(err) });
    }
}

/// The status of the call that produced `err` (`GCF_STATUS_INVALID_ARGUMENT`
/// for NULL).
///
/// # Safety
///
/// `err` is NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn gcf_error_status(err: *const gcf_error) -> gcf_status {
    // SAFETY: NULL or live, per the contract.
    match unsafe { err.as_ref() } {
        Some(e) => e.status,
        None => gcf_status::GCF_STATUS_INVALID_ARGUMENT,
    }
}

/// The category: the stable snake_case name of the conformance suite
/// (`count_mismatch`, `invalid_utf8`, `sink`, ...), or `"panic"`. A static
/// NUL-terminated string; do not free it. `""` for NULL.
///
/// # Safety
///
/// `err` is NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn gcf_error_category(err: *const gcf_error) -> *const c_char {
    // SAFETY: NULL or live, per the contract.
    match unsafe { err.as_ref() } {
        Some(e) => static_category(e.category).map_or(e.category_fallback.as_ptr(), |c| c.as_ptr()),
        None => c"".as_ptr(),
    }
}

/// The class of the error, from the error model every GCF binding shares:
/// `syntax`, `limit`, `reference`, `delta`, `input`, `state`, `sink`,
/// `json`, `io`, `usage` or `panic`. The status is derived from it. A static
/// NUL-terminated string; do not free it. `""` for NULL.
///
/// # Safety
///
/// `err` is NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn gcf_error_class(err: *const gcf_error) -> *const c_char {
    // SAFETY: NULL or live, per the contract.
    match unsafe { err.as_ref() } {
        Some(e) => e.class.as_ptr(),
        None => c"".as_ptr(),
    }
}

/// The static C string of a class name.
fn class_name(class: ErrorClass) -> &'static core::ffi::CStr {
    match class {
        ErrorClass::Syntax => c"syntax",
        ErrorClass::Limit => c"limit",
        ErrorClass::Reference => c"reference",
        ErrorClass::Delta => c"delta",
        ErrorClass::Input => c"input",
        ErrorClass::State => c"state",
        ErrorClass::Sink => c"sink",
        ErrorClass::Json => c"json",
        ErrorClass::Io => c"io",
        ErrorClass::Usage => c"usage",
        ErrorClass::Panic => c"panic",
        _ => c"",
    }
}

/// The message, NUL-terminated, without position; owned by the error and
/// valid until [`gcf_error_free`]. `""` for NULL.
///
/// # Safety
///
/// `err` is NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn gcf_error_message(err: *const gcf_error) -> *const c_char {
    // SAFETY: NULL or live, per the contract.
    match unsafe { err.as_ref() } {
        Some(e) => e.message.as_ptr(),
        None => c"".as_ptr(),
    }
}

/// The 1-based line in the input where the error was found; 0 when unknown.
///
/// # Safety
///
/// `err` is NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn gcf_error_line(err: *const gcf_error) -> u64 {
    // SAFETY: NULL or live, per the contract.
    unsafe { err.as_ref() }.map_or(0, |e| e.line)
}

/// The 1-based column (in characters) where the error was found; 0 when unknown.
///
/// # Safety
///
/// `err` is NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn gcf_error_column(err: *const gcf_error) -> u64 {
    // SAFETY: NULL or live, per the contract.
    unsafe { err.as_ref() }.map_or(0, |e| e.column)
}

/// Every category as a static C string. A unit test checks it against
/// `ErrorKind::ALL`, so a kind added to core cannot be forgotten here.
const CATEGORIES: &[&core::ffi::CStr] = &[
    c"missing_header",
    c"missing_profile",
    c"unknown_profile",
    c"malformed_header_field",
    c"duplicate_header_field",
    c"unterminated_quote",
    c"invalid_escape",
    c"trailing_characters",
    c"invalid_missing",
    c"invalid_attachment_marker",
    c"invalid_surrogate",
    c"invalid_utf8",
    c"duplicate_key",
    c"duplicate_field_name",
    c"row_width_mismatch",
    c"count_mismatch",
    c"invalid_count",
    c"tab_indentation",
    c"invalid_indent",
    c"invalid_item_id",
    c"orphan_attachment",
    c"orphan_inline_attachment",
    c"missing_attachment",
    c"duplicate_attachment",
    c"inline_width_mismatch",
    c"invalid_const_value",
    c"no_bare_column",
    c"invalid_group_header",
    c"duplicate_group",
    c"invalid_node_line",
    c"invalid_symbol_id",
    c"invalid_score",
    c"invalid_edge_syntax",
    c"unknown_edge_reference",
    c"malformed_delta",
    c"delta_invalid",
    c"base_mismatch",
    c"root_mismatch",
    c"out_of_range",
    c"invalid_syntax",
    c"invalid_line",
    c"limit_exceeded",
    c"invalid_input",
    c"invalid_state",
    c"sink",
    c"panic",
    c"json",
];

/// The static C string for a category name; an error carries its own copy
/// for a name missing from the table.
fn static_category(name: &str) -> Option<&'static core::ffi::CStr> {
    CATEGORIES
        .iter()
        .copied()
        .find(|c| c.to_bytes() == name.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_static_category() {
        for kind in ErrorKind::ALL {
            let c = static_category(kind.name()).unwrap_or_else(|| panic!("{}", kind.name()));
            assert_eq!(c.to_str().unwrap(), kind.name());
        }
        assert_eq!(CATEGORIES.len(), ErrorKind::ALL.len() + 2);
        assert!(static_category("panic").is_some());
        assert!(static_category("json").is_some());
    }

    /// Every class and the status it becomes, and failures of each source.
    #[test]
    fn status_by_class() {
        use gcf_core::ErrorClass as C;
        use gcf_status as S;
        let table = [
            (C::Syntax, S::GCF_STATUS_DATA_ERROR),
            (C::Limit, S::GCF_STATUS_DATA_ERROR),
            (C::Reference, S::GCF_STATUS_DATA_ERROR),
            (C::Delta, S::GCF_STATUS_DATA_ERROR),
            (C::Input, S::GCF_STATUS_DATA_ERROR),
            (C::State, S::GCF_STATUS_INVALID_STATE),
            (C::Sink, S::GCF_STATUS_SINK_ERROR),
            (C::Json, S::GCF_STATUS_JSON_ERROR),
            (C::Io, S::GCF_STATUS_DATA_ERROR),
            (C::Usage, S::GCF_STATUS_INVALID_ARGUMENT),
            (C::Panic, S::GCF_STATUS_PANIC),
        ];
        assert_eq!(table.len(), C::ALL.len());
        for (class, status) in table {
            assert_eq!(status_of(class), status, "{class}");
            assert_eq!(class_name(class).to_str().unwrap(), class.name());
        }
        let bad_json = FfiError::from(gcf_bind::value::from_slice(b"{").unwrap_err());
        assert_eq!(
            (bad_json.status, bad_json.category),
            (S::GCF_STATUS_JSON_ERROR, "json")
        );
        let shape =
            FfiError::from(gcf_bind::graph::payload_from_slice(b"{\"edges\": 1}").unwrap_err());
        assert_eq!(
            (shape.status, shape.category),
            (S::GCF_STATUS_JSON_ERROR, "invalid_input")
        );
        let big = FfiError::from(gcf_bind::value::from_slice(b"[1e999]").unwrap_err());
        assert_eq!(
            (big.status, big.category),
            (S::GCF_STATUS_DATA_ERROR, "out_of_range")
        );
        let sink = FfiError::from(Error::sink());
        assert_eq!(
            (sink.status, sink.category),
            (S::GCF_STATUS_SINK_ERROR, "sink")
        );
    }
}
