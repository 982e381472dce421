//! Graph payloads: the `gcf.types` dataclasses read attribute by attribute
//! into core types, and decoded payloads built straight into dataclass
//! instances.

use std::sync::Arc;

use gcf_core::graph::{Edge, Payload, Symbol};
use gcf_core::ErrorKind;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyType};
use pyo3::{intern, Py};

use crate::errors::input;

/// An object's fields: read from its instance `__dict__` when it has one
/// (one dict lookup per field instead of an attribute lookup, the main cost
/// of reading a dataclass), else, and for anything not in it (a property, a
/// class attribute), by `getattr`.
pub struct Fields<'a, 'py> {
    obj: &'a Bound<'py, PyAny>,
    dict: Option<Bound<'py, PyDict>>,
}

impl<'a, 'py> Fields<'a, 'py> {
    /// The fields of `obj`.
    pub fn of(obj: &'a Bound<'py, PyAny>) -> Self {
        let dict = obj
            .getattr(intern!(obj.py(), "__dict__"))
            .ok()
            .and_then(|d| d.cast_into::<PyDict>().ok());
        Fields { obj, dict }
    }

    /// The value of field `name`.
    pub fn get(&self, name: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyAny>> {
        if let Some(d) = &self.dict {
            if let Some(v) = d.get_item(name)? {
                return Ok(v);
            }
        }
        self.obj.getattr(name)
    }

    /// A string field; `None` is the empty string, as 2.8.0's "omit when
    /// falsy" checks read it, and another object is its `str()`.
    pub fn str(&self, name: &Bound<'py, PyString>) -> PyResult<String> {
        let v = self.get(name)?;
        if v.is_none() {
            return Ok(String::new());
        }
        match v.cast::<PyString>() {
            Ok(s) => Ok(s.to_cow()?.into_owned()),
            Err(_) => Ok(v.str()?.to_cow()?.into_owned()),
        }
    }

    /// A non-negative integer field (`None` is 0; an integral float is taken).
    pub fn uint<T: TryFrom<i128>>(&self, name: &Bound<'py, PyString>) -> PyResult<T> {
        let py = self.obj.py();
        let v = self.get(name)?;
        let wide: i128 = if v.is_none() {
            0
        } else {
            match v.extract::<i128>() {
                Ok(i) => i,
                Err(_) => {
                    let f: f64 = v.extract()?;
                    if f.fract() != 0.0 || !f.is_finite() {
                        return Err(range(py, name, &v)?);
                    }
                    f as i128
                }
            }
        };
        match T::try_from(wide) {
            Ok(t) => Ok(t),
            Err(_) => Err(range(py, name, &v)?),
        }
    }

    /// A float field (`None` is 0.0).
    pub fn float(&self, name: &Bound<'py, PyString>) -> PyResult<f64> {
        let v = self.get(name)?;
        if v.is_none() {
            Ok(0.0)
        } else {
            v.extract()
        }
    }

    /// Each item of an iterable field, read by `f` (`None` is empty).
    pub fn list<T>(
        &self,
        name: &Bound<'py, PyString>,
        f: impl Fn(&Bound<'_, PyAny>) -> PyResult<T>,
    ) -> PyResult<Vec<T>> {
        let v = self.get(name)?;
        if v.is_none() {
            return Ok(Vec::new());
        }
        if let Ok(l) = v.cast::<PyList>() {
            let mut out = Vec::with_capacity(l.len());
            for item in l.iter() {
                out.push(f(&item)?);
            }
            return Ok(out);
        }
        let mut out = Vec::with_capacity(v.len().unwrap_or(0));
        for item in v.try_iter()? {
            out.push(f(&item?)?);
        }
        Ok(out)
    }
}

/// Reads a string attribute (see [`Fields::str`]).
pub fn str_attr(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<String> {
    Fields::of(obj).str(name)
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
    let f = Fields::of(obj);
    Ok(Symbol {
        qualified_name: f.str(intern!(py, "qualified_name"))?,
        kind: f.str(intern!(py, "kind"))?,
        score: f.float(intern!(py, "score"))?,
        provenance: f.str(intern!(py, "provenance"))?,
        distance: f.uint(intern!(py, "distance"))?,
    })
}

/// Reads an `Edge`-like object.
pub fn edge(obj: &Bound<'_, PyAny>) -> PyResult<Edge> {
    let py = obj.py();
    let f = Fields::of(obj);
    Ok(Edge {
        source: f.str(intern!(py, "source"))?,
        target: f.str(intern!(py, "target"))?,
        edge_type: f.str(intern!(py, "edge_type"))?,
        status: f.str(intern!(py, "status"))?,
    })
}

/// Each item of an iterable attribute, read by `f`.
pub fn list_attr<T>(
    obj: &Bound<'_, PyAny>,
    name: &Bound<'_, PyString>,
    f: impl Fn(&Bound<'_, PyAny>) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    Fields::of(obj).list(name, f)
}

/// Reads a `Payload`-like object.
pub fn payload(obj: &Bound<'_, PyAny>) -> PyResult<Payload> {
    let py = obj.py();
    let f = Fields::of(obj);
    Ok(Payload {
        tool: f.str(intern!(py, "tool"))?,
        token_budget: f.uint(intern!(py, "token_budget"))?,
        tokens_used: f.uint(intern!(py, "tokens_used"))?,
        pack_root: f.str(intern!(py, "pack_root"))?,
        symbols: f.list(intern!(py, "symbols"), symbol)?,
        edges: f.list(intern!(py, "edges"), edge)?,
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

/// Strings read once per Python object: a payload names each symbol again
/// in its edges (usually the very same `str` objects) and repeats a few
/// kinds, provenances and edge types, so most fields are objects already
/// converted. Keyed by object identity, which is stable while the payload
/// being read holds the objects.
#[derive(Default)]
pub struct StrCache {
    seen: std::collections::HashMap<usize, Arc<str>>,
}

impl StrCache {
    fn get(&mut self, f: &Fields<'_, '_>, name: &Bound<'_, PyString>) -> PyResult<Arc<str>> {
        let v = f.get(name)?;
        if let Ok(s) = v.cast::<PyString>() {
            let key = s.as_ptr() as usize;
            if let Some(hit) = self.seen.get(&key) {
                return Ok(hit.clone());
            }
            let text: Arc<str> = Arc::from(s.to_cow()?.as_ref());
            self.seen.insert(key, text.clone());
            return Ok(text);
        }
        Ok(Arc::from(f.str(name)?))
    }
}

/// Reads a `Payload`-like object for encoding, converting each distinct
/// string object once (see [`StrCache`]).
pub fn payload_shared(obj: &Bound<'_, PyAny>) -> PyResult<Payload<Arc<str>>> {
    let py = obj.py();
    let f = Fields::of(obj);
    let cache = std::cell::RefCell::new(StrCache::default());
    let symbols = f.list(intern!(py, "symbols"), |o| {
        let f = Fields::of(o);
        let mut c = cache.borrow_mut();
        Ok(Symbol {
            qualified_name: c.get(&f, intern!(py, "qualified_name"))?,
            kind: c.get(&f, intern!(py, "kind"))?,
            score: f.float(intern!(py, "score"))?,
            provenance: c.get(&f, intern!(py, "provenance"))?,
            distance: f.uint(intern!(py, "distance"))?,
        })
    })?;
    let edges = f.list(intern!(py, "edges"), |o| {
        let f = Fields::of(o);
        let mut c = cache.borrow_mut();
        Ok(Edge {
            source: c.get(&f, intern!(py, "source"))?,
            target: c.get(&f, intern!(py, "target"))?,
            edge_type: c.get(&f, intern!(py, "edge_type"))?,
            status: c.get(&f, intern!(py, "status"))?,
        })
    })?;
    let mut c = cache.borrow_mut();
    Ok(Payload {
        tool: c.get(&f, intern!(py, "tool"))?,
        token_budget: f.uint(intern!(py, "token_budget"))?,
        tokens_used: f.uint(intern!(py, "tokens_used"))?,
        pack_root: c.get(&f, intern!(py, "pack_root"))?,
        symbols,
        edges,
        ..Payload::default()
    })
}
