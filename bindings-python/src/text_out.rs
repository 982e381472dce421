//! Encoder output handed to Python: a `str` made by CPython, or its
//! `MemoryError` when CPython cannot make it (a large output under a memory
//! limit). pyo3's conversion of a `String` panics instead, which Python sees
//! as a `PanicException` that `except Exception` does not catch.

use pyo3::exceptions::PyMemoryError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// A `String` that becomes a Python `str`, fallibly.
pub struct Text(pub String);

impl<'py> IntoPyObject<'py> for Text {
    type Target = PyString;
    type Output = Bound<'py, PyString>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        let len = ffi::Py_ssize_t::try_from(self.0.len())
            .map_err(|_| PyMemoryError::new_err("the text is too long for a str"))?;
        // SAFETY: the pointer and length describe `self.0`, UTF-8 alive for
        // the whole call, and `py` proves the GIL is held.
        let ptr = unsafe { ffi::PyUnicode_FromStringAndSize(self.0.as_ptr().cast(), len) };
        // SAFETY: `ptr` is a new reference, or null with Python's error set
        // (which `from_owned_ptr_or_err` takes); a non-null result of
        // `PyUnicode_FromStringAndSize` is a `str`.
        unsafe { Bound::from_owned_ptr_or_err(py, ptr).map(|s| s.cast_into_unchecked()) }
    }
}
