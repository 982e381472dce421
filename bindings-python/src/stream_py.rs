//! Stream writers over any Python object with `write`.
//!
//! The core writers buffer their output and hand it to the sink in large
//! chunks, so each `write` call on the Python side carries a batch of lines,
//! not one line. Text files get `str`, binary files `bytes`. An exception
//! raised by `write` fails the core writer's sink (which then refuses every
//! later call, as the core's stream lifecycle says) and is re-raised as is.

use std::borrow::Cow;

use gcf_core::generic::{self, Cell};
use gcf_core::graph::{self, Edge, StreamOptions, Symbol, TrailerForm};
use gcf_core::{ErrorKind, Sink, SinkError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};
use pyo3::{intern, Py};

use crate::errors::{to_py, IntoPy, Raise};
use crate::graph_py::{
    header_count_of, with_edge, with_edge_fields, with_symbol, with_symbol_fields,
};
use crate::serial::Serial;
use crate::utf8::{Utf8, Utf8String};
use crate::value;

/// The Python writer as a core sink.
pub struct PySink {
    writer: Py<PyAny>,
    binary: bool,
    /// The exception `write` raised, re-raised by the call that caused it
    /// (taken through a shared reference to the writer, hence the lock; a
    /// stream is used by one thread at a time, so it is never contended).
    error: std::sync::Mutex<Option<PyErr>>,
}

impl PySink {
    fn new(writer: Py<PyAny>, binary: bool) -> Self {
        PySink {
            writer,
            binary,
            error: std::sync::Mutex::new(None),
        }
    }

    fn send(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        Python::attach(|py| {
            let w = self.writer.bind(py);
            let result = if self.binary {
                w.call_method1(intern!(py, "write"), (PyBytes::new(py, bytes),))
            } else {
                // The core hands over complete UTF-8 runs only.
                let s = std::str::from_utf8(bytes).map_err(|_| SinkError)?;
                w.call_method1(intern!(py, "write"), (PyString::new(py, s),))
            };
            result.map(drop).map_err(|e| {
                *self.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                SinkError
            })
        })
    }
}

impl Sink for PySink {
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.send(bytes)
    }
}

/// The error of a failed stream call: the writer's own exception when the
/// sink failed because `write` raised, else the core error as a `GcfError`.
fn stream_err(py: Python<'_>, e: gcf_core::Error, sink: Option<&PySink>) -> PyErr {
    if e.kind() == ErrorKind::Sink {
        if let Some(err) =
            sink.and_then(|s| s.error.lock().unwrap_or_else(|p| p.into_inner()).take())
        {
            return err;
        }
    }
    to_py(py, &e.into(), Raise::Other)
}

/// A call on a closed stream: a `GcfError` (`invalid_state`), as every
/// other refusal.
fn closed(py: Python<'_>) -> PyErr {
    crate::errors::input(py, ErrorKind::InvalidState, "the stream is closed".into())
}

/// The state of a [`GraphStream`].
pub struct GraphState {
    inner: Option<graph::StreamWriter<PySink>>,
    symbols: u64,
    edges: u64,
}

impl GraphState {
    fn write_bare_ref(&mut self, py: Python<'_>, qname: &str, distance: u32) -> PyResult<()> {
        let w = self.inner.as_mut().ok_or_else(|| closed(py))?;
        match w.write_bare_ref(qname, distance) {
            Ok(_) => {
                self.symbols += 1;
                Ok(())
            }
            Err(e) => Err(stream_err(py, e, Some(w.get_ref()))),
        }
    }

    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        let w = self.inner.as_mut().ok_or_else(|| closed(py))?;
        w.flush().map_err(|e| stream_err(py, e, Some(w.get_ref())))
    }

    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(w) = self.inner.as_mut() else {
            return Ok(());
        };
        // Flushed first, so a failing `write` is still reported as itself.
        if let Err(e) = w.flush() {
            let err = stream_err(py, e, Some(w.get_ref()));
            self.inner = None;
            return Err(err);
        }
        match self.inner.take() {
            Some(w) => w.finish().map(drop).map_err(|e| stream_err(py, e, None)),
            None => Ok(()),
        }
    }
}

/// Hands what an abandoned stream (dropped without `close()`) still holds
/// to its writer, as 2.8.0, which writes every line at once, would have:
/// the lines, not the trailer, which says the stream ended. A failing
/// `write` goes to `sys.unraisablehook`, as an exception in `__del__` does.
fn flush_abandoned(sink: &PySink, flushed: Result<(), gcf_core::Error>) {
    if flushed.is_ok() {
        return;
    }
    let err = sink.error.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some(err) = err {
        Python::attach(|py| err.write_unraisable(py, None));
    }
}

impl Drop for GraphState {
    fn drop(&mut self) {
        if let Some(w) = self.inner.as_mut() {
            let flushed = w.flush();
            flush_abandoned(w.get_ref(), flushed);
        }
    }
}

impl Drop for GenericState {
    fn drop(&mut self) {
        if let Some(w) = self.inner.as_mut() {
            let flushed = w.flush();
            flush_abandoned(w.get_ref(), flushed);
        }
    }
}

/// The state of a [`GenericStream`].
pub struct GenericState {
    inner: Option<generic::StreamWriter<PySink>>,
    rows: u64,
    /// A row's values, kept between rows for its room (one allocation a
    /// stream rather than one a row).
    row: Vec<generic::Value>,
}

/// The cells of a row: one reader for the row, and a list (what callers
/// pass) indexed directly rather than through the iterator protocol.
fn values(items: &Bound<'_, PyAny>) -> PyResult<Vec<generic::Value>> {
    let mut out = Vec::new();
    read_values(items, &mut out)?;
    Ok(out)
}

/// [`values`] into `out` (emptied first), whose room is reused.
fn read_values(items: &Bound<'_, PyAny>, out: &mut Vec<generic::Value>) -> PyResult<()> {
    out.clear();
    let mut reader = value::Reader::default();
    if let Ok(list) = items.cast::<PyList>() {
        out.reserve(list.len());
        for item in list.iter() {
            out.push(reader.read_scalar(&item)?);
        }
        return Ok(());
    }
    out.reserve(items.len().unwrap_or(0));
    for item in items.try_iter()? {
        out.push(reader.read_scalar(&item?)?);
    }
    Ok(())
}

impl GenericState {
    fn call<T>(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut generic::StreamWriter<PySink>) -> gcf_core::Result<T>,
    ) -> PyResult<T> {
        let w = self.inner.as_mut().ok_or_else(|| closed(py))?;
        match f(w) {
            Ok(t) => Ok(t),
            Err(e) => Err(stream_err(py, e, Some(w.get_ref()))),
        }
    }
}

impl GraphState {
    /// Writes a symbol read from Python.
    fn put_symbol(&mut self, py: Python<'_>, sym: &Symbol<Cow<'_, str>>) -> PyResult<()> {
        let w = self.inner.as_mut().ok_or_else(|| closed(py))?;
        match w.write_symbol(sym) {
            Ok(_) => {
                self.symbols += 1;
                Ok(())
            }
            Err(e) => Err(stream_err(py, e, Some(w.get_ref()))),
        }
    }

    /// Writes an edge read from Python; one whose endpoints were not written
    /// is dropped, as 2.8.0 drops it.
    fn put_edge(&mut self, py: Python<'_>, e: &Edge<Cow<'_, str>>) -> PyResult<()> {
        let w = self.inner.as_mut().ok_or_else(|| closed(py))?;
        match w.write_edge_by_name(&e.source, &e.target, &e.edge_type, &e.status) {
            Ok(()) => {
                self.edges += 1;
                Ok(())
            }
            Err(err) if err.kind() == ErrorKind::UnknownEdgeReference => Ok(()),
            Err(err) => Err(stream_err(py, err, Some(w.get_ref()))),
        }
    }
}

/// The widest row [`GenericState::row_in_place`] takes; wider rows are
/// read into values, as any row was before it.
const IN_PLACE_WIDTH: usize = 32;

impl GenericState {
    /// Writes a row of plain scalars (a `list` or `tuple` of exact `str`,
    /// `int`, `float`, `bool` and `None`) from the objects themselves: no
    /// core `Value` per cell, strings lent by the interpreter. `None`, with
    /// nothing written, when the row holds anything else or strings are not
    /// lent (Python 3.9, Windows); the caller then reads it into values,
    /// which is where every conversion rule and error lives. `key`, when
    /// given, is a keyed-map member's key.
    fn row_in_place(
        &mut self,
        py: Python<'_>,
        key: Option<&str>,
        items: &Bound<'_, PyAny>,
    ) -> Option<PyResult<()>> {
        if !crate::utf8::lending() {
            return None;
        }
        let (obj, tuple) = if items.is_exact_instance_of::<PyList>() {
            (items.as_ptr(), false)
        } else if items.is_exact_instance_of::<PyTuple>() {
            (items.as_ptr(), true)
        } else {
            return None;
        };
        let mut held = HeldItems {
            items: [std::ptr::null_mut(); IN_PLACE_WIDTH],
            len: 0,
        };
        // SAFETY: `obj` is an exact list or tuple that `items` keeps alive,
        // and the GIL is held.
        if !unsafe { held.take(obj, tuple) } {
            return None;
        }
        let mut cells = [Cell::Null; IN_PLACE_WIDTH];
        for (&item, cell) in held.items().iter().zip(cells.iter_mut()) {
            // SAFETY: `held` keeps the object alive while `cells` is used,
            // and the GIL is held.
            *cell = unsafe { crate::view::exact_cell(item) }?;
        }
        let cells = &cells[..held.len];
        Some(self.call(py, |w| match key {
            None => w.row(cells),
            Some(key) => w.keyed_row(key, cells),
        }))
    }
}

/// Strong references to a row's items while it is written: when the buffer
/// fills mid-row the writer's `write` runs, and it could drop an item (say
/// by `row.clear()`) whose text a cell borrows.
struct HeldItems {
    items: [*mut pyo3::ffi::PyObject; IN_PLACE_WIDTH],
    len: usize,
}

impl HeldItems {
    /// Takes the items of the exact list or tuple at `obj` into an empty
    /// `self`, each with a new reference; false, with none taken, when there
    /// are more than [`IN_PLACE_WIDTH`]. (Filled in place: returned by value,
    /// the array was copied once a row.)
    ///
    /// # Safety
    ///
    /// `obj` is a live exact `list` (`tuple` false) or `tuple` (`tuple`
    /// true), and the GIL is held.
    unsafe fn take(&mut self, obj: *mut pyo3::ffi::PyObject, tuple: bool) -> bool {
        debug_assert_eq!(self.len, 0);
        use pyo3::ffi;
        // SAFETY (whole body): the caller's contract; nothing here runs
        // Python code, so the container does not change while it is read,
        // and every index is below the size just read.
        unsafe {
            let size = if tuple {
                ffi::PyTuple_Size(obj)
            } else {
                ffi::PyList_Size(obj)
            };
            if !usize::try_from(size).is_ok_and(|n| n <= IN_PLACE_WIDTH) {
                return false;
            }
            for i in 0..size {
                let item = if tuple {
                    ffi::PyTuple_GetItem(obj, i)
                } else {
                    ffi::PyList_GetItem(obj, i)
                };
                if item.is_null() {
                    ffi::PyErr_Clear();
                    return false;
                }
                ffi::Py_IncRef(item);
                self.items[self.len] = item;
                self.len += 1;
            }
            true
        }
    }

    fn items(&self) -> &[*mut pyo3::ffi::PyObject] {
        &self.items[..self.len]
    }
}

impl Drop for HeldItems {
    fn drop(&mut self) {
        for &item in self.items() {
            // SAFETY: a reference taken in `take`, released once, with the
            // GIL held (a `HeldItems` lives inside a method call).
            unsafe { pyo3::ffi::Py_DecRef(item) };
        }
    }
}

impl GenericState {
    fn begin_table(&mut self, py: Python<'_>, name: &str, fields: Vec<Utf8String>) -> PyResult<()> {
        let fields: Vec<&str> = fields.iter().map(|f| f.0.as_str()).collect();
        self.call(py, |w| w.begin_table(Some(name), &fields))
    }

    fn begin_keyed_map(
        &mut self,
        py: Python<'_>,
        name: &str,
        key_label: &str,
        fields: Vec<Utf8String>,
    ) -> PyResult<()> {
        let fields: Vec<&str> = fields.iter().map(|f| f.0.as_str()).collect();
        self.call(py, |w| {
            w.begin_keyed_map_labeled(Some(name), key_label, &fields)
        })
    }

    fn row(&mut self, py: Python<'_>, items: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Some(written) = self.row_in_place(py, None, items) {
            written?;
            self.rows += 1;
            return Ok(());
        }
        // Taken while Python code may run (a cell's `__str__`), put back after.
        let mut vs = std::mem::take(&mut self.row);
        let written =
            read_values(items, &mut vs).and_then(|()| self.call(py, |w| w.row_values(&vs)));
        vs.clear();
        self.row = vs;
        written?;
        self.rows += 1;
        Ok(())
    }

    /// A keyed-map member. The key is read as a row's cell is (an int past
    /// int64 is out_of_range) and written by the core's rule for a key: a
    /// number bare, as 2.8.0 writes it (`7|...`); null or a boolean refused
    /// (decoders refuse such a key; 2.8.0 writes `-` or `true` and reads
    /// them back as `"None"` or `"True"`).
    fn keyed_row(
        &mut self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        items: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        if let Ok(text) = key.cast_exact::<PyString>() {
            if let Some(written) = self.row_in_place(py, Some(&crate::utf8::text(text)?), items) {
                written?;
                self.rows += 1;
                return Ok(());
            }
        }
        let key = value::Reader::default().read_scalar(key)?;
        let mut vs = values(items)?;
        vs.insert(0, key);
        let mut cells = Vec::with_capacity(vs.len());
        for v in &vs {
            match Cell::from_value(v) {
                Some(c) => cells.push(c),
                None => {
                    return Err(crate::errors::input(
                        py,
                        ErrorKind::InvalidInput,
                        "a streamed cell must be a scalar".into(),
                    ))
                }
            }
        }
        self.call(py, |w| w.keyed_row_cell(cells[0], &cells[1..]))?;
        self.rows += 1;
        Ok(())
    }

    fn end_table(&mut self, py: Python<'_>) -> PyResult<()> {
        self.call(py, |w| w.end_table())
    }

    fn field(&mut self, py: Python<'_>, key: &str, v: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = value::Reader::default().read_scalar(v)?;
        self.call(py, |w| w.field_value(key, &v))
    }

    fn begin_section(&mut self, py: Python<'_>, name: &str) -> PyResult<()> {
        self.call(py, |w| w.begin_section(name))
    }

    fn end_section(&mut self, py: Python<'_>) -> PyResult<()> {
        self.call(py, |w| w.end_section())
    }

    fn inline_array(
        &mut self,
        py: Python<'_>,
        name: &str,
        items: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let vs = values(items)?;
        self.call(py, |w| w.inline_array(name, &vs))
    }

    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        self.call(py, |w| w.flush())
    }

    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        if self.inner.is_none() {
            return Ok(());
        }
        // Flushed first, so a failing `write` is still reported as itself.
        let flushed = self.call(py, |w| w.flush());
        let finished = self.inner.take().map(|w| w.finish().map(drop));
        flushed?;
        match finished {
            Some(Err(e)) => Err(stream_err(py, e, None)),
            _ => Ok(()),
        }
    }
}

/// The graph stream writer behind `gcf.StreamEncoder`, usable from any
/// thread (see [`Serial`]).
#[pyclass(module = "gcf._gcf", frozen)]
pub struct GraphStream(Serial<GraphState>);

#[pymethods]
impl GraphStream {
    #[new]
    #[pyo3(signature = (writer, binary, tool, token_budget, tokens_used, labeled_trailer_counts, pack_root = Utf8::EMPTY, session = false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        writer: Py<PyAny>,
        binary: bool,
        tool: Utf8<'_>,
        token_budget: &Bound<'_, PyAny>,
        tokens_used: &Bound<'_, PyAny>,
        labeled_trailer_counts: bool,
        pack_root: Utf8<'_>,
        session: bool,
    ) -> PyResult<Self> {
        // Read as `gcf.encode` reads a payload's (a negative count is none).
        let token_budget = header_count_of(intern!(py, "token_budget"), token_budget)?;
        let tokens_used = header_count_of(intern!(py, "tokens_used"), tokens_used)?;
        let options = StreamOptions {
            tool: &tool,
            token_budget,
            tokens_used,
            trailer: if labeled_trailer_counts {
                TrailerForm::Labeled
            } else {
                TrailerForm::Positional
            },
            // 2.8.0's `pack_root=` and `session=true`.
            pack_root: &pack_root,
            session,
            // 2.8.0 writes edges by qualified name.
            index_names: true,
        };
        let sink = PySink::new(writer, binary);
        let inner = graph::StreamWriter::new(sink, options)
            .map_err(|e| to_py(py, &e.into(), Raise::Other))?;
        Ok(GraphStream(Serial::new(GraphState {
            inner: Some(inner),
            symbols: 0,
            edges: 0,
        })))
    }

    fn write_symbol(&self, py: Python<'_>, s: &Bound<'_, PyAny>) -> PyResult<()> {
        // The fields are read (which may run Python code) before the stream
        // is taken, and whole: a closed stream still reads them first.
        with_symbol(s, |sym| self.0.with(py, |state| state.put_symbol(py, &sym)))?
    }

    fn write_edge(&self, py: Python<'_>, e: &Bound<'_, PyAny>) -> PyResult<()> {
        with_edge(e, |e| self.0.with(py, |state| state.put_edge(py, &e)))?
    }

    /// `write_symbol` of a symbol whose fields the Python wrapper read
    /// (bytecode's attribute reads cost less than `getattr` from here),
    /// converted as [`with_symbol`] converts them.
    fn symbol_fields(
        &self,
        py: Python<'_>,
        qualified_name: &Bound<'_, PyAny>,
        kind: &Bound<'_, PyAny>,
        score: &Bound<'_, PyAny>,
        provenance: &Bound<'_, PyAny>,
        distance: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let fields = [qualified_name, kind, score, provenance, distance];
        with_symbol_fields(fields, |sym| {
            self.0.with(py, |state| state.put_symbol(py, &sym))
        })?
    }

    /// `write_edge` of an edge whose fields the Python wrapper read.
    fn edge_fields(
        &self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        target: &Bound<'_, PyAny>,
        edge_type: &Bound<'_, PyAny>,
        status: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        with_edge_fields([source, target, edge_type, status], |e| {
            self.0.with(py, |state| state.put_edge(py, &e))
        })?
    }

    fn write_bare_ref(
        &self,
        py: Python<'_>,
        qname: Utf8<'_>,
        distance: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        // Read as `write_symbol` reads a symbol's distance (a negative or
        // fractional one is `out_of_range`, not a conversion error).
        let distance: u32 = crate::graph_py::uint_of(intern!(py, "distance"), distance)?;
        self.0
            .with(py, |state| state.write_bare_ref(py, &qname, distance))
    }

    #[getter]
    fn symbol_count(&self, py: Python<'_>) -> PyResult<u64> {
        self.0.with(py, |state| Ok(state.symbols))
    }

    #[getter]
    fn edge_count(&self, py: Python<'_>) -> PyResult<u64> {
        self.0.with(py, |state| Ok(state.edges))
    }

    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        self.0.with(py, |state| state.flush(py))
    }

    fn close(&self, py: Python<'_>) -> PyResult<()> {
        self.0.with(py, |state| state.close(py))
    }
}

/// The generic stream writer behind `gcf.GenericStreamEncoder`: the core
/// writer's calls, which the Python class maps 2.8.0's surface onto; usable
/// from any thread (see [`Serial`]).
#[pyclass(module = "gcf._gcf", frozen)]
pub struct GenericStream(Serial<GenericState>);

#[pymethods]
impl GenericStream {
    #[new]
    #[pyo3(signature = (writer, binary, tool))]
    fn new(py: Python<'_>, writer: Py<PyAny>, binary: bool, tool: Utf8<'_>) -> PyResult<Self> {
        let mut options = generic::StreamOptions::new();
        if !tool.is_empty() {
            options = options.tool(&tool);
        }
        let inner = generic::StreamWriter::new(PySink::new(writer, binary), options)
            .py_err(py, Raise::Other)?;
        Ok(GenericStream(Serial::new(GenericState {
            inner: Some(inner),
            rows: 0,
            row: Vec::new(),
        })))
    }

    fn begin_table(&self, py: Python<'_>, name: Utf8<'_>, fields: Vec<Utf8String>) -> PyResult<()> {
        self.0
            .with(py, |state| state.begin_table(py, &name, fields))
    }

    /// A keyed map whose key column is labelled `key_label`.
    fn begin_keyed_map(
        &self,
        py: Python<'_>,
        name: Utf8<'_>,
        key_label: Utf8<'_>,
        fields: Vec<Utf8String>,
    ) -> PyResult<()> {
        self.0.with(py, |state| {
            state.begin_keyed_map(py, &name, &key_label, fields)
        })
    }

    fn row(&self, py: Python<'_>, items: &Bound<'_, PyAny>) -> PyResult<()> {
        self.0.with(py, |state| state.row(py, items))
    }

    /// Rows written so far, over all tables.
    #[getter]
    fn row_count(&self, py: Python<'_>) -> PyResult<u64> {
        self.0.with(py, |state| Ok(state.rows))
    }

    /// A keyed-map member: `key` a `str`, or a number (written bare).
    fn keyed_row(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        items: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.0.with(py, |state| state.keyed_row(py, key, items))
    }

    fn end_table(&self, py: Python<'_>) -> PyResult<()> {
        self.0.with(py, |state| state.end_table(py))
    }

    fn field(&self, py: Python<'_>, key: Utf8<'_>, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.0.with(py, |state| state.field(py, &key, v))
    }

    fn begin_section(&self, py: Python<'_>, name: Utf8<'_>) -> PyResult<()> {
        self.0.with(py, |state| state.begin_section(py, &name))
    }

    fn end_section(&self, py: Python<'_>) -> PyResult<()> {
        self.0.with(py, |state| state.end_section(py))
    }

    fn inline_array(
        &self,
        py: Python<'_>,
        name: Utf8<'_>,
        items: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.0
            .with(py, |state| state.inline_array(py, &name, items))
    }

    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        self.0.with(py, |state| state.flush(py))
    }

    fn close(&self, py: Python<'_>) -> PyResult<()> {
        self.0.with(py, |state| state.close(py))
    }
}
