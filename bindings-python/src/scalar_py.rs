//! The scalar helpers of 2.8.0's `gcf.scalar` (quoting, keys, numbers, one
//! token's value), answered by the core's scalar grammar (spec §2, §2a) so
//! they cannot spell a token differently from the encoders and decoders.

use gcf_core::generic::{self, ScalarWriter, Value};
use gcf_core::ErrorKind;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::{input, IntoPy, Raise};
use crate::utf8::Utf8;
use crate::value;

/// Whether a string must be quoted (§2.4).
#[pyfunction]
pub fn needs_quote(s: Utf8<'_>) -> bool {
    generic::needs_quote(&s)
}

/// The quoted form of a string, always quoted.
#[pyfunction]
pub fn quote_string(s: Utf8<'_>) -> String {
    generic::quote(&s)
}

/// Whether a key can be written bare (§2a.1).
#[pyfunction]
pub fn is_bare_key(s: Utf8<'_>) -> bool {
    generic::is_bare_key(&s)
}

/// A key, bare when it can be, else quoted.
#[pyfunction]
pub fn format_key(s: Utf8<'_>) -> String {
    generic::format_key(&s)
}

/// A scalar (`None`, `bool`, `int`, `float` or `str`) as a cell writes it; a
/// string holding `delimiter` is quoted too.
#[pyfunction]
#[pyo3(signature = (v, delimiter = Utf8::EMPTY))]
pub fn format_scalar(
    py: Python<'_>,
    v: &Bound<'_, PyAny>,
    delimiter: Utf8<'_>,
) -> PyResult<String> {
    let value = value::from_py(v)?;
    let mut out = Vec::new();
    let written = ScalarWriter::new()
        .scalar_in(&mut out, &value, &delimiter)
        .py_err(py, Raise::Other)?;
    if !written {
        return Err(input(
            py,
            ErrorKind::InvalidInput,
            "format_scalar takes a scalar (None, bool, int, float or str)".into(),
        ));
    }
    // The core writes UTF-8 only.
    Ok(String::from_utf8(out).unwrap_or_default())
}

/// A double in the canonical number form (§2.3.1).
#[pyfunction]
pub fn format_number(py: Python<'_>, f: f64) -> PyResult<String> {
    let text = generic::format_scalar(&Value::Float(f)).py_err(py, Raise::Other)?;
    Ok(text.unwrap_or_default())
}

/// One token as a table row cell holds it: `(0, value)`, `(1, None)` for
/// `~`, `(2, None)` for `^` and `^{...}`.
#[pyfunction]
pub fn parse_cell<'py>(
    py: Python<'py>,
    token: &Bound<'_, PyString>,
) -> PyResult<(u8, Bound<'py, PyAny>)> {
    let token = crate::gcf_text(token)?;
    Ok(
        match generic::parse_cell_token(&token).py_err(py, Raise::Decode)? {
            generic::CellToken::Value(v) => (0, value::to_py(py, &v)?),
            generic::CellToken::Missing => (1, py.None().into_bound(py)),
            generic::CellToken::Attachment(_) => (2, py.None().into_bound(py)),
        },
    )
}

/// One scalar token's value (§2.1), as a `key=value` line's value reads.
#[pyfunction]
pub fn parse_scalar<'py>(
    py: Python<'py>,
    token: &Bound<'_, PyString>,
) -> PyResult<Bound<'py, PyAny>> {
    let value = generic::parse_scalar(&crate::gcf_text(token)?).py_err(py, Raise::Decode)?;
    value::to_py(py, &value)
}
