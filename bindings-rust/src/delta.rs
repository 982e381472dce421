//! Graph deltas (spec §10), by gcf-core.

use gcf_core::graph::{self as core, Delta, Snapshot, SymbolRef};
use gcf_core::Error;
use std::collections::HashMap;

use crate::convert::{count_out, edge_out, edges_in, symbol_out, symbols_in, unsigned};
use crate::types::{DeltaPayload, Edge, Symbol};

/// A symbol's identity in a delta's `## removed` section.
fn identity(s: &Symbol) -> SymbolRef<&str> {
    SymbolRef {
        kind: s.kind.as_str(),
        qualified_name: s.qualified_name.as_str(),
    }
}

/// Encodes a graph delta, byte for byte as the reference crate writes it.
///
/// A delta gcf-core refuses (a name with whitespace, a negative distance or
/// token count) encodes as `""`, never as invalid GCF and never a panic;
/// [`encode_delta_checked`] gives the reason.
pub fn encode_delta(d: &DeltaPayload) -> String {
    encode_delta_checked(d).unwrap_or_default()
}

/// [`encode_delta`] with the error of a delta gcf-core refuses (an addition
/// to the reference crate's API).
pub fn encode_delta_checked(d: &DeltaPayload) -> Result<String, Error> {
    let delta = Delta {
        tool: d.tool.as_str(),
        base_root: d.base_root.as_str(),
        new_root: d.new_root.as_str(),
        removed: d.removed.iter().map(identity).collect(),
        added: symbols_in(&d.added)?,
        removed_edges: edges_in(&d.removed_edges),
        added_edges: edges_in(&d.added_edges),
        delta_tokens: unsigned(d.delta_tokens, "delta_tokens")?,
        full_tokens: unsigned(d.full_tokens, "full_tokens")?,
    };
    core::encode_delta(&delta)
}

/// Decodes a graph delta. A removed symbol comes back as its kind (in
/// full) and qualified name, the other fields empty, as in the reference
/// crate. Errors read `category: message (line L, column C)`; the decoder
/// is strict (spec §16.5), where the crate's skips lines it does not know.
pub fn decode_delta(input: &str) -> Result<DeltaPayload, String> {
    let d = core::decode_delta(input).map_err(|e| crate::error_text(&e))?;
    Ok(DeltaPayload {
        tool: d.tool,
        base_root: d.base_root,
        new_root: d.new_root,
        removed: d
            .removed
            .into_iter()
            .map(|r| {
                symbol_out(core::Symbol::new(
                    r.qualified_name,
                    r.kind,
                    0.0,
                    String::new(),
                    0,
                ))
            })
            .collect(),
        added: d.added.into_iter().map(symbol_out).collect(),
        removed_edges: d.removed_edges.into_iter().map(edge_out).collect(),
        added_edges: d.added_edges.into_iter().map(edge_out).collect(),
        delta_tokens: count_out(d.delta_tokens),
        full_tokens: count_out(d.full_tokens),
    })
}

fn owned<S: AsRef<str>>(s: &core::Symbol<S>) -> core::Symbol {
    core::Symbol::new(
        s.qualified_name.as_ref().to_string(),
        s.kind.as_ref().to_string(),
        s.score,
        s.provenance.as_ref().to_string(),
        s.distance,
    )
}

fn owned_edge<S: AsRef<str>>(e: &core::Edge<S>) -> core::Edge {
    core::Edge {
        source: e.source.as_ref().to_string(),
        target: e.target.as_ref().to_string(),
        edge_type: e.edge_type.as_ref().to_string(),
        status: e.status.as_ref().to_string(),
    }
}

/// Applies a delta's operations to a base snapshot and checks that the
/// result's pack root is `expected_new_root` (spec §10.4). Returns the
/// result's symbols and edges in gcf-core's order (the crate's come from a
/// hash map), each the caller's own: signatures and components, which a
/// snapshot does not hold, come back as given. Errors: `delta_invalid` (removing what is not there, adding what
/// is), `root_mismatch`, and those of input gcf-core refuses.
#[allow(clippy::too_many_arguments)]
pub fn verify_delta(
    base_symbols: &[Symbol],
    base_edges: &[Edge],
    removed_symbols: &[Symbol],
    added_symbols: &[Symbol],
    removed_edges: &[Edge],
    added_edges: &[Edge],
    expected_new_root: &str,
) -> Result<(Vec<Symbol>, Vec<Edge>), String> {
    let verify = || -> Result<Snapshot, Error> {
        let base = Snapshot {
            symbols: symbols_in(base_symbols)?.iter().map(owned).collect(),
            edges: edges_in(base_edges).iter().map(owned_edge).collect(),
        };
        let delta = Delta {
            tool: String::new(),
            base_root: base.pack_root()?,
            new_root: expected_new_root.to_string(),
            removed: removed_symbols
                .iter()
                .map(|s| SymbolRef {
                    kind: s.kind.clone(),
                    qualified_name: s.qualified_name.clone(),
                })
                .collect(),
            added: symbols_in(added_symbols)?.iter().map(owned).collect(),
            removed_edges: edges_in(removed_edges).iter().map(owned_edge).collect(),
            added_edges: edges_in(added_edges).iter().map(owned_edge).collect(),
            delta_tokens: 0,
            full_tokens: 0,
        };
        core::apply_decoded_delta(&base, &delta)
    };
    let result = verify().map_err(|e| crate::error_text(&e))?;
    // The caller's own symbols and edges, as the crate returns them (with
    // their signatures and components, which a snapshot does not hold):
    // each result item is one of the base's or the delta's, an added one
    // taking the place of a base one with its identity.
    let symbols: HashMap<(&str, &str), &Symbol> = base_symbols
        .iter()
        .chain(added_symbols)
        .map(|s| ((s.kind.as_str(), s.qualified_name.as_str()), s))
        .collect();
    let edges: HashMap<(&str, &str, &str), &Edge> = base_edges
        .iter()
        .chain(added_edges)
        .map(|e| {
            (
                (e.source.as_str(), e.target.as_str(), e.edge_type.as_str()),
                e,
            )
        })
        .collect();
    Ok((
        result
            .symbols
            .into_iter()
            .map(
                |s| match symbols.get(&(s.kind.as_str(), s.qualified_name.as_str())) {
                    Some(own) => (*own).clone(),
                    None => symbol_out(s),
                },
            )
            .collect(),
        result
            .edges
            .into_iter()
            .map(|e| {
                match edges.get(&(e.source.as_str(), e.target.as_str(), e.edge_type.as_str())) {
                    Some(own) => (*own).clone(),
                    None => edge_out(e),
                }
            })
            .collect(),
    ))
}
