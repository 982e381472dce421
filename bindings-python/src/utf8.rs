//! The UTF-8 text of a Python `str`, lent by the interpreter where it can.
//!
//! The wheel is built against the stable ABI of Python 3.9 (`abi3-py39`),
//! whose only way to a `str`'s UTF-8 is `PyUnicode_AsUTF8String`: a new
//! `bytes` object per string, filled, read and freed. From 3.10 on the
//! stable ABI also has `PyUnicode_AsUTF8AndSize`, which lends the text in
//! place: for an ASCII string (names, kinds, keys, most values) that is the
//! string's own storage, for any other the UTF-8 copy CPython caches in the
//! object. Reading a string that way costs a call instead of an allocation
//! and two copies; callgrind counts are in `bindings-python/BENCH.md`. The
//! cache is CPython's own (what `PyUnicode_AsUTF8` and many C extensions
//! fill): a non-ASCII `str` keeps its UTF-8 copy for as long as it lives,
//! where the `bytes` route freed its copy after the call.
//!
//! The function is declared here, not taken from pyo3 (which offers it only
//! to builds for 3.10 and later), and called only when the running
//! interpreter is 3.10 or later, where it belongs to the stable ABI. On 3.9
//! the `bytes` route is taken; CPython 3.9 exports the symbol too (it is
//! public API since 3.3), so the module loads there as before. Windows
//! resolves an abi3 module's imports through `python3.dll`, which on 3.9
//! lacks it, so Windows builds keep the `bytes` route everywhere.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::prelude::*;
use pyo3::types::PyString;

#[cfg(not(windows))]
extern "C" {
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut pyo3::ffi::PyObject,
        size: *mut pyo3::ffi::Py_ssize_t,
    ) -> *const std::os::raw::c_char;
}

/// Whether strings are read through `PyUnicode_AsUTF8AndSize`: set when the
/// module is imported (see [`init`]), and by the tests of the other route.
static LENT: AtomicBool = AtomicBool::new(false);

/// Chooses the route for the running interpreter; called once, when the
/// extension module is imported.
pub fn init(py: Python<'_>) {
    LENT.store(
        cfg!(not(windows)) && py.version_info() >= (3, 10),
        Ordering::Relaxed,
    );
}

/// Turns the lent route on or off (when the interpreter has it) and returns
/// whether it was on: lets the test suite run the `bytes` route, which only
/// Python 3.9 takes otherwise.
#[pyfunction]
#[pyo3(name = "_lend_utf8")]
pub fn lend_utf8(py: Python<'_>, on: bool) -> bool {
    let was = LENT.load(Ordering::Relaxed);
    init(py);
    if !on {
        LENT.store(false, Ordering::Relaxed);
    }
    was
}

/// Whether strings are lent in place: the route [`view`](crate::view)
/// needs, which reads a value's strings while it encodes.
#[inline]
pub fn lending() -> bool {
    cfg!(not(windows)) && LENT.load(Ordering::Relaxed)
}

/// The text of the `str` (or `str` subclass) at `obj` as the interpreter
/// lends it; `None` when it holds a lone surrogate (the error is cleared:
/// the caller takes a route that raises it) or when strings are not lent.
///
/// # Safety
///
/// `obj` points at a live `str` that outlives `'a`, and the GIL is held.
#[inline]
pub unsafe fn lent_raw<'a>(obj: *mut pyo3::ffi::PyObject) -> Option<&'a str> {
    #[cfg(not(windows))]
    if LENT.load(Ordering::Relaxed) {
        let mut size: pyo3::ffi::Py_ssize_t = 0;
        // SAFETY: as in `lent`: a live `str`, the GIL held (the caller's
        // contract), a valid out pointer, the stable ABI of 3.10 and later.
        let data = unsafe { PyUnicode_AsUTF8AndSize(obj, &mut size) };
        if data.is_null() {
            // SAFETY: the GIL is held; this drops the pending error.
            unsafe { pyo3::ffi::PyErr_Clear() };
            return None;
        }
        // SAFETY: as in `lent`: `size` bytes of UTF-8 owned by the object,
        // unchanged while it lives, and it outlives 'a.
        return Some(unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                data.cast::<u8>(),
                usize::try_from(size).unwrap_or(0),
            ))
        });
    }
    let _ = obj;
    None
}

/// The text of `s` as the interpreter lends it, or `None` on the `bytes`
/// route. A `str` that cannot be UTF-8 (a lone surrogate) is
/// [`unencodable`]'s error, as on the `bytes` route.
#[inline]
fn lent<'a>(s: &'a Bound<'_, PyString>) -> Option<PyResult<&'a str>> {
    #[cfg(not(windows))]
    if LENT.load(Ordering::Relaxed) {
        let mut size: pyo3::ffi::Py_ssize_t = 0;
        // SAFETY: `s` is a live `str` (a strong reference held for 'a) and
        // the GIL is held (a `Bound` proves it); `size` is a valid out
        // pointer. The call is part of the stable ABI on the interpreters
        // `LENT` is set for (3.10 and later).
        let data = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
        if data.is_null() {
            return Some(Err(unencodable(s.py(), PyErr::fetch(s.py()))));
        }
        // SAFETY: on success the result points at `size` bytes of UTF-8
        // (CPython encodes strictly: a surrogate fails above), owned by the
        // object, which never changes a `str`'s text and keeps the buffer
        // until it is freed; the object outlives 'a. pyo3's own `to_str`
        // (on builds for 3.10 and later) trusts the same call the same way.
        let text = unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                data.cast::<u8>(),
                usize::try_from(size).unwrap_or(0),
            ))
        };
        return Some(Ok(text));
    }
    let _ = s;
    None
}

/// Runs `f` on the UTF-8 text of `s`: lent in place, or on the `bytes`
/// route read through a temporary `bytes` object (never copied once more
/// into a `String`, which a short string, inline in a core `Key`, does not
/// need).
#[inline]
pub fn with_utf8<R>(s: &Bound<'_, PyString>, f: impl FnOnce(&str) -> R) -> PyResult<R> {
    if let Some(text) = lent(s) {
        return text.map(f);
    }
    let utf8 = s.encode_utf8().map_err(|e| unencodable(s.py(), e))?;
    match std::str::from_utf8(utf8.as_bytes()) {
        Ok(text) => Ok(f(text)),
        Err(e) => Err(pyo3::exceptions::PyUnicodeError::new_err(e.to_string())),
    }
}

/// The UTF-8 text of `s`: borrowed where the interpreter lends it, a copy
/// otherwise.
pub fn text<'a>(s: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, str>> {
    match lent(s) {
        Some(text) => text.map(Cow::Borrowed),
        None => s.to_cow().map_err(|e| unencodable(s.py(), e)),
    }
}

/// The error for a value's `str` that has no UTF-8 form: one holding a lone
/// surrogate (`"\ud800"`, or a file name decoded with `surrogateescape`),
/// the only `str`s CPython cannot encode strictly. It is `gcf.GcfError`
/// with the spec's category `invalid_surrogate`, as the JS packages raise
/// for the same string, not the interpreter's bare `UnicodeEncodeError`,
/// which names no category (both are `ValueError`s; gcf-python 2.8.0 writes
/// the surrogate into its `str` result, which no UTF-8 output can carry).
/// Any other error is returned unchanged.
pub fn unencodable(py: Python<'_>, err: PyErr) -> PyErr {
    if !err.is_instance_of::<pyo3::exceptions::PyUnicodeEncodeError>(py) {
        return err;
    }
    let error = crate::errors::input(
        py,
        gcf_core::ErrorKind::InvalidSurrogate,
        String::from(
            "a string holds a lone surrogate (an unpaired \\uD800-\\uDFFF code point), \
             which UTF-8 cannot carry",
        ),
    );
    // The interpreter's error, which says where in the string, as the cause.
    error.set_cause(py, Some(err));
    error
}

/// A `str` argument of the extension's functions, as its UTF-8 text: what a
/// `&str` argument extracts, except that a `str` holding a lone surrogate
/// raises [`unencodable`]'s `GcfError`, as the same string in a value does.
pub struct Utf8<'a>(Cow<'a, str>);

impl Utf8<'static> {
    /// `""`: the default of an optional text argument.
    pub const EMPTY: Utf8<'static> = Utf8(Cow::Borrowed(""));
}

impl<'a> pyo3::FromPyObject<'a, '_> for Utf8<'a> {
    type Error = PyErr;

    fn extract(ob: pyo3::Borrowed<'a, '_, PyAny>) -> PyResult<Self> {
        let s = ob.cast::<PyString>()?;
        // SAFETY: `s` is a live `str` borrowed for 'a, and the GIL is held
        // (a `Borrowed` proves both).
        if let Some(text) = unsafe { lent_raw(s.as_ptr()) } {
            return Ok(Utf8(Cow::Borrowed(text)));
        }
        // Not lent (Python 3.9, Windows), or no UTF-8 form (the error).
        match s.to_cow() {
            Ok(text) => Ok(Utf8(Cow::Owned(text.into_owned()))),
            Err(e) => Err(unencodable(ob.py(), e)),
        }
    }
}

impl std::ops::Deref for Utf8<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

/// [`Utf8`] owned: the items of a list argument (a stream's field names).
pub struct Utf8String(pub String);

impl pyo3::FromPyObject<'_, '_> for Utf8String {
    type Error = PyErr;

    fn extract(ob: pyo3::Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        Utf8::extract(ob).map(|text| Utf8String(text.0.into_owned()))
    }
}
