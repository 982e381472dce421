//! A graph payload handed over as C structs instead of JSON: for bindings
//! whose own values are already typed (Go's `Encode`), where building and
//! parsing JSON would cost more than the encode itself. Strings are borrowed
//! for the call, checked for UTF-8 and never copied.

use gcf_core::graph::{self, Edge, Location, Payload, Symbol};

use gcf_core::ErrorKind;

use crate::buf::{gcf_buf, put, reset_out, str_arg};
use crate::error::{boundary, gcf_error, gcf_status, FfiError};
use crate::generic::gcf_str;

/// A symbol of a [`gcf_graph_payload`].
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gcf_symbol {
    /// Fully qualified name, UTF-8, no whitespace.
    pub qualified_name: gcf_str,
    /// Kind in full form (`function`, ...).
    pub kind: gcf_str,
    /// Relevance score.
    pub score: f64,
    /// Discovery method.
    pub provenance: gcf_str,
    /// Hops from the targets.
    pub distance: u32,
}

/// An edge of a [`gcf_graph_payload`], naming symbols by qualified name.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gcf_edge {
    /// Qualified name of the source symbol.
    pub source: gcf_str,
    /// Qualified name of the target symbol.
    pub target: gcf_str,
    /// Relationship type.
    pub edge_type: gcf_str,
    /// Status (`added`, `removed`), or empty for none.
    pub status: gcf_str,
}

/// A location of a [`gcf_graph_payload`] (spec §6b).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gcf_location {
    /// Qualified name of a symbol of the payload.
    pub qualified_name: gcf_str,
    /// Source file path.
    pub file: gcf_str,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// 1-based end line, or 0 with `end_column` 0 for no end.
    pub end_line: u32,
    /// 1-based end column.
    pub end_column: u32,
}

/// A graph payload as C structs, the same fields as the JSON form of
/// [`gcf_graph_encode`](crate::gcf_graph_encode). Arrays may be NULL with a
/// count of 0.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gcf_graph_payload {
    /// Producing tool; empty to omit.
    pub tool: gcf_str,
    /// `budget=`; 0 to omit.
    pub token_budget: u64,
    /// `tokens=`; 0 to omit.
    pub tokens_used: u64,
    /// `pack_root=`; empty to omit.
    pub pack_root: gcf_str,
    /// The symbols.
    pub symbols: *const gcf_symbol,
    /// Number of symbols.
    pub symbol_count: usize,
    /// The edges.
    pub edges: *const gcf_edge,
    /// Number of edges.
    pub edge_count: usize,
    /// The locations.
    pub locations: *const gcf_location,
    /// Number of locations.
    pub location_count: usize,
}

/// # Safety
///
/// `s` points to `len` readable bytes (or is NULL with 0).
unsafe fn text<'a>(s: gcf_str, what: &str) -> Result<&'a str, FfiError> {
    // SAFETY: forwarded from the caller.
    unsafe { str_arg(s.ptr.cast(), s.len, what) }
}

/// # Safety
///
/// `ptr` points to `n` readable `T`s (or is NULL with 0).
unsafe fn array<'a, T>(ptr: *const T, n: usize, what: &str) -> Result<&'a [T], FfiError> {
    if n == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(FfiError::null(what));
    }
    // SAFETY: non-NULL and `n` readable elements, per the caller.
    Ok(unsafe { core::slice::from_raw_parts(ptr, n) })
}

/// The core payload borrowing the C strings.
///
/// # Safety
///
/// Every pointer of `p` is valid for its length, per [`gcf_graph_encode_payload`].
unsafe fn borrow<'a>(p: &gcf_graph_payload) -> Result<Payload<&'a str>, FfiError> {
    // SAFETY: forwarded from the caller; `text` reads each string checked.
    unsafe { borrow_with(p, |s, what| text(s, what)) }
}

/// [`borrow`] with each string read by `text`.
///
/// # Safety
///
/// The arrays of `p` are valid for their counts, per [`gcf_graph_encode_payload`].
unsafe fn borrow_with<'a>(
    p: &gcf_graph_payload,
    text: impl Fn(gcf_str, &str) -> Result<&'a str, FfiError>,
) -> Result<Payload<&'a str>, FfiError> {
    // SAFETY: (for every call below) the pointers are valid per the caller.
    unsafe {
        let symbols = array(p.symbols, p.symbol_count, "payload.symbols")?
            .iter()
            .map(|s| {
                Ok(Symbol {
                    qualified_name: text(s.qualified_name, "symbol.qualified_name")?,
                    kind: text(s.kind, "symbol.kind")?,
                    score: s.score,
                    provenance: text(s.provenance, "symbol.provenance")?,
                    distance: s.distance,
                })
            })
            .collect::<Result<Vec<_>, FfiError>>()?;
        let edges = array(p.edges, p.edge_count, "payload.edges")?
            .iter()
            .map(|e| {
                Ok(Edge {
                    source: text(e.source, "edge.source")?,
                    target: text(e.target, "edge.target")?,
                    edge_type: text(e.edge_type, "edge.edge_type")?,
                    status: text(e.status, "edge.status")?,
                })
            })
            .collect::<Result<Vec<_>, FfiError>>()?;
        let locations = array(p.locations, p.location_count, "payload.locations")?
            .iter()
            .map(|l| {
                Ok(Location {
                    qualified_name: text(l.qualified_name, "location.qualified_name")?,
                    file: text(l.file, "location.file")?,
                    line: l.line,
                    column: l.column,
                    end: (l.end_line, l.end_column)
                        .ne(&(0, 0))
                        .then_some((l.end_line, l.end_column)),
                })
            })
            .collect::<Result<Vec<_>, FfiError>>()?;
        Ok(Payload {
            tool: text(p.tool, "payload.tool")?,
            token_budget: p.token_budget,
            tokens_used: p.tokens_used,
            pack_root: text(p.pack_root, "payload.pack_root")?,
            symbols,
            edges,
            locations,
            ..Payload::default()
        })
    }
}

/// Encodes a graph payload given as C structs into GCF text: the same output
/// and errors as [`gcf_graph_encode`](crate::gcf_graph_encode) of the
/// payload's JSON, without the JSON.
///
/// # Safety
///
/// `payload` is readable, and each of its strings and arrays points to as
/// many readable bytes or elements as its length says (or is NULL with 0);
/// `out` is a writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_encode_payload(
    payload: *const gcf_graph_payload,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let p = payload.as_ref().ok_or_else(|| FfiError::null("payload"))?;
            let payload = borrow(p)?;
            put(
                out,
                gcf_buf::from_vec(graph::encode(&payload)?.into_bytes()),
            );
            Ok(())
        })
    }
}

/// The string `s` as a part of `text`, which is already known to be UTF-8:
/// only its place is checked (inside `text`, on character boundaries).
fn part_of<'a>(text: &'a str, s: gcf_str, what: &str) -> Result<&'a str, FfiError> {
    if s.len == 0 {
        return Ok("");
    }
    let outside = || {
        FfiError::argument(
            ErrorKind::InvalidInput,
            format!("{what} is not within the payload's text on character boundaries"),
        )
    };
    // Addresses compared as integers: no pointer is formed outside `text`.
    let off = (s.ptr as usize)
        .checked_sub(text.as_ptr() as usize)
        .ok_or_else(outside)?;
    let end = off.checked_add(s.len).ok_or_else(outside)?;
    text.get(off..end).ok_or_else(outside)
}

/// [`gcf_graph_encode_payload`] for a payload whose strings all lie in
/// `text[0..text_len]`: the text is checked for UTF-8 once instead of string
/// by string (a fifth of the call's instructions at 100,000 symbols). A
/// string outside the text, or starting or ending inside a character, is an
/// `invalid_input` argument error; otherwise the output and errors are
/// [`gcf_graph_encode_payload`]'s.
///
/// # Safety
///
/// As for [`gcf_graph_encode_payload`], and `text` points to `text_len`
/// readable bytes (or is NULL with 0).
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_encode_payload_in(
    payload: *const gcf_graph_payload,
    text: *const u8,
    text_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let p = payload.as_ref().ok_or_else(|| FfiError::null("payload"))?;
            let all = str_arg(text, text_len, "text")?;
            let payload = borrow_with(p, |s, what| part_of(all, s, what))?;
            put(
                out,
                gcf_buf::from_vec(graph::encode(&payload)?.into_bytes()),
            );
            Ok(())
        })
    }
}
