//! The JSON Lines record shapes of a graph stream (`gcf stream`, and any
//! binding that feeds a stream writer from JSON records).
//!
//! Each line is one of:
//! - a symbol: `{"qualifiedName", "kind", "score", "provenance", "distance"}`;
//! - an edge by id: `{"sourceId", "targetId", "edgeType", "status"}` (ids are
//!   the 0-based order of the symbol lines), or by name: `{"source",
//!   "target", ...}` (the writer then needs its name index);
//! - a location: `{"symbolId", "file", "line", "column", "endLine", "endColumn"}`.
//!
//! A line with `file` is a location, else one with `qualifiedName` a symbol,
//! else one with an edge member an edge.

use std::borrow::Cow;

use gcf_core::graph::{Edge, Location, StreamWriter, Symbol};
use gcf_core::{Error, Sink};
use serde::Deserialize;

use crate::failure::Failure;
use crate::value::read_object;

/// One parsed record.
#[derive(Debug, Clone, PartialEq)]
pub enum GraphRecord<'a> {
    /// A symbol line.
    Symbol(Symbol<Cow<'a, str>>),
    /// An edge naming its symbols by id.
    EdgeById {
        /// The source symbol's id.
        source: u64,
        /// The target symbol's id.
        target: u64,
        /// The edge type.
        edge_type: Cow<'a, str>,
        /// The status (empty for none).
        status: Cow<'a, str>,
    },
    /// An edge naming its symbols by qualified name.
    EdgeByName(Edge<Cow<'a, str>>),
    /// A location of the symbol with id `symbol_id`.
    Location {
        /// The symbol's id.
        symbol_id: u64,
        /// Where it is (its `qualified_name` is empty).
        location: Location<Cow<'a, str>>,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RecordIn<'a> {
    #[serde(borrow, default)]
    qualified_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    score: Option<f64>,
    #[serde(borrow, default)]
    provenance: Option<Cow<'a, str>>,
    #[serde(default)]
    distance: Option<u32>,
    #[serde(borrow, default)]
    source: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    target: Option<Cow<'a, str>>,
    #[serde(default)]
    source_id: Option<u64>,
    #[serde(default)]
    target_id: Option<u64>,
    #[serde(borrow, default)]
    edge_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    file: Option<Cow<'a, str>>,
    #[serde(default)]
    symbol_id: Option<u64>,
    #[serde(default)]
    line: Option<u32>,
    #[serde(default)]
    column: Option<u32>,
    #[serde(default)]
    end_line: Option<u32>,
    #[serde(default)]
    end_column: Option<u32>,
}

fn s(v: Option<Cow<'_, str>>) -> Cow<'_, str> {
    v.unwrap_or(Cow::Borrowed(""))
}

/// Parses one record line.
///
/// ```
/// use gcf_bind::records::{graph_record, GraphRecord};
/// let r = graph_record(br#"{"sourceId": 1, "targetId": 0, "edgeType": "calls"}"#)?;
/// assert!(matches!(r, GraphRecord::EdgeById { source: 1, target: 0, .. }));
/// # Ok::<(), gcf_bind::Failure>(())
/// ```
pub fn graph_record(line: &[u8]) -> Result<GraphRecord<'_>, Failure> {
    let r: RecordIn = read_object(line, "each line")?;
    if r.file.is_some() {
        let symbol_id = r.symbol_id.ok_or_else(|| {
            Failure::shape(
                "a location line needs a numeric `symbolId` (the 0-based order of the symbol lines)",
            )
        })?;
        let end = match (r.end_line, r.end_column) {
            (None, None) => None,
            (l, c) => Some((l.unwrap_or(0), c.unwrap_or(0))),
        };
        return Ok(GraphRecord::Location {
            symbol_id,
            location: Location {
                qualified_name: Cow::Borrowed(""),
                file: s(r.file),
                line: r.line.unwrap_or(0),
                column: r.column.unwrap_or(0),
                end,
            },
        });
    }
    if r.qualified_name.is_some() {
        return Ok(GraphRecord::Symbol(Symbol {
            qualified_name: s(r.qualified_name),
            kind: s(r.kind),
            score: r.score.unwrap_or(0.0),
            provenance: s(r.provenance),
            distance: r.distance.unwrap_or(0),
        }));
    }
    let edge_type = s(r.edge_type);
    let status = s(r.status);
    match (r.source_id, r.target_id, r.source, r.target) {
        (Some(source), Some(target), _, _) => Ok(GraphRecord::EdgeById {
            source,
            target,
            edge_type,
            status,
        }),
        (None, None, source @ Some(_), target) | (None, None, source, target @ Some(_)) => {
            Ok(GraphRecord::EdgeByName(Edge {
                source: s(source),
                target: s(target),
                edge_type,
                status,
            }))
        }
        (Some(_), None, ..) | (None, Some(_), ..) => Err(Failure::shape(
            "an edge needs both `sourceId` and `targetId`, or neither",
        )),
        _ => Err(Failure::shape(
            "a line must be a symbol (`qualifiedName`), an edge (`source`/`target` or \
             `sourceId`/`targetId`) or a location (`file` and `symbolId`)",
        )),
    }
}

impl GraphRecord<'_> {
    /// Writes the record to a stream writer. An edge by name needs the
    /// writer's name index (`index_names`); without it this is an
    /// `invalid_input` error that says so.
    pub fn write_to<K: Sink>(
        &self,
        writer: &mut StreamWriter<K>,
        index_names: bool,
    ) -> Result<(), Error> {
        match self {
            GraphRecord::Symbol(symbol) => writer.write_symbol(symbol).map(drop),
            GraphRecord::EdgeById {
                source,
                target,
                edge_type,
                status,
            } => writer.write_edge(*source, *target, edge_type, status),
            GraphRecord::EdgeByName(e) if index_names => {
                writer.write_edge_by_name(&e.source, &e.target, &e.edge_type, &e.status)
            }
            GraphRecord::EdgeByName(_) => Err(Error::new(
                gcf_core::ErrorKind::InvalidInput,
                "this edge names its symbols; give numeric `sourceId`/`targetId` \
                 or pass --index-names (keeps every qualified name in memory)",
            )),
            GraphRecord::Location {
                symbol_id,
                location,
            } => writer.write_location(
                *symbol_id,
                &location.file,
                location.line,
                location.column,
                location.end,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_classify() {
        let sym = graph_record(br#"{"qualifiedName":"a.B","kind":"function","score":0.5,"provenance":"x","distance":1}"#).unwrap();
        assert!(
            matches!(&sym, GraphRecord::Symbol(s) if s.distance == 1 && s.qualified_name == "a.B")
        );
        let by_name = graph_record(br#"{"source":"a","target":"b","edgeType":"calls"}"#).unwrap();
        assert!(matches!(&by_name, GraphRecord::EdgeByName(e) if e.target == "b"));
        let loc = graph_record(br#"{"symbolId":0,"file":"a.go","line":3,"column":1}"#).unwrap();
        assert!(
            matches!(&loc, GraphRecord::Location { symbol_id: 0, location } if location.line == 3)
        );
        for bad in [
            &br#"{"file":"a.go"}"#[..],
            br#"{"sourceId":1}"#,
            br#"{"x":1}"#,
            br#"[1]"#,
            br#"{"sourceId":-1,"targetId":0}"#,
        ] {
            let f = graph_record(bad).unwrap_err();
            assert_eq!(f.category, "invalid_input", "{f}");
        }
        let mut w = StreamWriter::new(Vec::new(), Default::default()).unwrap();
        sym.write_to(&mut w, false).unwrap();
        let e = by_name.write_to(&mut w, false).unwrap_err();
        assert!(e.message().contains("--index-names"));
    }
}
