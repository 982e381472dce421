//! Graph payloads as JSON, with the camelCase names the conformance fixtures
//! and the reference SDKs use (`qualifiedName`, `edgeType`, `tokenBudget`,
//! `tokensUsed`, `packRoot`).
//!
//! Missing fields take their defaults; a field of the wrong type is an
//! [`ErrorKind::InvalidInput`] error naming the path.
//!
//! Why this exists beside `gcf-bind`'s serde models: those read JSON *text*
//! straight into core types (with the bindings' error model); this walks an
//! in-memory `serde_json::Value` both ways, which the differential tests
//! (`interop`), the benchmarks' workloads, the fuzz targets and the
//! conformance cross-check (`spec-tests/tests/serde_model.rs`, which holds
//! the two against each other) need.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map as JsonMap, Value as Json};

use super::delta::{Delta, Snapshot, SymbolRef};
use super::types::{Edge, Location, Payload, Symbol};
use crate::error::{Error, ErrorKind};

fn invalid(path: &str, what: &str) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        alloc::format!("`{path}` must be {what}"),
    )
}

fn object<'a>(v: &'a Json, path: &str) -> Result<&'a JsonMap<String, Json>, Error> {
    v.as_object().ok_or_else(|| invalid(path, "an object"))
}

fn string(o: &JsonMap<String, Json>, key: &str, path: &str) -> Result<String, Error> {
    match o.get(key) {
        None | Some(Json::Null) => Ok(String::new()),
        Some(Json::String(s)) => Ok(s.clone()),
        Some(_) => Err(invalid(&alloc::format!("{path}.{key}"), "a string")),
    }
}

fn unsigned(o: &JsonMap<String, Json>, key: &str, path: &str) -> Result<u64, Error> {
    match o.get(key) {
        None | Some(Json::Null) => Ok(0),
        Some(Json::Number(n)) => n
            .as_u64()
            .ok_or_else(|| invalid(&alloc::format!("{path}.{key}"), "a non-negative integer")),
        Some(_) => Err(invalid(
            &alloc::format!("{path}.{key}"),
            "a non-negative integer",
        )),
    }
}

fn float(o: &JsonMap<String, Json>, key: &str, path: &str) -> Result<f64, Error> {
    match o.get(key) {
        None | Some(Json::Null) => Ok(0.0),
        Some(Json::Number(n)) => n
            .as_f64()
            .ok_or_else(|| invalid(&alloc::format!("{path}.{key}"), "a number")),
        Some(_) => Err(invalid(&alloc::format!("{path}.{key}"), "a number")),
    }
}

fn array<'a>(o: &'a JsonMap<String, Json>, key: &str, path: &str) -> Result<&'a [Json], Error> {
    match o.get(key) {
        None | Some(Json::Null) => Ok(&[]),
        Some(Json::Array(a)) => Ok(a),
        Some(_) => Err(invalid(&alloc::format!("{path}.{key}"), "an array")),
    }
}

fn distance(o: &JsonMap<String, Json>, path: &str) -> Result<u32, Error> {
    u32::try_from(unsigned(o, "distance", path)?)
        .map_err(|_| invalid(&alloc::format!("{path}.distance"), "below 2^32"))
}

/// A symbol from `{"qualifiedName", "kind", "score", "provenance", "distance"}`.
pub fn symbol_from_json(v: &Json) -> Result<Symbol, Error> {
    let o = object(v, "symbol")?;
    Ok(Symbol {
        qualified_name: string(o, "qualifiedName", "symbol")?,
        kind: string(o, "kind", "symbol")?,
        score: float(o, "score", "symbol")?,
        provenance: string(o, "provenance", "symbol")?,
        distance: distance(o, "symbol")?,
    })
}

/// An edge from `{"source", "target", "edgeType", "status"}`.
pub fn edge_from_json(v: &Json) -> Result<Edge, Error> {
    let o = object(v, "edge")?;
    Ok(Edge {
        source: string(o, "source", "edge")?,
        target: string(o, "target", "edge")?,
        edge_type: string(o, "edgeType", "edge")?,
        status: string(o, "status", "edge")?,
    })
}

/// A location from `{"qualifiedName", "file", "line", "column", "endLine", "endColumn"}`.
pub fn location_from_json(v: &Json) -> Result<Location, Error> {
    let o = object(v, "location")?;
    let num = |key: &str| -> Result<u32, Error> {
        u32::try_from(unsigned(o, key, "location")?)
            .map_err(|_| invalid(&alloc::format!("location.{key}"), "below 2^32"))
    };
    let end = match (o.get("endLine"), o.get("endColumn")) {
        (None | Some(Json::Null), None | Some(Json::Null)) => None,
        _ => Some((num("endLine")?, num("endColumn")?)),
    };
    Ok(Location {
        qualified_name: string(o, "qualifiedName", "location")?,
        file: string(o, "file", "location")?,
        line: num("line")?,
        column: num("column")?,
        end,
    })
}

fn list<T>(
    o: &JsonMap<String, Json>,
    key: &str,
    each: impl Fn(&Json) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    array(o, key, "payload")?
        .iter()
        .enumerate()
        .map(|(i, v)| {
            each(v).map_err(|e| Error::new(e.kind(), alloc::format!("{key}[{i}]: {}", e.message())))
        })
        .collect()
}

/// A payload from its JSON form.
///
/// ```
/// let json = serde_json::json!({"tool": "t", "symbols": [{"qualifiedName": "a.B", "kind": "function", "score": 0.5, "provenance": "x", "distance": 0}]});
/// let p = gcf_core::graph::payload_from_json(&json)?;
/// assert_eq!(gcf_core::graph::encode(&p)?, "GCF profile=graph tool=t symbols=1\n## targets\n@0 fn a.B 0.50 x\n");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn payload_from_json(v: &Json) -> Result<Payload, Error> {
    let o = object(v, "payload")?;
    Ok(Payload {
        tool: string(o, "tool", "payload")?,
        token_budget: unsigned(o, "tokenBudget", "payload")?,
        tokens_used: unsigned(o, "tokensUsed", "payload")?,
        pack_root: string(o, "packRoot", "payload")?,
        symbols: list(o, "symbols", symbol_from_json)?,
        edges: list(o, "edges", edge_from_json)?,
        locations: list(o, "locations", location_from_json)?,
        ..Payload::default()
    })
}

/// A snapshot from `{"symbols": [...], "edges": [...]}`.
pub fn snapshot_from_json(v: &Json) -> Result<Snapshot, Error> {
    let o = object(v, "snapshot")?;
    Ok(Snapshot {
        symbols: list(o, "symbols", symbol_from_json)?,
        edges: list(o, "edges", edge_from_json)?,
    })
}

/// A delta from `{"tool", "baseRoot", "newRoot", "removed", "added",
/// "removedEdges", "addedEdges", "deltaTokens", "fullTokens"}`.
pub fn delta_from_json(v: &Json) -> Result<Delta, Error> {
    let o = object(v, "delta")?;
    Ok(Delta {
        tool: string(o, "tool", "delta")?,
        base_root: string(o, "baseRoot", "delta")?,
        new_root: string(o, "newRoot", "delta")?,
        removed: list(o, "removed", |v| {
            let o = object(v, "removed")?;
            Ok(SymbolRef {
                kind: string(o, "kind", "removed")?,
                qualified_name: string(o, "qualifiedName", "removed")?,
            })
        })?,
        added: list(o, "added", symbol_from_json)?,
        removed_edges: list(o, "removedEdges", edge_from_json)?,
        added_edges: list(o, "addedEdges", edge_from_json)?,
        delta_tokens: unsigned(o, "deltaTokens", "delta")?,
        full_tokens: unsigned(o, "fullTokens", "delta")?,
    })
}

fn score_json(score: f64) -> Json {
    serde_json::Number::from_f64(score).map_or(Json::Null, Json::Number)
}

/// A symbol as JSON.
pub fn symbol_to_json<S: AsRef<str>>(s: &Symbol<S>) -> Json {
    let mut o = JsonMap::new();
    o.insert(
        "qualifiedName".to_string(),
        Json::from(s.qualified_name.as_ref()),
    );
    o.insert("kind".to_string(), Json::from(s.kind.as_ref()));
    o.insert("score".to_string(), score_json(s.score));
    o.insert("provenance".to_string(), Json::from(s.provenance.as_ref()));
    o.insert("distance".to_string(), Json::from(s.distance));
    Json::Object(o)
}

/// An edge as JSON.
pub fn edge_to_json<S: AsRef<str>>(e: &Edge<S>) -> Json {
    let mut o = JsonMap::new();
    o.insert("source".to_string(), Json::from(e.source.as_ref()));
    o.insert("target".to_string(), Json::from(e.target.as_ref()));
    o.insert("edgeType".to_string(), Json::from(e.edge_type.as_ref()));
    o.insert("status".to_string(), Json::from(e.status.as_ref()));
    Json::Object(o)
}

/// A payload as JSON (decoder-only fields `session`, `unchanged` and
/// `references` appear only when set).
pub fn payload_to_json<S: AsRef<str>>(p: &Payload<S>) -> Json {
    let mut o = JsonMap::new();
    o.insert("tool".to_string(), Json::from(p.tool.as_ref()));
    o.insert("tokenBudget".to_string(), Json::from(p.token_budget));
    o.insert("tokensUsed".to_string(), Json::from(p.tokens_used));
    o.insert("packRoot".to_string(), Json::from(p.pack_root.as_ref()));
    o.insert(
        "symbols".to_string(),
        p.symbols.iter().map(symbol_to_json).collect(),
    );
    o.insert(
        "edges".to_string(),
        p.edges.iter().map(edge_to_json).collect(),
    );
    if !p.locations.is_empty() {
        let locs = p.locations.iter().map(|l| {
            let mut m = JsonMap::new();
            m.insert(
                "qualifiedName".to_string(),
                Json::from(l.qualified_name.as_ref()),
            );
            m.insert("file".to_string(), Json::from(l.file.as_ref()));
            m.insert("line".to_string(), Json::from(l.line));
            m.insert("column".to_string(), Json::from(l.column));
            if let Some((el, ec)) = l.end {
                m.insert("endLine".to_string(), Json::from(el));
                m.insert("endColumn".to_string(), Json::from(ec));
            }
            Json::Object(m)
        });
        o.insert("locations".to_string(), locs.collect());
    }
    if p.session {
        o.insert("session".to_string(), Json::Bool(true));
    }
    if p.unchanged {
        o.insert("unchanged".to_string(), Json::Bool(true));
    }
    if !p.references.is_empty() {
        let refs = p.references.iter().map(|r| {
            let mut m = JsonMap::new();
            m.insert("id".to_string(), Json::from(r.id));
            m.insert("distance".to_string(), Json::from(r.distance));
            Json::Object(m)
        });
        o.insert("references".to_string(), refs.collect());
    }
    Json::Object(o)
}

/// A delta as JSON, the shape [`delta_from_json`] reads.
pub fn delta_to_json<S: AsRef<str>>(d: &Delta<S>) -> Json {
    let mut o = JsonMap::new();
    o.insert("tool".to_string(), Json::from(d.tool.as_ref()));
    o.insert("baseRoot".to_string(), Json::from(d.base_root.as_ref()));
    o.insert("newRoot".to_string(), Json::from(d.new_root.as_ref()));
    let removed = d.removed.iter().map(|r| {
        let mut m = JsonMap::new();
        m.insert(
            "qualifiedName".to_string(),
            Json::from(r.qualified_name.as_ref()),
        );
        m.insert("kind".to_string(), Json::from(r.kind.as_ref()));
        Json::Object(m)
    });
    o.insert("removed".to_string(), removed.collect());
    o.insert(
        "added".to_string(),
        d.added.iter().map(symbol_to_json).collect(),
    );
    o.insert(
        "removedEdges".to_string(),
        d.removed_edges.iter().map(edge_to_json).collect(),
    );
    o.insert(
        "addedEdges".to_string(),
        d.added_edges.iter().map(edge_to_json).collect(),
    );
    o.insert("deltaTokens".to_string(), Json::from(d.delta_tokens));
    o.insert("fullTokens".to_string(), Json::from(d.full_tokens));
    Json::Object(o)
}

/// A snapshot as JSON.
pub fn snapshot_to_json<S: AsRef<str>>(s: &Snapshot<S>) -> Json {
    let mut o = JsonMap::new();
    o.insert(
        "symbols".to_string(),
        s.symbols.iter().map(symbol_to_json).collect(),
    );
    o.insert(
        "edges".to_string(),
        s.edges.iter().map(edge_to_json).collect(),
    );
    Json::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_and_reports_paths() {
        let v = json!({"tool": "t", "tokenBudget": 5, "symbols": [{"qualifiedName": "a", "kind": "type", "score": 0.5, "provenance": "x", "distance": 2}],
                        "edges": [{"source": "a", "target": "a", "edgeType": "self"}],
                        "locations": [{"qualifiedName": "a", "file": "f.go", "line": 1, "column": 2, "endLine": 3, "endColumn": 4}]});
        let p = payload_from_json(&v).unwrap();
        assert_eq!(p.locations[0].end, Some((3, 4)));
        let back = payload_to_json(&p);
        assert_eq!(payload_from_json(&back).unwrap(), p);
        let e = payload_from_json(&json!({"symbols": [{"score": "high"}]})).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(e.message().contains("symbols[0]"), "{}", e.message());
        assert!(payload_from_json(&json!([])).is_err());
        assert!(payload_from_json(&json!({"symbols": [{"distance": -1}]})).is_err());
        let d = crate::graph::decode_delta(
            "GCF profile=graph delta=true base_root=a new_root=b tokens=3\n## removed\nfn x\n## added\n@0 type y 0.50 p 2\n## edges_added\ny -> x calls\n",
        )
        .unwrap();
        assert_eq!(delta_from_json(&delta_to_json(&d)).unwrap(), d);
    }
}
