//! The streaming graph writer (spec §8): symbols and edges are written the
//! moment they are produced, counts come last in the `##! summary` trailer.

use alloc::string::String;
use alloc::vec::Vec;

use hashbrown::HashMap;

use super::encode::{
    check_header_value, check_location, check_token, write_checked_edge_line, write_checked_node,
    write_group_header, write_loc_line,
};
use super::kind::abbreviate_kind;
use super::line::{self, ShortTokens, MAX_DIGITS, MAX_SCORE, SLACK};
use super::types::Symbol;
use crate::buffer::{Buffered, DEFAULT_CAPACITY};
use crate::error::{Error, ErrorKind};
use crate::number::NumberBuffer;
use crate::sink::Sink;

/// How the trailer reports its counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TrailerForm {
    /// `##! summary symbols=4 edges=3 counts=2,2,3` (spec §8.4, the default).
    #[default]
    Positional,
    /// `##! summary symbols=4 edges=3 counts=targets:2,related:2,edges:3` (spec §8.4.1).
    Labeled,
    /// `## _summary symbols=4 edges=3 sections=targets:2,related:2,edges:3`, the
    /// form of the first streaming drafts, for consumers built against them.
    Legacy,
}

/// Header fields and choices for a [`StreamWriter`].
#[derive(Debug, Clone, Default)]
pub struct StreamOptions<'a> {
    /// Producing tool (`tool=`); omitted when empty.
    pub tool: &'a str,
    /// Token budget (`budget=`); omitted when zero.
    pub token_budget: u64,
    /// Tokens used (`tokens=`); omitted when zero.
    pub tokens_used: u64,
    /// Trailer form.
    pub trailer: TrailerForm,
    /// Keep a name -> id index so [`StreamWriter::write_edge_by_name`] works.
    /// It costs one owned copy of every qualified name (an allocation per
    /// symbol and memory that grows with the stream); leave it off and write
    /// edges by id for constant memory.
    pub index_names: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Symbols,
    Edges,
    Locations,
}

/// Writes a graph payload incrementally in O(1) memory.
///
/// Symbols get ids 0, 1, 2, ... in the order written; a group header is
/// written whenever the distance changes (write symbols grouped by distance,
/// as a breadth-first traversal does, to get one header per group). Edges
/// follow the symbols and name them by id; locations follow the edges.
/// After the header, writing a symbol, an edge by id or a location performs
/// no heap allocation: output goes through a fixed 8 KiB buffer to the sink.
///
/// ```
/// use gcf_core::graph::{StreamOptions, StreamWriter, Symbol};
///
/// let mut w = StreamWriter::new(Vec::new(), StreamOptions { tool: "ctx", ..Default::default() })?;
/// let auth = w.write_symbol(&Symbol::new("pkg.Auth", "function", 0.95, "lsp", 0))?;
/// let server = w.write_symbol(&Symbol::new("pkg.Server", "function", 0.6, "lsp", 1))?;
/// w.write_edge(server, auth, "calls", "")?;
/// let out = w.finish()?;
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "GCF profile=graph tool=ctx\n## targets\n@0 fn pkg.Auth 0.95 lsp\n## related\n\
///      @1 fn pkg.Server 0.60 lsp\n## edges [?]\n@0<@1 calls\n##! summary symbols=2 edges=1 counts=1,1,1\n"
/// );
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub struct StreamWriter<K: Sink> {
    out: Buffered<K>,
    numbers: NumberBuffer,
    phase: Phase,
    /// `(distance, symbols)` per group header written, in order.
    groups: Vec<(u32, u64)>,
    symbols: u64,
    edges: u64,
    locations: u64,
    trailer: TrailerForm,
    names: Option<HashMap<String, u64>>,
    /// Checked kinds (with their abbreviations), provenances and edge types.
    kinds: ShortTokens,
    provenances: ShortTokens,
    edge_types: ShortTokens,
    /// Where each line is assembled before it goes to `out` in one piece.
    line: [u8; LINE],
}

/// Scores below this take the fixed two-decimal layout ([`line::put_score`]).
const SHORT_SCORE_LIMIT: f64 = (1u64 << 56) as f64;

/// Room for a line with a qualified name of up to about 150 bytes; longer
/// lines are written piece by piece.
const LINE: usize = 256;

impl<K: Sink> StreamWriter<K> {
    /// Writes the header (without counts) and returns the writer.
    pub fn new(sink: K, options: StreamOptions<'_>) -> Result<Self, Error> {
        let mut out = Buffered::new(sink, DEFAULT_CAPACITY);
        let mut n = itoa::Buffer::new();
        out.write_bytes(b"GCF profile=graph")?;
        if !options.tool.is_empty() {
            check_header_value("tool", options.tool)?;
            out.write_bytes(b" tool=")?;
            out.write_str(options.tool)?;
        }
        if options.token_budget > 0 {
            out.write_bytes(b" budget=")?;
            out.write_str(n.format(options.token_budget))?;
        }
        if options.tokens_used > 0 {
            out.write_bytes(b" tokens=")?;
            out.write_str(n.format(options.tokens_used))?;
        }
        out.write_bytes(b"\n")?;
        Ok(StreamWriter {
            out,
            numbers: NumberBuffer::new(),
            phase: Phase::Symbols,
            groups: Vec::with_capacity(8),
            symbols: 0,
            edges: 0,
            locations: 0,
            trailer: options.trailer,
            names: options.index_names.then(HashMap::new),
            kinds: ShortTokens::new(),
            provenances: ShortTokens::new(),
            edge_types: ShortTokens::new(),
            line: [0; LINE],
        })
    }

    /// Writes a symbol and returns its id.
    pub fn write_symbol<S: AsRef<str>>(&mut self, symbol: &Symbol<S>) -> Result<u64, Error> {
        if self.phase != Phase::Symbols {
            return Err(Error::new(
                ErrorKind::InvalidState,
                "symbols must be written before any edge or location",
            ));
        }
        let symbol = symbol.as_borrowed();
        // Validate first: a rejected symbol must leave no partial line behind,
        // so the caller can skip it and go on.
        check_token("qualified name", symbol.qualified_name)?;
        let kind = self.kinds.get(symbol.kind, |kind| {
            check_token("kind", kind).map(|()| abbreviate_kind(kind))
        })?;
        let provenance = self.provenances.get(symbol.provenance, |provenance| {
            check_token("provenance", provenance).map(|()| provenance)
        })?;
        let id = self.symbols;
        let name = symbol.qualified_name.as_bytes();
        let max = 1 + MAX_DIGITS + kind.len() + name.len() + MAX_SCORE + provenance.len() + 5;
        // Scores below 2^56 (every finite score a tool produces) take the
        // fixed layout; the rest, and very long lines, the general writer,
        // whose formatting of the score is also its check.
        let short_score = symbol.score.abs() < SHORT_SCORE_LIMIT;
        if !short_score || max + SLACK > LINE {
            let score = self.numbers.format_score(symbol.score)?;
            if self.groups.last().map(|g| g.0) != Some(symbol.distance) {
                write_group_header(&mut self.out, symbol.distance)?;
                self.groups.push((symbol.distance, 0));
            }
            write_checked_node(&mut self.out, id, &symbol, score)?;
            self.out.write_bytes(b"\n")?;
        } else {
            if self.groups.last().map(|g| g.0) != Some(symbol.distance) {
                write_group_header(&mut self.out, symbol.distance)?;
                self.groups.push((symbol.distance, 0));
            }
            let w = &mut self.line;
            w[0] = b'@';
            let mut at = line::put_u64(w, 1, id);
            w[at] = b' ';
            at = kind.put(w, at + 1);
            w[at] = b' ';
            at = line::put(w, at + 1, name);
            w[at] = b' ';
            // Finite and short: the fixed layout always applies.
            at = line::put_score(w, at + 1, symbol.score).unwrap_or(at + 1);
            w[at] = b' ';
            at = provenance.put(w, at + 1);
            w[at] = b'\n';
            self.out.write_bytes(&w[..at + 1])?;
        }
        self.symbols += 1;
        if let Some(group) = self.groups.last_mut() {
            group.1 += 1;
        }
        if let Some(names) = &mut self.names {
            names.insert(String::from(symbol.qualified_name), id);
        }
        Ok(id)
    }

    /// Writes an edge between two symbols already written, by id.
    pub fn write_edge(
        &mut self,
        source: u64,
        target: u64,
        edge_type: &str,
        status: &str,
    ) -> Result<(), Error> {
        for id in [source, target] {
            if id >= self.symbols {
                return Err(Error::new(
                    ErrorKind::UnknownEdgeReference,
                    alloc::format!(
                        "edge names @{id}, but only {} symbols were written",
                        self.symbols
                    ),
                ));
            }
        }
        let written_type = self.edge_types.get(edge_type, |edge_type| {
            check_token("edge type", edge_type).map(|()| edge_type)
        })?;
        let has_status = !status.is_empty() && status != "unchanged";
        if has_status {
            check_token("edge status", status)?;
        }
        match self.phase {
            Phase::Symbols => {
                self.out.write_bytes(b"## edges [?]\n")?;
                self.phase = Phase::Edges;
            }
            Phase::Edges => {}
            Phase::Locations => {
                return Err(Error::new(
                    ErrorKind::InvalidState,
                    "edges must be written before locations",
                ))
            }
        }
        let max = 1 + MAX_DIGITS + 2 + MAX_DIGITS + written_type.len() + status.len() + 3;
        if max + SLACK > LINE {
            write_checked_edge_line(
                &mut self.out,
                source,
                target,
                edge_type,
                has_status.then_some(status),
            )?;
        } else {
            let w = &mut self.line;
            w[0] = b'@';
            let mut at = line::put_u64(w, 1, target);
            at = line::put(w, at, b"<@");
            at = line::put_u64(w, at, source);
            w[at] = b' ';
            at = written_type.put(w, at + 1);
            if has_status {
                w[at] = b' ';
                at = line::put(w, at + 1, status.as_bytes());
            }
            w[at] = b'\n';
            self.out.write_bytes(&w[..at + 1])?;
        }
        self.edges += 1;
        Ok(())
    }

    /// Writes an edge between two symbols named by qualified name; needs
    /// [`StreamOptions::index_names`]. A name that was not written is an
    /// [`ErrorKind::UnknownEdgeReference`] error.
    pub fn write_edge_by_name(
        &mut self,
        source: &str,
        target: &str,
        edge_type: &str,
        status: &str,
    ) -> Result<(), Error> {
        let Some(names) = &self.names else {
            return Err(Error::new(
                ErrorKind::InvalidState,
                "write_edge_by_name needs StreamOptions::index_names",
            ));
        };
        let lookup = |name: &str| {
            names.get(name).copied().ok_or_else(|| {
                Error::new(
                    ErrorKind::UnknownEdgeReference,
                    alloc::format!("edge names `{name}`, which was not written"),
                )
            })
        };
        let (s, t) = (lookup(source)?, lookup(target)?);
        self.write_edge(s, t, edge_type, status)
    }

    /// Writes a source position for a symbol already written (spec §6b).
    pub fn write_location(
        &mut self,
        id: u64,
        file: &str,
        line: u32,
        column: u32,
        end: Option<(u32, u32)>,
    ) -> Result<(), Error> {
        if id >= self.symbols {
            return Err(Error::new(
                ErrorKind::UnknownEdgeReference,
                alloc::format!(
                    "location names @{id}, but only {} symbols were written",
                    self.symbols
                ),
            ));
        }
        check_location(file, line, column, end)?;
        if self.phase != Phase::Locations {
            self.out.write_bytes(b"## loc [?]\n")?;
            self.phase = Phase::Locations;
        }
        write_loc_line(&mut self.out, id, file, line, column, end)?;
        self.locations += 1;
        Ok(())
    }

    /// Writes a source position for a symbol named by qualified name; needs
    /// [`StreamOptions::index_names`].
    pub fn write_location_by_name(
        &mut self,
        qualified_name: &str,
        file: &str,
        line: u32,
        column: u32,
        end: Option<(u32, u32)>,
    ) -> Result<(), Error> {
        let Some(names) = &self.names else {
            return Err(Error::new(
                ErrorKind::InvalidState,
                "write_location_by_name needs StreamOptions::index_names",
            ));
        };
        let id = names.get(qualified_name).copied().ok_or_else(|| {
            Error::new(
                ErrorKind::UnknownEdgeReference,
                alloc::format!("location names `{qualified_name}`, which was not written"),
            )
        })?;
        self.write_location(id, file, line, column, end)
    }

    /// Symbols written so far.
    pub fn symbol_count(&self) -> u64 {
        self.symbols
    }

    /// Edges written so far.
    pub fn edge_count(&self) -> u64 {
        self.edges
    }

    /// Hands buffered bytes to the sink now (for example before waiting on more input).
    pub fn flush(&mut self) -> Result<(), Error> {
        self.out.flush()
    }

    /// The sink (bytes still in the writer's buffer are not in it yet).
    pub fn get_ref(&self) -> &K {
        self.out.get_ref()
    }

    /// Writes the trailer, flushes, and returns the sink.
    ///
    /// The trailer lists one count per distance group in the order written,
    /// then the edge count (always present, even when zero). When locations
    /// were written their count follows as `loc=N`, a field decoders that
    /// predate spec 3.6 ignore.
    pub fn finish(mut self) -> Result<K, Error> {
        let mut n = itoa::Buffer::new();
        let out = &mut self.out;
        let legacy = self.trailer == TrailerForm::Legacy;
        out.write_bytes(if legacy {
            b"## _summary symbols="
        } else {
            b"##! summary symbols="
        })?;
        out.write_str(n.format(self.symbols))?;
        out.write_bytes(b" edges=")?;
        out.write_str(n.format(self.edges))?;
        out.write_bytes(if legacy { b" sections=" } else { b" counts=" })?;
        let labeled = self.trailer != TrailerForm::Positional;
        for &(distance, count) in &self.groups {
            if labeled {
                match distance {
                    0 => out.write_bytes(b"targets:")?,
                    1 => out.write_bytes(b"related:")?,
                    2 => out.write_bytes(b"extended:")?,
                    d => {
                        out.write_bytes(b"distance_")?;
                        out.write_str(n.format(d))?;
                        out.write_bytes(b":")?;
                    }
                }
            }
            out.write_str(n.format(count))?;
            out.write_bytes(b",")?;
        }
        if labeled {
            out.write_bytes(b"edges:")?;
        }
        out.write_str(n.format(self.edges))?;
        if self.locations > 0 {
            out.write_bytes(b" loc=")?;
            out.write_str(n.format(self.locations))?;
        }
        out.write_bytes(b"\n")?;
        self.out.into_inner()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::decode;
    use alloc::string::String;

    fn text(v: Vec<u8>) -> String {
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn zero_edges_has_no_edges_section() {
        let mut w = StreamWriter::new(Vec::new(), StreamOptions::default()).unwrap();
        w.write_symbol(&Symbol::new("a", "function", 0.5, "x", 0))
            .unwrap();
        assert_eq!(text(w.finish().unwrap()), "GCF profile=graph\n## targets\n@0 fn a 0.50 x\n##! summary symbols=1 edges=0 counts=1,0\n");
        let w = StreamWriter::new(
            Vec::new(),
            StreamOptions {
                trailer: TrailerForm::Labeled,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(
            text(w.finish().unwrap()),
            "GCF profile=graph\n##! summary symbols=0 edges=0 counts=edges:0\n"
        );
    }

    #[test]
    fn legacy_trailer_locations_and_names() {
        let opts = StreamOptions {
            trailer: TrailerForm::Legacy,
            index_names: true,
            tool: "t",
            token_budget: 9,
            tokens_used: 3,
        };
        let mut w = StreamWriter::new(Vec::new(), opts).unwrap();
        w.write_symbol(&Symbol::new("a", "function", 0.5, "x", 0))
            .unwrap();
        w.write_symbol(&Symbol::new("b", "type", 0.5, "x", 5))
            .unwrap();
        w.write_edge_by_name("b", "a", "calls", "added").unwrap();
        assert_eq!(
            w.write_edge_by_name("b", "zz", "calls", "")
                .unwrap_err()
                .kind(),
            ErrorKind::UnknownEdgeReference
        );
        w.write_location_by_name("b", "src/b.go", 4, 2, None)
            .unwrap();
        assert_eq!(
            w.write_location_by_name("zz", "f", 1, 1, None)
                .unwrap_err()
                .kind(),
            ErrorKind::UnknownEdgeReference
        );
        assert_eq!(
            w.write_edge(0, 1, "x", "").unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        assert_eq!(
            w.write_symbol(&Symbol::new("c", "type", 0.5, "x", 5))
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidState
        );
        let out = text(w.finish().unwrap());
        assert_eq!(
            out,
            "GCF profile=graph tool=t budget=9 tokens=3\n## targets\n@0 fn a 0.50 x\n## distance_5\n@1 type b 0.50 x\n\
             ## edges [?]\n@0<@1 calls added\n## loc [?]\n@1 src/b.go 4 2\n## _summary symbols=2 edges=1 sections=targets:1,distance_5:1,edges:1 loc=1\n"
        );
        let back = decode(&out).unwrap();
        assert_eq!(back.locations.len(), 1);
        assert_eq!(back.edges[0].source, "b");
    }

    #[test]
    fn rejected_lines_leave_no_partial_output() {
        let mut w = StreamWriter::new(Vec::new(), StreamOptions::default()).unwrap();
        w.write_symbol(&Symbol::new("a", "function", 0.5, "x", 0))
            .unwrap();
        for bad in [
            Symbol::new("b c", "function", 0.5, "x", 1),
            Symbol::new("b", "function", f64::NAN, "x", 1),
            Symbol::new("b", "function", 1e300, "x", 1),
            Symbol::new("b", "", 0.5, "x", 1),
        ] {
            assert!(w.write_symbol(&bad).is_err());
        }
        assert_eq!(
            w.write_edge(0, 0, "calls", "bad status")
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidInput
        );
        assert!(w.write_location(0, "f", 0, 1, None).is_err());
        w.write_symbol(&Symbol::new("b", "function", 0.5, "x", 1))
            .unwrap();
        w.write_edge(1, 0, "calls", "").unwrap();
        let out = text(w.finish().unwrap());
        assert_eq!(
            out,
            "GCF profile=graph\n## targets\n@0 fn a 0.50 x\n## related\n@1 fn b 0.50 x\n## edges [?]\n@0<@1 calls\n\
             ##! summary symbols=2 edges=1 counts=1,1,1\n"
        );
        assert!(decode(&out).is_ok());
    }

    #[test]
    fn edges_need_written_symbols() {
        let mut w = StreamWriter::new(Vec::new(), StreamOptions::default()).unwrap();
        assert_eq!(
            w.write_edge(0, 0, "x", "").unwrap_err().kind(),
            ErrorKind::UnknownEdgeReference
        );
        assert_eq!(
            w.write_edge_by_name("a", "b", "x", "").unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        assert_eq!(
            w.write_location(0, "f", 1, 1, None).unwrap_err().kind(),
            ErrorKind::UnknownEdgeReference
        );
    }

    #[test]
    fn sink_failure_surfaces() {
        let sink = crate::FnSink(|_: &[u8]| Err(crate::SinkError));
        let mut w = StreamWriter::new(sink, StreamOptions::default()).unwrap();
        for i in 0..1000 {
            if let Err(e) = w.write_symbol(&Symbol::new("pkg.Name", "function", 0.5, "x", i / 100))
            {
                assert_eq!(e.kind(), ErrorKind::Sink);
                return;
            }
        }
        panic!("a failing sink must surface as an error");
    }
}
