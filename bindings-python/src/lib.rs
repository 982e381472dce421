//! `gcf._gcf`: the native half of the `gcf` Python package, a drop-in for
//! gcf-python 2.8.0 backed by `gcf-core`.
//!
//! The Python package (`python/gcf/`) keeps 2.8.0's module layout, its
//! dataclasses and its exception classes; this extension does the format
//! work. Python objects are read directly into core types and results are
//! built directly as Python objects; the core runs with the GIL released
//! wherever it touches no Python object.

use std::borrow::Cow;

use gcf_bind::options::LimitNames;
use gcf_core::generic;
use gcf_core::graph;
use gcf_core::AnyPayload;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use text_out::Text;

mod collector;
mod delta_py;
mod errors;
mod generic_py;
mod gil;
mod graph_py;
mod scalar_py;
mod serial;
mod stream_py;
mod text_out;
mod utf8;
mod value;
mod view;

use errors::{IntoPy, Raise};
use utf8::Utf8;

/// GCF text handed to a decoder: a `str`, or `bytes` still to be checked
/// as UTF-8 (so malformed bytes get `invalid_utf8` with a position).
pub(crate) enum Input<'a> {
    Text(Cow<'a, str>),
    Bytes(&'a [u8]),
}

impl Input<'_> {
    /// Its length in bytes.
    pub(crate) fn len(&self) -> usize {
        match self {
            Input::Text(t) => t.len(),
            Input::Bytes(b) => b.len(),
        }
    }

    /// The text, bytes checked as UTF-8 (a bad sequence is reported at its
    /// line and column).
    pub(crate) fn text(&self) -> Result<&str, gcf_core::Error> {
        match self {
            Input::Text(t) => Ok(t),
            Input::Bytes(b) => gcf_core::validate_utf8(b),
        }
    }
}

/// The UTF-8 of GCF text given as a `str` (a whole payload, or one token
/// for `gcf.scalar`'s parsers). A `str` holding a lone surrogate has none:
/// that is `gcf.DecodeError` `invalid_surrogate` at the surrogate's line and
/// column, as the same surrogate in UTF-8 bytes is reported.
pub(crate) fn gcf_text<'a>(s: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, str>> {
    utf8::text(s).map_err(|_| {
        // Only a lone surrogate makes a str unencodable as UTF-8. Its line
        // and column: the text with the surrogate encoded as is
        // (`surrogatepass`) is what the core's UTF-8 check places.
        let located = s
            .call_method1(pyo3::intern!(s.py(), "encode"), ("utf-8", "surrogatepass"))
            .ok()
            .and_then(|b| {
                b.cast::<PyBytes>()
                    .ok()
                    .map(|b| gcf_core::validate_utf8(b.as_bytes()).err())
            })
            .flatten();
        let error = located.unwrap_or_else(|| {
            gcf_core::Error::new(
                gcf_core::ErrorKind::InvalidSurrogate,
                "the text holds a lone UTF-16 surrogate",
            )
        });
        errors::to_py(s.py(), &error.into(), Raise::Decode)
    })
}

pub(crate) fn input<'a>(obj: &'a Bound<'_, PyAny>) -> PyResult<Input<'a>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return gcf_text(s).map(Input::Text);
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Input::Bytes(b.as_bytes()));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(
        "GCF input must be str or bytes",
    ))
}

/// Encodes a graph `Payload` (any object with its attributes).
#[pyfunction]
fn encode(py: Python<'_>, p: &Bound<'_, PyAny>) -> PyResult<Text> {
    let read = graph_py::payload_texts(p)?;
    let payload = read.payload();
    gil::run(
        py,
        gil::items(payload.symbols.len() + payload.edges.len()),
        || graph::encode(&payload),
    )
    .py_err(py, Raise::Other)
    .map(Text)
}

/// Encodes a graph payload whose fields `gcf.encode` gathered (see
/// `graph_py::Gathered`).
/// `locations`, when given, are its `## loc` lines as `gcf.encode`
/// gathers them (`graph_py::PayloadTexts::read_locations`).
#[pyfunction]
#[pyo3(name = "_encode_gathered", signature = (gathered, locations = None))]
fn encode_gathered(
    py: Python<'_>,
    gathered: &Bound<'_, PyTuple>,
    locations: Option<&Bound<'_, PyList>>,
) -> PyResult<Text> {
    let gathered = graph_py::Gathered::read(gathered)?;
    if locations.is_none() {
        if let Some(encoded) = graph_py::encode_gathered_lent(&gathered) {
            return encoded.map(Text);
        }
    }
    let mut read = graph_py::gathered_texts(&gathered)?;
    if let Some(rows) = locations {
        read.read_locations(rows)?;
    }
    let payload = read.payload();
    gil::run(
        py,
        gil::items(payload.symbols.len() + payload.edges.len()),
        || graph::encode(&payload),
    )
    .py_err(py, Raise::Other)
    .map(Text)
}

/// The decode limits `gcf.Limits` hands over as JSON (gcf-bind's
/// `DecodeLimits`, checked there as for every binding), or the defaults.
pub(crate) fn decode_limits(py: Python<'_>, json: Option<&str>) -> PyResult<gcf_core::Limits> {
    match json {
        None => Ok(gcf_core::Limits::DEFAULT),
        Some(json) => gcf_bind::options::DecodeLimits::from_str(json, LimitNames::Snake)
            .and_then(|l| l.to_core(LimitNames::Snake))
            .py_err(py, Raise::Other),
    }
}

/// Decodes graph-profile text into a `gcf.types.Payload`.
#[pyfunction]
#[pyo3(signature = (input_text, limits = None))]
fn decode<'py>(
    py: Python<'py>,
    input_text: &Bound<'py, PyAny>,
    limits: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    // 2.8.0's `Payload` has no place for a bare session reference, and its
    // `decode` refuses one (`SessionDecoder` resolves them).
    let decoder = graph::Decoder::new()
        .limits(decode_limits(py, limits)?)
        .refuse_references(true);
    let s = input(input_text)?;
    // Numbered strings: each distinct name and label becomes one Python
    // `str`, found by number.
    let payload = gil::run(py, s.len(), || match &s {
        Input::Text(t) => decoder.decode_indexed(t),
        // A bad sequence is reported at its line and column.
        Input::Bytes(b) => gcf_core::validate_utf8(b).and_then(|t| decoder.decode_indexed(t)),
    })
    .py_err(py, Raise::Decode)?;
    graph_py::types(py)?.payload_indexed(py, &payload)
}

/// The objects of a decoded graph payload made again from its own values,
/// `times` times (the last returned): the decode floor of
/// `bench/callgrind.py` (see `graph_py::Types::objects_again`).
#[pyfunction]
#[pyo3(name = "_graph_objects_again")]
fn graph_objects_again<'py>(
    py: Python<'py>,
    payload: &Bound<'py, PyAny>,
    times: usize,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    graph_py::types(py)?.objects_again(py, payload, times)
}

/// Encodes any value in the generic profile.
#[pyfunction]
#[pyo3(signature = (data, no_flatten = false))]
fn encode_generic(py: Python<'_>, data: &Bound<'_, PyAny>, no_flatten: bool) -> PyResult<Text> {
    // 2.8.0's no_flatten turns off path columns only: constant columns and
    // the other table forms stay as they are.
    let encoder = generic::Encoder::new().flatten(!no_flatten);
    encode_value(py, &encoder, data).map(Text)
}

/// Encodes `data` read in place (`view.rs`, with the GIL held) when it
/// holds only what the view reads; otherwise through a core `Value` tree,
/// encoded with the GIL released.
fn encode_value(
    py: Python<'_>,
    encoder: &generic::Encoder,
    data: &Bound<'_, PyAny>,
) -> PyResult<String> {
    if let Some(text) = view::encode(encoder, data) {
        return Ok(text);
    }
    let value = value::from_py(data)?;
    // The tree route (values the view leaves): sized by the input's members.
    gil::run(py, gil::value(&value), || encoder.encode(&value)).py_err(py, Raise::Other)
}

/// Encodes an array of flat records as a value-grouped table.
#[pyfunction]
fn encode_generic_grouped(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    key_field: Utf8<'_>,
    group_field: Utf8<'_>,
) -> PyResult<Text> {
    let encoder = generic::Encoder::new().group_by(&key_field, &group_field);
    encode_value(py, &encoder, data).map(Text)
}

/// Decodes any GCF text by its header: generic-profile text into dicts,
/// lists and scalars; graph-profile text (and deltas) into the camelCase
/// dicts 2.8.0 returns for them.
#[pyfunction]
#[pyo3(signature = (input_text, limits = None))]
fn decode_generic<'py>(
    py: Python<'py>,
    input_text: &Bound<'py, PyAny>,
    limits: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let limits = decode_limits(py, limits)?;
    let s = input(input_text)?;
    // A generic payload (not a delta) is decoded straight into Python
    // objects; every other kind, and bytes that are not UTF-8 (whose error
    // the byte decoder places), takes the core's value and converts it.
    let text = match &s {
        Input::Text(t) => Some(&**t),
        Input::Bytes(b) => std::str::from_utf8(b).ok(),
    };
    if let Some(text) = text {
        if matches!(
            gcf_core::payload_kind(text),
            Ok(gcf_core::PayloadKind::Generic)
        ) {
            // A container (a record's dict, a list) per 32 bytes of text or
            // more, as records run: the collector pauses for those that
            // can set off a collection (see `collector`).
            let _pause = collector::CollectorPause::for_objects(py, text.len() / 32)?;
            let mut build = value::Builder::new(py);
            let v = generic::Decoder::new()
                .limits(limits)
                .decode_into(text, &mut build)
                .py_err(py, Raise::Decode)?;
            return build.finish(v);
        }
    }
    let doc = gil::run(py, s.len(), || match &s {
        Input::Text(t) => gcf_core::decode_any_with(t, &limits),
        Input::Bytes(b) => {
            gcf_core::validate_utf8(b).and_then(|t| gcf_core::decode_any_with(t, &limits))
        }
    })
    .py_err(py, Raise::Decode)?;
    match doc {
        AnyPayload::Generic(v) => value::to_py(py, &v),
        AnyPayload::Graph(p) => graph_dict(py, &p).map(Bound::into_any),
        AnyPayload::GraphDelta(d) => graph_delta_dict(py, &d).map(Bound::into_any),
        AnyPayload::GenericDelta(d) => generic_py::delta_dict(py, &d).map(Bound::into_any),
        AnyPayload::Unchanged {
            pack_root, count, ..
        } => {
            let d = PyDict::new(py);
            d.set_item("unchanged", true)?;
            d.set_item("packRoot", pack_root)?;
            d.set_item("count", count)?;
            Ok(d.into_any())
        }
    }
}

fn symbol_dict<'py>(py: Python<'py>, s: &graph::Symbol) -> PyResult<Bound<'py, PyDict>> {
    let o = PyDict::new(py);
    o.set_item("qualifiedName", &s.qualified_name)?;
    o.set_item("kind", &s.kind)?;
    o.set_item("score", s.score)?;
    o.set_item("provenance", &s.provenance)?;
    o.set_item("distance", s.distance)?;
    Ok(o)
}

fn edge_dict<'py>(py: Python<'py>, e: &graph::Edge) -> PyResult<Bound<'py, PyDict>> {
    let o = PyDict::new(py);
    o.set_item("source", &e.source)?;
    o.set_item("target", &e.target)?;
    o.set_item("edgeType", &e.edge_type)?;
    o.set_item("status", &e.status)?;
    Ok(o)
}

fn graph_dict<'py>(py: Python<'py>, p: &graph::Payload) -> PyResult<Bound<'py, PyDict>> {
    let _pause = collector::CollectorPause::for_objects(py, p.symbols.len() + p.edges.len())?;
    let d = PyDict::new(py);
    d.set_item("tool", &p.tool)?;
    d.set_item("tokenBudget", p.token_budget)?;
    d.set_item("tokensUsed", p.tokens_used)?;
    d.set_item("packRoot", &p.pack_root)?;
    let symbols = PyList::empty(py);
    for s in &p.symbols {
        symbols.append(symbol_dict(py, s)?)?;
    }
    d.set_item("symbols", symbols)?;
    let edges = PyList::empty(py);
    for e in &p.edges {
        edges.append(edge_dict(py, e)?)?;
    }
    d.set_item("edges", edges)?;
    // Only when the text has a `## loc` section (spec 3.6.0; 2.8.0 refuses
    // such text), in the JSON form the other bindings read and write.
    if !p.locations.is_empty() {
        let locations = PyList::empty(py);
        for l in &p.locations {
            let o = PyDict::new(py);
            o.set_item("qualifiedName", &l.qualified_name)?;
            o.set_item("file", &l.file)?;
            o.set_item("line", l.line)?;
            o.set_item("column", l.column)?;
            if let Some((line, column)) = l.end {
                o.set_item("endLine", line)?;
                o.set_item("endColumn", column)?;
            }
            locations.append(o)?;
        }
        d.set_item("locations", locations)?;
    }
    Ok(d)
}

fn graph_delta_dict<'py>(py: Python<'py>, d: &graph::Delta) -> PyResult<Bound<'py, PyDict>> {
    let o = PyDict::new(py);
    o.set_item("tool", &d.tool)?;
    o.set_item("baseRoot", &d.base_root)?;
    o.set_item("newRoot", &d.new_root)?;
    let removed = PyList::empty(py);
    for r in &d.removed {
        let x = PyDict::new(py);
        x.set_item("qualifiedName", &r.qualified_name)?;
        x.set_item("kind", &r.kind)?;
        removed.append(x)?;
    }
    o.set_item("removed", removed)?;
    let added = PyList::empty(py);
    for s in &d.added {
        added.append(symbol_dict(py, s)?)?;
    }
    o.set_item("added", added)?;
    for (name, edges) in [
        ("removedEdges", &d.removed_edges),
        ("addedEdges", &d.added_edges),
    ] {
        let l = PyList::empty(py);
        for e in edges {
            l.append(edge_dict(py, e)?)?;
        }
        o.set_item(name, l)?;
    }
    o.set_item("deltaTokens", d.delta_tokens)?;
    o.set_item("fullTokens", d.full_tokens)?;
    Ok(o)
}

/// The extension module.
#[pymodule]
#[pyo3(name = "_gcf")]
fn gcf_py(m: &Bound<'_, PyModule>) -> PyResult<()> {
    utf8::init(m.py());
    m.add_function(wrap_pyfunction!(utf8::lend_utf8, m)?)?;
    m.add_function(wrap_pyfunction!(view::view_generic, m)?)?;
    m.add_function(wrap_pyfunction!(view::encode_in_place, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(gil::releases, m)?)?;
    m.add_function(wrap_pyfunction!(encode_gathered, m)?)?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(graph_objects_again, m)?)?;
    m.add_function(wrap_pyfunction!(encode_generic, m)?)?;
    m.add_function(wrap_pyfunction!(encode_generic_grouped, m)?)?;
    m.add_function(wrap_pyfunction!(decode_generic, m)?)?;
    m.add_function(wrap_pyfunction!(delta_py::encode_delta, m)?)?;
    m.add_function(wrap_pyfunction!(delta_py::decode_delta, m)?)?;
    m.add_function(wrap_pyfunction!(delta_py::verify_delta, m)?)?;
    m.add_function(wrap_pyfunction!(delta_py::pack_root, m)?)?;
    m.add_function(wrap_pyfunction!(generic_py::generic_pack_root, m)?)?;
    m.add_function(wrap_pyfunction!(generic_py::diff_generic_sets, m)?)?;
    m.add_function(wrap_pyfunction!(generic_py::encode_generic_full, m)?)?;
    m.add_function(wrap_pyfunction!(generic_py::encode_generic_delta, m)?)?;
    m.add_function(wrap_pyfunction!(generic_py::canonical_cell, m)?)?;
    m.add_function(wrap_pyfunction!(scalar_py::needs_quote, m)?)?;
    m.add_function(wrap_pyfunction!(scalar_py::quote_string, m)?)?;
    m.add_function(wrap_pyfunction!(scalar_py::is_bare_key, m)?)?;
    m.add_function(wrap_pyfunction!(scalar_py::format_key, m)?)?;
    m.add_function(wrap_pyfunction!(scalar_py::format_scalar, m)?)?;
    m.add_function(wrap_pyfunction!(scalar_py::format_number, m)?)?;
    m.add_function(wrap_pyfunction!(scalar_py::parse_scalar, m)?)?;
    m.add_function(wrap_pyfunction!(scalar_py::parse_cell, m)?)?;
    m.add_function(wrap_pyfunction!(generic_py::decode_generic_delta, m)?)?;
    m.add_function(wrap_pyfunction!(generic_py::decode_generic_full, m)?)?;
    m.add_function(wrap_pyfunction!(generic_py::verify_generic_delta, m)?)?;
    m.add_class::<generic_py::NativeDeltaSession>()?;
    m.add_class::<delta_py::NativeSession>()?;
    m.add_class::<delta_py::NativeSessionDecoder>()?;
    m.add_class::<stream_py::GraphStream>()?;
    m.add_class::<stream_py::GenericStream>()?;
    Ok(())
}
