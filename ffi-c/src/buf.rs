//! Buffers: borrowed `(pointer, length)` inputs and library-owned outputs.

use core::ptr;

use gcf_core::ErrorKind;

use crate::error::FfiError;

/// Bytes owned by the library and handed to the caller: release them with
/// [`gcf_buf_free`].
///
/// `ptr[len]` is always a NUL byte that `len` does not count, so the text can
/// be passed on as a C string. An empty buffer is `{NULL, 0}`.
#[repr(C)]
#[derive(Debug)]
pub struct gcf_buf {
    /// The first byte, or NULL when empty.
    pub ptr: *mut u8,
    /// Bytes, not counting the NUL that follows them.
    pub len: usize,
}

impl gcf_buf {
    pub(crate) const EMPTY: gcf_buf = gcf_buf {
        ptr: ptr::null_mut(),
        len: 0,
    };

    /// Moves `bytes` into a library-owned buffer with a trailing NUL.
    pub(crate) fn from_vec(mut bytes: Vec<u8>) -> gcf_buf {
        if bytes.is_empty() {
            return gcf_buf::EMPTY;
        }
        let len = bytes.len();
        bytes.push(0);
        let boxed: Box<[u8]> = bytes.into_boxed_slice();
        gcf_buf {
            ptr: Box::into_raw(boxed).cast::<u8>(),
            len,
        }
    }
}

/// Releases a buffer the library returned and resets it to `{NULL, 0}`.
/// `buf == NULL` and an empty buffer are no-ops.
///
/// # Safety
///
/// `buf` is NULL or points to a `gcf_buf` that was filled by this library and
/// not freed since (its `ptr` and `len` unchanged).
#[no_mangle]
pub unsafe extern "C" fn gcf_buf_free(buf: *mut gcf_buf) {
    // SAFETY: the caller passes NULL or a valid, exclusive gcf_buf.
    let Some(buf) = (unsafe { buf.as_mut() }) else {
        return;
    };
    if !buf.ptr.is_null() {
        let slice = ptr::slice_from_raw_parts_mut(buf.ptr, buf.len + 1);
        // SAFETY: `from_vec` leaked a boxed slice of exactly `len + 1` bytes
        // at `ptr`; the caller has not freed it yet.
        drop(unsafe { Box::from_raw(slice) });
    }
    *buf = gcf_buf::EMPTY;
}

/// Borrows `len` bytes at `ptr` for the duration of a call. NULL is accepted
/// only with a length of 0.
///
/// # Safety
///
/// When `ptr` is not NULL it must point to `len` readable bytes that stay
/// unchanged for `'a`.
pub(crate) unsafe fn bytes_arg<'a>(
    ptr: *const u8,
    len: usize,
    what: &str,
) -> Result<&'a [u8], FfiError> {
    if ptr.is_null() {
        if len == 0 {
            return Ok(&[]);
        }
        return Err(FfiError::null(what));
    }
    if len > isize::MAX as usize {
        return Err(FfiError::argument(
            ErrorKind::InvalidInput,
            format!("{what}: length {len} is larger than any object can be"),
        ));
    }
    // SAFETY: non-NULL, and the caller guarantees `len` readable bytes.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// Like [`bytes_arg`], and the bytes must be UTF-8.
///
/// # Safety
///
/// As for [`bytes_arg`].
pub(crate) unsafe fn str_arg<'a>(
    ptr: *const u8,
    len: usize,
    what: &str,
) -> Result<&'a str, FfiError> {
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { bytes_arg(ptr, len, what) }?;
    core::str::from_utf8(bytes).map_err(|e| {
        FfiError::argument(
            ErrorKind::InvalidUtf8,
            format!(
                "{what} is not valid UTF-8 (first bad byte at offset {})",
                e.valid_up_to()
            ),
        )
    })
}

/// GCF text to decode, given as bytes: invalid UTF-8 is refused as a
/// decoder refuses it (`invalid_utf8` with the line and column of the first
/// bad byte), not as a bad argument.
///
/// # Safety
///
/// As for [`bytes_arg`].
pub(crate) unsafe fn gcf_text_arg<'a>(
    ptr: *const u8,
    len: usize,
    what: &str,
) -> Result<&'a str, FfiError> {
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { bytes_arg(ptr, len, what) }?;
    Ok(gcf_core::validate_utf8(bytes)?)
}

/// Like [`str_arg`], but NULL (with any length) means "absent".
///
/// # Safety
///
/// As for [`bytes_arg`].
pub(crate) unsafe fn optional_str_arg<'a>(
    ptr: *const u8,
    len: usize,
    what: &str,
) -> Result<Option<&'a str>, FfiError> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded from the caller.
    unsafe { str_arg(ptr, len, what) }.map(Some)
}

/// JSON text given as bytes: invalid UTF-8 is an invalid argument (with
/// the offset of the first bad byte), as it is for every text argument.
pub(crate) fn json_arg<'a>(bytes: &'a [u8], what: &str) -> Result<&'a [u8], FfiError> {
    core::str::from_utf8(bytes).map_err(|e| {
        FfiError::argument(
            ErrorKind::InvalidUtf8,
            format!(
                "{what} is not valid UTF-8 (first bad byte at offset {})",
                e.valid_up_to()
            ),
        )
    })?;
    Ok(bytes)
}

/// Writes `value` to `out` if `out` is not NULL.
///
/// # Safety
///
/// `out` is NULL or valid for writes of one `T`.
pub(crate) unsafe fn put<T>(out: *mut T, value: T) {
    // SAFETY: forwarded from the caller.
    if let Some(slot) = unsafe { out.as_mut() } {
        *slot = value;
    }
}

/// Checks that a required output pointer is not NULL.
pub(crate) fn require_out<T>(out: *mut T, what: &str) -> Result<(), FfiError> {
    if out.is_null() {
        Err(FfiError::null(what))
    } else {
        Ok(())
    }
}

/// Renders `value` (one of `gcf_bind`'s serializers) as JSON text into a
/// library-owned buffer.
pub(crate) fn json_out(value: &impl serde::Serialize) -> Result<gcf_buf, FfiError> {
    let bytes = serde_json::to_vec(value).map_err(|e| {
        FfiError::from(gcf_core::Error::new(
            gcf_core::ErrorKind::InvalidInput,
            format!("cannot render JSON: {e}"),
        ))
    })?;
    Ok(gcf_buf::from_vec(bytes))
}

/// Resets a required output buffer and checks it is not NULL.
///
/// # Safety
///
/// `out` is NULL or writable.
pub(crate) unsafe fn reset_out(out: *mut gcf_buf) -> Result<(), FfiError> {
    // SAFETY: NULL or writable, per the caller.
    unsafe { put(out, gcf_buf::EMPTY) };
    require_out(out, "out")
}
