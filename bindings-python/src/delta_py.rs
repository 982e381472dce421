//! Graph deltas and pack roots over the `gcf.types` dataclasses.

use gcf_core::graph::{self, Delta, Snapshot, SymbolRef};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::errors::{IntoPy, Raise};
use crate::graph_py::{edge, list_attr, str_attr, symbol, types};
use crate::text_out::Text;
use crate::utf8::Utf8;

fn items<T>(
    obj: &Bound<'_, PyAny>,
    f: impl Fn(&Bound<'_, PyAny>) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    let mut out = Vec::with_capacity(obj.len().unwrap_or(0));
    for item in obj.try_iter()? {
        out.push(f(&item?)?);
    }
    Ok(out)
}

fn symbol_ref(obj: &Bound<'_, PyAny>) -> PyResult<SymbolRef> {
    let py = obj.py();
    Ok(SymbolRef {
        kind: str_attr(obj, intern!(py, "kind"))?,
        qualified_name: str_attr(obj, intern!(py, "qualified_name"))?,
    })
}

fn uint(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<u64> {
    let v = obj.getattr(name)?;
    if v.is_none() {
        return Ok(0);
    }
    v.extract()
}

/// Reads a `DeltaPayload`-like object.
fn delta(obj: &Bound<'_, PyAny>) -> PyResult<Delta> {
    let py = obj.py();
    Ok(Delta {
        tool: str_attr(obj, intern!(py, "tool"))?,
        base_root: str_attr(obj, intern!(py, "base_root"))?,
        new_root: str_attr(obj, intern!(py, "new_root"))?,
        removed: list_attr(obj, intern!(py, "removed"), symbol_ref)?,
        added: list_attr(obj, intern!(py, "added"), symbol)?,
        removed_edges: list_attr(obj, intern!(py, "removed_edges"), edge)?,
        added_edges: list_attr(obj, intern!(py, "added_edges"), edge)?,
        delta_tokens: uint(obj, intern!(py, "delta_tokens"))?,
        full_tokens: uint(obj, intern!(py, "full_tokens"))?,
    })
}

/// Encodes a `DeltaPayload`.
#[pyfunction]
pub fn encode_delta(py: Python<'_>, d: &Bound<'_, PyAny>) -> PyResult<Text> {
    let d = delta(d)?;
    let items = d.removed.len() + d.added.len() + d.removed_edges.len() + d.added_edges.len();
    crate::gil::run(py, crate::gil::items(items), || graph::encode_delta(&d))
        .py_err(py, Raise::Other)
        .map(Text)
}

/// Decodes a graph delta into a `DeltaPayload` (removed symbols carry only
/// their kind and name).
#[pyfunction]
#[pyo3(signature = (wire, limits = None))]
pub fn decode_delta<'py>(
    py: Python<'py>,
    wire: &Bound<'py, PyAny>,
    limits: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let limits = crate::decode_limits(py, limits)?;
    let s = crate::input(wire)?;
    let d = crate::gil::run(py, s.len(), || {
        s.text().and_then(|t| graph::decode_delta_with(t, &limits))
    })
    .py_err(py, Raise::Decode)?;
    let t = types(py)?;
    let removed: Vec<graph::Symbol<&str>> = d
        .removed
        .iter()
        .map(|r| graph::Symbol::new(r.qualified_name.as_str(), r.kind.as_str(), 0.0, "", 0))
        .collect();
    let s = |v: &str| PyString::new(py, v).into_any();
    t.instance(
        py,
        &t.delta_payload,
        &[
            (intern!(py, "tool"), s(&d.tool)),
            (intern!(py, "base_root"), s(&d.base_root)),
            (intern!(py, "new_root"), s(&d.new_root)),
            (intern!(py, "removed"), t.symbols(py, &removed)?.into_any()),
            (intern!(py, "added"), t.symbols(py, &d.added)?.into_any()),
            (
                intern!(py, "removed_edges"),
                t.edges(py, &d.removed_edges)?.into_any(),
            ),
            (
                intern!(py, "added_edges"),
                t.edges(py, &d.added_edges)?.into_any(),
            ),
            (
                intern!(py, "delta_tokens"),
                d.delta_tokens.into_pyobject(py)?.into_any(),
            ),
            (
                intern!(py, "full_tokens"),
                d.full_tokens.into_pyobject(py)?.into_any(),
            ),
        ],
    )
}

/// The `gcf-pack-root-v1` of symbols and edges.
#[pyfunction]
pub fn pack_root(
    py: Python<'_>,
    symbols: &Bound<'_, PyAny>,
    edges: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let symbols = items(symbols, symbol)?;
    let edges = items(edges, edge)?;
    crate::gil::run(py, crate::gil::items(symbols.len() + edges.len()), || {
        graph::pack_root(&symbols, &edges)
    })
    .py_err(py, Raise::Other)
}

/// Applies a delta given as its parts to a base and checks the result's
/// root; returns the applied `(symbols, edges)`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn verify_delta<'py>(
    py: Python<'py>,
    base_symbols: &Bound<'py, PyAny>,
    base_edges: &Bound<'py, PyAny>,
    removed: &Bound<'py, PyAny>,
    added: &Bound<'py, PyAny>,
    removed_edges: &Bound<'py, PyAny>,
    added_edges: &Bound<'py, PyAny>,
    expected_new_root: Utf8<'_>,
) -> PyResult<Bound<'py, PyTuple>> {
    let base = Snapshot {
        symbols: items(base_symbols, symbol)?,
        edges: items(base_edges, edge)?,
    };
    let mut d = Delta {
        new_root: expected_new_root.to_owned(),
        removed: items(removed, symbol_ref)?,
        added: items(added, symbol)?,
        removed_edges: items(removed_edges, edge)?,
        added_edges: items(added_edges, edge)?,
        ..Delta::default()
    };
    let items = base.symbols.len() + base.edges.len() + d.added.len() + d.added_edges.len();
    let applied = crate::gil::run(py, crate::gil::items(items), || {
        // The parts carry no base root: verifying against the base's own
        // root checks only the result, as 2.8.0's verify_delta does.
        d.base_root = base.pack_root()?;
        graph::apply_decoded_delta(&base, &d)
    })
    .py_err(py, Raise::Other)?;
    let t = types(py)?;
    PyTuple::new(
        py,
        [
            t.symbols(py, &applied.symbols)?.into_any(),
            t.edges(py, &applied.edges)?.into_any(),
        ],
    )
}

/// The core's consumer session behind `gcf.SessionDecoder`: bare
/// references resolve to the symbols of the session's earlier payloads
/// (spec §9.2).
#[pyclass(module = "gcf._gcf")]
pub struct NativeSessionDecoder(graph::SessionDecoder);

#[pymethods]
impl NativeSessionDecoder {
    #[new]
    #[pyo3(signature = (max_retained = None, limits = None))]
    fn new(py: Python<'_>, max_retained: Option<usize>, limits: Option<&str>) -> PyResult<Self> {
        let mut d = graph::SessionDecoder::new().limits(crate::decode_limits(py, limits)?);
        if let Some(max) = max_retained {
            d = d.with_max_retained(max);
        }
        Ok(Self(d))
    }

    /// Decodes one payload of the session (`str` or UTF-8 `bytes`); on
    /// error nothing is remembered.
    fn decode<'py>(
        &mut self,
        py: Python<'py>,
        input_text: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let s = crate::input(input_text)?;
        let inner = &mut self.0;
        let payload = crate::gil::run(py, s.len(), || s.text().and_then(|t| inner.decode(t)))
            .py_err(py, Raise::Decode)?;
        types(py)?.payload_owned(py, &payload)
    }

    /// Symbols remembered.
    fn size(&self) -> usize {
        self.0.len()
    }

    /// Forgets the session.
    fn reset(&mut self) {
        self.0.reset()
    }
}

/// The core's producer session behind `gcf.Session`, with a name index for
/// 2.8.0's by-name queries (`transmitted`, `get_id`).
#[pyclass(module = "gcf._gcf")]
pub struct NativeSession {
    inner: graph::Session,
    by_name: std::collections::HashMap<String, u64>,
}

impl NativeSession {
    /// Encodes `payload` in the session, and indexes its symbols by name.
    fn encode_payload<S: AsRef<str> + Sync>(
        &mut self,
        py: Python<'_>,
        payload: &graph::Payload<S>,
    ) -> PyResult<String> {
        let inner = &mut self.inner;
        let items = payload.symbols.len() + payload.edges.len();
        let out = crate::gil::run(py, crate::gil::items(items), || inner.encode(payload))
            .py_err(py, Raise::Other)?;
        self.index(&payload.symbols);
        Ok(out)
    }

    fn index<S: AsRef<str>>(&mut self, symbols: &[graph::Symbol<S>]) {
        for s in symbols {
            let name = s.qualified_name.as_ref();
            if let Some(id) = self.inner.id_of(s.kind.as_ref(), name) {
                if !self.by_name.contains_key(name) {
                    self.by_name.insert(name.to_owned(), id);
                }
            }
        }
    }
}

#[pymethods]
impl NativeSession {
    #[new]
    fn new() -> Self {
        NativeSession {
            inner: graph::Session::new(),
            by_name: std::collections::HashMap::new(),
        }
    }

    fn encode(&mut self, py: Python<'_>, p: &Bound<'_, PyAny>) -> PyResult<Text> {
        self.encode_payload(py, &crate::graph_py::payload(p)?)
            .map(Text)
    }

    /// `encode` of a payload whose fields (and locations, when it has
    /// any) `gcf.encode_with_session` gathered (see `graph_py::Gathered`).
    #[pyo3(signature = (gathered, locations = None))]
    fn encode_gathered(
        &mut self,
        py: Python<'_>,
        gathered: &Bound<'_, PyTuple>,
        locations: Option<&Bound<'_, PyList>>,
    ) -> PyResult<Text> {
        let gathered = crate::graph_py::Gathered::read(gathered)?;
        let mut read = crate::graph_py::gathered_texts(&gathered)?;
        if let Some(rows) = locations {
            read.read_locations(rows)?;
        }
        self.encode_payload(py, &read.payload()).map(Text)
    }

    /// Marks symbols delivered, as 2.8.0's `record` does: by name, a name
    /// seen before keeps its id, and nothing else about a symbol is read or
    /// checked (nothing is written), so a symbol without a kind still takes
    /// its id and the ones after it follow it.
    fn record(&mut self, symbols: &Bound<'_, PyAny>) -> PyResult<()> {
        for item in symbols.try_iter()? {
            let item = item?;
            let name = item.getattr(pyo3::intern!(item.py(), "qualified_name"))?;
            let name = crate::utf8::text(name.cast::<PyString>()?)?;
            if self.by_name.contains_key(name.as_ref()) {
                continue;
            }
            let kind = item.getattr(pyo3::intern!(item.py(), "kind")).ok();
            let kind = kind
                .as_ref()
                .and_then(|k| k.cast::<PyString>().ok())
                .and_then(|k| k.to_cow().ok());
            let kind = kind.as_deref().unwrap_or("");
            let id = self.inner.record(kind, &name);
            self.by_name.insert(name.into_owned(), id);
        }
        Ok(())
    }

    fn get_id(&self, qname: Utf8<'_>) -> i64 {
        self.by_name.get(&*qname).map_or(-1, |&id| id as i64)
    }

    fn size(&self) -> usize {
        self.inner.len()
    }

    fn reset(&mut self) {
        self.inner.reset();
        self.by_name.clear();
    }
}
