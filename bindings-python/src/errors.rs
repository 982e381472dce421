//! Failures as Python exceptions.
//!
//! The classes live in `gcf/_errors.py` (so they pickle, subclass and show in
//! tracebacks like any Python class); this module only builds instances of
//! them from a [`Failure`], the one error shape of `gcf-bind`. The message is
//! `category: detail`, the form gcf-python 2.8.0 raises, and the category,
//! line and column are attributes as well.

use gcf_bind::Failure;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

/// Which exception class a failure becomes.
#[derive(Clone, Copy)]
pub enum Raise {
    /// `gcf.DecodeError` (a `ValueError`): reading GCF text.
    Decode,
    /// `gcf.GcfError` (a `ValueError`): everything else, as 2.8.0 raises `ValueError`.
    Other,
}

static DECODE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static GCF_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn class<'py>(py: Python<'py>, raise: Raise) -> PyResult<&'py Bound<'py, PyType>> {
    let (cell, name) = match raise {
        Raise::Decode => (&DECODE_ERROR, "DecodeError"),
        Raise::Other => (&GCF_ERROR, "GcfError"),
    };
    cell.import(py, "gcf._errors", name)
}

/// The Python exception for `failure`.
pub fn to_py(py: Python<'_>, failure: &Failure, raise: Raise) -> PyErr {
    let message = format!("{}: {}", failure.category, failure.message);
    match class(py, raise) {
        Ok(cls) => match cls.call1((message, failure.category, failure.line, failure.column)) {
            Ok(instance) => PyErr::from_value(instance),
            Err(e) => e,
        },
        Err(e) => e,
    }
}

/// Maps a core or binding error to a Python exception.
pub trait IntoPy<T> {
    /// `self` with its error raised as `raise`.
    fn py_err(self, py: Python<'_>, raise: Raise) -> PyResult<T>;
}

impl<T, E: Into<Failure>> IntoPy<T> for Result<T, E> {
    fn py_err(self, py: Python<'_>, raise: Raise) -> PyResult<T> {
        self.map_err(|e| to_py(py, &e.into(), raise))
    }
}

/// An `invalid_input`/`out_of_range` failure from reading a Python value.
pub fn input(py: Python<'_>, kind: gcf_core::ErrorKind, message: String) -> PyErr {
    to_py(
        py,
        &Failure::from(gcf_core::Error::new(kind, message)),
        Raise::Other,
    )
}
