//! The decoder's state machine: one line at a time, with the fast
//! parsers for runs of node and edge lines.
use alloc::borrow::Cow;
use alloc::vec::Vec;

use crate::hash::HashMap;

use super::*;
use crate::error::{excerpt, Error, ErrorKind};
use crate::graph::decode_fast;
use crate::graph::token::is_token;
use crate::graph::types::{Edge, Location, Payload, Reference, Symbol};
use crate::header::{parse_count, parse_decimal, parse_distance, Header};
use crate::input::{SourceLine, SourceLines};
use crate::limits::Limits;

/// Which section the decoder is in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Section {
    None,
    Group(u32),
    Edges,
    Loc,
    /// An unrecognized group: its lines are skipped (spec §6b, forward compatibility).
    Unknown,
}

/// A section header's `[N]`, checked when the section ends (`None` for a
/// deferred `[?]`, which the trailer's totals check instead).
pub(super) struct OpenCount {
    pub(super) declared: Option<u64>,
    pub(super) seen: u64,
    pub(super) line: usize,
    pub(super) column: usize,
}

pub(super) struct Trailer {
    pub(super) symbols: Option<u64>,
    pub(super) edges: Option<u64>,
    pub(super) loc: Option<u64>,
    pub(super) line: usize,
}

pub(super) struct State<'a, 'l, T: Text<'a>> {
    pub(super) limits: &'l Limits,
    /// Symbols delivered in earlier calls of a session, to resolve bare
    /// references; borrowed as long as the input, so their strings are
    /// taken as the input's are.
    pub(super) known: Option<&'a HashMap<u64, Symbol>>,
    /// With no `known` symbols: a bare reference is an error rather than an
    /// entry of `payload.references` ([`super::Decoder::refuse_references`]).
    pub(super) refuse_references: bool,
    /// The id of each entry of `payload.symbols`.
    pub(super) symbol_ids: Vec<u64>,
    /// Each symbol's name as the input (or, for a symbol resolved from
    /// `known`, the earlier payload) spells it: edges copy their endpoints
    /// from here, one read of the text, rather than from the symbol's own
    /// string.
    pub(super) names: Vec<Option<&'a str>>,
    pub(super) payload: Payload<T>,
    /// `T` borrows from (or copies) the input.
    pub(super) input: core::marker::PhantomData<&'a str>,
    pub(super) ids: IdTable,
    pub(super) section: Section,
    pub(super) open: Option<OpenCount>,
    pub(super) trailer: Option<Trailer>,
    pub(super) header_symbols: Option<u64>,
    pub(super) header_edges: Option<u64>,
    /// Interned labels (shared and indexed strings only).
    pub(super) pool: T::Pool,
}

impl<'a, 'l, T: Text<'a>> State<'a, 'l, T> {
    /// Reserves room for the counts the header declares, so the vectors are
    /// not regrown (and copied) while a large payload is read. A declared
    /// count is only a hint: it is capped by the configured limit and by
    /// what `input_len` bytes can hold (a symbol line takes at least 12
    /// bytes, an edge line at least 8), so a lying header cannot make the
    /// decoder allocate more than the input justifies.
    pub(super) fn presize(&mut self, input_len: usize) {
        let cap = |declared: Option<u64>, min_line: usize| {
            declared.map_or(0, |n| {
                (n.min(usize::MAX as u64) as usize)
                    .min(self.limits.max_container_len)
                    .min(input_len / min_line)
            })
        };
        let symbols = cap(self.header_symbols, 12);
        let edges = cap(self.header_edges, 8);
        self.payload.symbols.reserve(symbols);
        self.symbol_ids.reserve(symbols);
        self.names.reserve(symbols);
        self.payload.edges.reserve(edges);
    }

    pub(super) fn new(
        line: &SourceLine<'a>,
        header: &Header<'a>,
        limits: &'l Limits,
    ) -> Result<Self, Error> {
        let flag = |key: &str| -> Result<bool, Error> {
            match header.get(key) {
                None | Some("false") => Ok(false),
                Some("true") => Ok(true),
                Some(v) => Err(line.error_at(
                    ErrorKind::MalformedHeaderField,
                    header.column_of(line.text, key) - 1,
                    alloc::format!(
                        "header field `{}={}` must be true or false",
                        crate::error::excerpt(key),
                        crate::error::excerpt(v)
                    ),
                )),
            }
        };
        let payload = Payload {
            tool: T::borrowed(header.get("tool").unwrap_or("")),
            token_budget: parse_count(line, header, "budget")?.unwrap_or(0),
            tokens_used: parse_count(line, header, "tokens")?.unwrap_or(0),
            pack_root: T::borrowed(header.get("pack_root").unwrap_or("")),
            session: flag("session")?,
            unchanged: flag("unchanged")?,
            ..Payload::default()
        };
        Ok(State {
            limits,
            known: None,
            refuse_references: false,
            symbol_ids: Vec::new(),
            names: Vec::new(),
            payload,
            input: core::marker::PhantomData,
            ids: IdTable::new(),
            section: Section::None,
            open: None,
            trailer: None,
            header_symbols: parse_count(line, header, "symbols")?,
            header_edges: parse_count(line, header, "edges")?,
            pool: T::Pool::default(),
        })
    }

    pub(super) fn line(&mut self, line: SourceLine<'a>) -> Result<(), Error> {
        let text = line.text;
        if line.is_blank() {
            return Ok(());
        }
        if line.indentation()? > 0 {
            if line.is_comment() {
                return Ok(());
            }
            return Err(line.error_at(
                ErrorKind::InvalidIndent,
                0,
                "graph payloads are flat: unexpected indentation",
            ));
        }
        if line.is_comment() {
            return Ok(());
        }
        if self.trailer.is_some() {
            return Err(line.error_at(
                ErrorKind::InvalidSyntax,
                0,
                "content after the `##! summary` trailer",
            ));
        }
        if let Some(rest) = text.strip_prefix("##! summary") {
            if rest.is_empty() || rest.starts_with(' ') {
                return self.trailer(&line, rest);
            }
        }
        if let Some(rest) = text.strip_prefix("## _summary") {
            if rest.is_empty() || rest.starts_with(' ') {
                return self.trailer(&line, rest);
            }
        }
        if let Some(rest) = text.strip_prefix("## ") {
            return self.section_header(&line, rest);
        }
        match self.section {
            Section::Group(distance) => self.node_line(&line, distance)?,
            Section::Edges => self.edge_line(&line)?,
            Section::Loc => self.loc_line(&line)?,
            Section::Unknown => return Ok(()),
            // A line that is no node or edge line is that error here too, as
            // in a group (and as the reference SDKs report it).
            Section::None if !text.starts_with('@') => {
                return Err(line.error_at(
                    ErrorKind::InvalidNodeLine,
                    0,
                    "expected a line starting with `@id`",
                ))
            }
            Section::None => {
                return Err(line.error_at(
                    ErrorKind::InvalidSyntax,
                    0,
                    "expected a group header (`## targets`, `## related`, ...) before this line",
                ))
            }
        }
        if let Some(open) = &mut self.open {
            open.seen += 1;
        }
        Ok(())
    }

    pub(super) fn close_section(&mut self) -> Result<(), Error> {
        if let Some(open) = self.open.take() {
            if let Some(declared) = open.declared {
                if declared != open.seen {
                    return Err(Error::at(
                        ErrorKind::CountMismatch,
                        open.line,
                        open.column,
                        alloc::format!("section declares [{declared}] but has {} lines", open.seen),
                    ));
                }
            }
        }
        Ok(())
    }

    pub(super) fn section_header(
        &mut self,
        line: &SourceLine<'a>,
        rest: &'a str,
    ) -> Result<(), Error> {
        self.close_section()?;
        // Byte scans, not `str::find`: a section header is a few bytes,
        // shorter than a `memchr` call's setup.
        let (name, bracket) = match rest.bytes().position(|b| b == b' ') {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let section = match name {
            "targets" => Section::Group(0),
            "related" => Section::Group(1),
            "extended" => Section::Group(2),
            "edges" => Section::Edges,
            "loc" => Section::Loc,
            "removed" | "added" | "edges_removed" | "edges_added" => {
                return Err(line.error_at(
                    ErrorKind::MalformedDelta,
                    3,
                    alloc::format!(
                        "`## {name}` is a delta section but the header has no delta=true"
                    ),
                ))
            }
            // §4 `"distance_" 1*DIGIT`: leading zeros included, and a value
            // too large is a limit error; only a non-digit name is unknown.
            _ => match name.strip_prefix("distance_").and_then(parse_distance) {
                Some(Some(d)) => Section::Group(d),
                Some(None) => {
                    return Err(line.error_at(
                        ErrorKind::LimitExceeded,
                        3,
                        "distance does not fit in 32 bits",
                    ))
                }
                None => Section::Unknown,
            },
        };
        let mut open = None;
        if let Some(bracket) = bracket {
            let bracket_at = line.text.len() - bracket.len();
            let inner = bracket.strip_prefix('[').and_then(|b| {
                let end = b.bytes().position(|c| c == b']')?;
                Some((&b[..end], &b[end + 1..]))
            });
            match (inner, section) {
                (Some((count, _)), _) => {
                    let declared = if count == "?" {
                        None
                    } else {
                        match parse_decimal(count) {
                            Some(n) => Some(n),
                            None => {
                                return Err(line.error_at(
                                    ErrorKind::InvalidCount,
                                    bracket_at + 1,
                                    alloc::format!(
                                    "count `[{}]` must be 0, a decimal without leading zeros, or ?",
                                    crate::error::excerpt(count)
                                ),
                                ))
                            }
                        }
                    };
                    open = Some(OpenCount {
                        declared,
                        seen: 0,
                        line: line.number,
                        column: crate::text::column_of(line.text, bracket_at),
                    });
                }
                (None, Section::Unknown) => {}
                (None, _) => {
                    return Err(line.error_at(
                        ErrorKind::InvalidSyntax,
                        bracket_at,
                        alloc::format!(
                            "unexpected text `{}` after `## {}`",
                            crate::error::excerpt(bracket),
                            crate::error::excerpt(name)
                        ),
                    ))
                }
            }
        }
        self.section = section;
        // An unknown section is skipped whole; its count is not ours to check.
        self.open = if section == Section::Unknown {
            None
        } else {
            open
        };
        Ok(())
    }

    pub(super) fn node_line(&mut self, line: &SourceLine<'a>, distance: u32) -> Result<(), Error> {
        let (id, rest) = parse_id_prefix(line, line.text, ErrorKind::InvalidNodeLine)?;
        if rest.starts_with("  #") {
            // `@7  # previously transmitted`: a bare session reference (spec §9).
            if let Some(known) = self.known {
                let Some(symbol) = known.get(&id) else {
                    return Err(line.error_at(
                        ErrorKind::UnknownEdgeReference,
                        1,
                        alloc::format!("bare reference @{id} names no symbol delivered earlier in this session"),
                    ));
                };
                let index = self.payload.symbols.len() as u32;
                if !self.ids.insert(id, Slot::Symbol(index)) {
                    return Err(duplicate_id(line, id));
                }
                // The earlier symbol's strings live as long as the input,
                // so every form takes them as it takes the input's: named
                // by index, labels interned (and numbered) with the rest.
                let name = symbol.qualified_name.as_str();
                self.payload.symbols.push(Symbol {
                    qualified_name: T::name(name, index),
                    kind: T::label(&mut self.pool, Label::Kind, &symbol.kind),
                    score: symbol.score,
                    provenance: T::label(&mut self.pool, Label::Provenance, &symbol.provenance),
                    distance,
                });
                self.symbol_ids.push(id);
                self.names.push(Some(name));
                return self.check_len(line);
            }
            if self.refuse_references {
                return Err(line.error_at(
                    ErrorKind::InvalidNodeLine,
                    0,
                    alloc::format!(
                        "bare reference @{id} names a symbol sent in an earlier payload of a \
                         session: decode the session's payloads with a session decoder"
                    ),
                ));
            }
            if !self.ids.insert(id, Slot::Reference) {
                return Err(duplicate_id(line, id));
            }
            self.payload.references.push(Reference { id, distance });
            return self.check_len(line);
        }
        let fields = split_fields::<4>(rest).ok_or_else(|| {
            line.error_at(ErrorKind::InvalidNodeLine, 0, node_line_message(line.text))
        })?;
        let [kind, qname, score_text, provenance] = fields;
        let score = parse_score(line, score_text)?;
        let index = self.payload.symbols.len() as u32;
        if !self.ids.insert(id, Slot::Symbol(index)) {
            return Err(duplicate_id(line, id));
        }
        self.symbol_ids.push(id);
        self.names.push(Some(qname));
        self.payload.symbols.push(Symbol {
            qualified_name: T::name(qname, index),
            kind: match decode_fast::kind_index(kind.as_bytes()) {
                Some(index) => T::known_kind(&mut self.pool, index),
                None => T::label(&mut self.pool, Label::Kind, kind),
            },
            score,
            provenance: T::label(&mut self.pool, Label::Provenance, provenance),
            distance,
        });
        self.check_len(line)
    }

    /// The name of symbol `index` for an edge or location: borrowed or copied
    /// from the input where the symbol was declared, or shared with the
    /// symbol (shared strings, and symbols resolved from a session).
    #[inline]
    pub(super) fn endpoint(&self, index: u32) -> T {
        endpoint_of(&self.names, &self.payload.symbols, index)
    }

    /// Whether one more symbol (`symbols`) or edge (`edges`) stays within
    /// the container limit that [`State::check_len`] enforces after a push.
    #[inline]
    pub(super) fn room_for(&self, symbols: usize, edges: usize) -> bool {
        let max = self.limits.max_container_len;
        self.payload.symbols.len() + self.payload.references.len() + symbols <= max
            && self.payload.edges.len() + edges <= max
    }

    /// Reads plain node lines (see `decode_fast`) while there are any: the
    /// same effect as [`State::line`] on each, without splitting the line
    /// first. Returns at the first line it declines, or one that would be an
    /// error (a duplicate id, a limit), for the general path to handle.
    pub(super) fn fast_nodes(&mut self, lines: &mut SourceLines<'a>, distance: u32) {
        let max_line_len = self.limits.max_line_len;
        loop {
            let rest = lines.remaining();
            let Some(node) = decode_fast::node_line(rest.as_bytes()) else {
                return;
            };
            if node.len > max_line_len || !self.room_for(1, 0) {
                return;
            }
            let index = self.payload.symbols.len() as u32;
            if !self.ids.insert(node.id, Slot::Symbol(index)) {
                return;
            }
            // SAFETY: `rest` starts a line (a char boundary), and every range
            // passed is one `node_line` returned for `rest`.
            let field = |range| unsafe { decode_fast::field_str(rest, 0, range) };
            let (kind, name) = (field(node.kind), field(node.name));
            let kind = match decode_fast::kind_index(kind.as_bytes()) {
                Some(index) => T::known_kind(&mut self.pool, index),
                None => T::label(&mut self.pool, Label::Kind, kind),
            };
            self.symbol_ids.push(node.id);
            self.names.push(Some(name));
            self.payload.symbols.push(Symbol {
                qualified_name: T::name(name, index),
                kind,
                score: node.score,
                provenance: T::label(&mut self.pool, Label::Provenance, field(node.provenance)),
                distance,
            });
            if let Some(open) = &mut self.open {
                open.seen += 1;
            }
            lines.skip_line(node.next);
        }
    }

    /// Reads plain edge lines while there are any, like [`State::fast_nodes`].
    ///
    /// An edge names its target (and, less often, its source) at random,
    /// so looking it up is a likely cache miss on a large payload. The lines
    /// are parsed in batches: parsing a batch starts loading every lookup it
    /// will make, so the misses overlap instead of being paid one after the
    /// other. The limits are checked once for the batch (by where parsing
    /// stops), parsing also stops at an endpoint that is not a declared
    /// symbol, and the batch's edges are then appended in one
    /// `extend`, which writes them into the vector's room without a
    /// capacity check per edge.
    pub(super) fn fast_edges(&mut self, lines: &mut SourceLines<'a>) {
        /// Lines parsed ahead of the loads their edges make.
        const BATCH: usize = 16;
        /// Lookups ahead of the edge being built whose strings are loaded
        /// (owned and shared strings read them).
        const AHEAD: usize = 4;
        let max_line_len = self.limits.max_line_len;
        let max = self.limits.max_container_len;
        // Filled afresh (up to `n`) by each batch: initialized once.
        let mut batch = [BatchedEdge::default(); BATCH];
        loop {
            let rest = lines.remaining();
            let bytes = rest.as_bytes();
            // Edges that still fit the container limit (and none if the
            // symbols already fill it): the line after them is left to the
            // general path, which reports the error.
            let room = if self.payload.symbols.len() + self.payload.references.len() <= max {
                max.saturating_sub(self.payload.edges.len())
            } else {
                0
            };
            let limit = room.min(BATCH);
            let mut n = 0;
            let mut offset = 0;
            while n < limit {
                let Some(parsed) = decode_fast::edge_line(&bytes[offset..]) else {
                    break;
                };
                if parsed.len > max_line_len {
                    break;
                }
                // Ids are usually their symbol's index: load that slot.
                self.prefetch_slot(parsed.target);
                self.prefetch_slot(parsed.source);
                // `IdTable::get` with its usual case taken out of the loop's
                // per-id branch: with sequential ids, an id is its index.
                let (source, target) = if self.ids.sequential {
                    let len = self.ids.len;
                    if parsed.source >= len || parsed.target >= len {
                        break;
                    }
                    (parsed.source as u32, parsed.target as u32)
                } else {
                    let (Some(Slot::Symbol(source)), Some(Slot::Symbol(target))) =
                        (self.ids.get(parsed.source), self.ids.get(parsed.target))
                    else {
                        break;
                    };
                    (source, target)
                };
                batch[n] = BatchedEdge {
                    source,
                    target,
                    type_start: offset + parsed.edge_type.0,
                    type_end: offset + parsed.edge_type.1,
                    status_end: offset + parsed.status.1,
                    end: offset + parsed.next,
                };
                offset += parsed.next;
                n += 1;
            }
            let names = &self.names;
            let symbols = &self.payload.symbols;
            let pool = &mut self.pool;
            self.payload.edges.extend((0..n).map(|i| {
                if let Some(ahead) = batch[..n].get(i + AHEAD) {
                    prefetch_name(names, symbols, ahead.target);
                }
                let edge = &batch[i];
                let (source, target) = (edge.source, edge.target);
                // SAFETY: every range passed is one `edge_line` returned for
                // `rest[at..]`, moved by `at` (the start of a line of `rest`,
                // a char boundary), so it is such a range of `rest` itself.
                let field = |range| unsafe { decode_fast::field_str(rest, 0, range) };
                Edge {
                    source: endpoint_of(names, symbols, source),
                    target: endpoint_of(names, symbols, target),
                    edge_type: T::label(pool, Label::EdgeType, field(edge.edge_type())),
                    status: T::label(pool, Label::Status, field(edge.status())),
                }
            }));
            if let Some(open) = &mut self.open {
                open.seen += n as u64;
            }
            let mut at = 0;
            for edge in &batch[..n] {
                lines.skip_line(edge.end - at);
                at = edge.end;
            }
            if n < BATCH {
                return;
            }
        }
    }

    /// Starts loading what [`State::endpoint`] reads first for symbol id
    /// `id`, assuming the id is its index (a hint: any id is harmless).
    #[inline(always)]
    pub(super) fn prefetch_slot(&self, id: u64) {
        let index = id as usize;
        if T::SHARES {
            crate::hint::prefetch(self.payload.symbols.as_ptr().wrapping_add(index));
        } else {
            crate::hint::prefetch(self.names.as_ptr().wrapping_add(index));
        }
    }

    pub(super) fn check_len(&self, line: &SourceLine<'a>) -> Result<(), Error> {
        let n = self.payload.symbols.len() + self.payload.references.len();
        if n > self.limits.max_container_len
            || self.payload.edges.len() > self.limits.max_container_len
        {
            return Err(line.error_at(
                ErrorKind::LimitExceeded,
                0,
                alloc::format!(
                    "more than {} symbols or edges",
                    self.limits.max_container_len
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn symbol_name(
        &self,
        line: &SourceLine<'a>,
        id: u64,
        at: usize,
    ) -> Result<T, Error> {
        match self.ids.get(id) {
            Some(Slot::Symbol(i)) => Ok(self.endpoint(i)),
            Some(Slot::Reference) => Err(line.error_at(
                ErrorKind::UnknownEdgeReference,
                at,
                alloc::format!(
                    "@{id} is a bare session reference to a symbol sent in an earlier payload; only a session decoder that kept those payloads resolves it"
                ),
            )),
            None => Err(line.error_at(
                ErrorKind::UnknownEdgeReference,
                at,
                alloc::format!(
                    "edge references unknown symbol id @{id} (not declared earlier in the payload)"
                ),
            )),
        }
    }

    pub(super) fn edge_line(&mut self, line: &SourceLine<'a>) -> Result<(), Error> {
        let edge = parse_edge_line(line)?;
        let source = self.symbol_name(line, edge.source, edge.source_at)?;
        let target = self.symbol_name(line, edge.target, 1)?;
        self.payload.edges.push(Edge {
            source,
            target,
            edge_type: T::label(&mut self.pool, Label::EdgeType, edge.edge_type),
            status: T::label(&mut self.pool, Label::Status, edge.status),
        });
        self.check_len(line)
    }

    pub(super) fn loc_line(&mut self, line: &SourceLine<'a>) -> Result<(), Error> {
        let (id, rest) = parse_id_prefix(line, line.text, ErrorKind::InvalidNodeLine)?;
        let bad = |msg: &str| {
            line.error_at(
                ErrorKind::InvalidNodeLine,
                0,
                alloc::format!("invalid loc line: {msg}"),
            )
        };
        let rest = rest
            .strip_prefix(' ')
            .ok_or_else(|| bad("expected `@id file line column [end_line end_column]`"))?;
        let (file, after) = if rest.starts_with('"') {
            let offset = line.text.len() - rest.len();
            let (value, end) = crate::text::parse_quoted(line.text, offset)
                .map_err(|e| e.with_position(line.number, 1))?;
            (value, &line.text[end..])
        } else {
            let end = rest.find(' ').unwrap_or(rest.len());
            if !is_token(&rest[..end]) {
                return Err(bad(
                    "a bare file path contains no whitespace or control characters",
                ));
            }
            (Cow::Borrowed(&rest[..end]), &rest[end..])
        };
        let mut numbers = [0u32; 4];
        let mut count = 0;
        for part in after.split(' ').skip(1) {
            let n = parse_decimal(part)
                .and_then(|n| u32::try_from(n).ok())
                .filter(|&n| n >= 1);
            match (n, count < 4) {
                (Some(n), true) => {
                    numbers[count] = n;
                    count += 1;
                }
                _ => {
                    return Err(bad(
                        "positions are 1-based decimals: line column [end_line end_column]",
                    ))
                }
            }
        }
        if !after.starts_with(' ') && !after.is_empty() || (count != 2 && count != 4) {
            return Err(bad("expected `@id file line column [end_line end_column]`"));
        }
        let qualified_name = self.symbol_name(line, id, 1)?;
        if self.payload.locations.len() >= self.limits.max_container_len {
            return Err(line.error_at(
                ErrorKind::LimitExceeded,
                0,
                alloc::format!("more than {} locations", self.limits.max_container_len),
            ));
        }
        self.payload.locations.push(Location {
            qualified_name,
            file: T::from_cow(file),
            line: numbers[0],
            column: numbers[1],
            end: (count == 4).then_some((numbers[2], numbers[3])),
        });
        Ok(())
    }

    pub(super) fn trailer(&mut self, line: &SourceLine<'a>, rest: &'a str) -> Result<(), Error> {
        self.close_section()?;
        self.section = Section::None;
        let mut trailer = Trailer {
            symbols: None,
            edges: None,
            loc: None,
            line: line.number,
        };
        for pair in rest.split(' ').filter(|p| !p.is_empty()) {
            let Some((key, value)) = pair.split_once('=') else {
                return Err(line.error_at(
                    ErrorKind::MalformedHeaderField,
                    line.text.len() - rest.len(),
                    alloc::format!("trailer field `{}` has no `=`", crate::error::excerpt(pair)),
                ));
            };
            let slot = match key {
                "symbols" => &mut trailer.symbols,
                "edges" => &mut trailer.edges,
                "loc" => &mut trailer.loc,
                // `counts` (and the legacy `sections`) are informational in the
                // graph profile and never validated (spec §8.4.1).
                _ => continue,
            };
            *slot = Some(parse_decimal(value).ok_or_else(|| {
                line.error_at(
                    ErrorKind::MalformedHeaderField,
                    0,
                    alloc::format!(
                        "trailer field `{}` is not a decimal count",
                        crate::error::excerpt(pair)
                    ),
                )
            })?);
        }
        self.trailer = Some(trailer);
        Ok(())
    }

    pub(super) fn finish(mut self, header_line: &SourceLine<'a>) -> Result<Payload<T>, Error> {
        self.close_section()?;
        let symbols = (self.payload.symbols.len() + self.payload.references.len()) as u64;
        let edges = self.payload.edges.len() as u64;
        let mismatch = |line: usize, what: &str, declared: u64, actual: u64| {
            Error::at(
                ErrorKind::CountMismatch,
                line,
                1,
                alloc::format!("{what} declares {declared} but the payload has {actual}"),
            )
        };
        if let Some(declared) = self.header_symbols {
            // An `unchanged=true` answer is header-only and counts the held snapshot.
            if declared != symbols && !self.payload.unchanged {
                return Err(mismatch(
                    header_line.number,
                    "the header's symbols=",
                    declared,
                    symbols,
                ));
            }
        }
        if let Some(declared) = self.header_edges {
            if declared != edges {
                return Err(mismatch(
                    header_line.number,
                    "the header's edges=",
                    declared,
                    edges,
                ));
            }
        }
        if let Some(t) = &self.trailer {
            if let Some(declared) = t.symbols {
                if declared != symbols {
                    return Err(mismatch(
                        t.line,
                        "the trailer's symbols=",
                        declared,
                        symbols,
                    ));
                }
            }
            if let Some(declared) = t.edges {
                if declared != edges {
                    return Err(mismatch(t.line, "the trailer's edges=", declared, edges));
                }
            }
            if let Some(declared) = t.loc {
                let locs = self.payload.locations.len() as u64;
                if declared != locs {
                    return Err(mismatch(t.line, "the trailer's loc=", declared, locs));
                }
            }
        }
        Ok(self.payload)
    }
}

/// An edge line of a batch in [`State::fast_edges`]: its endpoints, and its
/// fields as byte ranges of the remaining input (moved by the line's offset).
#[derive(Clone, Copy, Default)]
pub(super) struct BatchedEdge {
    /// The endpoints' indexes in the symbols.
    pub(super) source: u32,
    pub(super) target: u32,
    pub(super) type_start: usize,
    pub(super) type_end: usize,
    /// `type_end` when the line has no status.
    pub(super) status_end: usize,
    /// Just past the line's terminator.
    pub(super) end: usize,
}

impl BatchedEdge {
    #[inline(always)]
    pub(super) fn edge_type(&self) -> (usize, usize) {
        (self.type_start, self.type_end)
    }

    /// The status follows the type and its space; an empty range at the
    /// type's end when there is none.
    #[inline(always)]
    pub(super) fn status(&self) -> (usize, usize) {
        ((self.type_end + 1).min(self.status_end), self.status_end)
    }
}

/// [`State::endpoint`] on the fields it reads, so edges can be built while
/// the edge vector is borrowed.
#[inline(always)]
pub(super) fn endpoint_of<'a, T: Text<'a>>(
    names: &[Option<&'a str>],
    symbols: &[Symbol<T>],
    index: u32,
) -> T {
    match names.get(index as usize) {
        Some(Some(name)) if !T::SHARES => T::name(name, index),
        _ => symbols[index as usize].qualified_name.copy(),
    }
}

/// Starts loading the string an edge to symbol `index` will read (owned
/// strings copy the name's bytes, shared ones count a reference).
#[inline(always)]
pub(super) fn prefetch_name<'a, T: Text<'a>>(
    names: &[Option<&'a str>],
    symbols: &[Symbol<T>],
    index: u32,
) {
    if !T::READS_TEXT {
        return;
    }
    match names.get(index as usize) {
        Some(Some(name)) if !T::SHARES => crate::hint::prefetch_bytes(name.as_bytes()),
        _ => {
            if let Some(symbol) = symbols.get(index as usize) {
                crate::hint::prefetch(symbol.qualified_name.as_ref().as_ptr());
            }
        }
    }
}

/// Why a node line did not split into its five fields, in the words the
/// reference SDKs use for the common case (too few).
fn node_line_message(text: &str) -> alloc::string::String {
    let count = text.split(' ').count();
    let shape = "@id kind qualified_name score provenance";
    if count < 5 {
        alloc::format!(
            "symbol line needs at least 5 fields ({shape}), got {count} in `{}`",
            excerpt(text)
        )
    } else if count > 5 {
        alloc::format!(
            "symbol line has more than 5 fields ({shape}), got {count} in `{}`",
            excerpt(text)
        )
    } else {
        alloc::format!(
            "symbol line has an empty field or one holding whitespace or a control character in `{}`",
            excerpt(text)
        )
    }
}
