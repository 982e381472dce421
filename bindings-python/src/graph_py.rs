//! Graph payloads: the `gcf.types` dataclasses read attribute by attribute
//! into core types, and decoded payloads built straight into dataclass
//! instances.

use gcf_core::graph::{Edge, Payload, Symbol};
use gcf_core::ErrorKind;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyType};
use pyo3::{intern, Py};

use crate::errors::input;

/// Reads a string attribute; `None` is the empty string, as 2.8.0's
/// "omit when falsy" checks read it.
pub fn str_attr(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<String> {
    let v = obj.getattr(name)?;
    if v.is_none() {
        return Ok(String::new());
    }
    match v.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => Ok(v.str()?.to_cow()?.into_owned()),
    }
}

fn uint_attr<T: TryFrom<i128>>(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<T> {
    let v = obj.getattr(name)?;
    if v.is_none() {
        return T::try_from(0).map_err(|_| unreachable_zero(obj.py()));
    }
    let wide: i128 = match v.extract::<i128>() {
        Ok(i) => i,
        Err(_) => {
            // A float such as 3.0 where an int belongs: take it when integral.
            let f: f64 = v.extract()?;
            if f.fract() != 0.0 || !f.is_finite() {
                return Err(range(obj.py(), name, &v)?);
            }
            f as i128
        }
    };
    T::try_from(wide).map_err(|_| range(obj.py(), name, &v).unwrap_or_else(|e| e))
}

fn unreachable_zero(py: Python<'_>) -> PyErr {
    input(py, ErrorKind::InvalidInput, "zero does not fit".into())
}

fn range(py: Python<'_>, name: &Bound<'_, PyString>, v: &Bound<'_, PyAny>) -> PyResult<PyErr> {
    Ok(input(
        py,
        ErrorKind::OutOfRange,
        format!(
            "{} {} is outside its range",
            name.to_cow()?,
            v.repr()?.to_cow()?
        ),
    ))
}

/// Reads a `Symbol`-like object (any object with the attributes).
pub fn symbol(obj: &Bound<'_, PyAny>) -> PyResult<Symbol> {
    let py = obj.py();
    let score = obj.getattr(intern!(py, "score"))?;
    Ok(Symbol {
        qualified_name: str_attr(obj, intern!(py, "qualified_name"))?,
        kind: str_attr(obj, intern!(py, "kind"))?,
        score: if score.is_none() {
            0.0
        } else {
            score.extract()?
        },
        provenance: str_attr(obj, intern!(py, "provenance"))?,
        distance: uint_attr(obj, intern!(py, "distance"))?,
    })
}

/// Reads an `Edge`-like object.
pub fn edge(obj: &Bound<'_, PyAny>) -> PyResult<Edge> {
    let py = obj.py();
    Ok(Edge {
        source: str_attr(obj, intern!(py, "source"))?,
        target: str_attr(obj, intern!(py, "target"))?,
        edge_type: str_attr(obj, intern!(py, "edge_type"))?,
        status: str_attr(obj, intern!(py, "status"))?,
    })
}

/// Each item of an iterable attribute, read by `f`.
pub fn list_attr<T>(
    obj: &Bound<'_, PyAny>,
    name: &Bound<'_, PyString>,
    f: impl Fn(&Bound<'_, PyAny>) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    let v = obj.getattr(name)?;
    if v.is_none() {
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(v.len().unwrap_or(0));
    for item in v.try_iter()? {
        out.push(f(&item?)?);
    }
    Ok(out)
}

/// Reads a `Payload`-like object.
pub fn payload(obj: &Bound<'_, PyAny>) -> PyResult<Payload> {
    let py = obj.py();
    Ok(Payload {
        tool: str_attr(obj, intern!(py, "tool"))?,
        token_budget: uint_attr(obj, intern!(py, "token_budget"))?,
        tokens_used: uint_attr(obj, intern!(py, "tokens_used"))?,
        pack_root: str_attr(obj, intern!(py, "pack_root"))?,
        symbols: list_attr(obj, intern!(py, "symbols"), symbol)?,
        edges: list_attr(obj, intern!(py, "edges"), edge)?,
        ..Payload::default()
    })
}

/// The dataclasses of `gcf.types`, looked up once.
pub struct Types {
    pub payload: Py<PyType>,
    pub symbol: Py<PyType>,
    pub edge: Py<PyType>,
    pub components: Py<PyType>,
    pub delta_payload: Py<PyType>,
    object_new: Py<PyAny>,
}

static TYPES: PyOnceLock<Types> = PyOnceLock::new();

/// The `gcf.types` classes.
pub fn types(py: Python<'_>) -> PyResult<&Types> {
    TYPES.get_or_try_init(py, || {
        let m = py.import("gcf.types")?;
        let get =
            |n: &str| -> PyResult<Py<PyType>> { Ok(m.getattr(n)?.cast_into::<PyType>()?.unbind()) };
        Ok(Types {
            payload: get("Payload")?,
            symbol: get("Symbol")?,
            edge: get("Edge")?,
            components: get("Components")?,
            delta_payload: get("DeltaPayload")?,
            object_new: py
                .import("builtins")?
                .getattr("object")?
                .getattr("__new__")?
                .unbind(),
        })
    })
}

impl Types {
    /// An instance of the dataclass `cls` whose `__dict__` is `fields`,
    /// without running the generated `__init__` (Python bytecode, and most
    /// of the cost of building a decoded payload).
    pub fn instance<'py>(
        &self,
        py: Python<'py>,
        cls: &Py<PyType>,
        fields: Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let obj = self.object_new.bind(py).call1((cls.bind(py),))?;
        obj.setattr(intern!(py, "__dict__"), fields)?;
        Ok(obj)
    }

    fn components<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let d = PyDict::new(py);
        for name in [
            intern!(py, "blast_radius"),
            intern!(py, "confidence"),
            intern!(py, "recency"),
            intern!(py, "distance"),
        ] {
            d.set_item(name, 0.0f64)?;
        }
        self.instance(py, &self.components, d)
    }

    /// A `gcf.types.Symbol`.
    pub fn symbol<'py, S: AsRef<str>>(
        &self,
        py: Python<'py>,
        s: &Symbol<S>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let d = PyDict::new(py);
        d.set_item(intern!(py, "qualified_name"), s.qualified_name.as_ref())?;
        d.set_item(intern!(py, "kind"), s.kind.as_ref())?;
        d.set_item(intern!(py, "score"), s.score)?;
        d.set_item(intern!(py, "provenance"), s.provenance.as_ref())?;
        d.set_item(intern!(py, "distance"), s.distance)?;
        d.set_item(intern!(py, "signature"), intern!(py, ""))?;
        d.set_item(intern!(py, "components"), self.components(py)?)?;
        self.instance(py, &self.symbol, d)
    }

    /// A `gcf.types.Edge`.
    pub fn edge<'py, S: AsRef<str>>(
        &self,
        py: Python<'py>,
        e: &Edge<S>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let d = PyDict::new(py);
        d.set_item(intern!(py, "source"), e.source.as_ref())?;
        d.set_item(intern!(py, "target"), e.target.as_ref())?;
        d.set_item(intern!(py, "edge_type"), e.edge_type.as_ref())?;
        d.set_item(intern!(py, "status"), e.status.as_ref())?;
        self.instance(py, &self.edge, d)
    }

    /// A list of symbols.
    pub fn symbols<'py, S: AsRef<str>>(
        &self,
        py: Python<'py>,
        ss: &[Symbol<S>],
    ) -> PyResult<Bound<'py, PyList>> {
        let l = PyList::empty(py);
        for s in ss {
            l.append(self.symbol(py, s)?)?;
        }
        Ok(l)
    }

    /// A list of edges.
    pub fn edges<'py, S: AsRef<str>>(
        &self,
        py: Python<'py>,
        es: &[Edge<S>],
    ) -> PyResult<Bound<'py, PyList>> {
        let l = PyList::empty(py);
        for e in es {
            l.append(self.edge(py, e)?)?;
        }
        Ok(l)
    }

    /// A `gcf.types.Payload`.
    pub fn payload<'py, S: AsRef<str>>(
        &self,
        py: Python<'py>,
        p: &Payload<S>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let d = PyDict::new(py);
        d.set_item(intern!(py, "tool"), p.tool.as_ref())?;
        d.set_item(intern!(py, "tokens_used"), p.tokens_used)?;
        d.set_item(intern!(py, "token_budget"), p.token_budget)?;
        d.set_item(intern!(py, "pack_root"), p.pack_root.as_ref())?;
        d.set_item(intern!(py, "symbols"), self.symbols(py, &p.symbols)?)?;
        d.set_item(intern!(py, "edges"), self.edges(py, &p.edges)?)?;
        self.instance(py, &self.payload, d)
    }
}
