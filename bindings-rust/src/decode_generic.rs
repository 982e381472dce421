//! Generic decode (spec §7), by gcf-core's strict decoder.

use gcf_core::Profile;
use serde_json::{json, Value};

use crate::types::Payload;

/// Decodes GCF text into a JSON value, key order kept. Graph-profile text
/// decodes too, as the reference crate does it: the payload as an object
/// (`tool`, `tokenBudget`, `tokensUsed`, `packRoot`, `symbols`, `edges`).
///
/// Errors read `category: message (line L, column C)`. The decoder is
/// strict (every spec §16.5 error, the §12 limits), where the crate's
/// accepts some malformed text; `bindings-rust/README.md` lists where the
/// two read the same text differently.
pub fn decode_generic(input: &str) -> Result<Value, String> {
    if let Ok(Profile::Graph) = gcf_core::detect_profile(input) {
        let p = crate::decode(input).map_err(|e| e.to_string())?;
        return Ok(graph_value(&p));
    }
    // Built straight into serde_json's value: no gcf-core tree in between.
    gcf_core::generic::Decoder::new()
        .decode_json(input)
        .map_err(|e| crate::error_text(&e))
}

/// A decoded graph payload as the JSON object the reference crate makes of
/// it (camelCase names, every field present).
fn graph_value(p: &Payload) -> Value {
    let symbols: Vec<Value> = p
        .symbols
        .iter()
        .map(|s| {
            json!({
                "qualifiedName": s.qualified_name,
                "kind": s.kind,
                "score": s.score,
                "provenance": s.provenance,
                "distance": s.distance,
            })
        })
        .collect();
    let edges: Vec<Value> = p
        .edges
        .iter()
        .map(|e| {
            json!({
                "source": e.source,
                "target": e.target,
                "edgeType": e.edge_type,
                "status": e.status,
            })
        })
        .collect();
    json!({
        "tool": p.tool,
        "tokenBudget": p.token_budget,
        "tokensUsed": p.tokens_used,
        "packRoot": p.pack_root,
        "symbols": symbols,
        "edges": edges,
    })
}
