//! The reference crate's types as gcf-core's, and back.
//!
//! Going in, gcf-core's payloads borrow every string from the caller's
//! (`Payload<&str>`), so an encode copies nothing but its output. The
//! crate's signed integers become gcf-core's unsigned ones: a negative
//! distance (or a delta's negative token count) has no GCF form and is
//! refused; a payload header leaves a count out unless it is positive.

use gcf_core::graph as core;
use gcf_core::{Error, ErrorKind};

use crate::types::{Edge, Payload, Symbol};

/// `value` as the unsigned integer GCF writes, or an `invalid_input` error
/// naming `what`.
pub(crate) fn unsigned<T: TryFrom<i64>>(value: i64, what: &str) -> Result<T, Error> {
    T::try_from(value).map_err(|_| {
        Error::new(
            ErrorKind::InvalidInput,
            format!("{what} {value} is negative (GCF writes no sign there)"),
        )
    })
}

/// A payload header's token count: written only when positive, by the
/// reference crate as by gcf-core, so a negative one is left out as zero is.
pub(crate) fn count_in(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

pub(crate) fn symbol_in(s: &Symbol) -> Result<core::Symbol<&str>, Error> {
    Ok(core::Symbol::new(
        s.qualified_name.as_str(),
        s.kind.as_str(),
        s.score,
        s.provenance.as_str(),
        unsigned(i64::from(s.distance), "distance")?,
    ))
}

pub(crate) fn symbols_in(ss: &[Symbol]) -> Result<Vec<core::Symbol<&str>>, Error> {
    ss.iter().map(symbol_in).collect()
}

pub(crate) fn edge_in(e: &Edge) -> core::Edge<&str> {
    core::Edge {
        source: e.source.as_str(),
        target: e.target.as_str(),
        edge_type: e.edge_type.as_str(),
        status: e.status.as_str(),
    }
}

pub(crate) fn edges_in(es: &[Edge]) -> Vec<core::Edge<&str>> {
    es.iter().map(edge_in).collect()
}

pub(crate) fn payload_in(p: &Payload) -> Result<core::Payload<&str>, Error> {
    Ok(core::Payload {
        tool: p.tool.as_str(),
        token_budget: count_in(p.token_budget),
        tokens_used: count_in(p.tokens_used),
        pack_root: p.pack_root.as_str(),
        symbols: symbols_in(&p.symbols)?,
        edges: edges_in(&p.edges),
        ..core::Payload::default()
    })
}

/// Keeps the edges whose two endpoints name symbols of `p`: the reference
/// crate leaves the others out of its output, where gcf-core refuses them
/// (`unknown_edge_reference`).
pub(crate) fn drop_unknown_edges(p: &mut core::Payload<&str>) {
    let names: std::collections::HashSet<&str> =
        p.symbols.iter().map(|s| s.qualified_name).collect();
    p.edges
        .retain(|e| names.contains(e.source) && names.contains(e.target));
}

/// A decoded symbol in the crate's type (no signature or components: GCF
/// carries neither).
pub(crate) fn symbol_out(s: core::Symbol) -> Symbol {
    Symbol {
        qualified_name: s.qualified_name,
        kind: s.kind,
        score: s.score,
        provenance: s.provenance,
        // Distances past i32::MAX are refused by the decoder's limits long
        // before; saturate rather than wrap if one ever gets through.
        distance: i32::try_from(s.distance).unwrap_or(i32::MAX),
        signature: String::new(),
        components: Default::default(),
    }
}

pub(crate) fn edge_out(e: core::Edge) -> Edge {
    Edge {
        source: e.source,
        target: e.target,
        edge_type: e.edge_type,
        status: e.status,
    }
}

/// A token count in the crate's type.
pub(crate) fn count_out(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
