//! Generic deltas, pack roots and the re-anchoring session over the
//! `gcf.generic_delta` dataclasses (`GenericSet`, `GenericDeltaPayload`).

use crate::text_out::Text;
use crate::utf8::Utf8;
use gcf_core::generic::{self, DeltaSession, GenericDelta, KeyedSet, Map, ReanchorPolicy};
use gcf_core::ErrorKind;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};

use crate::errors::{input, IntoPy, Raise};
use crate::graph_py::optional_str_attr;
use crate::value;

fn row(obj: &Bound<'_, PyAny>) -> PyResult<Map> {
    match value::from_py(obj)? {
        generic::Value::Object(m) => Ok(m),
        _ => Err(input(
            obj.py(),
            ErrorKind::InvalidInput,
            "a row must be a dict".into(),
        )),
    }
}

fn rows(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<Vec<Map>> {
    let v = obj.getattr(name)?;
    let mut out = Vec::with_capacity(v.len().unwrap_or(0));
    for item in v.try_iter()? {
        out.push(row(&item?)?);
    }
    Ok(out)
}

fn strings(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<Vec<String>> {
    let v = obj.getattr(name)?;
    let mut out = Vec::new();
    for item in v.try_iter()? {
        out.push(crate::utf8::text(&item?.str()?)?.into_owned());
    }
    Ok(out)
}

/// Reads a `GenericSet`-like object.
pub fn keyed_set(obj: &Bound<'_, PyAny>) -> PyResult<KeyedSet> {
    let py = obj.py();
    let name = optional_str_attr(obj, intern!(py, "name"))?;
    Ok(KeyedSet {
        name: if name.is_empty() { "rows".into() } else { name },
        key: optional_str_attr(obj, intern!(py, "key"))?,
        fields: strings(obj, intern!(py, "fields"))?,
        rows: rows(obj, intern!(py, "rows"))?,
    })
}

fn uint(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<u64> {
    let v = obj.getattr(name)?;
    if v.is_none() {
        Ok(0)
    } else {
        v.extract()
    }
}

/// Reads a `GenericDeltaPayload`-like object.
pub fn delta(obj: &Bound<'_, PyAny>) -> PyResult<GenericDelta> {
    let py = obj.py();
    let removed = obj.getattr(intern!(py, "removed"))?;
    let mut removed_ids = Vec::new();
    for item in removed.try_iter()? {
        removed_ids.push(value::from_py(&item?)?);
    }
    Ok(GenericDelta {
        tool: optional_str_attr(obj, intern!(py, "tool"))?,
        key: optional_str_attr(obj, intern!(py, "key"))?,
        fields: strings(obj, intern!(py, "fields"))?,
        base_root: optional_str_attr(obj, intern!(py, "base_root"))?,
        new_root: optional_str_attr(obj, intern!(py, "new_root"))?,
        added: rows(obj, intern!(py, "added"))?,
        changed: rows(obj, intern!(py, "changed"))?,
        removed: removed_ids,
        delta_tokens: uint(obj, intern!(py, "delta_tokens"))?,
        full_tokens: uint(obj, intern!(py, "full_tokens"))?,
    })
}

struct Classes {
    set: Py<PyType>,
    delta: Py<PyType>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || {
        let m = py.import("gcf.generic_delta")?;
        Ok(Classes {
            set: m.getattr("GenericSet")?.cast_into::<PyType>()?.unbind(),
            delta: m
                .getattr("GenericDeltaPayload")?
                .cast_into::<PyType>()?
                .unbind(),
        })
    })
}

fn map_list<'py>(py: Python<'py>, maps: &[Map]) -> PyResult<Bound<'py, PyList>> {
    let l = PyList::empty(py);
    let mut b = value::Builder::new(py);
    for m in maps {
        l.append(b.dict(m)?)?;
    }
    Ok(l)
}

/// A `gcf.GenericSet`.
pub fn set_to_py<'py>(py: Python<'py>, s: &KeyedSet) -> PyResult<Bound<'py, PyAny>> {
    let kw = PyDict::new(py);
    kw.set_item("key", &s.key)?;
    kw.set_item("fields", PyList::new(py, &s.fields)?)?;
    kw.set_item("rows", map_list(py, &s.rows)?)?;
    kw.set_item("name", &s.name)?;
    classes(py)?.set.bind(py).call((), Some(&kw))
}

/// A `gcf.GenericDeltaPayload`.
pub fn delta_to_py<'py>(py: Python<'py>, d: &GenericDelta) -> PyResult<Bound<'py, PyAny>> {
    let kw = PyDict::new(py);
    kw.set_item("key", &d.key)?;
    kw.set_item("fields", PyList::new(py, &d.fields)?)?;
    kw.set_item("base_root", &d.base_root)?;
    kw.set_item("new_root", &d.new_root)?;
    kw.set_item("added", map_list(py, &d.added)?)?;
    kw.set_item("changed", map_list(py, &d.changed)?)?;
    let removed = PyList::empty(py);
    for v in &d.removed {
        removed.append(value::to_py(py, v)?)?;
    }
    kw.set_item("removed", removed)?;
    kw.set_item("tool", &d.tool)?;
    kw.set_item("delta_tokens", d.delta_tokens)?;
    kw.set_item("full_tokens", d.full_tokens)?;
    classes(py)?.delta.bind(py).call((), Some(&kw))
}

/// A generic delta as the camelCase dict `decode_generic` returns.
pub fn delta_dict<'py>(py: Python<'py>, d: &GenericDelta) -> PyResult<Bound<'py, PyDict>> {
    let o = PyDict::new(py);
    o.set_item("tool", &d.tool)?;
    o.set_item("key", &d.key)?;
    o.set_item("fields", PyList::new(py, &d.fields)?)?;
    o.set_item("baseRoot", &d.base_root)?;
    o.set_item("newRoot", &d.new_root)?;
    o.set_item("added", map_list(py, &d.added)?)?;
    o.set_item("changed", map_list(py, &d.changed)?)?;
    let removed = PyList::empty(py);
    for v in &d.removed {
        removed.append(value::to_py(py, v)?)?;
    }
    o.set_item("removed", removed)?;
    Ok(o)
}

/// The `gcf-pack-root-v1` of a keyed set.
#[pyfunction]
pub fn generic_pack_root(py: Python<'_>, s: &Bound<'_, PyAny>) -> PyResult<String> {
    let set = keyed_set(s)?;
    crate::gil::run(py, crate::gil::items(set.rows.len()), || {
        generic::pack_root(&set)
    })
    .py_err(py, Raise::Other)
}

/// The delta from `base` to `nxt`; a schema change raises.
#[pyfunction]
pub fn diff_generic_sets<'py>(
    py: Python<'py>,
    base: &Bound<'py, PyAny>,
    nxt: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let (base, new) = (keyed_set(base)?, keyed_set(nxt)?);
    let items = base.rows.len() + new.rows.len();
    let d = crate::gil::run(py, crate::gil::items(items), || generic::diff(&base, &new))
        .py_err(py, Raise::Other)?;
    match d {
        Some(d) => delta_to_py(py, &d),
        // `delta_invalid`, worded as 2.8.0 words it (its key as a `repr`):
        // no delta carries this change, the caller sends a full payload.
        None => {
            let e = generic::no_delta(&base, &new, key_repr);
            Err(crate::errors::to_py(py, &e.into(), Raise::Other))
        }
    }
}

/// A key as 2.8.0 names it in a `delta_invalid` error: the interpreter's
/// own `repr` of the `str` (quotes chosen and characters escaped as Python
/// does). Only on an error path; it takes the GIL if the call had let go
/// of it.
fn key_repr(key: &str) -> String {
    Python::attach(|py| {
        PyString::new(py, key)
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| format!("'{key}'"))
    })
}

/// A full keyed payload (`key=` and `pack_root=` in the header).
#[pyfunction]
#[pyo3(signature = (s, tool = Utf8::EMPTY))]
pub fn encode_generic_full(py: Python<'_>, s: &Bound<'_, PyAny>, tool: Utf8<'_>) -> PyResult<Text> {
    let set = keyed_set(s)?;
    crate::gil::run(py, crate::gil::items(set.rows.len()), || {
        generic::encode_full(&set, &tool)
    })
    .py_err(py, Raise::Other)
    .map(Text)
}

/// One keyed-set cell in its pack-root hashing form (spec §10a.3); behind
/// `gcf.generic_delta._canonical_cell`, the 2.8.0 helper its own tests use.
#[pyfunction]
pub fn canonical_cell(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<String> {
    generic::canonical_cell(&value::from_py(v)?).py_err(py, Raise::Other)
}

/// A generic delta payload.
#[pyfunction]
pub fn encode_generic_delta(py: Python<'_>, d: &Bound<'_, PyAny>) -> PyResult<Text> {
    let d = delta(d)?;
    let items = d.added.len() + d.changed.len() + d.removed.len();
    crate::gil::run(py, crate::gil::items(items), || generic::encode_delta(&d))
        .py_err(py, Raise::Other)
        .map(Text)
}

/// Decodes a generic delta payload.
#[pyfunction]
#[pyo3(signature = (text, limits = None))]
pub fn decode_generic_delta<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    limits: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let limits = crate::decode_limits(py, limits)?;
    let s = crate::input(text)?;
    let d = crate::gil::run(py, s.len(), || {
        s.text()
            .and_then(|t| generic::decode_delta_with(t, &limits))
    })
    .py_err(py, Raise::Decode)?;
    delta_to_py(py, &d)
}

/// Decodes a delta-participating full payload (`str` or UTF-8 `bytes`) into
/// `(GenericSet, pack_root)`: the core's `generic::decode_full`.
#[pyfunction]
#[pyo3(signature = (text, limits = None))]
pub fn decode_generic_full<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    limits: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    let limits = crate::decode_limits(py, limits)?;
    let input = crate::input(text)?;
    let full = crate::gil::run(py, input.len(), || {
        input
            .text()
            .and_then(|t| generic::decode_full_with(t, &limits))
    })
    .py_err(py, Raise::Decode)?;
    PyTuple::new(
        py,
        [
            set_to_py(py, &full.set)?,
            full.pack_root.into_pyobject(py)?.into_any(),
        ],
    )
}

/// Applies `d` to `base` atomically; the result's root must be `expected_new_root`.
#[pyfunction]
pub fn verify_generic_delta<'py>(
    py: Python<'py>,
    base: &Bound<'py, PyAny>,
    d: &Bound<'py, PyAny>,
    expected_new_root: Utf8<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let base = keyed_set(base)?;
    let mut d = delta(d)?;
    d.new_root = expected_new_root.to_owned();
    let items = base.rows.len() + d.added.len() + d.changed.len();
    let out = crate::gil::run(py, crate::gil::items(items), || generic::apply(&base, &d))
        .py_err(py, Raise::Other)?;
    set_to_py(py, &out)
}

/// The core's re-anchoring producer session; `gcf.GenericDeltaSession`
/// wraps it with 2.8.0's surface.
#[pyclass(module = "gcf._gcf")]
pub struct NativeDeltaSession {
    inner: DeltaSession,
}

#[pymethods]
impl NativeDeltaSession {
    #[new]
    #[pyo3(signature = (base, tool, fixed_n = None))]
    fn new(base: &Bound<'_, PyAny>, tool: Utf8<'_>, fixed_n: Option<usize>) -> PyResult<Self> {
        let policy = match fixed_n {
            Some(n) => ReanchorPolicy::FixedN(n),
            None => ReanchorPolicy::SizeGuard,
        };
        Ok(NativeDeltaSession {
            inner: DeltaSession::new(keyed_set(base)?, &*tool, policy).quoting_keys_with(key_repr),
        })
    }

    fn initial_full(&self, py: Python<'_>) -> PyResult<Text> {
        self.inner.initial_full().py_err(py, Raise::Other).map(Text)
    }

    fn next<'py>(
        &mut self,
        py: Python<'py>,
        nxt: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        // A set that cannot be read is still a turn of the cadence.
        let set = keyed_set(nxt).inspect_err(|_| self.inner.count_refused_turn())?;
        let inner = &mut self.inner;
        let items = set.rows.len();
        let (text, full) = crate::gil::run(py, crate::gil::items(items), || inner.next(set))
            .py_err(py, Raise::Other)?;
        (text, full).into_pyobject(py)
    }

    fn held<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        set_to_py(py, self.inner.held())
    }

    /// How many times `next` was called, failed calls included.
    #[getter]
    fn turn(&self) -> usize {
        self.inner.turn()
    }
}
