//! Graph payloads, snapshots, deltas and locations as JSON, with the
//! camelCase names of the conformance fixtures and the reference SDKs
//! (`qualifiedName`, `edgeType`, `tokenBudget`, `tokensUsed`, `packRoot`,
//! `baseRoot`, `removedEdges`, ...), declared once here.
//!
//! Reading borrows: strings without escapes point into the JSON text
//! (`Cow::Borrowed`), so a 60 MB payload costs its structs and not a second
//! copy of its names. A missing field or `null` takes the type's default;
//! unknown fields are ignored; a field of the wrong type is a class `json`,
//! category `invalid_input` failure at its line and column.
//!
//! The `*In` types are serde's view of the JSON; each converts into the
//! core type field by field (same layout, so a `Vec` of them converts in
//! place).

use std::borrow::Cow;
use std::fmt;

use gcf_core::graph::{Delta, Edge, Location, Payload, Reference, Snapshot, Symbol, SymbolRef};
use serde::de::{self, Deserializer, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::failure::Failure;
use crate::host::read_object_str;
use crate::value::read_object;

/// A graph string field: `null` or missing reads as empty.
fn text<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Cow<'a, str>, D::Error> {
    struct Text;
    impl<'de> Visitor<'de> for Text {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(""))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(""))
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_str(self)
        }
        fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(s))
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(s.to_owned()))
        }
        fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
            Ok(Cow::Owned(s))
        }
    }
    d.deserialize_option(Text)
}

/// A non-negative integer field: `null` or missing reads as zero.
fn count<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A list field: `null` or missing reads as empty.
fn list<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

/// A symbol, `{"qualifiedName", "kind", "score", "provenance", "distance"}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolIn<'a> {
    #[serde(borrow, default, deserialize_with = "text")]
    qualified_name: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "text")]
    kind: Cow<'a, str>,
    #[serde(default, deserialize_with = "count")]
    score: f64,
    #[serde(borrow, default, deserialize_with = "text")]
    provenance: Cow<'a, str>,
    #[serde(default, deserialize_with = "count")]
    distance: u32,
}

impl<'a> From<SymbolIn<'a>> for Symbol<Cow<'a, str>> {
    fn from(s: SymbolIn<'a>) -> Self {
        Symbol {
            qualified_name: s.qualified_name,
            kind: s.kind,
            score: s.score,
            provenance: s.provenance,
            distance: s.distance,
        }
    }
}

/// An edge, `{"source", "target", "edgeType", "status"}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EdgeIn<'a> {
    #[serde(borrow, default, deserialize_with = "text")]
    source: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "text")]
    target: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "text")]
    edge_type: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "text")]
    status: Cow<'a, str>,
}

impl<'a> From<EdgeIn<'a>> for Edge<Cow<'a, str>> {
    fn from(e: EdgeIn<'a>) -> Self {
        Edge {
            source: e.source,
            target: e.target,
            edge_type: e.edge_type,
            status: e.status,
        }
    }
}

/// A location, `{"qualifiedName", "file", "line", "column", "endLine", "endColumn"}`;
/// the end is present when either end field is.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocationIn<'a> {
    #[serde(borrow, default, deserialize_with = "text")]
    qualified_name: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "text")]
    file: Cow<'a, str>,
    #[serde(default, deserialize_with = "count")]
    line: u32,
    #[serde(default, deserialize_with = "count")]
    column: u32,
    #[serde(default)]
    end_line: Option<u32>,
    #[serde(default)]
    end_column: Option<u32>,
}

impl<'a> From<LocationIn<'a>> for Location<Cow<'a, str>> {
    fn from(l: LocationIn<'a>) -> Self {
        let end = match (l.end_line, l.end_column) {
            (None, None) => None,
            (line, column) => Some((line.unwrap_or(0), column.unwrap_or(0))),
        };
        Location {
            qualified_name: l.qualified_name,
            file: l.file,
            line: l.line,
            column: l.column,
            end,
        }
    }
}

/// A graph payload's JSON form (the fields the encoder reads).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PayloadIn<'a> {
    #[serde(borrow, default, deserialize_with = "text")]
    tool: Cow<'a, str>,
    #[serde(default, deserialize_with = "count")]
    token_budget: u64,
    #[serde(default, deserialize_with = "count")]
    tokens_used: u64,
    #[serde(borrow, default, deserialize_with = "text")]
    pack_root: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "list")]
    symbols: Vec<SymbolIn<'a>>,
    #[serde(borrow, default, deserialize_with = "list")]
    edges: Vec<EdgeIn<'a>>,
    #[serde(borrow, default, deserialize_with = "list")]
    locations: Vec<LocationIn<'a>>,
}

fn convert<A, B: From<A>>(v: Vec<A>) -> Vec<B> {
    v.into_iter().map(B::from).collect()
}

impl<'a> From<PayloadIn<'a>> for Payload<Cow<'a, str>> {
    fn from(p: PayloadIn<'a>) -> Self {
        Payload {
            tool: p.tool,
            token_budget: p.token_budget,
            tokens_used: p.tokens_used,
            pack_root: p.pack_root,
            symbols: convert(p.symbols),
            edges: convert(p.edges),
            locations: convert(p.locations),
            ..Payload::default()
        }
    }
}

/// A snapshot, `{"symbols": [...], "edges": [...]}`.
#[derive(Debug, Deserialize)]
pub struct SnapshotIn<'a> {
    #[serde(borrow, default, deserialize_with = "list")]
    symbols: Vec<SymbolIn<'a>>,
    #[serde(borrow, default, deserialize_with = "list")]
    edges: Vec<EdgeIn<'a>>,
}

impl<'a> From<SnapshotIn<'a>> for Snapshot<Cow<'a, str>> {
    fn from(s: SnapshotIn<'a>) -> Self {
        Snapshot {
            symbols: convert(s.symbols),
            edges: convert(s.edges),
        }
    }
}

/// A removed symbol of a delta, `{"qualifiedName", "kind"}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolRefIn<'a> {
    #[serde(borrow, default, deserialize_with = "text")]
    qualified_name: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "text")]
    kind: Cow<'a, str>,
}

/// A graph delta's JSON form.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeltaIn<'a> {
    #[serde(borrow, default, deserialize_with = "text")]
    tool: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "text")]
    base_root: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "text")]
    new_root: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "list")]
    removed: Vec<SymbolRefIn<'a>>,
    #[serde(borrow, default, deserialize_with = "list")]
    added: Vec<SymbolIn<'a>>,
    #[serde(borrow, default, deserialize_with = "list")]
    removed_edges: Vec<EdgeIn<'a>>,
    #[serde(borrow, default, deserialize_with = "list")]
    added_edges: Vec<EdgeIn<'a>>,
    #[serde(default, deserialize_with = "count")]
    delta_tokens: u64,
    #[serde(default, deserialize_with = "count")]
    full_tokens: u64,
}

impl<'a> From<DeltaIn<'a>> for Delta<Cow<'a, str>> {
    fn from(d: DeltaIn<'a>) -> Self {
        Delta {
            tool: d.tool,
            base_root: d.base_root,
            new_root: d.new_root,
            removed: d
                .removed
                .into_iter()
                .map(|r| SymbolRef {
                    kind: r.kind,
                    qualified_name: r.qualified_name,
                })
                .collect(),
            added: convert(d.added),
            removed_edges: convert(d.removed_edges),
            added_edges: convert(d.added_edges),
            delta_tokens: d.delta_tokens,
            full_tokens: d.full_tokens,
        }
    }
}

/// A graph payload from JSON text, borrowing its strings where it can.
///
/// ```
/// let json = br#"{"tool": "t", "symbols": [{"qualifiedName": "a.B", "kind": "function", "score": 0.5, "provenance": "x", "distance": 0}]}"#;
/// let p = gcf_bind::graph::payload_from_slice(json)?;
/// assert_eq!(gcf_core::graph::encode(&p)?, "GCF profile=graph tool=t symbols=1\n## targets\n@0 fn a.B 0.50 x\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn payload_from_slice(json: &[u8]) -> Result<Payload<Cow<'_, str>>, Failure> {
    read_object::<PayloadIn>(json, "a graph payload").map(Payload::from)
}

/// [`payload_from_slice`] of text the host holds as `str` (see
/// `gcf_bind::host`'s docs: a host that reads only `str`s compiles one JSON
/// reader).
pub fn payload_from_str(json: &str) -> Result<Payload<Cow<'_, str>>, Failure> {
    read_object_str::<PayloadIn>(json, "a graph payload").map(Payload::from)
}

/// A snapshot from JSON text.
pub fn snapshot_from_slice(json: &[u8]) -> Result<Snapshot<Cow<'_, str>>, Failure> {
    read_object::<SnapshotIn>(json, "a snapshot").map(Snapshot::from)
}

/// [`snapshot_from_slice`] of a `str`.
pub fn snapshot_from_str(json: &str) -> Result<Snapshot<Cow<'_, str>>, Failure> {
    read_object_str::<SnapshotIn>(json, "a snapshot").map(Snapshot::from)
}

/// A snapshot with owned strings, for the core APIs that hold one
/// (`graph::respond`, sessions).
pub fn owned_snapshot<S: AsRef<str>>(s: &Snapshot<S>) -> Snapshot {
    Snapshot {
        symbols: s.symbols.iter().map(Symbol::to_owned_symbol).collect(),
        edges: s.edges.iter().map(Edge::to_owned_edge).collect(),
    }
}

/// A graph delta from JSON text.
pub fn delta_from_slice(json: &[u8]) -> Result<Delta<Cow<'_, str>>, Failure> {
    read_object::<DeltaIn>(json, "a graph delta").map(Delta::from)
}

/// [`delta_from_slice`] of a `str`.
pub fn delta_from_str(json: &str) -> Result<Delta<Cow<'_, str>>, Failure> {
    read_object_str::<DeltaIn>(json, "a graph delta").map(Delta::from)
}

/// A symbol from JSON text (one record of a stream).
pub fn symbol_from_slice(json: &[u8]) -> Result<Symbol<Cow<'_, str>>, Failure> {
    read_object::<SymbolIn>(json, "a symbol").map(Symbol::from)
}

/// An edge from JSON text.
pub fn edge_from_slice(json: &[u8]) -> Result<Edge<Cow<'_, str>>, Failure> {
    read_object::<EdgeIn>(json, "an edge").map(Edge::from)
}

/// A location from JSON text.
pub fn location_from_slice(json: &[u8]) -> Result<Location<Cow<'_, str>>, Failure> {
    read_object::<LocationIn>(json, "a location").map(Location::from)
}

/// Serializes a symbol, `{"qualifiedName", "kind", "score", "provenance", "distance"}`.
pub struct SymbolJson<'a, S>(pub &'a Symbol<S>);

impl<S: AsRef<str>> Serialize for SymbolJson<'_, S> {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        let s = self.0;
        let mut m = z.serialize_map(Some(5))?;
        m.serialize_entry("qualifiedName", s.qualified_name.as_ref())?;
        m.serialize_entry("kind", s.kind.as_ref())?;
        if s.score.is_finite() {
            m.serialize_entry("score", &s.score)?;
        } else {
            m.serialize_entry("score", &())?;
        }
        m.serialize_entry("provenance", s.provenance.as_ref())?;
        m.serialize_entry("distance", &s.distance)?;
        m.end()
    }
}

/// Serializes an edge, `{"source", "target", "edgeType", "status"}`.
pub struct EdgeJson<'a, S>(pub &'a Edge<S>);

impl<S: AsRef<str>> Serialize for EdgeJson<'_, S> {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        let e = self.0;
        let mut m = z.serialize_map(Some(4))?;
        m.serialize_entry("source", e.source.as_ref())?;
        m.serialize_entry("target", e.target.as_ref())?;
        m.serialize_entry("edgeType", e.edge_type.as_ref())?;
        m.serialize_entry("status", e.status.as_ref())?;
        m.end()
    }
}

/// Serializes a location; the end fields only when it has an end.
pub struct LocationJson<'a, S>(pub &'a Location<S>);

impl<S: AsRef<str>> Serialize for LocationJson<'_, S> {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        let l = self.0;
        let mut m = z.serialize_map(None)?;
        m.serialize_entry("qualifiedName", l.qualified_name.as_ref())?;
        m.serialize_entry("file", l.file.as_ref())?;
        m.serialize_entry("line", &l.line)?;
        m.serialize_entry("column", &l.column)?;
        if let Some((line, column)) = l.end {
            m.serialize_entry("endLine", &line)?;
            m.serialize_entry("endColumn", &column)?;
        }
        m.end()
    }
}

struct Each<'a, T, W>(&'a [T], fn(&'a T) -> W);

impl<'a, T, W: Serialize> Serialize for Each<'a, T, W> {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        z.collect_seq(self.0.iter().map(self.1))
    }
}

#[derive(Serialize)]
struct ReferenceJson {
    id: u64,
    distance: u32,
}

/// Serializes a payload: the encoder's fields always, `locations` when
/// there are any, and the decoder's `session`, `unchanged` and
/// `references` only when set.
pub struct PayloadJson<'a, S>(pub &'a Payload<S>);

impl<S: AsRef<str>> Serialize for PayloadJson<'_, S> {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        let p = self.0;
        let mut m = z.serialize_map(None)?;
        m.serialize_entry("tool", p.tool.as_ref())?;
        m.serialize_entry("tokenBudget", &p.token_budget)?;
        m.serialize_entry("tokensUsed", &p.tokens_used)?;
        m.serialize_entry("packRoot", p.pack_root.as_ref())?;
        m.serialize_entry("symbols", &Each(&p.symbols, SymbolJson))?;
        m.serialize_entry("edges", &Each(&p.edges, EdgeJson))?;
        if !p.locations.is_empty() {
            m.serialize_entry("locations", &Each(&p.locations, LocationJson))?;
        }
        if p.session {
            m.serialize_entry("session", &true)?;
        }
        if p.unchanged {
            m.serialize_entry("unchanged", &true)?;
        }
        if !p.references.is_empty() {
            let refs = |r: &Reference| ReferenceJson {
                id: r.id,
                distance: r.distance,
            };
            m.serialize_entry("references", &Each(&p.references, refs))?;
        }
        m.end()
    }
}

/// Serializes a decoded payload as the reference SDKs' `gcf decode` commands
/// print it (gcf-python 2.8.0 and 2.5.2 alike): `tokensUsed` before
/// `tokenBudget`, an edge's `status` only when it has one, `locations` after
/// the edges when there are any. The payload's other decoder fields are not
/// written: a bare reference has no place here (decode it refused).
pub struct DecodedPayloadJson<'a, S>(pub &'a Payload<S>);

impl<S: AsRef<str>> Serialize for DecodedPayloadJson<'_, S> {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        struct StatusWhenSet<'a, S>(&'a Edge<S>);
        impl<S: AsRef<str>> Serialize for StatusWhenSet<'_, S> {
            fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
                let e = self.0;
                let mut m = z.serialize_map(None)?;
                m.serialize_entry("source", e.source.as_ref())?;
                m.serialize_entry("target", e.target.as_ref())?;
                m.serialize_entry("edgeType", e.edge_type.as_ref())?;
                if !e.status.as_ref().is_empty() {
                    m.serialize_entry("status", e.status.as_ref())?;
                }
                m.end()
            }
        }
        let p = self.0;
        let mut m = z.serialize_map(None)?;
        m.serialize_entry("tool", p.tool.as_ref())?;
        m.serialize_entry("tokensUsed", &p.tokens_used)?;
        m.serialize_entry("tokenBudget", &p.token_budget)?;
        m.serialize_entry("packRoot", p.pack_root.as_ref())?;
        m.serialize_entry("symbols", &Each(&p.symbols, SymbolJson))?;
        m.serialize_entry("edges", &Each(&p.edges, StatusWhenSet))?;
        if !p.locations.is_empty() {
            m.serialize_entry("locations", &Each(&p.locations, LocationJson))?;
        }
        m.end()
    }
}

/// Serializes a snapshot, `{"symbols", "edges"}`.
pub struct SnapshotJson<'a, S>(pub &'a Snapshot<S>);

impl<S: AsRef<str>> Serialize for SnapshotJson<'_, S> {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        let mut m = z.serialize_map(Some(2))?;
        m.serialize_entry("symbols", &Each(&self.0.symbols, SymbolJson))?;
        m.serialize_entry("edges", &Each(&self.0.edges, EdgeJson))?;
        m.end()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RemovedJson<'b> {
    qualified_name: &'b str,
    kind: &'b str,
}

fn removed_json<S: AsRef<str>>(r: &SymbolRef<S>) -> RemovedJson<'_> {
    RemovedJson {
        qualified_name: r.qualified_name.as_ref(),
        kind: r.kind.as_ref(),
    }
}

/// Serializes a delta, the shape [`delta_from_slice`] reads.
pub struct DeltaJson<'a, S>(pub &'a Delta<S>);

impl<S: AsRef<str>> Serialize for DeltaJson<'_, S> {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        let d = self.0;
        let mut m = z.serialize_map(Some(9))?;
        m.serialize_entry("tool", d.tool.as_ref())?;
        m.serialize_entry("baseRoot", d.base_root.as_ref())?;
        m.serialize_entry("newRoot", d.new_root.as_ref())?;
        m.serialize_entry("removed", &Each(&d.removed, removed_json))?;
        m.serialize_entry("added", &Each(&d.added, SymbolJson))?;
        m.serialize_entry("removedEdges", &Each(&d.removed_edges, EdgeJson))?;
        m.serialize_entry("addedEdges", &Each(&d.added_edges, EdgeJson))?;
        m.serialize_entry("deltaTokens", &d.delta_tokens)?;
        m.serialize_entry("fullTokens", &d.full_tokens)?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrows_defaults_and_round_trips() {
        let text = br#"{"tool": "t", "tokenBudget": 5, "extra": [1, {"x": null}],
            "symbols": [{"qualifiedName": "a", "kind": "type", "score": 1, "provenance": "x", "distance": 2},
                        {"qualifiedName": "b\u00e9", "kind": null, "score": 0.25}],
            "edges": [{"source": "a", "target": "a", "edgeType": "self"}],
            "locations": [{"qualifiedName": "a", "file": "f.go", "line": 1, "column": 2, "endLine": 3, "endColumn": 4}]}"#;
        let p = payload_from_slice(text).unwrap();
        assert!(matches!(p.symbols[0].qualified_name, Cow::Borrowed("a")));
        assert!(matches!(&p.symbols[1].qualified_name, Cow::Owned(s) if s == "bé"));
        assert_eq!((p.symbols[1].kind.as_ref(), p.symbols[1].distance), ("", 0));
        assert_eq!(p.symbols[0].score, 1.0);
        assert_eq!(p.locations[0].end, Some((3, 4)));
        let json = serde_json::to_vec(&PayloadJson(&p)).unwrap();
        assert_eq!(payload_from_slice(&json).unwrap(), p);
    }

    #[test]
    fn wrong_shapes_fail_with_a_position() {
        for (text, at) in [
            (r#"{"symbols": [{"score": "high"}]}"#, 29),
            (r#"{"symbols": [{"distance": -1}]}"#, 28),
            (r#"{"symbols": [{"distance": 4294967296}]}"#, 36),
            (r#"{"edges": {}}"#, 10),
            ("[]", 1),
        ] {
            let f = payload_from_slice(text.as_bytes()).unwrap_err();
            assert_eq!(
                (f.class.name(), f.category),
                ("json", "invalid_input"),
                "{f}"
            );
            assert_eq!((f.line, f.column), (Some(1), Some(at)), "{text}: {f}");
        }
    }

    #[test]
    fn deltas_round_trip() {
        let d = gcf_core::graph::decode_delta(
            "GCF profile=graph delta=true base_root=a new_root=b tokens=3\n## removed\nfn x\n## added\n@0 type y 0.50 p 2\n## edges_added\ny -> x calls\n",
        )
        .unwrap();
        let json = serde_json::to_vec(&DeltaJson(&d)).unwrap();
        let back = delta_from_slice(&json).unwrap();
        assert_eq!(back.added[0].qualified_name, "y");
        assert_eq!(serde_json::to_vec(&DeltaJson(&back)).unwrap(), json);
    }
}
