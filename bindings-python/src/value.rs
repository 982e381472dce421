//! Python objects to and from the core's generic [`Value`], read and built
//! directly (no JSON text in between).
//!
//! What a Python object means follows gcf-python 2.8.0, so the drop-in
//! writes what it wrote: `None`, `bool`, `int` (int64 only: beyond it is
//! `out_of_range`, as 2.8.0 raises), `float`, `str`, `dict` (keys written as
//! `str(key)`), `list`; any other object is the string `str(obj)`, which is
//! what 2.8.0's scalar formatter falls back to (a tuple is therefore a
//! string, not an array).

use gcf_core::generic::{Map, Value};
use gcf_core::ErrorKind;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};

use crate::errors::input;

/// Deeper than any limit the core accepts, shallow enough for the Rust
/// stack: a cyclic or absurdly deep Python structure stops here with
/// `limit_exceeded` instead of overflowing.
const MAX_DEPTH: usize = 1000;

/// Reads `obj` as a generic value.
pub fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    read(obj, 0)
}

fn read(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    let py = obj.py();
    if depth > MAX_DEPTH {
        return Err(input(
            py,
            ErrorKind::LimitExceeded,
            format!("value nests deeper than {MAX_DEPTH} levels (or contains itself)"),
        ));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    // Exact type checks first: they are pointer compares, and `bool` must be
    // seen before `int` (it is a subclass).
    if let Ok(s) = obj.cast_exact::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(b) = obj.cast_exact::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_exact_instance_of::<PyInt>() {
        return int(obj);
    }
    if let Ok(f) = obj.cast_exact::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let value = read(&v, depth + 1)?;
            if let Ok(k) = k.cast_exact::<PyString>() {
                // A dict's str keys are unique already.
                map.push_unique(k.to_cow()?.as_ref(), value);
            } else {
                // str(1) and "1" can collide: the later member wins, as in
                // a dict built from the written text.
                map.insert(k.str()?.to_cow()?.as_ref(), value);
            }
        }
        return Ok(Value::Object(map));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        let mut items = Vec::with_capacity(l.len());
        for item in l.iter() {
            items.push(read(&item, depth + 1)?);
        }
        return Ok(Value::Array(items));
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(obj.is_truthy()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return int(obj);
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    Ok(Value::String(obj.str()?.to_cow()?.into_owned()))
}

fn int(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    match obj.extract::<i64>() {
        Ok(i) => Ok(Value::Int(i)),
        Err(_) => Err(input(
            obj.py(),
            ErrorKind::OutOfRange,
            format!(
                "integer {} is outside the canonical int64 domain \
                 [-9223372036854775808, 9223372036854775807]; model larger values as strings",
                obj.str()?.to_cow()?
            ),
        )),
    }
}

/// Builds the Python object for `value`: dicts, lists, str, int, float,
/// bool and None.
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Int(i) => i.into_pyobject(py)?.into_any(),
        Value::Float(f) => PyFloat::new(py, *f).into_any(),
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => dict(py, map)?.into_any(),
    })
}

/// A dict of `map`'s members in order.
pub fn dict<'py>(py: Python<'py>, map: &Map) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in map.iter() {
        d.set_item(PyString::new(py, k), to_py(py, v)?)?;
    }
    Ok(d)
}
