//! The buffered graph encoder (spec §3.2, §5, §6, §6a, §6b, §16.1).
//!
//! Output order is canonical: symbols grouped by ascending distance, by
//! descending score within a group (ties keep input order), ids assigned in
//! that order from 0; edges sorted by source id, target id, then edge type
//! (ties keep input order); locations by symbol id.
//!
//! This module holds the entry points, the reusable [`Encoder`] and the
//! payload writer; the work is split by concern: `order` (the symbol order),
//! `tokens` (checked kinds and provenances), `labels` (edge labels),
//! `edges` (edge order and lines), `memo` (short texts as exact keys) and
//! `writers` (line writers the streaming writer, sessions and deltas share).

use alloc::string::String;
use alloc::vec::Vec;

use core::mem::MaybeUninit;

use super::line::{self, IdTexts, OutputLines, Token, MAX_DIGITS, MAX_SCORE};
use super::name_index::{NameIndex, Tables};
use super::types::{Edge, Payload, Symbol};
use crate::error::Error;
use crate::header::{check_header_value, graph_tool};
use crate::limits::Limits;
use crate::number::NumberBuffer;
use crate::sink::Sink;

mod edges;
mod labels;
mod memo;
mod order;
#[cfg(test)]
mod tests;
mod tokens;
mod writers;

use edges::*;
use labels::*;
use memo::*;
pub(crate) use order::*;
pub(crate) use tokens::*;
pub(crate) use writers::*;

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
    #[cfg(feature = "std")]
    if let Some(result) = with_thread_encoder(|encoder| encoder.encode(payload)) {
        return result;
    }
    Encoder::one_shot().encode(payload)
}

/// Encodes a payload into a [`Sink`] with default [`Limits`].
///
/// ```
/// use gcf_core::graph::{encode_to, Payload};
/// let mut out = Vec::new();
/// encode_to(&Payload::<&str>::default(), &mut out)?;
/// assert_eq!(out, b"GCF profile=graph tool= symbols=0\n");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn encode_to<S: AsRef<str>, K: Sink + ?Sized>(
    payload: &Payload<S>,
    sink: &mut K,
) -> Result<(), Error> {
    #[cfg(feature = "std")]
    if let Some(result) = with_thread_encoder(|encoder| encoder.encode_to(payload, &mut *sink)) {
        return result;
    }
    Encoder::one_shot().encode_to(payload, sink)
}

#[cfg(feature = "std")]
std::thread_local! {
    /// The encoder behind [`encode`] and [`encode_to`] on this thread: a
    /// one-shot call then reuses the tables and the kinds and provenances
    /// of the calls before it, as a kept [`Encoder`] does (a fresh one made
    /// about twenty allocations and checked every kind again, a sixth of
    /// encoding a 10-symbol payload).
    static THREAD_ENCODER: core::cell::RefCell<Encoder> = core::cell::RefCell::new(Encoder::new());
}

/// Above this many bytes of buffers, the thread's encoder lets them go
/// after a call rather than hold a large payload's tables for good.
#[cfg(feature = "std")]
const THREAD_KEEP_BYTES: usize = 256 * 1024;

/// Runs `f` with this thread's encoder; `None` when it is in use (a sink
/// that encodes again from inside `encode_to`) or gone (thread exit).
#[cfg(feature = "std")]
fn with_thread_encoder<R>(f: impl FnOnce(&mut Encoder) -> R) -> Option<R> {
    THREAD_ENCODER
        .try_with(|cell| {
            let mut encoder = cell.try_borrow_mut().ok()?;
            let result = f(&mut encoder);
            if encoder.scratch.heap_bytes() > THREAD_KEEP_BYTES {
                encoder.scratch = Scratch::default();
            }
            Some(result)
        })
        .ok()
        .flatten()
}

/// A configurable graph encoder.
///
/// ```
/// use gcf_core::{graph::{Encoder, Payload}, Limits};
/// let mut enc = Encoder::new().limits(Limits { max_container_len: 10, ..Limits::default() });
/// assert!(enc.encode(&Payload::<&str>::default()).is_ok());
/// ```
///
/// Keep one encoder across calls (a binding serving one request after
/// another) and it keeps the tables it builds (the emission sort's items, the
/// name index, the resolved edges, the kind and label lists) between calls:
/// a call then allocates little more than its output.
///
/// ```
/// use gcf_core::graph::{Edge, Encoder, Payload, Symbol};
/// let mut enc = Encoder::new();
/// for score in [0.5, 0.25] {
///     let p = Payload {
///         symbols: vec![Symbol::new("a.A".to_string(), "function".into(), score, "x".into(), 0)],
///         edges: vec![Edge::new("a.A".to_string(), "a.A".into(), "calls".into())],
///         ..Payload::default()
///     };
///     assert!(enc.encode(&p)?.ends_with("## edges [1]\n@0<@0 calls\n"));
/// }
/// # Ok::<(), gcf_core::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    limits: Limits,
    scratch: Scratch,
}

impl Encoder {
    /// An encoder for one call, which keeps nothing for a next one.
    fn one_shot() -> Encoder {
        let mut encoder = Encoder::new();
        encoder.scratch.one_shot = true;
        encoder
    }
}

/// The buffers an [`Encoder`] keeps between calls, empty between calls.
/// Those whose elements borrow from a payload are kept with a `'static`
/// element type and reused through [`recycle`].
#[derive(Default)]
pub(crate) struct Scratch {
    items: Vec<SortItem>,
    of: Vec<(u32, u32)>,
    name_hashes: Vec<u64>,
    order: Vec<u32>,
    tables: Tables,
    known: Vec<KnownEdge>,
    per_source: Vec<u32>,
    targets: Vec<u64>,
    id_texts: Vec<u64>,
    by_type: Vec<u32>,
    ranks: Vec<u32>,
    suffix_bytes: Vec<u8>,
    suffix_ends: Vec<usize>,
    suffixes: Vec<Token<'static>>,
    kinds: Vec<TokenEntry<'static>>,
    provenances: Vec<TokenEntry<'static>>,
    labels: Vec<LabelEntry<'static>>,
    /// Kinds and provenances of earlier calls (not emptied between calls).
    kind_seeds: Seeds,
    provenance_seeds: Seeds,
    /// Set for the one-shot functions: no seeds are kept for a next call.
    one_shot: bool,
}

impl Scratch {
    /// The bytes its buffers hold.
    #[cfg(feature = "std")]
    fn heap_bytes(&self) -> usize {
        fn bytes<T>(v: &Vec<T>) -> usize {
            v.capacity() * core::mem::size_of::<T>()
        }
        bytes(&self.items)
            + bytes(&self.of)
            + bytes(&self.name_hashes)
            + bytes(&self.order)
            + self.tables.heap_bytes()
            + bytes(&self.known)
            + bytes(&self.per_source)
            + bytes(&self.targets)
            + bytes(&self.id_texts)
            + bytes(&self.by_type)
            + bytes(&self.ranks)
            + bytes(&self.suffix_bytes)
            + bytes(&self.suffix_ends)
            + bytes(&self.suffixes)
            + bytes(&self.kinds)
            + bytes(&self.provenances)
            + bytes(&self.labels)
    }
}

impl Clone for Scratch {
    /// A clone starts with buffers of its own.
    fn clone(&self) -> Scratch {
        Scratch::default()
    }
}

impl core::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Scratch")
    }
}

/// `v` emptied, as a vector of `U`, keeping its allocation when `T` and `U`
/// have one layout (here: one type at two lifetimes). The standard library
/// collects a mapped vector iterator in place when the layouts agree; where
/// it did not, this would only return a new, empty vector.
fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

/// `v` emptied, for reuse.
fn cleared<T>(v: &mut Vec<T>) -> Vec<T> {
    let mut v = core::mem::take(v);
    v.clear();
    v
}

impl Encoder {
    /// An encoder with default limits.
    pub fn new() -> Encoder {
        Encoder {
            limits: Limits::default(),
            scratch: Scratch::default(),
        }
    }

    /// Replaces the limits (symbol, edge and location counts are bounded by
    /// `max_container_len`).
    pub fn limits(mut self, limits: Limits) -> Encoder {
        self.limits = limits;
        self
    }

    /// Encodes into a new `String`.
    pub fn encode<S: AsRef<str>>(&mut self, payload: &Payload<S>) -> Result<String, Error> {
        let scratch = &mut self.scratch;
        let (order, tokens) = emission_order_in(&payload.symbols, &self.limits, scratch)?;
        let ids = Ids::Sequential;
        let result = prepare(payload, &order, &tokens, &ids, &self.limits, scratch);
        let bytes = result.and_then(|prepared| {
            let mut lines = OutputLines::owned(prepared.len_hint);
            let written = write_prepared(
                payload, &order, &tokens, &ids, &prepared, &mut lines, scratch,
            );
            scratch.keep_prepared(prepared);
            written?;
            lines.finish()
        });
        scratch.keep_symbols(order, tokens);
        let bytes = bytes?;
        // Validating the output again would read all of it once more (about
        // 2 % of encoding a large graph). Debug builds, which the test suite
        // runs, still check every output.
        debug_assert!(core::str::from_utf8(&bytes).is_ok());
        // SAFETY: the output is a concatenation of complete writes, each
        // either the whole of a `&str` from the payload (names, kinds,
        // provenances, edge types, statuses, tool, pack root, file paths) or
        // ASCII the encoder produced (syntax, digits, abbreviations, escapes;
        // `write_escaped` splits strings only at ASCII bytes). `OutputLines` only
        // ever commits the end of a complete write, so no character is cut,
        // and the padding a fixed-width copy leaves past a line's end is
        // overwritten or truncated away. Concatenated UTF-8 is UTF-8.
        Ok(unsafe { String::from_utf8_unchecked(bytes) })
    }

    /// Encodes into `sink`.
    pub fn encode_to<S: AsRef<str>, K: Sink + ?Sized>(
        &mut self,
        payload: &Payload<S>,
        sink: &mut K,
    ) -> Result<(), Error> {
        let scratch = &mut self.scratch;
        let (order, tokens) = emission_order_in(&payload.symbols, &self.limits, scratch)?;
        let result = write_payload_in(
            payload,
            &order,
            &tokens,
            &Ids::Sequential,
            &self.limits,
            sink,
            scratch,
        );
        scratch.keep_symbols(order, tokens);
        result
    }
}

impl Scratch {
    /// Takes back the buffers of an emission order and its tokens.
    fn keep_symbols(&mut self, order: Vec<u32>, tokens: SymbolTokens<'_>) {
        self.order = order;
        self.of = tokens.of;
        self.name_hashes = tokens.name_hashes;
        if !self.one_shot {
            self.kind_seeds.keep(&tokens.kinds);
            self.provenance_seeds.keep(&tokens.provenances);
        }
        self.kinds = recycle(tokens.kinds);
        self.provenances = recycle(tokens.provenances);
    }

    /// Takes back the buffers of a prepared payload.
    fn keep_prepared<S: AsRef<str>>(&mut self, prepared: Prepared<'_, S>) {
        self.tables = prepared.index.into_tables();
        self.labels = recycle(prepared.labels.entries);
        match prepared.edges {
            SortedEdges::BySource { ends, targets } => {
                self.per_source = ends;
                self.targets = targets;
            }
            SortedEdges::Sorted(known) => self.known = known,
        }
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

/// The shared body of buffered and session encoding. `order` and `tokens`
/// come from [`emission_order`], which has checked every symbol.
pub(crate) fn write_payload<S: AsRef<str>, K: Sink + ?Sized>(
    payload: &Payload<S>,
    order: &[u32],
    tokens: &SymbolTokens<'_>,
    ids: &Ids<'_>,
    limits: &Limits,
    sink: &mut K,
) -> Result<(), Error> {
    write_payload_in(
        payload,
        order,
        tokens,
        ids,
        limits,
        sink,
        &mut Scratch::default(),
    )
}

/// [`write_payload`] in the buffers of `scratch`.
fn write_payload_in<S: AsRef<str>, K: Sink + ?Sized>(
    payload: &Payload<S>,
    order: &[u32],
    tokens: &SymbolTokens<'_>,
    ids: &Ids<'_>,
    limits: &Limits,
    sink: &mut K,
    scratch: &mut Scratch,
) -> Result<(), Error> {
    let prepared = prepare(payload, order, tokens, ids, limits, scratch)?;
    let mut sink = sink;
    let mut lines = OutputLines::to_sink(&mut sink);
    let written = write_prepared(payload, order, tokens, ids, &prepared, &mut lines, scratch);
    scratch.keep_prepared(prepared);
    written?;
    lines.finish()?;
    Ok(())
}

/// What writing needs besides the payload: the name index and the resolved,
/// sorted edges.
struct Prepared<'a, S> {
    index: NameIndex<'a, S>,
    edges: SortedEdges,
    labels: EdgeLabels<'a>,
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
    tokens: &SymbolTokens<'_>,
    ids: &Ids<'_>,
    limits: &Limits,
    scratch: &mut Scratch,
) -> Result<Prepared<'a, S>, Error> {
    check_count("edges", payload.edges.len(), limits)?;
    check_count("locations", payload.locations.len(), limits)?;
    let symbols = &payload.symbols;
    let needs_index = !payload.edges.is_empty() || !payload.locations.is_empty();
    let tables = core::mem::take(&mut scratch.tables);
    let mut index = if needs_index {
        NameIndex::build_in(symbols, order, tokens.hasher, &tokens.name_hashes, tables)
    } else {
        NameIndex::empty_in(symbols, tokens.hasher, tables)
    };
    let id_digits = match ids {
        Ids::Sequential => symbols.len().max(1).ilog10() as usize + 1,
        Ids::Session(_) => 20,
    };
    let mut len_hint = estimate_len(payload, id_digits);
    // Edges whose endpoints are both known, as positions and a label, so
    // that writing them after the sort reads memory sequentially.
    let mut labels = EdgeLabels::with_entries(recycle(cleared(&mut scratch.labels)));
    let mut edges = SortedEdges::Sorted(Vec::new());
    if !payload.edges.is_empty() {
        // With sequential ids the edges are counted per source while they
        // are resolved, for the counting sort (see [`sort_edges`]).
        let mut per_source = cleared(&mut scratch.per_source);
        if let Ids::Sequential = ids {
            per_source.resize(order.len(), 0);
        }
        let known = cleared(&mut scratch.known);
        let by_address = index.names_own_strings(payload.edges.iter().map(endpoints));
        if by_address {
            index.index_addresses();
        }
        let known = resolve_edges(
            &index,
            by_address,
            &payload.edges,
            &mut labels,
            &mut per_source,
            known,
        )?;
        let longest = labels
            .entries
            .iter()
            .map(|e| e.text.0.len() + e.text.1.len())
            .max();
        len_hint = len_hint.saturating_add(
            known
                .len()
                .saturating_mul(longest.unwrap_or(0) + 2 * id_digits + 6),
        );
        edges = sort_edges(known, per_source, ids, &labels, scratch);
    }
    Ok(Prepared {
        index,
        edges,
        labels,
        len_hint,
    })
}

/// An edge's source and target.
fn endpoints<S: AsRef<str>>(e: &Edge<S>) -> (&str, &str) {
    (e.source.as_ref(), e.target.as_ref())
}

/// Resolves every edge's endpoints to emission positions, keeping the edges
/// whose endpoints both name a symbol, with their labels, and counting them
/// in `per_source` by source position (when it is not empty).
///
/// `by_address` when the edges name their endpoints with the symbols' own
/// strings (and the index has its table by address): then the slots of the
/// edge `AHEAD` places on are prefetched, so the table's cache misses
/// overlap. Other payloads go through [`NameIndex::resolve_pairs`], which
/// hashes names a chunk ahead.
fn resolve_edges<'a, S: AsRef<str>>(
    index: &NameIndex<'a, S>,
    by_address: bool,
    edges: &'a [Edge<S>],
    labels: &mut EdgeLabels<'a>,
    per_source: &mut [u32],
    mut known: Vec<KnownEdge>,
) -> Result<Vec<KnownEdge>, Error> {
    known.reserve(edges.len());
    if !by_address {
        // The endpoints are copies of the names (an owned payload): its
        // edge types are copies too, so labels are found by text from the
        // first edge on, without trying their addresses first.
        labels.copies = labels.copies.max(COPIES_LIMIT);
    }
    let mut keep = |source: u32, target: u32, e: &'a Edge<S>| -> Result<(), Error> {
        let label = labels.intern(e.edge_type.as_ref(), e.status.as_ref())?;
        if let Some(count) = per_source.get_mut(source as usize) {
            *count += 1;
        }
        known.push(KnownEdge {
            source,
            target,
            label,
        });
        Ok(())
    };
    if !by_address {
        let pair = |j: usize| endpoints(&edges[j]);
        index.resolve_pairs(edges.len(), pair, |j, source, target| {
            match (source, target) {
                (Some(source), Some(target)) => keep(source, target, &edges[j]),
                _ => Ok(()),
            }
        })?;
    } else {
        for (j, e) in edges.iter().enumerate() {
            if let Some(ahead) = edges.get(j + AHEAD) {
                let (source, target) = endpoints(ahead);
                index.prefetch_address_slot(index.address_slot(source));
                index.prefetch_address_slot(index.address_slot(target));
            }
            let (source, target) = endpoints(e);
            let source = index.position_from_slot(source, index.address_slot(source));
            let target = index.position_from_slot(target, index.address_slot(target));
            if let (Some(source), Some(target)) = (source, target) {
                keep(source, target, e)?;
            }
        }
    }
    Ok(known)
}

/// Writes the symbol lines in emission order.
///
/// Emission order visits the symbols, and their names, at scattered
/// addresses: the loop prefetches the symbol `2 * AHEAD` positions ahead and
/// the name of the one `AHEAD` ahead (whose symbol is loaded by then), so
/// the misses overlap. Each line is assembled in place (see [`line`]).
fn write_symbol_lines<S: AsRef<str>>(
    lines: &mut OutputLines<'_>,
    symbols: &[Symbol<S>],
    order: &[u32],
    tokens: &SymbolTokens<'_>,
    ids: &Ids<'_>,
    texts: Option<&IdTexts>,
) -> Result<(), Error> {
    match (ids, texts) {
        (Ids::Sequential, Some(texts)) => {
            write_symbol_lines_with(lines, symbols, order, tokens, |w, at, p| {
                (texts.put(w, at, p as u32), false)
            })
        }
        _ => write_symbol_lines_with(lines, symbols, order, tokens, |w, at, p| {
            let (id, reference) = ids.get(p);
            (line::put_u64(w, at, id), reference)
        }),
    }
}

#[inline(always)]
fn write_symbol_lines_with<S: AsRef<str>>(
    lines: &mut OutputLines<'_>,
    symbols: &[Symbol<S>],
    order: &[u32],
    tokens: &SymbolTokens<'_>,
    put_id: impl Fn(&mut [MaybeUninit<u8>], usize, usize) -> (usize, bool),
) -> Result<(), Error> {
    let mut numbers = NumberBuffer::new();
    let mut group: Option<u32> = None;
    for (position, &i) in order.iter().enumerate() {
        if let Some(&far) = order.get(position + 2 * AHEAD) {
            if let Some(s) = symbols.get(far as usize) {
                crate::hint::prefetch_value(s);
            }
            tokens.prefetch(far as usize);
        }
        if let Some(&near) = order.get(position + AHEAD) {
            if let Some(s) = symbols.get(near as usize) {
                crate::hint::prefetch_bytes(s.qualified_name.as_ref().as_bytes());
            }
        }
        let s = &symbols[i as usize];
        if group != Some(s.distance) {
            write_group_header(lines, s.distance)?;
            group = Some(s.distance);
        }
        // Tokens were checked by `emission_order`.
        let name = s.qualified_name.as_ref().as_bytes();
        let (kind, provenance) = tokens.of(i as usize);
        let max = 1 + MAX_DIGITS + kind.len() + name.len() + MAX_SCORE + provenance.len() + 5;
        let w = lines.window(max)?;
        w[0].write(b'@');
        let (mut at, reference) = put_id(w, 1, position);
        if reference {
            let at = line::put(w, at, b"  # previously transmitted\n");
            // SAFETY: '@', the id and the comment were stored from 0 on,
            // each where the one before ended.
            unsafe { lines.advance(at) };
            continue;
        }
        w[at].write(b' ');
        at = kind.put(w, at + 1);
        w[at].write(b' ');
        at = line::put_text(w, at + 1, name);
        w[at].write(b' ');
        at = match line::put_score(w, at + 1, s.score) {
            Some(end) => end,
            // A score of 2^56 or more: the general formatter (the window
            // has room for a line with a short score; write the rest after).
            None => {
                let score = numbers.format_score(s.score)?;
                let start = at + 1;
                // SAFETY: '@', the id, the kind, the name and the spaces
                // between and after them were stored from 0 on, each where
                // the one before ended.
                unsafe { lines.advance(start) };
                lines.put(score.as_bytes())?;
                let w = lines.window(provenance.len() + 2)?;
                w[0].write(b' ');
                let at = provenance.put(w, 1);
                w[at].write(b'\n');
                // SAFETY: the space, the provenance and the newline were
                // stored from 0 on, each where the one before ended.
                unsafe { lines.advance(at + 1) };
                continue;
            }
        };
        w[at].write(b' ');
        at = provenance.put(w, at + 1);
        w[at].write(b'\n');
        // SAFETY: the line's pieces were stored from 0 on, each where the
        // one before ended, up to the newline at `at`.
        unsafe { lines.advance(at + 1) };
    }
    Ok(())
}

/// Writes a prepared payload.
fn write_prepared<S: AsRef<str>>(
    payload: &Payload<S>,
    order: &[u32],
    tokens: &SymbolTokens<'_>,
    ids: &Ids<'_>,
    prepared: &Prepared<'_, S>,
    lines: &mut OutputLines<'_>,
    scratch: &mut Scratch,
) -> Result<(), Error> {
    let symbols = &payload.symbols;
    let edges = &prepared.edges;
    // Header (spec §3.2): zero budget/tokens/edges omitted, symbols always.
    let mut n = itoa::Buffer::new();
    let sink = lines;
    sink.write_bytes(b"GCF profile=graph")?;
    sink.write_bytes(b" tool=")?;
    sink.write_str(graph_tool(payload.tool.as_ref())?)?;
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
    // `session=true` before `pack_root=`, as every reference writes a
    // session payload's header.
    if matches!(ids, Ids::Session(_)) {
        sink.write_bytes(b" session=true")?;
    }
    let pack_root = payload.pack_root.as_ref();
    if !pack_root.is_empty() {
        check_header_value("pack_root", pack_root)?;
        sink.write_bytes(b" pack_root=")?;
        sink.write_str(pack_root)?;
    }
    sink.write_bytes(b"\n")?;

    let texts = match ids {
        Ids::Sequential => IdTexts::sequential_in(order.len(), cleared(&mut scratch.id_texts)),
        Ids::Session(_) => None,
    };
    write_symbol_lines(sink, symbols, order, tokens, ids, texts.as_ref())?;

    // The section is written whenever edges were given, so a reader sees
    // `[0]` when every edge named an unknown symbol (as the reference encoders do).
    if !payload.edges.is_empty() {
        sink.write_bytes(b"## edges [")?;
        sink.write_str(n.format(edges.len()))?;
        sink.write_bytes(b"]\n")?;
        write_edge_lines(sink, edges, &prepared.labels, ids, texts.as_ref(), scratch)?;
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
    if let Some(texts) = texts {
        scratch.id_texts = texts.into_vec();
    }
    Ok(())
}
