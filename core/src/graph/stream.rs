//! The streaming graph writer (spec §8): symbols and edges are written the
//! moment they are produced, counts come last in the `##! summary` trailer.
//!
//! # Lifecycle after an error
//!
//! The same rule as the generic writer's
//! ([`generic::StreamWriter`](crate::generic::StreamWriter)):
//! - a call refused for its input or its order (a name with whitespace, an
//!   unknown id, a symbol after an edge) writes nothing and leaves the
//!   writer as it was: skip the record or fix the call and go on;
//! - a call whose sink write fails returns [`ErrorKind::Sink`] and poisons
//!   the writer, since part of a line may have reached the sink: every later
//!   call, `flush` and `finish` included, returns [`ErrorKind::InvalidState`];
//! - the host's own error behind a failed write stays with its sink
//!   ([`get_ref`](StreamWriter::get_ref), [`HostSink`](crate::HostSink)).

use alloc::vec::Vec;

use crate::header::{check_header_value, graph_tool};

use super::encode::{
    check_location, write_checked_edge_line, write_checked_node, write_group_header, write_loc_line,
};
use super::kind::abbreviate_kind;
use super::line::{self, ShortTokens, Written, MAX_DIGITS, MAX_SCORE, TOKEN_WIDTH};
use super::stream_names::StreamNames;
use super::token::check_token;
use super::types::Symbol;
use crate::buffer::{Buffered, DEFAULT_CAPACITY};
use crate::digits::{ascii_digits, eight_digits, eight_digits_pair};
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

/// Header fields and choices for a [`StreamWriter`], in the shape of the
/// generic profile's [`generic::StreamOptions`](crate::generic::StreamOptions):
/// public fields, a [`Default`], and a builder method per field.
///
/// ```
/// use gcf_core::graph::{StreamOptions, TrailerForm};
/// let options = StreamOptions::new().tool("ctx").trailer(TrailerForm::Labeled);
/// assert_eq!((options.tool, options.trailer), ("ctx", TrailerForm::Labeled));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StreamOptions<'a> {
    /// Producing tool (`tool=`, written empty too, as the reference SDKs write it).
    pub tool: &'a str,
    /// Token budget (`budget=`); omitted when zero.
    pub token_budget: u64,
    /// Tokens used (`tokens=`); omitted when zero.
    pub tokens_used: u64,
    /// Trailer form.
    pub trailer: TrailerForm,
    /// Content-addressed identity (`pack_root=`, after `tokens=`), written
    /// when non-empty, as the reference SDKs' stream encoders write it; it
    /// must be one header token (printable ASCII, no space).
    pub pack_root: &'a str,
    /// Writes `session=true` (after `pack_root=`), as the reference SDKs'
    /// stream encoders do for a stream of bare references and new symbols.
    pub session: bool,
    /// Keep a name -> id index so [`StreamWriter::write_edge_by_name`] works.
    /// It keeps a copy of every qualified name (memory that grows with the
    /// stream, about a byte more than the names; hashed on the first lookup
    /// by name); leave it off and write edges by id for constant memory.
    pub index_names: bool,
}

impl<'a> StreamOptions<'a> {
    /// No tool, budget or token count, the positional trailer, no name index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Names the producing tool.
    pub fn tool(mut self, tool: &'a str) -> Self {
        self.tool = tool;
        self
    }

    /// Sets `budget=`.
    pub fn token_budget(mut self, tokens: u64) -> Self {
        self.token_budget = tokens;
        self
    }

    /// Sets `tokens=`.
    pub fn tokens_used(mut self, tokens: u64) -> Self {
        self.tokens_used = tokens;
        self
    }

    /// Chooses the trailer form.
    pub fn trailer(mut self, trailer: TrailerForm) -> Self {
        self.trailer = trailer;
        self
    }

    /// Sets `pack_root=` (none when empty).
    pub fn pack_root(mut self, root: &'a str) -> Self {
        self.pack_root = root;
        self
    }

    /// Writes `session=true`.
    pub fn session(mut self, on: bool) -> Self {
        self.session = on;
        self
    }

    /// Keeps a name index for [`StreamWriter::write_edge_by_name`].
    pub fn index_names(mut self, on: bool) -> Self {
        self.index_names = on;
        self
    }
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
    names: Option<StreamNames>,
    /// Checked kinds (with their abbreviations), provenances and edge types.
    kinds: ShortTokens,
    provenances: ShortTokens,
    edge_types: ShortTokens,
    /// The decimal text of the next symbol's id.
    ids: NextId,
    /// Set when a sink write failed; see the module's lifecycle rule.
    poisoned: bool,
}

/// Scores below this take the fixed two-decimal layout ([`line::put_score`]).
const SHORT_SCORE_LIMIT: f64 = (1u64 << 56) as f64;

/// Room a symbol line needs besides its qualified name: `@`, the id, the
/// kind and provenance copied [`TOKEN_WIDTH`] bytes at a time, the score,
/// four spaces and the line feed.
const FIXED_SYMBOL_PARTS: usize = 1 + MAX_DIGITS + TOKEN_WIDTH + MAX_SCORE + TOKEN_WIDTH + 5;

/// Room an edge line needs besides its edge type and status: `@`, two ids,
/// `<@`, the slack of a type copied [`TOKEN_WIDTH`] bytes at a time, two
/// spaces and the line feed.
const FIXED_EDGE_PARTS: usize = 1 + MAX_DIGITS + 2 + MAX_DIGITS + TOKEN_WIDTH + 3;

/// The error for a symbol whose kind or provenance was rejected with `e`:
/// the qualified name's own error if it is bad too, since names are checked
/// first.
#[cold]
fn name_error_first(qualified_name: &str, e: Error) -> Error {
    check_token("qualified name", qualified_name)
        .err()
        .unwrap_or(e)
}

/// The output window a line is assembled in: room for a qualified name of
/// up to about 150 bytes; longer lines are written piece by piece.
const LINE: usize = 256;

impl<K: Sink> StreamWriter<K> {
    /// Writes the header (without counts) and returns the writer.
    pub fn new(sink: K, options: StreamOptions<'_>) -> Result<Self, Error> {
        // Checked before anything is written: a refused header writes nothing.
        let tool = graph_tool(options.tool)?;
        if !options.pack_root.is_empty() {
            check_header_value("pack_root", options.pack_root)?;
        }
        let mut out = Buffered::new(sink, DEFAULT_CAPACITY);
        let mut n = itoa::Buffer::new();
        out.write_bytes(b"GCF profile=graph")?;
        out.write_bytes(b" tool=")?;
        out.write_str(tool)?;
        if options.token_budget > 0 {
            out.write_bytes(b" budget=")?;
            out.write_str(n.format(options.token_budget))?;
        }
        if options.tokens_used > 0 {
            out.write_bytes(b" tokens=")?;
            out.write_str(n.format(options.tokens_used))?;
        }
        if !options.pack_root.is_empty() {
            out.write_bytes(b" pack_root=")?;
            out.write_str(options.pack_root)?;
        }
        if options.session {
            out.write_bytes(b" session=true")?;
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
            names: options.index_names.then(StreamNames::default),
            kinds: ShortTokens::new(),
            provenances: ShortTokens::new(),
            edge_types: ShortTokens::new(),
            ids: NextId::new(),
            poisoned: false,
        })
    }

    /// The error for a call on a poisoned writer, or the failure of a call
    /// that poisons it.
    #[cold]
    #[inline(never)]
    fn failed(&mut self, e: Option<Error>) -> Error {
        match e {
            None => Error::poisoned(),
            Some(e) => {
                if e.kind() == ErrorKind::Sink {
                    self.poisoned = true;
                }
                e
            }
        }
    }

    /// Writes a symbol and returns its id.
    #[inline]
    pub fn write_symbol<S: AsRef<str>>(&mut self, symbol: &Symbol<S>) -> Result<u64, Error> {
        if self.poisoned {
            return Err(self.failed(None));
        }
        self.write_symbol_unpoisoned(symbol)
            .map_err(|e| self.failed(Some(e)))
    }

    #[inline(always)]
    fn write_symbol_unpoisoned<S: AsRef<str>>(&mut self, symbol: &Symbol<S>) -> Result<u64, Error> {
        if self.phase != Phase::Symbols {
            return Err(Error::new(
                ErrorKind::InvalidState,
                "symbols must be written before any edge or location",
            ));
        }
        let general = symbol;
        let symbol = symbol.as_borrowed();
        // The common line: same group as the last one, a score below 2^56
        // (every finite score a tool produces), a line that fits the window.
        // It is assembled straight into the output buffer and committed only
        // once every part is checked, so a rejected symbol leaves nothing
        // behind; the rest take the general path.
        if self.groups.last().map(|g| g.0) == Some(symbol.distance)
            && symbol.score.abs() < SHORT_SCORE_LIMIT
        {
            // A rejected kind or provenance reports the name first if it
            // is bad too, as the general path does.
            let kind = match self.kinds.get(symbol.kind, |kind| {
                check_token("kind", kind).map(|()| abbreviate_kind(kind))
            }) {
                Ok(kind) => kind,
                Err(e) => return Err(name_error_first(symbol.qualified_name, e)),
            };
            let provenance = match self.provenances.get(symbol.provenance, |provenance| {
                check_token("provenance", provenance).map(|()| provenance)
            }) {
                Ok(provenance) => provenance,
                Err(e) => return Err(name_error_first(symbol.qualified_name, e)),
            };
            let name = symbol.qualified_name.as_bytes();
            if let (Written::Short(kind), Written::Short(provenance)) = (kind, provenance) {
                if name.len() <= LINE - FIXED_SYMBOL_PARTS {
                    if let Some(w) = self.out.window::<LINE>()? {
                        let id = self.symbols;
                        w[0] = b'@';
                        let mut at = self.ids.put(w, 1, id);
                        w[at] = b' ';
                        at = kind.put(w, at + 1);
                        w[at] = b' ';
                        let printable;
                        (at, printable) = put_printable(w, at + 1, name);
                        if !printable {
                            // Not plain ASCII: decided per character
                            // (non-ASCII letters are fine); the copy stands
                            // if the name passes.
                            check_token("qualified name", symbol.qualified_name)?;
                        }
                        w[at] = b' ';
                        // Finite and short: the fixed layout always applies.
                        at = line::put_score(w, at + 1, symbol.score).unwrap_or(at + 1);
                        w[at] = b' ';
                        at = provenance.put(w, at + 1);
                        w[at] = b'\n';
                        self.out.commit(at + 1);
                        return Ok(self.count_symbol(symbol.qualified_name));
                    }
                }
            }
        }
        self.write_symbol_general(general)
    }

    /// [`write_symbol`](Self::write_symbol) for a line that starts a group,
    /// has a huge or invalid score, or is long.
    #[cold]
    #[inline(never)]
    fn write_symbol_general<S: AsRef<str>>(&mut self, symbol: &Symbol<S>) -> Result<u64, Error> {
        let symbol = &symbol.as_borrowed();
        // Validate first: a rejected symbol must leave no partial line behind,
        // so the caller can skip it and go on.
        check_token("qualified name", symbol.qualified_name)?;
        check_token("kind", symbol.kind)?;
        check_token("provenance", symbol.provenance)?;
        let score = self.numbers.format_score(symbol.score)?;
        if self.groups.last().map(|g| g.0) != Some(symbol.distance) {
            write_group_header(&mut self.out, symbol.distance)?;
            self.groups.push((symbol.distance, 0));
        }
        write_checked_node(&mut self.out, self.symbols, symbol, score)?;
        self.out.write_bytes(b"\n")?;
        Ok(self.count_symbol(symbol.qualified_name))
    }

    /// Counts the symbol just written and returns its id.
    #[inline(always)]
    fn count_symbol(&mut self, qualified_name: &str) -> u64 {
        let id = self.symbols;
        self.symbols += 1;
        self.ids.advance(self.symbols);
        if let Some(group) = self.groups.last_mut() {
            group.1 += 1;
        }
        if let Some(names) = &mut self.names {
            names.push(id, qualified_name);
        }
        id
    }

    /// Writes a bare session reference (spec §9) for a symbol the reader
    /// already has, `@id  # previously transmitted`, in the distance group
    /// of `distance`, and returns its id.
    ///
    /// The reference takes the next stream id and counts as a symbol of its
    /// group in the trailer, as a written symbol does, so edges and
    /// locations can name it by that id (or by `qualified_name` with
    /// [`StreamOptions::index_names`]). `qualified_name` is not written: it
    /// only keys the name index, so it is not checked as a token. The
    /// consumer resolves the id against the symbols its session already
    /// holds, so a stream that mixes references with new symbols is only
    /// meaningful when its ids continue the session's numbering.
    ///
    /// ```
    /// use gcf_core::graph::{StreamOptions, StreamWriter, Symbol};
    ///
    /// let mut w = StreamWriter::new(Vec::new(), StreamOptions::default())?;
    /// w.write_symbol(&Symbol::new("pkg.Auth", "function", 0.95, "lsp", 0))?;
    /// assert_eq!(w.write_bare_ref("pkg.Server", 1)?, 1);
    /// assert_eq!(
    ///     String::from_utf8(w.finish()?).unwrap(),
    ///     "GCF profile=graph tool=\n## targets\n@0 fn pkg.Auth 0.95 lsp\n## related\n\
    ///      @1  # previously transmitted\n##! summary symbols=2 edges=0 counts=1,1,0\n"
    /// );
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn write_bare_ref(&mut self, qualified_name: &str, distance: u32) -> Result<u64, Error> {
        if self.poisoned {
            return Err(self.failed(None));
        }
        self.write_bare_ref_unpoisoned(qualified_name, distance)
            .map_err(|e| self.failed(Some(e)))
    }

    fn write_bare_ref_unpoisoned(
        &mut self,
        qualified_name: &str,
        distance: u32,
    ) -> Result<u64, Error> {
        if self.phase != Phase::Symbols {
            return Err(Error::new(
                ErrorKind::InvalidState,
                "bare references must be written before any edge or location",
            ));
        }
        if self.groups.last().map(|g| g.0) != Some(distance) {
            write_group_header(&mut self.out, distance)?;
            self.groups.push((distance, 0));
        }
        self.out.write_bytes(b"@")?;
        self.out
            .write_str(itoa::Buffer::new().format(self.symbols))?;
        self.out.write_bytes(b"  # previously transmitted\n")?;
        Ok(self.count_symbol(qualified_name))
    }

    /// Writes an edge between two symbols already written, by id.
    #[inline]
    pub fn write_edge(
        &mut self,
        source: u64,
        target: u64,
        edge_type: &str,
        status: &str,
    ) -> Result<(), Error> {
        if self.poisoned {
            return Err(self.failed(None));
        }
        self.write_edge_unpoisoned(source, target, edge_type, status)
            .map_err(|e| self.failed(Some(e)))
    }

    #[inline(always)]
    fn write_edge_unpoisoned(
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
        if self.phase != Phase::Edges {
            Self::begin_edges(&mut self.phase, &mut self.out)?;
        }
        if written_type.len() + status.len() <= LINE - FIXED_EDGE_PARTS {
            if let Some(w) = self.out.window::<LINE>()? {
                w[0] = b'@';
                let mut at;
                if target.max(source) < 100_000_000 {
                    let (target, source) = eight_digits_pair(target as u32, source as u32);
                    let (target, target_len) = ascii_digits(target);
                    let (source, source_len) = ascii_digits(source);
                    w[1..9].copy_from_slice(&target.to_le_bytes());
                    at = 1 + target_len;
                    w[at] = b'<';
                    w[at + 1] = b'@';
                    w[at + 2..at + 10].copy_from_slice(&source.to_le_bytes());
                    at += 2 + source_len;
                } else {
                    at = line::put_u64(w, 1, target);
                    w[at] = b'<';
                    w[at + 1] = b'@';
                    at = line::put_u64(w, at + 2, source);
                }
                w[at] = b' ';
                at = written_type.put(w, at + 1);
                if has_status {
                    w[at] = b' ';
                    at = line::put(w, at + 1, status.as_bytes());
                }
                w[at] = b'\n';
                self.out.commit(at + 1);
                self.edges += 1;
                return Ok(());
            }
        }
        write_checked_edge_line(
            &mut self.out,
            source,
            target,
            edge_type,
            has_status.then_some(status),
        )?;
        self.edges += 1;
        Ok(())
    }

    /// Starts the edge section after the symbols; edges after locations are
    /// an error.
    #[cold]
    fn begin_edges(phase: &mut Phase, out: &mut Buffered<K>) -> Result<(), Error> {
        match phase {
            Phase::Symbols => {
                out.write_bytes(b"## edges [?]\n")?;
                *phase = Phase::Edges;
                Ok(())
            }
            Phase::Edges => Ok(()),
            Phase::Locations => Err(Error::new(
                ErrorKind::InvalidState,
                "edges must be written before locations",
            )),
        }
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
        if self.poisoned {
            return Err(self.failed(None));
        }
        let Some(names) = &mut self.names else {
            return Err(Error::new(
                ErrorKind::InvalidState,
                "write_edge_by_name needs StreamOptions::index_names",
            ));
        };
        let mut lookup = |name: &str| {
            names.get(name).ok_or_else(|| {
                Error::new(
                    ErrorKind::UnknownEdgeReference,
                    alloc::format!(
                        "edge names `{}`, which was not written",
                        crate::error::excerpt(name)
                    ),
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
        if self.poisoned {
            return Err(self.failed(None));
        }
        self.write_location_unpoisoned(id, file, line, column, end)
            .map_err(|e| self.failed(Some(e)))
    }

    fn write_location_unpoisoned(
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
        if self.poisoned {
            return Err(self.failed(None));
        }
        let Some(names) = &mut self.names else {
            return Err(Error::new(
                ErrorKind::InvalidState,
                "write_location_by_name needs StreamOptions::index_names",
            ));
        };
        let id = names.get(qualified_name).ok_or_else(|| {
            Error::new(
                ErrorKind::UnknownEdgeReference,
                alloc::format!(
                    "location names `{}`, which was not written",
                    crate::error::excerpt(qualified_name)
                ),
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
        if self.poisoned {
            return Err(self.failed(None));
        }
        self.out.flush().map_err(|e| self.failed(Some(e)))
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
        if self.poisoned {
            return Err(Error::poisoned());
        }
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

/// The decimal text of the next symbol's id. Symbol ids count up by one,
/// so adding one to the last digit (a carry only one time in ten) replaces
/// converting every id to decimal anew.
struct NextId {
    /// ASCII digits, the first in the lowest byte.
    digits: u64,
    /// The number of digits; 0 from `10^8` on, where ids are converted.
    len: u32,
}

impl NextId {
    fn new() -> NextId {
        NextId {
            digits: u64::from(b'0'),
            len: 1,
        }
    }

    /// Writes `id` (the id this was last advanced to) at `out[at..]` and
    /// returns the end; `out` needs eight bytes of room past `at`.
    #[inline(always)]
    fn put(&self, out: &mut [u8], at: usize, id: u64) -> usize {
        if self.len == 0 {
            return line::put_u64(out, at, id);
        }
        out[at..at + 8].copy_from_slice(&self.digits.to_le_bytes());
        at + self.len as usize
    }

    /// Moves on to `next`, the id after the last one.
    #[inline(always)]
    fn advance(&mut self, next: u64) {
        let last = 8 * self.len.saturating_sub(1);
        if self.len != 0 && (self.digits >> last) as u8 != b'9' {
            self.digits += 1 << last;
        } else {
            self.carry(next);
        }
    }

    #[inline(never)]
    fn carry(&mut self, next: u64) {
        if next >= 100_000_000 {
            self.len = 0;
            return;
        }
        let digits = eight_digits(next as u32);
        // Leading zero digits are the low zero bytes (0 keeps one digit).
        let skip = (digits.trailing_zeros() / 8).min(7);
        self.digits = (digits + 0x3030_3030_3030_3030) >> (8 * skip);
        self.len = 8 - skip;
    }
}

/// Copies a qualified name to `out[at..]` and returns the end, and whether
/// every byte is printable ASCII (`0x21..=0x7e`), which is all a name needs
/// to be valid (`false` leaves the verdict to [`check_token`], which also
/// accepts non-ASCII letters). Checked sixteen bytes at a time as they are
/// copied, so the name is read once, not once to check and once to copy.
#[inline(always)]
fn put_printable(out: &mut [u8], at: usize, name: &[u8]) -> (usize, bool) {
    let n = name.len();
    let dst = &mut out[at..at + n];
    if n < 16 {
        dst.copy_from_slice(name);
        let printable = !name.is_empty() && name.iter().all(|c| (0x21..=0x7e).contains(c));
        return (at + n, printable);
    }
    #[inline(always)]
    fn chunk(bytes: &[u8], at: usize) -> [u8; 16] {
        let mut c = [0u8; 16];
        c.copy_from_slice(&bytes[at..at + 16]);
        c
    }
    let mut printable = Printable::new();
    let mut i = 0;
    while i + 16 < n {
        let c = chunk(name, i);
        dst[i..i + 16].copy_from_slice(&c);
        printable.add(c);
        i += 16;
    }
    // The last sixteen bytes, overlapping the chunk before them.
    let c = chunk(name, n - 16);
    dst[n - 16..].copy_from_slice(&c);
    printable.add(c);
    (at + n, printable.all())
}

/// Whether all the sixteen-byte chunks added so far are printable ASCII:
/// two SSE2 compares and an AND per chunk, one mask extract at the end.
#[cfg(all(target_arch = "x86_64", not(gcf_portable)))]
struct Printable(core::arch::x86_64::__m128i);

#[cfg(all(target_arch = "x86_64", not(gcf_portable)))]
impl Printable {
    #[inline(always)]
    fn new() -> Printable {
        // SAFETY: SSE2 is part of the x86-64 baseline; no memory is touched.
        Printable(unsafe { core::arch::x86_64::_mm_set1_epi8(-1) })
    }

    #[inline(always)]
    fn add(&mut self, chunk: [u8; 16]) {
        use core::arch::x86_64::{_mm_and_si128, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_set1_epi8};
        let x = u128::from_le_bytes(chunk);
        // SAFETY: SSE2 is part of the x86-64 baseline, so every intrinsic
        // here is available; `__m128i` is plain 128 bits, valid for any
        // value of the same size, and none of these touches memory.
        unsafe {
            let x: core::arch::x86_64::__m128i = core::mem::transmute(x);
            // Signed: every byte >= 0x80 is negative, so "> 0x20" holds
            // exactly for 0x21..=0x7f, and "< 0x7f" leaves out DEL.
            let above_space = _mm_cmpgt_epi8(x, _mm_set1_epi8(0x20));
            let below_del = _mm_cmplt_epi8(x, _mm_set1_epi8(0x7f));
            self.0 = _mm_and_si128(self.0, _mm_and_si128(above_space, below_del));
        }
    }

    #[inline(always)]
    fn all(&self) -> bool {
        // SAFETY: as in `add`.
        unsafe { core::arch::x86_64::_mm_movemask_epi8(self.0) == 0xffff }
    }
}

/// [`Printable`] elsewhere: a byte-wise test on words, its bad bits ORed.
#[cfg(any(not(target_arch = "x86_64"), gcf_portable))]
struct Printable(u64);

#[cfg(any(not(target_arch = "x86_64"), gcf_portable))]
impl Printable {
    #[inline(always)]
    fn new() -> Printable {
        Printable(0)
    }

    #[inline(always)]
    fn add(&mut self, chunk: [u8; 16]) {
        self.0 |= non_printable_bits(u128::from_le_bytes(chunk));
    }

    #[inline(always)]
    fn all(&self) -> bool {
        self.0 == 0
    }
}

/// The top bit of each byte of `x` that is outside `0x21..=0x7e`, for two
/// words: for an ASCII byte `b`, `b + 0x5f` has its top bit set exactly
/// when `b >= 0x21` and `b + 0x01` exactly when `b >= 0x7f`; a carry out of
/// a byte only comes from a byte `>= 0xa1`, whose own top bit is already set,
/// so carries never hide a bad byte (in any byte a carry reaches).
#[cfg_attr(all(target_arch = "x86_64", not(gcf_portable)), allow(dead_code))]
#[inline(always)]
fn non_printable_bits(x: u128) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let bad = |w: u64| (!w.wrapping_add(ONES * 0x5f) | w.wrapping_add(ONES) | w) & HIGH;
    bad(x as u64) | bad((x >> 64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::decode;
    use alloc::string::String;
    use alloc::vec;

    fn text(v: Vec<u8>) -> String {
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn pack_root_and_session_follow_the_counts_in_the_header() {
        let options = StreamOptions::new()
            .tool("ctx")
            .tokens_used(12)
            .pack_root("sha256:ab")
            .session(true);
        let w = StreamWriter::new(Vec::new(), options).unwrap();
        assert!(text(w.finish().unwrap()).starts_with(
            "GCF profile=graph tool=ctx tokens=12 pack_root=sha256:ab session=true\n##! summary "
        ));
        // A pack root that is no header token writes nothing at all.
        let mut out = Vec::new();
        let refused = StreamWriter::new(&mut out, StreamOptions::new().pack_root("a b"));
        assert_eq!(
            refused.err().map(|e| e.kind()),
            Some(ErrorKind::InvalidInput)
        );
        assert!(out.is_empty());
    }

    #[test]
    fn zero_edges_has_no_edges_section() {
        let mut w = StreamWriter::new(Vec::new(), StreamOptions::default()).unwrap();
        w.write_symbol(&Symbol::new("a", "function", 0.5, "x", 0))
            .unwrap();
        assert_eq!(text(w.finish().unwrap()), "GCF profile=graph tool=\n## targets\n@0 fn a 0.50 x\n##! summary symbols=1 edges=0 counts=1,0\n");
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
            "GCF profile=graph tool=\n##! summary symbols=0 edges=0 counts=edges:0\n"
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
            pack_root: "",
            session: false,
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
            // 1e300 is a valid score now (issue 21); a non-finite one is not.
            Symbol::new("b", "function", f64::INFINITY, "x", 1),
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
            "GCF profile=graph tool=\n## targets\n@0 fn a 0.50 x\n## related\n@1 fn b 0.50 x\n## edges [?]\n@0<@1 calls\n\
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

    /// The lifecycle rule of the module docs: a refused call leaves the
    /// writer usable, a failed sink write poisons it for every later call.
    #[test]
    fn sink_failure_poisons_and_refusals_do_not() {
        let mut budget = 40usize;
        let sink = crate::FnSink(move |b: &[u8]| {
            budget = budget.checked_sub(b.len()).ok_or(crate::SinkError)?;
            Ok(())
        });
        let options = StreamOptions {
            index_names: true,
            ..StreamOptions::default()
        };
        let mut w = StreamWriter::new(sink, options).unwrap();
        let bad = Symbol::new("a b", "function", 0.5, "x", 0);
        assert_eq!(
            w.write_symbol(&bad).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        w.write_symbol(&Symbol::new("pkg.A", "function", 0.5, "x", 0))
            .unwrap();
        assert_eq!(
            w.write_edge(0, 9, "calls", "").unwrap_err().kind(),
            ErrorKind::UnknownEdgeReference
        );
        // 18 + 21 bytes so far; the flush exceeds the sink's budget.
        assert_eq!(w.flush().unwrap_err().kind(), ErrorKind::Sink);
        let poisoned =
            |e: Error| e.kind() == ErrorKind::InvalidState && e.message().contains("earlier write");
        assert!(poisoned(
            w.write_symbol(&Symbol::new("pkg.B", "function", 0.5, "x", 0))
                .unwrap_err()
        ));
        assert!(poisoned(w.write_edge(0, 0, "calls", "").unwrap_err()));
        assert!(poisoned(
            w.write_edge_by_name("pkg.A", "pkg.A", "calls", "")
                .unwrap_err()
        ));
        assert!(poisoned(w.write_location(0, "f", 1, 1, None).unwrap_err()));
        assert!(poisoned(
            w.write_location_by_name("pkg.A", "f", 1, 1, None)
                .unwrap_err()
        ));
        assert!(poisoned(w.flush().unwrap_err()));
        assert!(w.finish().is_err_and(poisoned));
    }

    /// Byte for byte what 2.5.2's `writeBareRef` and gcf-python 2.8.0's
    /// `write_bare_ref` write: the next id, the group header when the
    /// distance changes, the reference counted in its group and in
    /// `symbols=`; edges can name it.
    #[test]
    fn bare_references_take_ids_and_group_counts() {
        let options = StreamOptions {
            tool: "t",
            index_names: true,
            trailer: TrailerForm::Labeled,
            ..StreamOptions::default()
        };
        let mut w = StreamWriter::new(Vec::new(), options).unwrap();
        assert_eq!(w.write_bare_ref("pkg.A", 0).unwrap(), 0);
        w.write_symbol(&Symbol::new("pkg.B", "function", 0.5, "x", 0))
            .unwrap();
        assert_eq!(w.write_bare_ref("pkg.C", 1).unwrap(), 2);
        assert_eq!(w.write_bare_ref("pkg.D", 7).unwrap(), 3);
        w.write_symbol(&Symbol::new("pkg.E", "function", 0.5, "x", 7))
            .unwrap();
        assert_eq!(w.symbol_count(), 5);
        w.write_edge_by_name("pkg.C", "pkg.E", "calls", "").unwrap();
        w.write_edge(0, 1, "uses", "").unwrap();
        assert_eq!(
            w.write_bare_ref("pkg.F", 7).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        assert_eq!(
            text(w.finish().unwrap()),
            "GCF profile=graph tool=t\n## targets\n@0  # previously transmitted\n\
             @1 fn pkg.B 0.50 x\n## related\n@2  # previously transmitted\n\
             ## distance_7\n@3  # previously transmitted\n@4 fn pkg.E 0.50 x\n\
             ## edges [?]\n@4<@2 calls\n@1<@0 uses\n\
             ##! summary symbols=5 edges=2 counts=targets:2,related:1,distance_7:2,edges:2\n"
        );
    }

    /// A streamed reference decodes as the decoder reads a session's: a
    /// [`Reference`](crate::graph::Reference) in its group, within the
    /// trailer's counts; a session consumer that delivered the symbol under
    /// that id gets it back whole.
    #[test]
    fn bare_references_decode() {
        use crate::graph::{Payload, Reference, Session, SessionDecoder};
        let mut w = StreamWriter::new(Vec::new(), StreamOptions::default()).unwrap();
        w.write_bare_ref("pkg.A", 1).unwrap();
        w.write_symbol(&Symbol::new("pkg.B", "function", 0.5, "x", 1))
            .unwrap();
        let wire = text(w.finish().unwrap());
        let p = decode(&wire).unwrap();
        assert_eq!(p.references, [Reference { id: 0, distance: 1 }]);
        assert_eq!(p.symbols.len(), 1);

        let first = Payload {
            symbols: vec![Symbol::new("pkg.A", "function", 0.9, "lsp", 0)],
            ..Payload::default()
        };
        let mut consumer = SessionDecoder::new();
        consumer
            .decode(&Session::new().encode(&first).unwrap())
            .unwrap();
        let again = consumer.decode(&wire).unwrap();
        assert_eq!(again.symbols[0].qualified_name, "pkg.A");
        assert_eq!(again.symbols[0].distance, 1);
        assert_eq!(again.symbols[1].qualified_name, "pkg.B");
    }

    /// The module's lifecycle rule holds for references: a failed sink
    /// write poisons, and a poisoned writer refuses them.
    #[test]
    fn bare_references_follow_the_lifecycle() {
        let mut budget = 30usize;
        let sink = crate::FnSink(move |b: &[u8]| {
            budget = budget.checked_sub(b.len()).ok_or(crate::SinkError)?;
            Ok(())
        });
        let mut w = StreamWriter::new(sink, StreamOptions::default()).unwrap();
        w.write_bare_ref("a", 0).unwrap();
        assert_eq!(w.flush().unwrap_err().kind(), ErrorKind::Sink);
        let e = w.write_bare_ref("b", 0).unwrap_err();
        assert!(e.kind() == ErrorKind::InvalidState && e.message().contains("earlier write"));
        let sink = crate::FnSink(|_: &[u8]| Err(crate::SinkError));
        let mut w = StreamWriter::new(sink, StreamOptions::default()).unwrap();
        let mut failed = None;
        for i in 0..1000 {
            if let Err(e) = w.write_bare_ref("a", i / 100) {
                failed = Some(e.kind());
                break;
            }
        }
        assert_eq!(failed, Some(ErrorKind::Sink));
        assert!(w.write_bare_ref("a", 0).is_err());
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

    /// A stream of symbols of every shape (long and non-ASCII names, bad
    /// bytes anywhere, huge and invalid scores, new groups, ids past the
    /// carries of the id counter) gives what the general writer gives, line
    /// for line, and a rejected symbol adds nothing.
    #[test]
    fn fast_lines_match_the_general_writer() {
        let (x16, y17, z144, z145, w300) = (
            "x".repeat(16),
            "y".repeat(17),
            "z".repeat(LINE - FIXED_SYMBOL_PARTS),
            "z".repeat(LINE - FIXED_SYMBOL_PARTS + 1),
            "w".repeat(300),
        );
        let names = [
            "a",
            "pkg.Server",
            "github.com/acme/payments/internal/ledger.Account7.Reconcile",
            &x16,
            &y17,
            &z144,
            &z145,
            &w300,
            "paquete.Función",
            "名前.関数",
        ];
        let long_kind = "k".repeat(TOKEN_WIDTH + 1);
        let kinds = [
            "function",
            "method",
            "type",
            "route_handler",
            "k",
            "custom_kind_x",
            &long_kind,
        ];
        let long_provenance = "p".repeat(40);
        let provenances = ["lsp_resolved", "x", "ast_inferred", &long_provenance];
        let bad_bytes = [" ", "\t", "\u{7f}", "\u{a0}", "\u{2028}", "\n"];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut writer = StreamWriter::new(Vec::new(), StreamOptions::default()).unwrap();
        let mut numbers = NumberBuffer::new();
        let mut want = String::from("GCF profile=graph tool=\n");
        let mut distance = 0;
        let mut last_distance = None;
        let mut id = 0u64;
        let rounds = if cfg!(miri) { 300 } else { 30_000 };
        for _ in 0..rounds {
            let r = next();
            let mut name = String::from(names[(r % names.len() as u64) as usize]);
            if r >> 8 & 15 == 0 {
                let bad = bad_bytes[(r >> 12) as usize % bad_bytes.len()];
                let at = name
                    .char_indices()
                    .map(|(i, _)| i)
                    .nth((r >> 16) as usize % name.chars().count())
                    .unwrap();
                name.insert_str(at, bad);
            }
            let kind = kinds[(r >> 20) as usize % kinds.len()];
            let provenance = provenances[(r >> 24) as usize % provenances.len()];
            let score = match r >> 28 & 15 {
                0 => f64::NAN,
                1 => 1e300,
                2 => -((r >> 32) as f64),
                3 => (1u64 << 56) as f64,
                _ => (r >> 32) as f64 / 1e9,
            };
            if r >> 36 & 63 == 0 {
                distance += 1;
            }
            let symbol = Symbol::new(name.as_str(), kind, score, provenance, distance);
            let expected = check_token("qualified name", &name)
                .and(check_token("kind", kind))
                .and(check_token("provenance", provenance))
                .and_then(|()| numbers.format_score(score).map(String::from));
            match (writer.write_symbol(&symbol), expected) {
                (Ok(got), Ok(score)) => {
                    assert_eq!(got, id);
                    if last_distance != Some(distance) {
                        write_group_header(&mut want, distance).unwrap();
                        last_distance = Some(distance);
                    }
                    want.push_str(&alloc::format!(
                        "@{id} {} {name} {score} {provenance}\n",
                        abbreviate_kind(kind)
                    ));
                    id += 1;
                }
                (Err(_), Err(_)) => {}
                (got, expected) => panic!("{name:?} {score}: {got:?} vs {expected:?}"),
            }
            // Ids past the counter's carries: jump ahead now and then.
            if r >> 42 & 1023 == 0 && !cfg!(miri) {
                for _ in 0..1000 {
                    writer
                        .write_symbol(&Symbol::new("n", "var", 0.5, "p", distance))
                        .unwrap();
                    if last_distance != Some(distance) {
                        write_group_header(&mut want, distance).unwrap();
                        last_distance = Some(distance);
                    }
                    want.push_str(&alloc::format!("@{id} var n 0.50 p\n"));
                    id += 1;
                }
            }
        }
        // Edges, by small ids and (the counter moved on as if that many
        // symbols were written) ids past eight digits.
        want.push_str("## edges [?]\n");
        let long_type = "t".repeat(TOKEN_WIDTH + 1);
        let long_status = "s".repeat(LINE);
        let types = ["calls", "implements", "e", &long_type];
        let statuses = ["", "unchanged", "added", "bad status", &long_status];
        for round in 0..rounds / 2 {
            if round == rounds / 4 {
                writer.symbols = 300_000_000_000;
            }
            let r = next();
            let (source, target) = (r % writer.symbols, (r >> 20) % writer.symbols);
            let edge_type = types[(r >> 50) as usize % types.len()];
            let status = statuses[(r >> 54) as usize % statuses.len()];
            match writer.write_edge(source, target, edge_type, status) {
                Ok(()) => {
                    let status = match status {
                        "" | "unchanged" => String::new(),
                        s => alloc::format!(" {s}"),
                    };
                    want.push_str(&alloc::format!("@{target}<@{source} {edge_type}{status}\n"));
                }
                Err(_) => assert_eq!(status, "bad status"),
            }
        }
        let out = text(writer.finish().unwrap());
        let body = &out[..out.find("##! summary").unwrap()];
        assert_eq!(body, want);
    }

    #[test]
    fn next_id_counts_like_itoa() {
        let mut ids = NextId::new();
        let mut out = [0u8; 32];
        let check = |ids: &NextId, out: &mut [u8; 32], id: u64| {
            let end = ids.put(out, 3, id);
            assert_eq!(
                &out[3..end],
                itoa::Buffer::new().format(id).as_bytes(),
                "{id}"
            );
        };
        let stop = if cfg!(miri) { 1_200 } else { 2_000_000 };
        for id in 0..stop {
            check(&ids, &mut out, id);
            ids.advance(id + 1);
        }
        // Around the last eight-digit id and past it.
        let mut ids = NextId::new();
        let mut id = 99_999_990;
        ids.carry(id);
        while id < 100_000_010 {
            check(&ids, &mut out, id);
            id += 1;
            ids.advance(id);
        }
    }

    #[test]
    fn printable_names_copy_and_check_in_one_pass() {
        let base: Vec<u8> = (0..200u8).map(|i| b'!' + i % 94).collect();
        let lengths: Vec<usize> = if cfg!(miri) {
            vec![0, 1, 7, 15, 16, 17, 31, 32, 33, 70]
        } else {
            (0..=200).collect()
        };
        for &n in &lengths {
            let mut out = [b'#'; LINE + 64];
            let (end, printable) = put_printable(&mut out, 5, &base[..n]);
            assert_eq!(end, 5 + n);
            assert_eq!(&out[5..end], &base[..n]);
            assert!(out[..5].iter().chain(&out[end..]).all(|&b| b == b'#'));
            assert_eq!(printable, n > 0);
            let positions: Vec<usize> = if cfg!(miri) {
                vec![0, n / 2, n.saturating_sub(1)]
            } else {
                (0..n).collect()
            };
            for &at in positions.iter().filter(|&&at| at < n) {
                for bad in [0x00, 0x09, 0x20, 0x7f, 0x80, 0xa0, 0xff] {
                    let mut name = base[..n].to_vec();
                    name[at] = bad;
                    let (end, printable) = put_printable(&mut out, 5, &name);
                    assert_eq!(&out[5..end], &name[..]);
                    assert!(!printable, "{n} {at} {bad:#x}");
                }
            }
        }
        for x in [0u128, u128::MAX, 0x2121_2121, 0x7e7e] {
            let bytes = x.to_le_bytes();
            assert_eq!(
                non_printable_bits(x) == 0,
                bytes.iter().all(|b| (0x21..=0x7e).contains(b))
            );
        }
    }
}
