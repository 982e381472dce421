//! The strict graph decoder (spec §4, §5, §6, §6a, §6b, §8.4-8.6, §13, §16.3, §16.5).

use alloc::borrow::Cow;
use alloc::string::String;
#[cfg(target_has_atomic = "ptr")]
use alloc::sync::Arc;
use alloc::vec::Vec;

use hashbrown::HashMap;

use super::decode_fast;
use super::kind::expand_known;
use super::token::is_token;
use super::types::{Edge, Location, Payload, Reference, Symbol};
use crate::error::{Error, ErrorKind};
use crate::header::{parse_count, parse_decimal, parse_distance, read_header, Header, Profile};
use crate::input::{validate_utf8, SourceLine, SourceLines};
use crate::limits::Limits;

/// Decodes a graph payload into owned data with default [`Limits`].
///
/// This is the reference crate's form, and the slowest one: every string of
/// the result is its own allocation (both endpoint names of every edge, every
/// kind and edge type), and allocating, filling and later freeing those
/// strings alone takes most of the time (see `benches/REPORT.md`,
/// `floor-owned`). The fast paths return the same payload without them:
/// [`decode_borrowed`] (strings borrowed from the input, three to four times
/// faster) when the input outlives the result, and [`decode_shared`]
/// (`Arc<str>`: one allocation per name, shared by the edges naming it)
/// when it does not.
///
/// ```
/// use gcf_core::graph::decode;
/// let p = decode("GCF profile=graph symbols=1\n## related\n@0 iface pkg.Handler 0.90 lsp\n")?;
/// assert_eq!(p.symbols[0].kind, "interface");
/// assert_eq!(p.symbols[0].distance, 1);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn decode(input: &str) -> Result<Payload, Error> {
    Decoder::new().decode(input)
}

/// Decodes raw bytes, rejecting malformed UTF-8 with its line and column.
///
/// ```
/// use gcf_core::{graph::decode_bytes, ErrorKind};
/// let err = decode_bytes(b"GCF profile=graph\n## targets\n@0 fn a\xff 0.50 x\n").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::InvalidUtf8);
/// assert_eq!(err.line(), Some(3));
/// ```
pub fn decode_bytes(input: &[u8]) -> Result<Payload, Error> {
    Decoder::new().decode_bytes(input)
}

/// Decodes without copying: strings borrow from `input` (known kinds are
/// expanded to `'static` names; only quoted location paths with escapes are
/// owned).
///
/// ```
/// use gcf_core::graph::decode_borrowed;
/// let text = String::from("GCF profile=graph symbols=1\n## targets\n@0 fn pkg.A 0.50 lsp\n");
/// let p = decode_borrowed(&text)?;
/// assert_eq!(p.symbols[0].qualified_name, "pkg.A");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn decode_borrowed(input: &str) -> Result<Payload<Cow<'_, str>>, Error> {
    Decoder::new().decode_borrowed(input)
}

/// Decodes into owned strings that are shared: each symbol's name is
/// allocated once and every edge naming that symbol holds another reference
/// to it, and the few distinct kinds, provenances, edge types and statuses
/// are allocated once each.
///
/// For a consumer that cannot keep `input` alive (so cannot use
/// [`decode_borrowed`]) this is the cheap owned form: [`decode`] makes a
/// separate `String` for both ends of every edge, about a dozen allocations
/// per symbol on a typical code graph, where this makes about one. The
/// payload compares equal to [`decode`]'s (`Arc<str>` derefs to the same
/// text), and errors are the same. Available in `no_std` builds on every
/// target with pointer-sized atomics (what `alloc::sync::Arc` needs).
///
/// ```
/// use std::sync::Arc;
/// use gcf_core::graph::decode_shared;
/// let p = decode_shared(
///     "GCF profile=graph symbols=2 edges=1\n## targets\n@0 fn pkg.A 0.50 lsp\n\
///      @1 fn pkg.B 0.40 lsp\n## edges [1]\n@0<@1 calls\n",
/// )?;
/// assert_eq!(&*p.edges[0].source, "pkg.B");
/// // The edge's endpoint is the symbol's own string, not a copy.
/// assert!(Arc::ptr_eq(&p.edges[0].source, &p.symbols[1].qualified_name));
/// assert!(Arc::ptr_eq(&p.symbols[0].kind, &p.symbols[1].kind));
/// # Ok::<(), gcf_core::Error>(())
/// ```
#[cfg(target_has_atomic = "ptr")]
pub fn decode_shared(input: &str) -> Result<Payload<Arc<str>>, Error> {
    Decoder::new().decode_shared(input)
}

/// A configurable graph decoder.
///
/// ```
/// use gcf_core::{graph::Decoder, ErrorKind, Limits};
/// let d = Decoder::new().limits(Limits { max_container_len: 1, ..Limits::default() });
/// let err = d.decode("GCF profile=graph\n## targets\n@0 fn a 0.50 x\n@1 fn b 0.50 x\n").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::LimitExceeded);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    limits: Limits,
    /// Tests only: decode every line through the general path, to compare
    /// the fast line parsers against it on whole payloads.
    #[cfg(test)]
    general_only: bool,
}

impl Decoder {
    /// A decoder with default limits.
    pub fn new() -> Decoder {
        Decoder {
            limits: Limits::default(),
            #[cfg(test)]
            general_only: false,
        }
    }

    /// Replaces the limits.
    pub fn limits(mut self, limits: Limits) -> Decoder {
        self.limits = limits;
        self
    }

    /// Decodes into owned data.
    pub fn decode(&self, input: &str) -> Result<Payload, Error> {
        // Built owned in the one pass: no borrowed payload to convert after.
        self.decode_into::<String>(input, None).map(|(p, _)| p)
    }

    /// Validates UTF-8, then decodes into owned data.
    pub fn decode_bytes(&self, input: &[u8]) -> Result<Payload, Error> {
        self.decode(validate_utf8(input)?)
    }

    /// Decodes into shared strings (see [`decode_shared`]).
    #[cfg(target_has_atomic = "ptr")]
    pub fn decode_shared(&self, input: &str) -> Result<Payload<Arc<str>>, Error> {
        self.decode_into::<Arc<str>>(input, None).map(|(p, _)| p)
    }

    /// Decodes, borrowing strings from `input`.
    pub fn decode_borrowed<'a>(&self, input: &'a str) -> Result<Payload<Cow<'a, str>>, Error> {
        self.decode_with_known(input, None).map(|(p, _)| p)
    }

    /// Decodes, resolving bare references through `known` (session ids to
    /// symbols delivered earlier) when given. Returns the id of every symbol.
    pub(crate) fn decode_with_known<'a>(
        &self,
        input: &'a str,
        known: Option<&HashMap<u64, Symbol>>,
    ) -> Result<(Payload<Cow<'a, str>>, Vec<u64>), Error> {
        self.decode_into(input, known)
    }

    /// [`Decoder::decode_with_known`] producing strings of type `T`.
    fn decode_into<'a, T: Text<'a>>(
        &self,
        input: &'a str,
        known: Option<&HashMap<u64, Symbol>>,
    ) -> Result<(Payload<T>, Vec<u64>), Error> {
        let mut lines = SourceLines::new(input, &self.limits)?;
        let (header_line, header) = read_header(&mut lines)?;
        if header.profile != Profile::Graph {
            return Err(header_line.error_at(
                ErrorKind::InvalidInput,
                4,
                "this is a generic-profile payload, not a graph one",
            ));
        }
        if header.get("delta") == Some("true") {
            return Err(header_line.error_at(
                ErrorKind::InvalidInput,
                4,
                "this is a graph delta payload: apply it to the snapshot it was made from",
            ));
        }
        let mut state = State::new(&header_line, &header, &self.limits)?;
        state.known = known;
        state.presize(input.len());
        #[cfg(test)]
        let fast = !self.general_only;
        #[cfg(not(test))]
        let fast = true;
        loop {
            // Plain node and edge lines are parsed in place; the first line
            // the fast parsers decline (a section header, a comment, an
            // unusual or malformed line) goes through the general path.
            match state.section {
                Section::Group(distance) if fast => state.fast_nodes(&mut lines, distance),
                Section::Edges if fast => state.fast_edges(&mut lines),
                _ => {}
            }
            let Some(line) = lines.next() else { break };
            state.line(line?)?;
        }
        let ids = core::mem::take(&mut state.symbol_ids);
        state.finish(&header_line).map(|p| (p, ids))
    }
}

/// Which section the decoder is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    Group(u32),
    Edges,
    Loc,
    /// An unrecognized group: its lines are skipped (spec §6b, forward compatibility).
    Unknown,
}

/// A section header's `[N]`, checked when the section ends (`None` for a
/// deferred `[?]`, which the trailer's totals check instead).
struct OpenCount {
    declared: Option<u64>,
    seen: u64,
    line: usize,
    column: usize,
}

struct Trailer {
    symbols: Option<u64>,
    edges: Option<u64>,
    loc: Option<u64>,
    line: usize,
}

/// Maps symbol ids to their index in `symbols` (or a bare reference),
/// with a fast path for the usual sequential ids.
#[derive(Default)]
pub(crate) struct IdTable {
    /// Ids seen so far were exactly 0..len in order.
    sequential: bool,
    len: u64,
    map: HashMap<u64, Slot>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Slot {
    Symbol(u32),
    Reference,
}

impl IdTable {
    pub(crate) fn new() -> IdTable {
        IdTable {
            sequential: true,
            len: 0,
            map: HashMap::new(),
        }
    }

    /// Records `id`; false if it was already declared.
    pub(crate) fn insert(&mut self, id: u64, slot: Slot) -> bool {
        if self.sequential && id == self.len && slot == Slot::Symbol(id as u32) {
            self.len += 1;
            return true;
        }
        if self.sequential {
            // Leave the fast path: materialize what it stood for.
            self.sequential = false;
            self.map.reserve(self.len as usize + 1);
            for i in 0..self.len {
                self.map.insert(i, Slot::Symbol(i as u32));
            }
        }
        self.map.try_insert_unique(id, slot)
    }

    pub(crate) fn get(&self, id: u64) -> Option<Slot> {
        if self.sequential {
            return (id < self.len).then_some(Slot::Symbol(id as u32));
        }
        self.map.get(&id).copied()
    }
}

trait TryInsertUnique {
    fn try_insert_unique(&mut self, id: u64, slot: Slot) -> bool;
}

impl TryInsertUnique for HashMap<u64, Slot> {
    fn try_insert_unique(&mut self, id: u64, slot: Slot) -> bool {
        match self.entry(id) {
            hashbrown::hash_map::Entry::Occupied(_) => false,
            hashbrown::hash_map::Entry::Vacant(v) => {
                v.insert(slot);
                true
            }
        }
    }
}

/// The string type a decode produces: borrowed from the input (`Cow`) or
/// owned (`String`). Owned decoding builds its strings while it parses
/// instead of building a borrowed payload and converting it afterwards
/// (which wrote, then read back, a second copy of every edge).
pub(crate) trait Text<'a>: AsRef<str> + Default {
    /// What [`Text::label`] keeps between calls (interned labels).
    type Pool: Default;
    /// Edges take their endpoints as [`Text::copy`] of the symbol's own
    /// string (a reference count for shared strings) rather than making a
    /// new string from the input.
    const SHARES: bool = false;
    /// Making an endpoint reads the name's text (copies it, or counts a
    /// reference next to it), so the decoder prefetches it.
    const READS_TEXT: bool = true;
    /// Text of the input.
    fn borrowed(text: &'a str) -> Self;
    /// A kind, provenance, edge type or status (`field`): few distinct
    /// values repeated over the whole payload, which shared strings intern.
    #[inline]
    fn label(_pool: &mut Self::Pool, _field: Label, text: &'a str) -> Self {
        Self::borrowed(text)
    }
    /// The known kind `decode_fast::KNOWN_KINDS[index]`.
    #[inline]
    fn known_kind(_pool: &mut Self::Pool, index: usize) -> Self {
        Self::borrowed(decode_fast::KNOWN_KINDS[index])
    }
    /// A possibly unescaped string.
    fn from_cow(text: Cow<'a, str>) -> Self;
    /// Another string of the payload being built (an edge's endpoint).
    fn copy(&self) -> Self;
}

impl<'a> Text<'a> for Cow<'a, str> {
    type Pool = ();
    const READS_TEXT: bool = false;
    #[inline]
    fn borrowed(text: &'a str) -> Self {
        Cow::Borrowed(text)
    }
    #[inline]
    fn from_cow(text: Cow<'a, str>) -> Self {
        text
    }
    #[inline]
    fn copy(&self) -> Self {
        self.clone()
    }
}

impl<'a> Text<'a> for String {
    type Pool = ();
    #[inline]
    fn borrowed(text: &'a str) -> Self {
        String::from(text)
    }
    #[inline]
    fn from_cow(text: Cow<'a, str>) -> Self {
        text.into_owned()
    }
    #[inline]
    fn copy(&self) -> Self {
        self.clone()
    }
}

/// Shared strings: each name is allocated once and shared by the edges that
/// name it; labels are interned.
#[cfg(target_has_atomic = "ptr")]
impl<'a> Text<'a> for Arc<str> {
    type Pool = LabelPool<'a>;
    const SHARES: bool = true;
    #[inline]
    fn borrowed(text: &'a str) -> Self {
        Arc::from(text)
    }
    #[inline]
    fn label(pool: &mut LabelPool<'a>, field: Label, text: &'a str) -> Self {
        pool.lists[field as usize].get(text)
    }
    #[inline]
    fn known_kind(pool: &mut LabelPool<'a>, index: usize) -> Self {
        Arc::clone(
            pool.kinds[index].get_or_insert_with(|| Arc::from(decode_fast::KNOWN_KINDS[index])),
        )
    }
    #[inline]
    fn from_cow(text: Cow<'a, str>) -> Self {
        Arc::from(text.as_ref())
    }
    #[inline]
    fn copy(&self) -> Self {
        Arc::clone(self)
    }
}

/// Which field of a symbol or edge a label is: each has its own list.
#[derive(Clone, Copy)]
pub(crate) enum Label {
    Kind,
    Provenance,
    EdgeType,
    Status,
}

/// Interned labels for shared decoding: one string per known kind, and a
/// list per field for the rest.
#[cfg(target_has_atomic = "ptr")]
#[derive(Default)]
pub(crate) struct LabelPool<'a> {
    kinds: [Option<Arc<str>>; 16],
    lists: [SharedLabels<'a>; 4],
}

/// One field's interned labels. A payload has a handful of distinct
/// provenances, edge types and statuses (and unknown kinds), so the first few
/// are found by a scan of a short list (cheaper than hashing, and most have
/// different lengths, which `==` compares first); any further ones (only a
/// payload with many distinct labels has them) go to a map. Before the
/// scan, a slot chosen by the label's length and first byte remembers which
/// list entry was last found there: usually one compare per lookup.
#[cfg(target_has_atomic = "ptr")]
#[derive(Default)]
pub(crate) struct SharedLabels<'a> {
    recent: Vec<(&'a str, Arc<str>)>,
    /// 1 + the index in `recent` last found for labels of this hash (0: none).
    slots: [u8; 16],
    more: HashMap<&'a str, Arc<str>>,
}

#[cfg(target_has_atomic = "ptr")]
impl<'a> SharedLabels<'a> {
    /// Labels kept in the scanned list.
    const RECENT: usize = 16;

    #[inline]
    fn get(&mut self, text: &'a str) -> Arc<str> {
        let first = text.as_bytes().first().copied().unwrap_or(0);
        let slot = (text.len().wrapping_add(usize::from(first))) & 15;
        if let Some((known, shared)) = (self.slots[slot] as usize)
            .checked_sub(1)
            .and_then(|i| self.recent.get(i))
        {
            if *known == text {
                return Arc::clone(shared);
            }
        }
        self.get_slow(text, slot)
    }

    #[inline(never)]
    fn get_slow(&mut self, text: &'a str, slot: usize) -> Arc<str> {
        if let Some(i) = self.recent.iter().position(|(k, _)| *k == text) {
            self.slots[slot] = i as u8 + 1;
            return Arc::clone(&self.recent[i].1);
        }
        if self.recent.len() < Self::RECENT {
            let shared: Arc<str> = Arc::from(text);
            self.recent.push((text, Arc::clone(&shared)));
            self.slots[slot] = self.recent.len() as u8;
            return shared;
        }
        Arc::clone(self.more.entry(text).or_insert_with(|| Arc::from(text)))
    }
}

struct State<'a, 'l, T: Text<'a>> {
    limits: &'l Limits,
    /// Symbols delivered in earlier calls of a session, to resolve bare references.
    known: Option<&'l HashMap<u64, Symbol>>,
    /// The id of each entry of `payload.symbols`.
    symbol_ids: Vec<u64>,
    /// Each symbol's name as it appears in the input (`None` for a symbol
    /// resolved from `known`): edges copy their endpoints from here, one
    /// read of the input, rather than from the symbol's own string.
    names: Vec<Option<&'a str>>,
    payload: Payload<T>,
    /// `T` borrows from (or copies) the input.
    input: core::marker::PhantomData<&'a str>,
    ids: IdTable,
    section: Section,
    open: Option<OpenCount>,
    trailer: Option<Trailer>,
    header_symbols: Option<u64>,
    header_edges: Option<u64>,
    /// Interned labels (shared strings only).
    pool: T::Pool,
}

impl<'a, 'l, T: Text<'a>> State<'a, 'l, T> {
    /// Reserves room for the counts the header declares, so the vectors are
    /// not regrown (and copied) while a large payload is read. A declared
    /// count is only a hint: it is capped by the configured limit and by
    /// what `input_len` bytes can hold (a symbol line takes at least 12
    /// bytes, an edge line at least 8), so a lying header cannot make the
    /// decoder allocate more than the input justifies.
    fn presize(&mut self, input_len: usize) {
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

    fn new(line: &SourceLine<'a>, header: &Header<'a>, limits: &'l Limits) -> Result<Self, Error> {
        let flag = |key: &str| -> Result<bool, Error> {
            match header.get(key) {
                None | Some("false") => Ok(false),
                Some("true") => Ok(true),
                Some(v) => Err(line.error_at(
                    ErrorKind::MalformedHeaderField,
                    header.column_of(line.text, key) - 1,
                    alloc::format!("header field `{key}={v}` must be true or false"),
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

    fn line(&mut self, line: SourceLine<'a>) -> Result<(), Error> {
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

    fn close_section(&mut self) -> Result<(), Error> {
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

    fn section_header(&mut self, line: &SourceLine<'a>, rest: &'a str) -> Result<(), Error> {
        self.close_section()?;
        let (name, bracket) = match rest.find(' ') {
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
            let inner = bracket
                .strip_prefix('[')
                .and_then(|b| b.find(']').map(|end| (&b[..end], &b[end + 1..])));
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
                                    alloc::format!("count `[{count}]` must be 0, a decimal without leading zeros, or ?"),
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
                        alloc::format!("unexpected text `{bracket}` after `## {name}`"),
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

    fn node_line(&mut self, line: &SourceLine<'a>, distance: u32) -> Result<(), Error> {
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
                self.payload.symbols.push(Symbol {
                    qualified_name: T::from_cow(Cow::Owned(symbol.qualified_name.clone())),
                    kind: T::from_cow(Cow::Owned(symbol.kind.clone())),
                    score: symbol.score,
                    provenance: T::from_cow(Cow::Owned(symbol.provenance.clone())),
                    distance,
                });
                self.symbol_ids.push(id);
                self.names.push(None);
                return self.check_len(line);
            }
            if !self.ids.insert(id, Slot::Reference) {
                return Err(duplicate_id(line, id));
            }
            self.payload.references.push(Reference { id, distance });
            return self.check_len(line);
        }
        let fields = split_fields::<4>(rest).ok_or_else(|| {
            line.error_at(
                ErrorKind::InvalidNodeLine,
                0,
                "a node line has exactly five fields: @id kind qualified_name score provenance",
            )
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
            qualified_name: T::borrowed(qname),
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
    fn endpoint(&self, index: u32) -> T {
        endpoint_of(&self.names, &self.payload.symbols, index)
    }

    /// Whether one more symbol (`symbols`) or edge (`edges`) stays within
    /// the container limit that [`State::check_len`] enforces after a push.
    #[inline]
    fn room_for(&self, symbols: usize, edges: usize) -> bool {
        let max = self.limits.max_container_len;
        self.payload.symbols.len() + self.payload.references.len() + symbols <= max
            && self.payload.edges.len() + edges <= max
    }

    /// Reads plain node lines (see `decode_fast`) while there are any: the
    /// same effect as [`State::line`] on each, without splitting the line
    /// first. Returns at the first line it declines, or one that would be an
    /// error (a duplicate id, a limit), for the general path to handle.
    fn fast_nodes(&mut self, lines: &mut SourceLines<'a>, distance: u32) {
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
                qualified_name: T::borrowed(name),
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
    fn fast_edges(&mut self, lines: &mut SourceLines<'a>) {
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
    fn prefetch_slot(&self, id: u64) {
        let index = id as usize;
        if T::SHARES {
            crate::hint::prefetch(self.payload.symbols.as_ptr().wrapping_add(index));
        } else {
            crate::hint::prefetch(self.names.as_ptr().wrapping_add(index));
        }
    }

    fn check_len(&self, line: &SourceLine<'a>) -> Result<(), Error> {
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

    fn symbol_name(&self, line: &SourceLine<'a>, id: u64, at: usize) -> Result<T, Error> {
        match self.ids.get(id) {
            Some(Slot::Symbol(i)) => Ok(self.endpoint(i)),
            Some(Slot::Reference) => Err(line.error_at(
                ErrorKind::UnknownEdgeReference,
                at,
                alloc::format!(
                    "@{id} is a bare session reference whose symbol this payload does not declare; decode with a graph::SessionDecoder"
                ),
            )),
            None => Err(line.error_at(
                ErrorKind::UnknownEdgeReference,
                at,
                alloc::format!("@{id} is not a symbol declared earlier in the payload"),
            )),
        }
    }

    fn edge_line(&mut self, line: &SourceLine<'a>) -> Result<(), Error> {
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

    fn loc_line(&mut self, line: &SourceLine<'a>) -> Result<(), Error> {
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
        self.payload.locations.push(Location {
            qualified_name,
            file: T::from_cow(file),
            line: numbers[0],
            column: numbers[1],
            end: (count == 4).then_some((numbers[2], numbers[3])),
        });
        Ok(())
    }

    fn trailer(&mut self, line: &SourceLine<'a>, rest: &'a str) -> Result<(), Error> {
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
                    alloc::format!("trailer field `{pair}` has no `=`"),
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
                    alloc::format!("trailer field `{pair}` is not a decimal count"),
                )
            })?);
        }
        self.trailer = Some(trailer);
        Ok(())
    }

    fn finish(mut self, header_line: &SourceLine<'a>) -> Result<Payload<T>, Error> {
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
struct BatchedEdge {
    /// The endpoints' indexes in the symbols.
    source: u32,
    target: u32,
    type_start: usize,
    type_end: usize,
    /// `type_end` when the line has no status.
    status_end: usize,
    /// Just past the line's terminator.
    end: usize,
}

impl BatchedEdge {
    #[inline(always)]
    fn edge_type(&self) -> (usize, usize) {
        (self.type_start, self.type_end)
    }

    /// The status follows the type and its space; an empty range at the
    /// type's end when there is none.
    #[inline(always)]
    fn status(&self) -> (usize, usize) {
        ((self.type_end + 1).min(self.status_end), self.status_end)
    }
}

/// [`State::endpoint`] on the fields it reads, so edges can be built while
/// the edge vector is borrowed.
#[inline(always)]
fn endpoint_of<'a, T: Text<'a>>(names: &[Option<&'a str>], symbols: &[Symbol<T>], index: u32) -> T {
    match names.get(index as usize) {
        Some(Some(name)) if !T::SHARES => T::borrowed(name),
        _ => symbols[index as usize].qualified_name.copy(),
    }
}

/// Starts loading the string an edge to symbol `index` will read (owned
/// strings copy the name's bytes, shared ones count a reference).
#[inline(always)]
fn prefetch_name<'a, T: Text<'a>>(names: &[Option<&'a str>], symbols: &[Symbol<T>], index: u32) {
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

#[cold]
fn duplicate_id(line: &SourceLine<'_>, id: u64) -> Error {
    line.error_at(
        ErrorKind::InvalidSymbolId,
        1,
        alloc::format!("symbol id @{id} is declared twice"),
    )
}

/// Known kinds expand to their `'static` full form; unknown kinds pass through.
#[inline]
pub(crate) fn expand_kind_cow(abbrev: &str) -> Cow<'_, str> {
    match expand_known(abbrev) {
        Some(full) => Cow::Borrowed(full),
        None => Cow::Borrowed(abbrev),
    }
}

/// Parses `@<digits>` at the start of `text`, returning the id and the rest.
pub(crate) fn parse_id_prefix<'a>(
    line: &SourceLine<'_>,
    text: &'a str,
    missing: ErrorKind,
) -> Result<(u64, &'a str), Error> {
    let Some(rest) = text.strip_prefix('@') else {
        return Err(line.error_at(missing, 0, "expected a line starting with `@id`"));
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let id = if digits == 0 {
        None
    } else {
        rest[..digits].parse::<u64>().ok()
    };
    match id {
        Some(id) => Ok((id, &rest[digits..])),
        None => {
            let token_end = rest.find(' ').unwrap_or(rest.len());
            Err(line.error_at(
                ErrorKind::InvalidSymbolId,
                1,
                alloc::format!("`@{}` is not a decimal symbol id", &rest[..token_end]),
            ))
        }
    }
}

/// Splits ` a b c d` (leading space included) into exactly `N`
/// space-separated fields, each a token (non-empty, no whitespace or control
/// characters: spec §4 `qname`, `provenance`; see [`is_token`]).
#[inline]
pub(crate) fn split_fields<const N: usize>(rest: &str) -> Option<[&str; N]> {
    let mut rest = rest.strip_prefix(' ')?;
    let mut out = [""; N];
    for (i, slot) in out.iter_mut().enumerate() {
        let end = if i + 1 == N {
            if rest.contains(' ') {
                return None;
            }
            rest.len()
        } else {
            rest.find(' ')?
        };
        if !is_token(&rest[..end]) {
            return None;
        }
        *slot = &rest[..end];
        rest = rest.get(end + 1..).unwrap_or("");
    }
    Some(out)
}

/// Parses a score with the grammar `[-]DIGITS.2DIGIT` (spec §4).
pub(crate) fn parse_score(line: &SourceLine<'_>, text: &str) -> Result<f64, Error> {
    let b = text.as_bytes();
    let digits = if b.first() == Some(&b'-') { &b[1..] } else { b };
    let n = digits.len();
    let shaped = n >= 4
        && digits[n - 3] == b'.'
        && digits[..n - 3].iter().all(u8::is_ascii_digit)
        && digits[n - 2..].iter().all(u8::is_ascii_digit);
    let value = if shaped {
        text.parse::<f64>().ok().filter(|v| v.is_finite())
    } else {
        None
    };
    value.ok_or_else(|| {
        let at = line.text.find(text).unwrap_or(0);
        line.error_at(
            ErrorKind::InvalidScore,
            at,
            alloc::format!("score `{text}` does not match [-]DIGITS.DD"),
        )
    })
}

pub(crate) struct EdgeLine<'a> {
    pub source: u64,
    pub target: u64,
    pub source_at: usize,
    pub edge_type: &'a str,
    pub status: &'a str,
}

/// Parses `@target<@source type [status]`.
pub(crate) fn parse_edge_line<'a>(line: &SourceLine<'a>) -> Result<EdgeLine<'a>, Error> {
    let text = line.text;
    let Some(lt) = text.find('<') else {
        return Err(line.error_at(
            ErrorKind::InvalidEdgeSyntax,
            0,
            "an edge line is `@target<@source type`",
        ));
    };
    let syntax = |msg: &str| {
        line.error_at(
            ErrorKind::InvalidEdgeSyntax,
            0,
            alloc::format!("invalid edge line: {msg}"),
        )
    };
    let (target, after_target) = parse_id_prefix(line, &text[..lt], ErrorKind::InvalidEdgeSyntax)?;
    if !after_target.is_empty() {
        return Err(syntax("expected `<` right after the target id"));
    }
    let source_at = lt + 1;
    let (source, rest) = parse_id_prefix(line, &text[source_at..], ErrorKind::InvalidEdgeSyntax)?;
    let rest = rest
        .strip_prefix(' ')
        .ok_or_else(|| syntax("expected ` type` after the source id"))?;
    let mut parts = rest.split(' ');
    let edge_type = parts
        .next()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| syntax("missing edge type"))?;
    let status = parts.next().unwrap_or("");
    if parts.next().is_some() || (status.is_empty() && rest.len() > edge_type.len()) {
        return Err(syntax("expected `@target<@source type [status]`"));
    }
    if !is_token(edge_type) || !(status.is_empty() || is_token(status)) {
        return Err(syntax(
            "the edge type and status contain no whitespace or control characters",
        ));
    }
    Ok(EdgeLine {
        source,
        target,
        source_at,
        edge_type,
        status,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(input: &str) -> (ErrorKind, Option<usize>, Option<usize>) {
        let e = decode(input).unwrap_err();
        (e.kind(), e.line(), e.column())
    }

    #[test]
    fn declared_counts_presize_only_what_the_input_can_hold() {
        // A header claiming ~10^18 symbols and edges must not make the decoder
        // reserve for them (that would abort on allocation): the reservation is
        // capped by the input's length, and the mismatch is reported.
        let huge = "GCF profile=graph symbols=999999999999999999 edges=999999999999999999\n\
                    ## targets\n@0 fn a 0.50 x\n";
        assert_eq!(decode(huge).unwrap_err().kind(), ErrorKind::CountMismatch);
        let text = "GCF profile=graph symbols=2 edges=1\n## targets\n@0 fn a 0.50 x\n\
                    @1 fn b 0.40 x\n## edges [1]\n@0<@1 calls\n";
        let p = decode(text).unwrap();
        assert_eq!((p.symbols.len(), p.edges.len()), (2, 1));
        let mut state_input = SourceLines::new(text, &Limits::default()).unwrap();
        let line = state_input.next().unwrap().unwrap();
        let header = crate::header::parse_header(&line).unwrap();
        let limits = Limits::default();
        let mut state = State::<Cow<str>>::new(&line, &header, &limits).unwrap();
        state.presize(text.len());
        assert!(state.payload.symbols.capacity() >= 2);
        assert!(state.payload.edges.capacity() >= 1);
        let mut lying = State::<Cow<str>>::new(&line, &header, &limits).unwrap();
        lying.header_symbols = Some(u64::MAX);
        lying.presize(120);
        assert!(lying.payload.symbols.capacity() <= 120 / 12);
    }

    #[test]
    fn decodes_groups_edges_and_kinds() {
        let p = decode(
            "GCF profile=graph tool=t budget=5 tokens=3 symbols=3 edges=2 pack_root=sha256:ab\r\n# c\n\n## targets\n\
             @0 fn a.A 0.78 lsp\n## distance_7\n@1 widget a.B 0.10 x\n## extended\n@2 pkg a.C -1.50 y\n## edges [2]\n\
             @0<@1 calls\n@2<@0 uses added\n",
        )
        .unwrap();
        assert_eq!(
            (
                p.tool.as_str(),
                p.token_budget,
                p.tokens_used,
                p.pack_root.as_str()
            ),
            ("t", 5, 3, "sha256:ab")
        );
        assert_eq!(
            p.symbols[0],
            Symbol::new("a.A".into(), "function".into(), 0.78, "lsp".into(), 0)
        );
        assert_eq!(p.symbols[1].kind, "widget");
        assert_eq!(p.symbols[1].distance, 7);
        assert_eq!(p.symbols[2].score, -1.5);
        assert_eq!(
            p.edges[0],
            Edge::new("a.B".into(), "a.A".into(), "calls".into())
        );
        assert_eq!(p.edges[1].status, "added");
    }

    #[test]
    fn fields_with_whitespace_or_control_characters_are_rejected() {
        // Spec §4: `qname`, `provenance` and `edge-type` are printable and
        // never contain whitespace; the encoder refuses the same characters
        // (`check_token`), so a decoder that took them would accept payloads
        // no encoder writes.
        let nodes = |a: &str, b: &str| {
            alloc::format!(
                "GCF profile=graph symbols=2 edges=1\n## targets\n{a}\n{b}\n## edges [1]\n@0<@1 calls\n"
            )
        };
        for bad in [
            "\t", "\u{1}", "\u{7f}", "\u{85}", "\u{a0}", "\u{2028}", "\u{3000}",
        ] {
            for line in [
                alloc::format!("@0 fn a{bad}b 0.50 lsp"),
                alloc::format!("@0 f{bad}n ab 0.50 lsp"),
                alloc::format!("@0 fn ab 0.50 l{bad}sp"),
                alloc::format!("@0 fn ab 0.50 lsp{bad}"),
            ] {
                for text in [
                    nodes(&line, "@1 fn b 0.40 x"),
                    nodes("@1 fn b 0.40 x", &line),
                ] {
                    assert_eq!(err(&text).0, ErrorKind::InvalidNodeLine, "{text:?}");
                    assert!(decode_shared(&text).is_err() && decode_borrowed(&text).is_err());
                }
            }
            for edge in [
                alloc::format!("@0<@1 ca{bad}lls"),
                alloc::format!("@0<@1 calls{bad}"),
                alloc::format!("@0<@1 calls add{bad}ed"),
            ] {
                let text = alloc::format!(
                    "GCF profile=graph symbols=2 edges=1\n## targets\n@0 fn a 0.50 x\n@1 fn b 0.40 x\n## edges [1]\n{edge}\n"
                );
                assert_eq!(
                    err(&text),
                    (ErrorKind::InvalidEdgeSyntax, Some(6), Some(1)),
                    "{text:?}"
                );
            }
            let text = alloc::format!(
                "GCF profile=graph symbols=1\n## targets\n@0 fn a 0.50 x\n## loc [1]\n@0 a{bad}.go 3 1\n"
            );
            assert_eq!(err(&text).0, ErrorKind::InvalidNodeLine, "{text:?}");
        }
        // Non-ASCII text without whitespace or controls is still a field,
        // on every line shape.
        let text = "GCF profile=graph symbols=2 edges=1\n## targets\n@0 fn é.名 0.50 ünï\n\
                    @1 ƒn b 0.40 x\n## edges [1]\n@0<@1 rüft neu\n## loc [1]\n@0 dätei.go 3 1\n";
        let p = decode(text).unwrap();
        assert_eq!(p.symbols[0].qualified_name, "é.名");
        assert_eq!(p.symbols[0].provenance, "ünï");
        assert_eq!(p.symbols[1].kind, "ƒn");
        assert_eq!(
            (p.edges[0].edge_type.as_str(), p.edges[0].status.as_str()),
            ("rüft", "neu")
        );
        assert_eq!(p.locations[0].file, "dätei.go");
    }

    #[test]
    fn strict_errors_with_positions() {
        assert_eq!(
            err("GCF profile=graph\n## targets\n@0 fn a 0.9 x\n").0,
            ErrorKind::InvalidScore
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n@0 fn a 0.90\n"),
            (ErrorKind::InvalidNodeLine, Some(3), Some(1))
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n@0 fn  a 0.90 x\n").0,
            ErrorKind::InvalidNodeLine
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n@0 fn a 0.90 x y\n").0,
            ErrorKind::InvalidNodeLine
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n@x fn a 0.90 x\n"),
            (ErrorKind::InvalidSymbolId, Some(3), Some(2))
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n@0 fn b 0.90 x\n").0,
            ErrorKind::InvalidSymbolId
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## edges\n@0 @0 calls\n").0,
            ErrorKind::InvalidEdgeSyntax
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## edges\n@0<@0\n").0,
            ErrorKind::InvalidEdgeSyntax
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## edges\n@0<@0 a b c\n").0,
            ErrorKind::InvalidEdgeSyntax
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## edges\n@0<@9 calls\n"),
            (ErrorKind::UnknownEdgeReference, Some(5), Some(4))
        );
        assert_eq!(
            err("GCF profile=graph\n## edges [03]\n"),
            (ErrorKind::InvalidCount, Some(2), Some(11))
        );
        assert_eq!(
            err("GCF profile=graph\n## edges [2]\n"),
            (ErrorKind::CountMismatch, Some(2), Some(10))
        );
        assert_eq!(
            err("GCF profile=graph symbols=2\n## targets\n@0 fn a 0.90 x\n").0,
            ErrorKind::CountMismatch
        );
        assert_eq!(
            err("GCF profile=graph\n@0 fn a 0.90 x\n").0,
            ErrorKind::InvalidSyntax
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n  @0 fn a 0.90 x\n").0,
            ErrorKind::InvalidIndent
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n\t@0 fn a 0.90 x\n").0,
            ErrorKind::TabIndentation
        );
        assert_eq!(
            err("GCF profile=graph\n## removed\nfn a\n").0,
            ErrorKind::MalformedDelta
        );
        assert_eq!(err("GCF profile=generic\n=1\n").0, ErrorKind::InvalidInput);
        assert_eq!(
            err("GCF profile=graph budget=x\n").0,
            ErrorKind::MalformedHeaderField
        );
        assert_eq!(
            err("GCF profile=graph session=yes\n").0,
            ErrorKind::MalformedHeaderField
        );
        assert_eq!(err("").0, ErrorKind::MissingHeader);
    }

    #[test]
    fn streaming_trailers() {
        let ok = "GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## edges [?]\n@0<@0 calls\n##! summary symbols=1 edges=1 counts=targets:1,edges:1\n";
        assert_eq!(decode(ok).unwrap().edges.len(), 1);
        let legacy = "GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## edges [?]\n@0<@0 calls\n## _summary symbols=1 edges=1 sections=targets:1,edges:1\n";
        assert_eq!(decode(legacy).unwrap().edges.len(), 1);
        let junk_counts = "GCF profile=graph\n## targets\n@0 fn a 0.90 x\n##! summary symbols=1 edges=0 counts=what:ever,x\n";
        assert!(decode(junk_counts).is_ok());
        let bad = "GCF profile=graph\n## targets\n@0 fn a 0.90 x\n##! summary symbols=2 edges=0\n";
        assert_eq!(err(bad), (ErrorKind::CountMismatch, Some(4), Some(1)));
        let after = "GCF profile=graph\n##! summary symbols=0 edges=0\n## targets\n";
        assert_eq!(err(after).0, ErrorKind::InvalidSyntax);
    }

    #[test]
    fn references_locations_and_unknown_sections() {
        let p = decode(
            "GCF profile=graph symbols=2 session=true\n## targets\n@4  # previously transmitted\n@7 fn a.B 0.50 x\n\
             ## future [1]{a}\nwhatever\n## loc [2]\n@7 \"my dir/b.go\" 3 4\n@7 b.go 1 2 3 4\n",
        )
        .unwrap();
        assert!(p.session);
        assert_eq!(p.references, [Reference { id: 4, distance: 0 }]);
        assert_eq!(p.locations[0].file, "my dir/b.go");
        assert_eq!(p.locations[1].end, Some((3, 4)));
        let e =
            err("GCF profile=graph\n## targets\n@4  # previously transmitted\n## edges\n@4<@4 x\n");
        assert_eq!(e.0, ErrorKind::UnknownEdgeReference);
        assert_eq!(
            err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## loc\n@1 f 1 1\n").0,
            ErrorKind::UnknownEdgeReference
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## loc\n@0 f 1\n").0,
            ErrorKind::InvalidNodeLine
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## loc\n@0 f 0 1\n").0,
            ErrorKind::InvalidNodeLine
        );
        assert_eq!(
            err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## loc\n@0 \"f 1 1\n").0,
            ErrorKind::UnterminatedQuote
        );
    }

    #[test]
    fn id_table_handles_sparse_ids() {
        let mut t = IdTable::new();
        assert!(t.insert(0, Slot::Symbol(0)));
        assert!(t.insert(1, Slot::Symbol(1)));
        assert!(t.insert(9, Slot::Symbol(2)));
        assert!(!t.insert(1, Slot::Symbol(3)));
        assert_eq!(t.get(9), Some(Slot::Symbol(2)));
        assert_eq!(t.get(0), Some(Slot::Symbol(0)));
        assert_eq!(t.get(5), None);
    }

    #[test]
    fn owned_decode_equals_the_borrowed_decode_made_owned() {
        for input in [
            "GCF profile=graph tool=t budget=5 tokens=3 symbols=3 edges=3 pack_root=sha256:ab\n\
             ## targets\n@0 fn pkg.A 0.90 lsp\n## related\n@1 widget pkg.B 0.50 ast\n\
             ## distance_7\n@2 iface pkg.C -1.25 x\n## edges [3]\n@0<@1 calls\n\
             @2<@0 uses added\n@1<@1 self\n## loc [2]\n@0 \"my \\\"dir\\\"/a.go\" 3 1 9 2\n@1 b.go 1 5\n",
            "GCF profile=graph session=true symbols=2\n## targets\n@7  # previously transmitted\n\
             @8 fn a 0.50 x\n",
            "GCF profile=graph unchanged=true symbols=4\n",
        ] {
            let owned = decode(input).unwrap();
            assert_eq!(owned, decode_borrowed(input).unwrap().to_owned_payload());
            assert!(!owned.symbols.is_empty() || owned.unchanged);
        }
        let p = decode(
            "GCF profile=graph symbols=2 edges=1\n## targets\n@0 fn a 0.50 x\n@1 ext b 0.40 y\n\
             ## edges [1]\n@1<@0 calls\n",
        )
        .unwrap();
        assert_eq!(p.symbols[1].kind, "external");
        assert_eq!(
            (p.edges[0].source.as_str(), p.edges[0].target.as_str()),
            ("a", "b")
        );
        assert_eq!(p.edges[0].status, "");
    }

    #[test]
    fn shared_decode_shares_names_and_labels() {
        let mut text = String::from("GCF profile=graph symbols=20 edges=60\n## targets\n");
        for i in 0..20 {
            let kind = ["fn", "widget", "iface"][i % 3];
            text.push_str(&alloc::format!("@{i} {kind} p.S{i} 0.50 lsp\n"));
        }
        text.push_str("## edges [60]\n");
        for i in 0..60 {
            let status = ["", " added"][i % 2];
            text.push_str(&alloc::format!(
                "@{}<@{} calls{status}\n",
                (i * 7) % 20,
                i / 3
            ));
        }
        text.push_str("## loc\n@3 \"a b.go\" 1 2\n");
        let p = decode_shared(&text).unwrap();
        assert_eq!(p.to_owned_payload(), decode(&text).unwrap());
        for e in &p.edges {
            let source = p
                .symbols
                .iter()
                .find(|s| s.qualified_name == e.source)
                .unwrap();
            let target = p
                .symbols
                .iter()
                .find(|s| s.qualified_name == e.target)
                .unwrap();
            assert!(Arc::ptr_eq(&e.source, &source.qualified_name));
            assert!(Arc::ptr_eq(&e.target, &target.qualified_name));
            assert!(Arc::ptr_eq(&e.edge_type, &p.edges[0].edge_type));
        }
        assert!(Arc::ptr_eq(&p.edges[1].status, &p.edges[3].status));
        assert!(Arc::ptr_eq(&p.symbols[0].kind, &p.symbols[3].kind));
        assert!(Arc::ptr_eq(&p.symbols[1].kind, &p.symbols[19].kind));
        assert!(Arc::ptr_eq(
            &p.symbols[0].provenance,
            &p.symbols[19].provenance
        ));
        assert!(Arc::ptr_eq(
            &p.locations[0].qualified_name,
            &p.symbols[3].qualified_name
        ));
        assert_eq!(&*p.locations[0].file, "a b.go");
        // Names are shared through the general path too (a line the fast
        // parsers decline), and through a session's earlier symbols.
        let p =
            decode_shared("GCF profile=graph\n## targets\n@0 fn a 0.5 x\n## edges\n@0<@0 calls\n");
        assert_eq!(p.unwrap_err().kind(), ErrorKind::InvalidScore);
        let p = decode_shared(
            "GCF profile=graph\n## targets\n@00 fn a 0.50 x\n## edges\n@0<@000 calls\r\n",
        )
        .unwrap();
        assert!(Arc::ptr_eq(
            &p.edges[0].source,
            &p.symbols[0].qualified_name
        ));
    }

    #[test]
    fn labels_past_the_scanned_list_are_interned_in_the_map() {
        let names: Vec<String> = (0..40).map(|i| alloc::format!("label{i}")).collect();
        let mut pool = SharedLabels::default();
        let first: Vec<Arc<str>> = names.iter().map(|n| pool.get(n)).collect();
        for (name, shared) in names.iter().zip(&first) {
            let again = pool.get(name);
            assert_eq!(&*again, name.as_str());
            assert!(Arc::ptr_eq(&again, shared));
        }
        assert_eq!(pool.recent.len(), SharedLabels::RECENT);
        assert_eq!(pool.more.len(), 40 - SharedLabels::RECENT);
    }

    #[test]
    fn borrowed_decode_does_not_copy_names() {
        let text = "GCF profile=graph symbols=1\n## targets\n@0 fn a.A 0.50 lsp\n";
        let p = decode_borrowed(text).unwrap();
        assert!(matches!(p.symbols[0].qualified_name, Cow::Borrowed(_)));
    }

    /// Decodes `input` with and without the fast line parsers, as borrowed
    /// and owned strings, and checks all four agree: the same payload, or
    /// the same error kind, line, column and message.
    fn same_with_and_without_fast_paths(input: &str, limits: Limits) {
        let fast = Decoder::new().limits(limits);
        let general = Decoder {
            general_only: true,
            ..fast.clone()
        };
        let a = fast.decode_borrowed(input).map(|p| p.to_owned_payload());
        let b = general.decode_borrowed(input).map(|p| p.to_owned_payload());
        let c = fast.decode(input);
        let d = general.decode(input);
        let e = fast.decode_shared(input).map(|p| p.to_owned_payload());
        let f = general.decode_shared(input).map(|p| p.to_owned_payload());
        for (name, other) in [
            ("general", &b),
            ("owned", &c),
            ("owned general", &d),
            ("shared", &e),
            ("shared general", &f),
        ] {
            match (&a, other) {
                (Ok(x), Ok(y)) => assert_eq!(x, y, "{name}: {input:?}"),
                (Err(x), Err(y)) => assert_eq!(
                    (x.kind(), x.line(), x.column(), x.message()),
                    (y.kind(), y.line(), y.column(), y.message()),
                    "{name}: {input:?}"
                ),
                _ => panic!("{name}: {input:?}: {a:?} vs {other:?}"),
            }
        }
    }

    #[test]
    fn fast_paths_change_no_result_on_mutated_payloads() {
        let base = "GCF profile=graph tool=t symbols=5 edges=6\n## targets [2]\n\
                    @0 fn pkg.A 0.90 lsp\n@1 iface pkg.B -1.25 ast\n## related\n\
                    @2 widget é.名 0.00 x\n@3 ext pkg.D.with.a.long.name.past.the.limit 12.50 lsp\n## distance_4\n\
                    @4 pkg pkg.E 0.01 text_match\n## edges [6]\n@0<@1 calls\n\
                    @1<@0 uses added\n@2<@2 implements\n@4<@3 calls\n@3<@4 embeds removed\n\
                    @0<@4 calls_with_a_long_edge_type_past_the_limit\n## loc [1]\n@0 a.go 1 2\n";
        same_with_and_without_fast_paths(base, Limits::default());
        assert!(decode(base).is_ok());
        const EDITS: &[&str] = &[
            " ",
            "  ",
            "\r",
            "\n",
            "\r\n",
            "@",
            "<",
            "0",
            "9",
            "x",
            "#",
            "# ",
            ".",
            "\t",
            "é",
            "-",
            "@5",
            "@0",
            "1",
            "00",
            "## ",
            "##! summary",
            "12345678901234567890",
        ];
        let mut seed = 0x5eed_u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) % n as u64) as usize
        };
        // A payload with more edges than one batch of the fast edge path.
        let mut big = String::from("GCF profile=graph symbols=30 edges=90\n## targets\n");
        for i in 0..30 {
            big.push_str(&alloc::format!("@{i} fn p.S{i} 0.{:02} lsp\n", i * 3));
        }
        big.push_str("## edges [90]\n");
        for i in 0..90 {
            let status = ["", " added", " removed"][i % 3];
            big.push_str(&alloc::format!(
                "@{}<@{} calls{status}\n",
                (i * 7) % 30,
                i / 3
            ));
        }
        same_with_and_without_fast_paths(&big, Limits::default());
        assert_eq!(decode(&big).unwrap().edges.len(), 90);
        let boundaries: Vec<usize> = (0..=base.len())
            .filter(|&i| base.is_char_boundary(i))
            .collect();
        for round in 0..6_000 {
            let mut text = String::from(if round % 3 == 2 { &big } else { base });
            for _ in 0..1 + next(3) {
                let bounds: Vec<usize> = (0..=text.len())
                    .filter(|&i| text.is_char_boundary(i))
                    .collect();
                let at = bounds[next(bounds.len())];
                let end = bounds
                    .iter()
                    .copied()
                    .find(|&e| e >= at + next(3))
                    .unwrap_or(text.len());
                let edit = EDITS[next(EDITS.len())];
                match next(3) {
                    0 => text.insert_str(at, edit),
                    1 => text.replace_range(at..end, ""),
                    _ => text.replace_range(at..end, edit),
                }
            }
            let limits = match round % 4 {
                0 => Limits {
                    max_container_len: 1 + next(if text.len() > 1000 { 100 } else { 6 }),
                    ..Limits::default()
                },
                1 => Limits {
                    // The header is 42 bytes; some node and edge lines are longer.
                    max_line_len: 42 + next(20),
                    ..Limits::default()
                },
                _ => Limits::default(),
            };
            same_with_and_without_fast_paths(&text, limits);
        }
        assert!(boundaries.len() > 100);
    }

    #[test]
    fn split_fields_exact() {
        assert_eq!(split_fields::<2>(" a b"), Some(["a", "b"]));
        assert_eq!(split_fields::<2>(" a b c"), None);
        assert_eq!(split_fields::<2>(" a"), None);
        assert_eq!(split_fields::<2>(" a  b"), None);
        assert_eq!(split_fields::<2>("a b"), None);
        assert_eq!(split_fields::<2>(" a "), None);
    }
}
