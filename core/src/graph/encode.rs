//! The buffered graph encoder (spec §3.2, §5, §6, §6a, §6b, §16.1).
//!
//! Output order is canonical: symbols grouped by ascending distance, by
//! descending score within a group (ties keep input order), ids assigned in
//! that order from 0; edges sorted by source id, target id, then edge type
//! (ties keep input order); locations by symbol id.

use alloc::string::String;
use alloc::vec::Vec;

use super::kind::abbreviate_kind;
use super::name_index::NameIndex;
use super::types::{Payload, Symbol};
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::number::NumberBuffer;
use crate::sink::Sink;

/// Encodes a payload to GCF text with default [`Limits`].
///
/// ```
/// use gcf_core::graph::{encode, Payload, Symbol};
///
/// let p = Payload {
///     tool: "test",
///     symbols: vec![
///         Symbol::new("pkg.Low", "widget", 0.4, "x", 0),
///         Symbol::new("pkg.High", "function", 0.9, "x", 0),
///     ],
///     ..Payload::default()
/// };
/// assert_eq!(encode(&p)?, "GCF profile=graph tool=test symbols=2\n## targets\n\
///                          @0 fn pkg.High 0.90 x\n@1 widget pkg.Low 0.40 x\n");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn encode<S: AsRef<str>>(payload: &Payload<S>) -> Result<String, Error> {
    Encoder::new().encode(payload)
}

/// Encodes a payload into a [`Sink`] with default [`Limits`].
///
/// ```
/// use gcf_core::graph::{encode_to, Payload};
/// let mut out = Vec::new();
/// encode_to(&Payload::<&str>::default(), &mut out)?;
/// assert_eq!(out, b"GCF profile=graph symbols=0\n");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn encode_to<S: AsRef<str>, K: Sink + ?Sized>(
    payload: &Payload<S>,
    sink: &mut K,
) -> Result<(), Error> {
    Encoder::new().encode_to(payload, sink)
}

/// A configurable graph encoder.
///
/// ```
/// use gcf_core::{graph::{Encoder, Payload}, Limits};
/// let enc = Encoder::new().limits(Limits { max_container_len: 10, ..Limits::default() });
/// assert!(enc.encode(&Payload::<&str>::default()).is_ok());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    limits: Limits,
}

impl Encoder {
    /// An encoder with default limits.
    pub fn new() -> Encoder {
        Encoder {
            limits: Limits::default(),
        }
    }

    /// Replaces the limits (symbol, edge and location counts are bounded by
    /// `max_container_len`).
    pub fn limits(mut self, limits: Limits) -> Encoder {
        self.limits = limits;
        self
    }

    /// Encodes into a new `String`.
    pub fn encode<S: AsRef<str>>(&self, payload: &Payload<S>) -> Result<String, Error> {
        let order = emission_order(&payload.symbols, &self.limits)?;
        let ids = Ids::Sequential;
        let prepared = prepare(payload, &order, &ids, &self.limits)?;
        let mut out = Vec::with_capacity(prepared.len_hint);
        write_prepared(payload, &order, &ids, &prepared, &mut out)?;
        // Every byte written came from `&str` inputs and ASCII syntax.
        String::from_utf8(out)
            .map_err(|_| Error::new(ErrorKind::InvalidInput, "encoder produced invalid UTF-8"))
    }

    /// Encodes into `sink`.
    pub fn encode_to<S: AsRef<str>, K: Sink + ?Sized>(
        &self,
        payload: &Payload<S>,
        sink: &mut K,
    ) -> Result<(), Error> {
        let order = emission_order(&payload.symbols, &self.limits)?;
        write_payload(payload, &order, &Ids::Sequential, &self.limits, sink)
    }
}

/// Room for the header, the symbols and the locations, to size the output
/// once: exact for the names and provenances (their lengths are read from
/// the payload's string headers, not from the strings), generous for ids and
/// typical scores. The edges' share is added while they are resolved, which
/// reads them anyway. An unusual score (`1e300`) only makes the buffer grow
/// once; reserving a little more than is written costs nothing, as pages
/// that are never touched are never faulted in.
fn estimate_len<S: AsRef<str>>(p: &Payload<S>, id_digits: usize) -> usize {
    let symbols = p.symbols.iter().fold(0usize, |n, s| {
        n.saturating_add(
            s.qualified_name.as_ref().len()
                + s.kind.as_ref().len()
                + s.provenance.as_ref().len()
                + id_digits
                + 16,
        )
    });
    let locations = p.locations.iter().fold(0usize, |n, l| {
        n.saturating_add(l.file.as_ref().len() + id_digits + 48)
    });
    // Group headers (`## distance_N`), section headers and the header line.
    let overhead = 256 + p.tool.as_ref().len() + p.pack_root.as_ref().len();
    symbols.saturating_add(locations).saturating_add(overhead)
}

/// How ids are assigned to symbols in emission order.
pub(crate) enum Ids<'a> {
    /// Position in emission order (non-session payloads).
    Sequential,
    /// Session ids, indexed by emission position; `true` marks a bare reference.
    Session(&'a [(u64, bool)]),
}

impl Ids<'_> {
    #[inline]
    fn get(&self, position: usize) -> (u64, bool) {
        match self {
            Ids::Sequential => (position as u64, false),
            Ids::Session(ids) => ids
                .get(position)
                .copied()
                .unwrap_or((position as u64, false)),
        }
    }
}

/// The addresses of the last few tokens [`check_token`] accepted: an
/// address and length seen before are the same bytes, already checked.
#[derive(Default)]
struct CheckedTokens {
    seen: [(usize, usize); 8],
    next: usize,
}

impl CheckedTokens {
    #[inline]
    fn contains(&self, token: &str) -> bool {
        // The empty token is never accepted, so the zeroed slots match nothing
        // a check would have let through.
        let key = (token.as_ptr() as usize, token.len());
        !token.is_empty() && self.seen.contains(&key)
    }

    #[inline]
    fn insert(&mut self, token: &str) {
        if let Some(slot) = self.seen.get_mut(self.next) {
            *slot = (token.as_ptr() as usize, token.len());
        }
        self.next = (self.next + 1) % self.seen.len();
    }
}

/// Symbol indices in canonical emission order: distance ascending, score
/// descending, input order for ties.
pub(crate) fn emission_order<S: AsRef<str>>(
    symbols: &[Symbol<S>],
    limits: &Limits,
) -> Result<Vec<u32>, Error> {
    check_count("symbols", symbols.len(), limits)?;
    let mut keys: Vec<u128> = Vec::with_capacity(symbols.len());
    // Kinds and provenances are a handful of distinct strings: each is
    // checked the first time its address is seen.
    let mut checked = CheckedTokens::default();
    for (i, s) in symbols.iter().enumerate() {
        // Checked here, in input order, where the names are read the way
        // they usually sit in memory, rather than while writing, which
        // visits them in emission order.
        check_token("qualified name", s.qualified_name.as_ref())?;
        for (what, token) in [
            ("kind", s.kind.as_ref()),
            ("provenance", s.provenance.as_ref()),
        ] {
            if !checked.contains(token) {
                check_token(what, token)?;
                checked.insert(token);
            }
        }
        if !s.score.is_finite() {
            return Err(Error::new(
                ErrorKind::InvalidScore,
                alloc::format!(
                    "symbol `{}` has score {}; scores must be finite",
                    s.qualified_name.as_ref(),
                    s.score
                ),
            ));
        }
        let score = if s.score == 0.0 { 0.0 } else { s.score };
        let bits = score.to_bits();
        let ascending = if bits >> 63 == 1 {
            !bits
        } else {
            bits | (1 << 63)
        };
        let descending = !ascending;
        keys.push(((s.distance as u128) << 96) | ((descending as u128) << 32) | i as u128);
    }
    keys.sort_unstable();
    Ok(keys.into_iter().map(|k| k as u32).collect())
}

pub(crate) fn check_count(what: &str, n: usize, limits: &Limits) -> Result<(), Error> {
    if n > limits.max_container_len || n > u32::MAX as usize {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            alloc::format!(
                "{n} {what} exceed the configured limit of {}",
                limits.max_container_len
            ),
        ));
    }
    Ok(())
}

/// Checks a whitespace-delimited positional field: non-empty, no whitespace,
/// no control characters (spec §4 `qname`, `provenance`, `edge-type`).
#[inline]
pub(crate) fn check_token(what: &str, value: &str) -> Result<(), Error> {
    let b = value.as_bytes();
    // Fast path: printable ASCII only. Anything else (including every
    // non-ASCII byte) is decided per character: U+00A0, U+2028, U+3000 and
    // the other Unicode spaces and C1 controls are rejected too.
    if !b.is_empty() && !has_non_printable_ascii(b) {
        return Ok(());
    }
    if !b.is_empty()
        && value
            .chars()
            .all(|c| c != ' ' && !c.is_control() && !c.is_whitespace())
    {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::InvalidInput,
        alloc::format!(
            "{what} `{value}` must be non-empty and contain no whitespace or control characters"
        ),
    ))
}

/// Whether any byte is outside printable ASCII `0x21..=0x7e`: whitespace or
/// a control (`<= 0x20`), DEL (`0x7f`), or part of a non-ASCII character
/// (`>= 0x80`, left to the per-character check). Eight bytes at a time:
/// every qualified name is checked once per symbol, and this was the largest
/// single cost of the streaming writer.
///
/// Per 64-bit word, `(x - 0x21..) & !x & 0x80..` is non-zero when some ASCII
/// byte is below 0x21 (a borrow into a byte only starts at a byte that is
/// itself below 0x21), the same zero-byte test on `x ^ 0x7f..` finds DEL,
/// and `x & 0x80..` finds non-ASCII bytes.
#[inline]
fn has_non_printable_ascii(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w);
        let below_0x21 = x.wrapping_sub(ONES * 0x21) & !x & HIGH;
        let del = x ^ (ONES * 0x7f);
        let is_del = del.wrapping_sub(ONES) & !del & HIGH;
        if below_0x21 | is_del | (x & HIGH) != 0 {
            return true;
        }
    }
    words
        .remainder()
        .iter()
        .any(|&c| !(0x21..=0x7e).contains(&c))
}

/// Checks a header value: printable non-whitespace ASCII (spec §4 `header-value`).
pub(crate) fn check_header_value(what: &str, value: &str) -> Result<(), Error> {
    if value.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::InvalidInput,
        alloc::format!("header field {what}=`{value}` must be printable ASCII without spaces"),
    ))
}

/// The group header name for a distance.
#[inline]
pub(crate) fn write_group_header<K: Sink + ?Sized>(
    sink: &mut K,
    distance: u32,
) -> Result<(), Error> {
    match distance {
        0 => sink.write_bytes(b"## targets\n")?,
        1 => sink.write_bytes(b"## related\n")?,
        2 => sink.write_bytes(b"## extended\n")?,
        n => {
            sink.write_bytes(b"## distance_")?;
            sink.write_str(itoa::Buffer::new().format(n))?;
            sink.write_bytes(b"\n")?;
        }
    }
    Ok(())
}

/// Writes `@id kind qname score provenance` without the line feed.
#[inline]
pub(crate) fn write_node<K: Sink + ?Sized>(
    sink: &mut K,
    id: u64,
    symbol: &Symbol<&str>,
    numbers: &mut NumberBuffer,
) -> Result<(), Error> {
    check_token("qualified name", symbol.qualified_name)?;
    check_token("kind", symbol.kind)?;
    check_token("provenance", symbol.provenance)?;
    let score = numbers.format_score(symbol.score)?;
    write_checked_node(sink, id, symbol, score)
}

/// Writes `@id kind qname score provenance` without the line feed, for a
/// symbol whose tokens were checked and whose score is already formatted
/// (the streaming writer validates before writing anything).
#[inline]
pub(crate) fn write_checked_node<K: Sink + ?Sized>(
    sink: &mut K,
    id: u64,
    symbol: &Symbol<&str>,
    score: &str,
) -> Result<(), Error> {
    let mut ids = itoa::Buffer::new();
    sink.write_bytes(b"@")?;
    sink.write_str(ids.format(id))?;
    sink.write_bytes(b" ")?;
    sink.write_str(abbreviate_kind(symbol.kind))?;
    sink.write_bytes(b" ")?;
    sink.write_str(symbol.qualified_name)?;
    sink.write_bytes(b" ")?;
    sink.write_str(score)?;
    sink.write_bytes(b" ")?;
    sink.write_str(symbol.provenance)?;
    Ok(())
}

/// Checks a symbol's three tokens (not its score).
#[inline]
pub(crate) fn check_symbol_tokens(symbol: &Symbol<&str>) -> Result<(), Error> {
    check_token("qualified name", symbol.qualified_name)?;
    check_token("kind", symbol.kind)?;
    check_token("provenance", symbol.provenance)
}

/// Checks an edge's type and status; returns whether the status is written.
#[inline]
pub(crate) fn check_edge(edge_type: &str, status: &str) -> Result<bool, Error> {
    check_token("edge type", edge_type)?;
    let has_status = !status.is_empty() && status != "unchanged";
    if has_status {
        check_token("edge status", status)?;
    }
    Ok(has_status)
}

/// Checks that a location's positions are 1-based (spec §6b).
pub(crate) fn check_location(
    file: &str,
    line: u32,
    column: u32,
    end: Option<(u32, u32)>,
) -> Result<(), Error> {
    let positions_ok = line >= 1 && column >= 1 && end.is_none_or(|(l, c)| l >= 1 && c >= 1);
    if positions_ok {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::InvalidInput,
        alloc::format!(
            "location of `{file}` has a zero line or column; positions are 1-based (spec 6b)"
        ),
    ))
}

/// Writes an edge line whose type and status [`check_edge`] accepted.
#[inline]
pub(crate) fn write_checked_edge_line<K: Sink + ?Sized>(
    sink: &mut K,
    source: u64,
    target: u64,
    edge_type: &str,
    status: Option<&str>,
) -> Result<(), Error> {
    let mut ids = itoa::Buffer::new();
    sink.write_bytes(b"@")?;
    sink.write_str(ids.format(target))?;
    sink.write_bytes(b"<@")?;
    sink.write_str(ids.format(source))?;
    sink.write_bytes(b" ")?;
    sink.write_str(edge_type)?;
    if let Some(status) = status {
        sink.write_bytes(b" ")?;
        sink.write_str(status)?;
    }
    sink.write_bytes(b"\n")?;
    Ok(())
}

/// Writes `@id file line column[ end_line end_column]\n` (spec §6b).
pub(crate) fn write_loc_line<K: Sink + ?Sized>(
    sink: &mut K,
    id: u64,
    file: &str,
    line: u32,
    column: u32,
    end: Option<(u32, u32)>,
) -> Result<(), Error> {
    check_location(file, line, column, end)?;
    let mut ids = itoa::Buffer::new();
    sink.write_bytes(b"@")?;
    sink.write_str(ids.format(id))?;
    sink.write_bytes(b" ")?;
    let bare = !file.is_empty()
        && !file.starts_with('"')
        && file.bytes().all(|b| (0x21..=0x7e).contains(&b));
    if bare {
        sink.write_str(file)?;
    } else {
        crate::text::write_quoted(sink, file)?;
    }
    for n in [Some(line), Some(column), end.map(|e| e.0), end.map(|e| e.1)]
        .into_iter()
        .flatten()
    {
        sink.write_bytes(b" ")?;
        sink.write_str(ids.format(n))?;
    }
    sink.write_bytes(b"\n")?;
    Ok(())
}

/// An edge whose endpoints resolved, by emission position, with its label.
#[derive(Clone, Copy)]
struct KnownEdge {
    source: u32,
    target: u32,
    label: u32,
}

/// The distinct `(edge type, written status)` pairs of a payload's edges.
///
/// A payload has a handful of edge types, each usually one `&'static str`
/// or one interned string: interning them by address checks each distinct
/// label once, and shrinks the edges the sort moves to twelve bytes. Strings
/// at new addresses (owned payloads) simply become new labels.
#[derive(Default)]
struct Labels<'a> {
    labels: Vec<(&'a str, &'a str)>,
    /// `(type address, type length, status address, status length) -> label`
    /// for recently seen labels, in a slot picked by the addresses.
    recent: [((usize, usize, usize, usize), u32); 16],
}

impl<'a> Labels<'a> {
    /// The label of an edge, checking its tokens the first time they are seen.
    #[inline]
    fn intern(&mut self, edge_type: &'a str, status: &'a str) -> Result<u32, Error> {
        let key = (
            edge_type.as_ptr() as usize,
            edge_type.len(),
            status.as_ptr() as usize,
            status.len(),
        );
        // The zeroed slots never match: an edge type is never empty once
        // checked, and an unchecked empty one has length 0 with a non-null
        // address, which is not the zero key.
        // Direct-mapped on the type's address: one comparison per edge.
        let slot = (key.0 >> 3 ^ key.1 ^ key.2 >> 3) % self.recent.len();
        if let Some(&(cached, label)) = self.recent.get(slot) {
            if cached == key {
                return Ok(label);
            }
        }
        let written = check_edge(edge_type, status)?;
        let label = u32::try_from(self.labels.len())
            .map_err(|_| Error::new(ErrorKind::LimitExceeded, "too many distinct edge labels"))?;
        self.labels
            .push((edge_type, if written { status } else { "" }));
        if let Some(cached) = self.recent.get_mut(slot) {
            *cached = (key, label);
        }
        Ok(label)
    }

    #[inline]
    fn get(&self, label: u32) -> (&'a str, &'a str) {
        self.labels.get(label as usize).copied().unwrap_or(("", ""))
    }
}

/// Sorts edges by (source id, target id, type), keeping input order for ties.
///
/// With sequential ids the ids are the positions, all below `symbols`, so a
/// counting sort on the source (one pass to count, one to place, both
/// linear) leaves only each source's few edges to order by target and type;
/// that replaces an O(E log E) comparison sort, the largest single cost of
/// encoding a big graph. Session ids are arbitrary and take the comparison sort.
fn sort_edges(
    edges: Vec<KnownEdge>,
    symbols: usize,
    ids: &Ids<'_>,
    labels: &Labels<'_>,
) -> Vec<KnownEdge> {
    let by_target_then_type = |a: &KnownEdge, b: &KnownEdge| {
        a.target
            .cmp(&b.target)
            .then_with(|| labels.get(a.label).0.cmp(labels.get(b.label).0))
    };
    if !matches!(ids, Ids::Sequential) {
        let mut edges = edges;
        edges.sort_by(|a, b| {
            let id = |p: u32| ids.get(p as usize).0;
            id(a.source)
                .cmp(&id(b.source))
                .then_with(|| id(a.target).cmp(&id(b.target)))
                .then_with(|| labels.get(a.label).0.cmp(labels.get(b.label).0))
        });
        return edges;
    }
    // next[s]: where the next edge from source `s` goes. Positions are
    // below `symbols` (they index `order`), so every index is in bounds.
    let mut next = alloc::vec![0u32; symbols + 1];
    for e in &edges {
        next[e.source as usize + 1] += 1;
    }
    for s in 1..next.len() {
        next[s] += next[s - 1];
    }
    let mut sorted = alloc::vec![
        KnownEdge {
            source: 0,
            target: 0,
            label: 0
        };
        edges.len()
    ];
    for e in edges {
        let slot = &mut next[e.source as usize];
        sorted[*slot as usize] = e;
        *slot += 1;
    }
    // After placing, next[s] is the end of source s's run (= start of s + 1).
    let mut start = 0usize;
    for &end in &next[..symbols] {
        let end = end as usize;
        match end - start {
            0 | 1 => {}
            // A symbol has a few edges: an insertion sort, stable, without
            // the general sort's set-up.
            2..=16 => {
                let run = &mut sorted[start..end];
                for k in 1..run.len() {
                    let mut m = k;
                    while m > 0 && by_target_then_type(&run[m - 1], &run[m]).is_gt() {
                        run.swap(m - 1, m);
                        m -= 1;
                    }
                }
            }
            _ => sorted[start..end].sort_by(by_target_then_type),
        }
        start = end;
    }
    sorted
}

/// Writes sorted edge lines, each assembled in a stack buffer and written
/// with one call (instead of seven small writes), and with the source's
/// digits formatted once per run of edges from the same source (the sort
/// groups them). Output is exactly [`write_checked_edge_line`]'s, which
/// still writes any line too long for the buffer.
fn write_edge_lines<K: Sink + ?Sized>(
    sink: &mut K,
    edges: &[KnownEdge],
    labels: &Labels<'_>,
    ids: &Ids<'_>,
) -> Result<(), Error> {
    // `@` target `<@` source ` ` type ` ` status `\n`, ids up to 20 digits.
    const FIXED: usize = 1 + 20 + 2 + 20 + 1 + 1 + 1;
    let mut line = [0u8; 160];
    let mut targets = itoa::Buffer::new();
    let mut sources = itoa::Buffer::new();
    let mut source_digits: &[u8] = b"";
    let mut last_source = None;
    for e in edges {
        let (edge_type, status) = labels.get(e.label);
        let source = ids.get(e.source as usize).0;
        let target = ids.get(e.target as usize).0;
        if FIXED + edge_type.len() + status.len() > line.len() {
            let status = (!status.is_empty()).then_some(status);
            write_checked_edge_line(sink, source, target, edge_type, status)?;
            continue;
        }
        if last_source != Some(source) {
            source_digits = sources.format(source).as_bytes();
            last_source = Some(source);
        }
        let mut at = 0;
        let mut put = |bytes: &[u8]| {
            line[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        };
        put(b"@");
        put(targets.format(target).as_bytes());
        put(b"<@");
        put(source_digits);
        put(b" ");
        put(edge_type.as_bytes());
        if !status.is_empty() {
            put(b" ");
            put(status.as_bytes());
        }
        put(b"\n");
        sink.write_bytes(&line[..at])?;
    }
    Ok(())
}

/// The shared body of buffered and session encoding. `order` comes from
/// [`emission_order`], which has checked every symbol.
pub(crate) fn write_payload<S: AsRef<str>, K: Sink + ?Sized>(
    payload: &Payload<S>,
    order: &[u32],
    ids: &Ids<'_>,
    limits: &Limits,
    sink: &mut K,
) -> Result<(), Error> {
    let prepared = prepare(payload, order, ids, limits)?;
    write_prepared(payload, order, ids, &prepared, sink)
}

/// What writing needs besides the payload: the name index and the resolved,
/// sorted edges.
struct Prepared<'a, S> {
    index: NameIndex<'a, S>,
    edges: Vec<KnownEdge>,
    labels: Labels<'a>,
    /// A close upper bound on the output's length for ordinary scores.
    len_hint: usize,
}

/// How many edges (or symbols) ahead the resolving and writing loops
/// prefetch: enough to cover a memory access, few enough to stay in cache.
const AHEAD: usize = 8;

/// Checks the counts, indexes the names and resolves and sorts the edges.
fn prepare<'a, S: AsRef<str>>(
    payload: &'a Payload<S>,
    order: &[u32],
    ids: &Ids<'_>,
    limits: &Limits,
) -> Result<Prepared<'a, S>, Error> {
    check_count("edges", payload.edges.len(), limits)?;
    check_count("locations", payload.locations.len(), limits)?;
    let symbols = &payload.symbols;
    let needs_index = !payload.edges.is_empty() || !payload.locations.is_empty();
    let index = if needs_index {
        NameIndex::build(symbols, order)
    } else {
        NameIndex::empty(symbols)
    };
    let id_digits = match ids {
        Ids::Sequential => symbols.len().max(1).ilog10() as usize + 1,
        Ids::Session(_) => 20,
    };
    let mut len_hint = estimate_len(payload, id_digits);
    // Edges whose endpoints are both known, as positions and a label, so
    // that writing them after the sort reads memory sequentially.
    let mut edges: Vec<KnownEdge> = Vec::new();
    let mut labels = Labels::default();
    if !payload.edges.is_empty() {
        edges.reserve(payload.edges.len());
        let all = &payload.edges;
        let pair = |j: usize| (all[j].source.as_ref(), all[j].target.as_ref());
        index.resolve_pairs(all.len(), pair, |j, source, target| {
            let e = &all[j];
            if let (Some(source), Some(target)) = (source, target) {
                let edge_type = e.edge_type.as_ref();
                let status = e.status.as_ref();
                let label = labels.intern(edge_type, status)?;
                len_hint =
                    len_hint.saturating_add(edge_type.len() + status.len() + 2 * id_digits + 6);
                edges.push(KnownEdge {
                    source,
                    target,
                    label,
                });
            }
            Ok::<(), Error>(())
        })?;
        edges = sort_edges(edges, order.len(), ids, &labels);
    }
    Ok(Prepared {
        index,
        edges,
        labels,
        len_hint,
    })
}

/// Writes the symbol lines in emission order.
///
/// Emission order visits the symbols, and their names, at scattered
/// addresses: the loop prefetches the symbol `2 * AHEAD` positions ahead and
/// the name of the one `AHEAD` ahead (whose symbol is loaded by then), so
/// the misses overlap. Each line is assembled on the stack and written with
/// one call; a line too long for the buffer is written piecewise.
fn write_symbol_lines<S: AsRef<str>, K: Sink + ?Sized>(
    sink: &mut K,
    symbols: &[Symbol<S>],
    order: &[u32],
    ids: &Ids<'_>,
) -> Result<(), Error> {
    let mut numbers = NumberBuffer::new();
    let mut digits = itoa::Buffer::new();
    let mut line = [0u8; 256];
    let mut group: Option<u32> = None;
    for (position, &i) in order.iter().enumerate() {
        if let Some(&far) = order.get(position + 2 * AHEAD) {
            if let Some(s) = symbols.get(far as usize) {
                crate::hint::prefetch_value(s);
            }
        }
        if let Some(&near) = order.get(position + AHEAD) {
            if let Some(s) = symbols.get(near as usize) {
                crate::hint::prefetch_bytes(s.qualified_name.as_ref().as_bytes());
            }
        }
        let s = &symbols[i as usize];
        if group != Some(s.distance) {
            write_group_header(sink, s.distance)?;
            group = Some(s.distance);
        }
        let (id, reference) = ids.get(position);
        if reference {
            sink.write_bytes(b"@")?;
            sink.write_str(digits.format(id))?;
            sink.write_bytes(b"  # previously transmitted\n")?;
            continue;
        }
        // Tokens were checked by `emission_order`.
        let symbol = s.as_borrowed();
        let score = numbers.format_score(symbol.score)?;
        let kind = abbreviate_kind(symbol.kind);
        let id_text = digits.format(id);
        let len = 1
            + id_text.len()
            + 1
            + kind.len()
            + 1
            + symbol.qualified_name.len()
            + 1
            + score.len()
            + 1
            + symbol.provenance.len()
            + 1;
        if len > line.len() {
            write_checked_node(sink, id, &symbol, score)?;
            sink.write_bytes(b"\n")?;
            continue;
        }
        let mut at = 0;
        let mut put = |bytes: &[u8]| {
            line[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        };
        put(b"@");
        put(id_text.as_bytes());
        put(b" ");
        put(kind.as_bytes());
        put(b" ");
        put(symbol.qualified_name.as_bytes());
        put(b" ");
        put(score.as_bytes());
        put(b" ");
        put(symbol.provenance.as_bytes());
        put(b"\n");
        sink.write_bytes(&line[..at])?;
    }
    Ok(())
}

/// Writes a prepared payload.
fn write_prepared<S: AsRef<str>, K: Sink + ?Sized>(
    payload: &Payload<S>,
    order: &[u32],
    ids: &Ids<'_>,
    prepared: &Prepared<'_, S>,
    sink: &mut K,
) -> Result<(), Error> {
    let symbols = &payload.symbols;
    let edges = &prepared.edges;
    // Header (spec §3.2): zero budget/tokens/edges omitted, symbols always.
    let mut n = itoa::Buffer::new();
    sink.write_bytes(b"GCF profile=graph")?;
    let tool = payload.tool.as_ref();
    if !tool.is_empty() {
        check_header_value("tool", tool)?;
        sink.write_bytes(b" tool=")?;
        sink.write_str(tool)?;
    }
    if payload.token_budget > 0 {
        sink.write_bytes(b" budget=")?;
        sink.write_str(n.format(payload.token_budget))?;
    }
    if payload.tokens_used > 0 {
        sink.write_bytes(b" tokens=")?;
        sink.write_str(n.format(payload.tokens_used))?;
    }
    sink.write_bytes(b" symbols=")?;
    sink.write_str(n.format(symbols.len()))?;
    if !edges.is_empty() {
        sink.write_bytes(b" edges=")?;
        sink.write_str(n.format(edges.len()))?;
    }
    let pack_root = payload.pack_root.as_ref();
    if !pack_root.is_empty() {
        check_header_value("pack_root", pack_root)?;
        sink.write_bytes(b" pack_root=")?;
        sink.write_str(pack_root)?;
    }
    if matches!(ids, Ids::Session(_)) {
        sink.write_bytes(b" session=true")?;
    }
    sink.write_bytes(b"\n")?;

    write_symbol_lines(sink, symbols, order, ids)?;

    // The section is written whenever edges were given, so a reader sees
    // `[0]` when every edge named an unknown symbol (as the reference encoders do).
    if !payload.edges.is_empty() {
        sink.write_bytes(b"## edges [")?;
        sink.write_str(n.format(edges.len()))?;
        sink.write_bytes(b"]\n")?;
        write_edge_lines(sink, edges, &prepared.labels, ids)?;
    }

    if !payload.locations.is_empty() {
        let mut locs: Vec<(u64, u32)> = payload
            .locations
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                prepared
                    .index
                    .position(l.qualified_name.as_ref())
                    .map(|p| (ids.get(p as usize).0, i as u32))
            })
            .collect();
        if !locs.is_empty() {
            locs.sort_unstable();
            sink.write_bytes(b"## loc [")?;
            sink.write_str(n.format(locs.len()))?;
            sink.write_bytes(b"]\n")?;
            for (id, i) in locs {
                let l = &payload.locations[i as usize];
                write_loc_line(sink, id, l.file.as_ref(), l.line, l.column, l.end)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Edge, Location};
    use alloc::vec;

    fn sym(q: &str, score: f64, d: u32) -> Symbol<&str> {
        Symbol::new(q, "function", score, "lsp", d)
    }

    #[test]
    fn groups_ids_and_edges() {
        let p = Payload {
            tool: "t",
            token_budget: 10,
            symbols: vec![
                sym("a.A", 0.5, 1),
                sym("a.B", 0.9, 0),
                sym("a.C", 0.5, 1),
                sym("a.D", 0.1, 2),
                sym("a.E", 1.0, 7),
            ],
            edges: vec![
                Edge::new("a.D", "a.B", "calls"),
                Edge::new("a.A", "a.B", "uses"),
                Edge::new("a.A", "a.B", "calls"),
                Edge::new("a.X", "a.B", "calls"),
                Edge {
                    source: "a.B",
                    target: "a.B",
                    edge_type: "self",
                    status: "added",
                },
                Edge {
                    source: "a.C",
                    target: "a.B",
                    edge_type: "x",
                    status: "unchanged",
                },
            ],
            ..Payload::default()
        };
        let out = encode(&p).unwrap();
        assert_eq!(
            out,
            "GCF profile=graph tool=t budget=10 symbols=5 edges=5\n## targets\n@0 fn a.B 0.90 lsp\n\
             ## related\n@1 fn a.A 0.50 lsp\n@2 fn a.C 0.50 lsp\n## extended\n@3 fn a.D 0.10 lsp\n\
             ## distance_7\n@4 fn a.E 1.00 lsp\n## edges [5]\n@0<@0 self added\n@0<@1 calls\n@0<@1 uses\n\
             @0<@2 x\n@0<@3 calls\n"
        );
    }

    #[test]
    fn edges_section_kept_when_all_edges_unknown() {
        let p = Payload {
            symbols: vec![sym("a", 0.5, 0)],
            edges: vec![Edge::new("x", "y", "z")],
            ..Payload::default()
        };
        assert_eq!(
            encode(&p).unwrap(),
            "GCF profile=graph symbols=1\n## targets\n@0 fn a 0.50 lsp\n## edges [0]\n"
        );
    }

    #[test]
    fn locations_and_pack_root() {
        let p = Payload {
            pack_root: "sha256:ab",
            symbols: vec![sym("a.A", 0.5, 0), sym("a.B", 0.6, 0)],
            locations: vec![
                Location {
                    qualified_name: "a.A",
                    file: "src/a.go",
                    line: 3,
                    column: 1,
                    end: Some((9, 2)),
                },
                Location {
                    qualified_name: "a.B",
                    file: "my dir/b.go",
                    line: 1,
                    column: 5,
                    end: None,
                },
                Location {
                    qualified_name: "nope",
                    file: "x",
                    line: 1,
                    column: 1,
                    end: None,
                },
            ],
            ..Payload::default()
        };
        assert_eq!(
            encode(&p).unwrap(),
            "GCF profile=graph symbols=2 pack_root=sha256:ab\n## targets\n@0 fn a.B 0.60 lsp\n@1 fn a.A 0.50 lsp\n\
             ## loc [2]\n@0 \"my dir/b.go\" 1 5\n@1 src/a.go 3 1 9 2\n"
        );
    }

    #[test]
    fn rejects_unencodable_input() {
        let bad = |p: Payload<&str>| encode(&p).unwrap_err().kind();
        assert_eq!(
            bad(Payload {
                symbols: vec![sym("a b", 0.5, 0)],
                ..Payload::default()
            }),
            ErrorKind::InvalidInput
        );
        assert_eq!(
            bad(Payload {
                symbols: vec![sym("", 0.5, 0)],
                ..Payload::default()
            }),
            ErrorKind::InvalidInput
        );
        assert_eq!(
            bad(Payload {
                symbols: vec![sym("a", f64::NAN, 0)],
                ..Payload::default()
            }),
            ErrorKind::InvalidScore
        );
        assert_eq!(
            bad(Payload {
                tool: "a b",
                ..Payload::default()
            }),
            ErrorKind::InvalidInput
        );
        let p = Payload {
            symbols: vec![sym("a", 0.5, 0)],
            locations: vec![Location {
                qualified_name: "a",
                file: "f",
                line: 0,
                column: 1,
                end: None,
            }],
            ..Payload::default()
        };
        assert_eq!(bad(p), ErrorKind::InvalidInput);
        let limits = Limits {
            max_container_len: 1,
            ..Limits::default()
        };
        let p = Payload {
            symbols: vec![sym("a", 0.5, 0), sym("b", 0.5, 0)],
            ..Payload::default()
        };
        assert_eq!(
            Encoder::new().limits(limits).encode(&p).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
    }

    #[test]
    fn repeated_name_resolves_to_its_last_occurrence_in_emission_order() {
        // Input order is the reverse of emission order here, so the index
        // (built in input order) must keep the larger emission position.
        let p = Payload {
            symbols: vec![sym("a", 0.5, 1), sym("a", 0.9, 0), sym("b", 0.1, 2)],
            edges: vec![
                Edge::new("b", "a", "calls"),
                Edge::new("a", "b", "uses"),
                Edge::new("a", "b", "calls"),
            ],
            ..Payload::default()
        };
        assert_eq!(
            encode(&p).unwrap(),
            "GCF profile=graph symbols=3 edges=3\n## targets\n@0 fn a 0.90 lsp\n## related\n\
             @1 fn a 0.50 lsp\n## extended\n@2 fn b 0.10 lsp\n## edges [3]\n@2<@1 calls\n\
             @2<@1 uses\n@1<@2 calls\n"
        );
    }

    #[test]
    fn address_index_agrees_with_the_name_index() {
        // Two copies of "a" at different addresses: an edge naming either
        // copy resolves to the last occurrence in emission order (@1).
        let first = alloc::string::String::from("a");
        let second = alloc::string::String::from("a");
        // Names sharing a first byte: "bc" and its prefix "b".
        let buffer = alloc::string::String::from("bc");
        let (b, bc) = (&buffer[..1], buffer.as_str());
        let p = Payload {
            symbols: vec![
                sym(first.as_str(), 0.9, 0),
                sym(second.as_str(), 0.5, 0),
                sym(b, 0.4, 0),
                sym(bc, 0.3, 0),
            ],
            edges: vec![
                Edge::new(first.as_str(), b, "x"),
                Edge::new(second.as_str(), bc, "y"),
                Edge::new(bc, "b", "z"),
            ],
            ..Payload::default()
        };
        assert_eq!(
            encode(&p).unwrap(),
            "GCF profile=graph symbols=4 edges=3\n## targets\n@0 fn a 0.90 lsp\n@1 fn a 0.50 lsp\n\
             @2 fn b 0.40 lsp\n@3 fn bc 0.30 lsp\n## edges [3]\n@2<@1 x\n@3<@1 y\n@2<@3 z\n"
        );
    }

    #[test]
    fn edge_lines_long_types_statuses_and_bad_types() {
        let long = "t".repeat(200);
        let p = Payload {
            symbols: vec![sym("a", 0.9, 0), sym("b", 0.5, 0)],
            edges: vec![
                Edge::new("a", "b", "calls"),
                Edge {
                    source: "b",
                    target: "a",
                    edge_type: long.as_str(),
                    status: "added",
                },
                Edge {
                    source: "b",
                    target: "b",
                    edge_type: "calls",
                    status: "removed",
                },
                Edge {
                    source: "a",
                    target: "a",
                    edge_type: "calls",
                    status: "unchanged",
                },
            ],
            ..Payload::default()
        };
        assert_eq!(
            encode(&p).unwrap(),
            alloc::format!(
                "GCF profile=graph symbols=2 edges=4\n## targets\n@0 fn a 0.90 lsp\n@1 fn b 0.50 lsp\n\
                 ## edges [4]\n@0<@0 calls\n@1<@0 calls\n@0<@1 {long} added\n@1<@1 calls removed\n"
            )
        );
        // A bad type is rejected even after good ones were checked (and
        // remembered); so is a bad status on a remembered type.
        for (edge_type, status) in [("bad type", ""), ("calls", "a b"), ("", "")] {
            let p = Payload {
                symbols: vec![sym("a", 0.9, 0)],
                edges: vec![
                    Edge::new("a", "a", "calls"),
                    Edge {
                        source: "a",
                        target: "a",
                        edge_type,
                        status,
                    },
                ],
                ..Payload::default()
            };
            assert_eq!(
                encode(&p).unwrap_err().kind(),
                ErrorKind::InvalidInput,
                "{edge_type:?} {status:?}"
            );
        }
    }

    #[test]
    fn equal_names_at_different_addresses_match() {
        let owned = alloc::string::String::from("pkg.A");
        let p = Payload {
            symbols: vec![sym("pkg.A", 0.5, 0)],
            edges: vec![Edge::new(owned.as_str(), "pkg.A", "self")],
            ..Payload::default()
        };
        assert!(encode(&p).unwrap().ends_with("## edges [1]\n@0<@0 self\n"));
    }

    #[test]
    fn word_at_a_time_check_agrees_with_the_byte_test() {
        let naive = |b: &[u8]| b.iter().any(|&c| !(0x21..=0x7e).contains(&c));
        // Every byte value at every position of strings of length 1..=20,
        // in a background of ordinary and of non-ASCII bytes.
        for len in 1..=20 {
            for background in [b'a', 0x21, 0x7e, 0x80, 0xc3, 0xff] {
                for pos in 0..len {
                    for byte in 0..=255u8 {
                        let mut s = vec![background; len];
                        s[pos] = byte;
                        assert_eq!(has_non_printable_ascii(&s), naive(&s), "{s:?}");
                    }
                }
            }
        }
        assert!(!has_non_printable_ascii(
            b"github.com/acme/billing/internal/auth.Server.Handle"
        ));
        assert!(has_non_printable_ascii(
            b"github.com/acme/billing/internal/auth.Server\x7fHandle"
        ));
    }

    #[test]
    fn unicode_whitespace_and_controls_are_rejected_in_names() {
        for bad in [
            "a\u{a0}b",
            "a\u{2028}b",
            "a\u{3000}b",
            "a\u{85}b",
            "a\u{9f}b",
            "\u{2003}",
        ] {
            assert_eq!(
                check_token("qualified name", bad).unwrap_err().kind(),
                ErrorKind::InvalidInput,
                "{bad:?}"
            );
        }
        for good in ["ௗpkg.handler", "pkg.Ünïcode", "a.B", "日本.語"] {
            assert!(check_token("qualified name", good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn negative_zero_score_ties_with_zero() {
        let p = Payload {
            symbols: vec![sym("a", -0.0, 0), sym("b", 0.0, 0)],
            ..Payload::default()
        };
        assert_eq!(
            encode(&p).unwrap(),
            "GCF profile=graph symbols=2\n## targets\n@0 fn a -0.00 lsp\n@1 fn b 0.00 lsp\n"
        );
    }

    /// Edges naming their endpoints with the symbols' own strings (found by
    /// address), with copies (found by bytes), or with a mix of both, in
    /// runs longer than the index's sample, prefetch distance and hashing
    /// chunk, and with repeated names: the output must not depend on which
    /// path resolved them.
    #[test]
    fn endpoint_strings_resolve_alike_by_address_and_by_bytes() {
        let names: Vec<String> = (0..700).map(|i| alloc::format!("m.S{}", i % 650)).collect();
        let types = ["calls", "uses", "implements"];
        let symbols: Vec<Symbol<&str>> = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let score = (i * 37 % 101) as f64 / 100.0;
                Symbol::new(n.as_str(), "function", score, "lsp", (i % 4) as u32)
            })
            .collect();
        let pairs: Vec<(usize, usize, usize)> = (0..2500)
            .map(|k| (k * 7 % 700, (k * 13 + 5) % 700, k % 3))
            .collect();
        let copies: Vec<(String, String)> = pairs
            .iter()
            .map(|&(s, t, _)| (names[s].clone(), names[t].clone()))
            .collect();
        let payload_with = |use_copy: &dyn Fn(usize) -> bool| Payload {
            symbols: symbols.clone(),
            edges: pairs
                .iter()
                .zip(&copies)
                .enumerate()
                .map(|(k, (&(s, t, ty), (cs, ct)))| {
                    if use_copy(k) {
                        Edge::new(cs.as_str(), ct.as_str(), types[ty])
                    } else {
                        Edge::new(names[s].as_str(), names[t].as_str(), types[ty])
                    }
                })
                .collect(),
            ..Payload::default()
        };
        let own = encode(&payload_with(&|_| false)).unwrap();
        assert!(own.contains("edges=2500"), "{}", &own[..200]);
        for (what, use_copy) in [
            ("copies", &(|_| true) as &dyn Fn(usize) -> bool),
            ("copies first", &|k| k < 1000),
            ("own first", &|k| k >= 20),
            ("alternating", &|k| k % 2 == 0),
        ] {
            assert_eq!(encode(&payload_with(use_copy)).unwrap(), own, "{what}");
        }
        // Owned strings throughout (a payload decoded from JSON).
        let owned = payload_with(&|_| true).to_owned_payload();
        assert_eq!(encode(&owned).unwrap(), own);
        // Decoding gives back every edge between the last occurrences.
        let back = crate::graph::decode(&own).unwrap();
        assert_eq!(back.edges.len(), 2500);
    }
}
