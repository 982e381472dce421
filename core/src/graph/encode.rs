//! The buffered graph encoder (spec §3.2, §5, §6, §6a, §6b, §16.1).
//!
//! Output order is canonical: symbols grouped by ascending distance, by
//! descending score within a group (ties keep input order), ids assigned in
//! that order from 0; edges sorted by source id, target id, then edge type
//! (ties keep input order); locations by symbol id.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::kind::abbreviate_kind;
use core::mem::MaybeUninit;

use super::line::{self, IdTexts, OutputLines, Token, MAX_DIGITS, MAX_SCORE, TOKEN_WIDTH};
use super::name_index::{NameIndex, Tables};
use super::token::{check_token, NameHasher};
use super::types::{Edge, Payload, Symbol};
use crate::digits::ByteSlots;
use crate::error::{Error, ErrorKind};
use crate::header::check_header_value;
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

/// Symbol indices in canonical emission order: distance ascending, score
/// descending, input order for ties; and the symbols' kinds and
/// provenances as tokens, each checked once.
pub(crate) fn emission_order<'a, S: AsRef<str>>(
    symbols: &'a [Symbol<S>],
    limits: &Limits,
) -> Result<(Vec<u32>, SymbolTokens<'a>), Error> {
    emission_order_in(symbols, limits, &mut Scratch::default())
}

/// [`emission_order`] in the buffers of `scratch`.
fn emission_order_in<'a, S: AsRef<str>>(
    symbols: &'a [Symbol<S>],
    limits: &Limits,
    scratch: &mut Scratch,
) -> Result<(Vec<u32>, SymbolTokens<'a>), Error> {
    check_count("symbols", symbols.len(), limits)?;
    let mut items = cleared(&mut scratch.items);
    items.reserve(symbols.len());
    let mut max_distance = 0u32;
    // Kinds and provenances are a handful of distinct strings: each is
    // checked the first time its text is seen.
    let mut kinds = TokenCache::new(
        "kind",
        abbreviate_kind,
        recycle(cleared(&mut scratch.kinds)),
    );
    let mut provenances = TokenCache::new(
        "provenance",
        identity,
        recycle(cleared(&mut scratch.provenances)),
    );
    let mut of = cleared(&mut scratch.of);
    of.reserve(symbols.len());
    let hasher = NameHasher::new();
    let mut name_hashes = cleared(&mut scratch.name_hashes);
    name_hashes.reserve(symbols.len());
    for (i, s) in symbols.iter().enumerate() {
        // Checked here, in input order, where the names are read the way
        // they usually sit in memory, rather than while writing, which
        // visits them in emission order; hashed for the name index in the
        // same pass.
        name_hashes.push(hasher.check_and_hash("qualified name", s.qualified_name.as_ref())?);
        let kind = kinds.index(s.kind.as_ref())?;
        let provenance = provenances.index(s.provenance.as_ref())?;
        of.push((kind, provenance));
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
        max_distance = max_distance.max(s.distance);
        items.push(SortItem {
            key: descending_score_key(s.score),
            index: i as u32,
            distance: s.distance,
        });
    }
    let mut order = cleared(&mut scratch.order);
    sort_order(&mut items, max_distance, &mut order);
    scratch.items = items;
    let tokens = SymbolTokens {
        kinds: kinds.entries,
        provenances: provenances.entries,
        of,
        hasher,
        name_hashes,
    };
    Ok((order, tokens))
}

/// The distinct kinds (as written: abbreviated) and provenances of a
/// payload's symbols, and which of each every symbol has, so that writing a
/// symbol line looks neither up again.
pub(crate) struct SymbolTokens<'a> {
    kinds: Vec<TokenEntry<'a>>,
    provenances: Vec<TokenEntry<'a>>,
    /// `(kind, provenance)` of each symbol, in input order.
    of: Vec<(u32, u32)>,
    /// What hashed the names, for the name index.
    hasher: NameHasher,
    /// The hash of each symbol's name, in input order.
    name_hashes: Vec<u64>,
}

impl<'a> SymbolTokens<'a> {
    /// The tokens of the symbols at `kept`, for a payload of those symbols
    /// in that order.
    pub(crate) fn select(&self, kept: &[u32]) -> SymbolTokens<'a> {
        SymbolTokens {
            kinds: self.kinds.clone(),
            provenances: self.provenances.clone(),
            of: kept
                .iter()
                .map(|&i| self.of.get(i as usize).copied().unwrap_or((0, 0)))
                .collect(),
            hasher: self.hasher,
            name_hashes: kept
                .iter()
                .filter_map(|&i| self.name_hashes.get(i as usize).copied())
                .collect(),
        }
    }

    /// The kind and provenance tokens of symbol `i` (input order; every
    /// symbol has an entry, and every entry names existing tokens).
    #[inline(always)]
    fn of(&self, i: usize) -> (&Token<'a>, &Token<'a>) {
        let (kind, provenance) = self.of[i];
        (
            &self.kinds[kind as usize].token,
            &self.provenances[provenance as usize].token,
        )
    }

    #[inline(always)]
    fn prefetch(&self, i: usize) {
        if let Some(pair) = self.of.get(i) {
            crate::hint::prefetch(pair);
        }
    }
}

/// A symbol's place in the sort: distance, then the score as an unsigned key
/// that orders like descending scores, then input position.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct SortItem {
    key: u64,
    index: u32,
    distance: u32,
}

/// A key whose ascending order is descending `score` order (`-0.0` ties
/// with `0.0`); `score` is finite.
#[inline]
fn descending_score_key(score: f64) -> u64 {
    let score = if score == 0.0 { 0.0 } else { score };
    let bits = score.to_bits();
    let ascending = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    !ascending
}

/// Below this many symbols a comparison sort is cheaper than the radix
/// sort's fixed cost (its counting tables).
const RADIX_MIN: usize = 256;

/// Bits per radix digit: 2,048 counters per digit stay in the L1 cache.
const DIGIT_BITS: u32 = 11;

/// Digits of the score key (64 bits) and of the distance (32 bits).
const KEY_DIGITS: usize = 6;
const DISTANCE_DIGITS: usize = 3;

/// Distances up to this many bits take [`sort_narrow`]; it leaves at least
/// `32 - NARROW_DISTANCE_BITS` bits of each score key in the 32-bit sort key.
const NARROW_DISTANCE_BITS: u32 = 16;

/// The input indices of `items` (whose `index` is their position) sorted by
/// (distance, key), ties in input order.
/// `order` (empty) receives them; `items` is left in any order.
fn sort_order(items: &mut Vec<SortItem>, max_distance: u32, order: &mut Vec<u32>) {
    debug_assert!(items
        .iter()
        .enumerate()
        .all(|(i, item)| item.index as usize == i));
    if items.len() < RADIX_MIN {
        items.sort_unstable_by_key(|item| (item.distance, item.key, item.index));
        order.extend(items.iter().map(|item| item.index));
        return;
    }
    let distance_bits = 32 - max_distance.leading_zeros();
    if distance_bits <= NARROW_DISTANCE_BITS {
        *order = sort_narrow(items, distance_bits);
        return;
    }
    sort_items(items, max_distance);
    order.extend(items.iter().map(|item| item.index));
}

/// [`sort_order`] for distances of up to [`NARROW_DISTANCE_BITS`] bits.
///
/// Sorting the 16-byte items by their 96-bit (distance, key) took up to
/// seven scatter passes. Here each item becomes eight bytes: a 32-bit sort
/// key (the distance, then as many of the score key's bits as fit,
/// starting below the bits every key shares) over the input index. Taking
/// leading bits keeps the order (a smaller key never gets a larger sort
/// key), so three 11-bit passes sort by (distance, score) except among
/// items whose sort keys are equal, which stay in input order. Those runs
/// (scores that agree in their leading 20-odd distinct bits: rare for
/// varied scores, common for repeated ones) are then put in full-key order
/// by a comparison sort; equal full keys keep input order.
fn sort_narrow(items: &[SortItem], distance_bits: u32) -> Vec<u32> {
    let n = items.len();
    if n == 0 {
        return Vec::new();
    }
    let (any, all) = items.iter().fold((0u64, u64::MAX), |(any, all), item| {
        (any | item.key, all & item.key)
    });
    // Leading bits that are the same in every key (all 64 when every key
    // is equal: the sort keys then hold no score bits, all alike).
    let common = (any ^ all).leading_zeros();
    let score_bits = 32 - distance_bits;
    let sort_key = |item: &SortItem| -> u64 {
        let score = item.key.checked_shl(common).unwrap_or(0) >> (64 - score_bits);
        (((u64::from(item.distance) << score_bits) | score) << 32) | u64::from(item.index)
    };
    const BUCKETS: usize = 1 << DIGIT_BITS;
    const MASK: u64 = BUCKETS as u64 - 1;
    const PASSES: usize = 3;
    let digit =
        |packed: u64, pass: usize| ((packed >> (32 + pass as u32 * DIGIT_BITS)) & MASK) as usize;
    let mut from: Vec<u64> = Vec::with_capacity(n);
    let mut counts = vec![[0u32; BUCKETS]; PASSES];
    for item in items {
        let packed = sort_key(item);
        for (pass, table) in counts.iter_mut().enumerate() {
            table[digit(packed, pass)] += 1;
        }
        from.push(packed);
    }
    let mut to = vec![0u64; n];
    for (pass, table) in counts.iter_mut().enumerate() {
        if table[digit(from[0], pass)] as usize == n {
            continue;
        }
        let mut next = 0u32;
        for slot in table.iter_mut() {
            let count = *slot;
            *slot = next;
            next += count;
        }
        for &packed in &from {
            let slot = &mut table[digit(packed, pass)];
            to[*slot as usize] = packed;
            *slot += 1;
        }
        core::mem::swap(&mut from, &mut to);
    }
    // Runs of equal sort keys, by full key (input order already breaks ties).
    let full_key = |packed: u64| items[packed as u32 as usize].key;
    let mut begin = 0;
    for end in 1..=n {
        if end < n && from[end] >> 32 == from[begin] >> 32 {
            continue;
        }
        if end - begin > 1 {
            from[begin..end].sort_by_key(|&packed| full_key(packed));
        }
        begin = end;
    }
    from.iter().map(|&packed| packed as u32).collect()
}

/// Sorts by (distance, key), keeping input order for ties, for any
/// distances (see [`sort_narrow`] for the usual ones).
///
/// A least-significant-digit radix sort: every pass is stable, so sorting by
/// the key's digits from the lowest up, then by the distance's, orders by
/// (distance, key) with ties in the order the items came in, which is input
/// order. One counting pass fills every digit's table; a digit that is the
/// same for every item (the high digits of small distances, the exponent of
/// scores in one binade) is skipped.
fn sort_items(items: &mut Vec<SortItem>, max_distance: u32) {
    let n = items.len();
    if n == 0 {
        return;
    }
    const BUCKETS: usize = 1 << DIGIT_BITS;
    const MASK: u64 = BUCKETS as u64 - 1;
    let digit = |item: &SortItem, pass: usize| -> usize {
        if pass < KEY_DIGITS {
            ((item.key >> (pass as u32 * DIGIT_BITS)) & MASK) as usize
        } else {
            let shift = (pass - KEY_DIGITS) as u32 * DIGIT_BITS;
            ((u64::from(item.distance) >> shift) & MASK) as usize
        }
    };
    // Only the distance digits the largest distance reaches can differ.
    let distance_digits = (32 - max_distance.leading_zeros()).div_ceil(DIGIT_BITS) as usize;
    let mut counts = vec![[0u32; BUCKETS]; KEY_DIGITS + distance_digits.min(DISTANCE_DIGITS)];
    for item in items.iter() {
        for (pass, table) in counts.iter_mut().enumerate() {
            table[digit(item, pass)] += 1;
        }
    }
    let mut from = core::mem::take(items);
    let mut to = vec![SortItem::default(); n];
    for (pass, table) in counts.iter_mut().enumerate() {
        let first = digit(&from[0], pass);
        if table[first] as usize == n {
            continue;
        }
        // Counts become each bucket's next free position.
        let mut next = 0u32;
        for slot in table.iter_mut() {
            let count = *slot;
            *slot = next;
            next += count;
        }
        for item in &from {
            let slot = &mut table[digit(item, pass)];
            to[*slot as usize] = *item;
            *slot += 1;
        }
        core::mem::swap(&mut from, &mut to);
    }
    *items = from;
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
/// A payload has a handful of edge types, but an owned payload (parsed from
/// JSON, handed over by a binding) holds a separate copy of the type's text
/// for every edge. EdgeLabels are therefore found by their *text*: types and
/// statuses of up to 16 bytes become an exact [`ShortKey`] (a few word loads,
/// no comparison loop, no hashing of the whole string), looked up in a small
/// memo; each distinct label is checked once. Longer texts, and labels the
/// memo has no room for, go through [`EdgeLabels::find_slow`].
struct EdgeLabels<'a> {
    entries: Vec<LabelEntry<'a>>,
    /// Labels by the [`ShortKey`]s of their type and written status.
    by_key: TextMemo,
    /// Labels by the addresses and lengths of the type and status they were
    /// last seen at: a borrowed payload's labels are usually one
    /// `&'static str` each, found here without reading their text.
    by_address: TextMemo,
    /// Lookups found by text after missing by address.
    copies: u32,
    /// Every label by its text, once there are more than a linear scan
    /// should visit ([`LINEAR_LIMIT`]).
    by_text: hashbrown::HashMap<(&'a str, &'a str), u32>,
}

/// A distinct label: its text and how it is found.
#[derive(Clone, Copy)]
struct LabelEntry<'a> {
    /// `(edge type, written status)`.
    text: (&'a str, &'a str),
    /// The keys of `text` (both [`ShortKey::NONE`] past 16 bytes).
    key: (ShortKey, ShortKey),
    /// Where the type and status were last seen.
    address: LabelAddress,
}

impl<'a> EdgeLabels<'a> {
    /// Labels filling `entries` (empty; a buffer to reuse).
    fn with_entries(mut entries: Vec<LabelEntry<'a>>) -> EdgeLabels<'a> {
        entries.reserve(8);
        EdgeLabels {
            entries,
            by_key: TextMemo::default(),
            by_address: TextMemo::default(),
            copies: 0,
            by_text: hashbrown::HashMap::new(),
        }
    }
}

/// `(type address, type length, status address, status length)`.
type LabelAddress = (usize, usize, usize, usize);

/// After this many lookups found by text but not by address, the strings
/// are separate copies (an owned payload): addresses are no longer tried.
const COPIES_LIMIT: u32 = 8;

/// How many distinct kinds, provenances or labels a memo miss scans
/// linearly before a hash map takes over.
const LINEAR_LIMIT: usize = 32;

impl<'a> EdgeLabels<'a> {
    /// The label of an edge, checking its tokens the first time they are seen.
    #[inline(always)]
    fn intern(&mut self, edge_type: &'a str, status: &'a str) -> Result<u32, Error> {
        let address = (
            edge_type.as_ptr() as usize,
            edge_type.len(),
            status.as_ptr() as usize,
            status.len(),
        );
        let address_home = memo_home(address.0 ^ address.1 ^ address.2.rotate_left(29));
        if self.copies < COPIES_LIMIT {
            let entries = &self.entries;
            if let Some(label) = self.by_address.get(address_home, |i| {
                entries.get(i).is_some_and(|e| e.address == address)
            }) {
                return Ok(label);
            }
        }
        self.intern_by_text(edge_type, status, address, address_home)
    }

    #[inline(always)]
    fn intern_by_text(
        &mut self,
        edge_type: &'a str,
        status: &'a str,
        address: LabelAddress,
        address_home: usize,
    ) -> Result<u32, Error> {
        // `unchanged` is written as no status: key it as none.
        let status = if status.len() == 9 && status == "unchanged" {
            ""
        } else {
            status
        };
        if let (Some(t), Some(s)) = (ShortKey::of(edge_type), ShortKey::of(status)) {
            let key = (t, s);
            let home = memo_home(t.mixed() ^ s.mixed().rotate_left(31));
            let entries = &self.entries;
            if let Some(label) = self
                .by_key
                .get(home, |i| entries.get(i).is_some_and(|e| e.key == key))
            {
                self.copies += 1;
                if self.copies < COPIES_LIMIT {
                    self.entries[label as usize].address = address;
                    self.by_address.insert(address_home, label);
                }
                return Ok(label);
            }
            return self.intern_slow(edge_type, status, key, home, address, address_home);
        }
        let none = (ShortKey::NONE, ShortKey::NONE);
        self.intern_slow(edge_type, status, none, 0, address, address_home)
    }

    #[cold]
    #[inline(never)]
    fn intern_slow(
        &mut self,
        edge_type: &'a str,
        status: &'a str,
        key: (ShortKey, ShortKey),
        home: usize,
        address: LabelAddress,
        address_home: usize,
    ) -> Result<u32, Error> {
        let written = check_edge(edge_type, status)?;
        let text = (edge_type, if written { status } else { "" });
        let label = match self.find_slow(text) {
            Some(label) => label,
            None => {
                let label = u32::try_from(self.entries.len()).map_err(|_| {
                    Error::new(ErrorKind::LimitExceeded, "too many distinct edge labels")
                })?;
                self.entries.push(LabelEntry { text, key, address });
                if self.entries.len() > LINEAR_LIMIT {
                    if self.by_text.is_empty() {
                        for (k, e) in self.entries.iter().enumerate() {
                            self.by_text.insert(e.text, k as u32);
                        }
                    } else {
                        self.by_text.insert(text, label);
                    }
                }
                label
            }
        };
        if key.0 != ShortKey::NONE {
            self.by_key.insert(home, label);
        }
        if let Some(entry) = self.entries.get_mut(label as usize) {
            entry.address = address;
            self.by_address.insert(address_home, label);
        }
        Ok(label)
    }

    /// The label whose text is `text`, without the memo.
    fn find_slow(&self, text: (&str, &str)) -> Option<u32> {
        if self.entries.len() > LINEAR_LIMIT {
            return self.by_text.get(&text).copied();
        }
        self.entries
            .iter()
            .position(|e| e.text == text)
            .map(|k| k as u32)
    }

    #[inline]
    fn get(&self, label: u32) -> (&'a str, &'a str) {
        self.entries
            .get(label as usize)
            .map_or(("", ""), |e| e.text)
    }

    /// The number of labels.
    fn len(&self) -> usize {
        self.entries.len()
    }

    /// Each label's rank in edge-type order (labels with one type share a
    /// rank), so that sorting edges compares integers, not strings.
    /// `by_type` and the result are buffers to reuse.
    fn type_ranks(&self, mut by_type: Vec<u32>, mut ranks: Vec<u32>) -> (Vec<u32>, Vec<u32>) {
        by_type.clear();
        by_type.extend(0..self.len() as u32);
        by_type.sort_by(|&a, &b| self.get(a).0.cmp(self.get(b).0));
        ranks.clear();
        ranks.resize(self.len(), 0);
        let mut rank = 0;
        for (k, &label) in by_type.iter().enumerate() {
            if k > 0 && self.get(by_type[k - 1]).0 != self.get(label).0 {
                rank += 1;
            }
            ranks[label as usize] = rank;
        }
        (by_type, ranks)
    }
}

/// Resolved edges in the order they are written.
enum SortedEdges {
    /// Sequential ids: the edges from the symbol at position `p` are
    /// `targets[begin(p)..ends[p]]`, where `begin(p)` is `ends[p - 1]` (0 for
    /// the first), each packed by [`RunEdge`].
    BySource { ends: Vec<u32>, targets: Vec<u64> },
    /// Session ids: every edge, sorted.
    Sorted(Vec<KnownEdge>),
}

impl SortedEdges {
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn len(&self) -> usize {
        match self {
            SortedEdges::BySource { targets, .. } => targets.len(),
            SortedEdges::Sorted(edges) => edges.len(),
        }
    }
}

/// Sorts edges by (source id, target id, type), keeping input order for ties.
///
/// With sequential ids the ids are the positions, so a counting sort on the
/// source (`per_source` holds the counts, taken while resolving; one pass
/// places the edges) leaves only each source's few edges to order by target
/// and type;
/// that replaces an O(E log E) comparison sort, the largest single cost of
/// encoding a big graph. The source is implied by where an edge lands, so
/// each placed edge is eight bytes ([`RunEdge`]). Session ids are arbitrary,
/// and so are payloads with more labels than a packed edge can name: they
/// take the comparison sort.
fn sort_edges(
    edges: Vec<KnownEdge>,
    per_source: Vec<u32>,
    ids: &Ids<'_>,
    labels: &EdgeLabels<'_>,
    scratch: &mut Scratch,
) -> SortedEdges {
    let (by_type, ranks) =
        labels.type_ranks(cleared(&mut scratch.by_type), cleared(&mut scratch.ranks));
    scratch.by_type = by_type;
    let rank = |label: u32| ranks.get(label as usize).copied().unwrap_or(0);
    if !matches!(ids, Ids::Sequential) || ranks.len() > RunEdge::MAX_LABELS {
        let mut edges = edges;
        edges.sort_by(|a, b| {
            let id = |p: u32| ids.get(p as usize).0;
            id(a.source)
                .cmp(&id(b.source))
                .then_with(|| id(a.target).cmp(&id(b.target)))
                .then_with(|| rank(a.label).cmp(&rank(b.label)))
        });
        scratch.ranks = ranks;
        return SortedEdges::Sorted(edges);
    }
    // ends[s]: first the count of edges from `s`, then (prefix sums) where
    // the next one goes, and after placing, the end of the run of `s`.
    // Sources are positions, below `per_source.len()` (the number of
    // symbols), so every index is in bounds.
    let mut ends = per_source;
    let mut start = 0u32;
    for slot in ends.iter_mut() {
        let count = *slot;
        *slot = start;
        start += count;
    }
    let mut targets = cleared(&mut scratch.targets);
    targets.resize(edges.len(), 0);
    for e in &edges {
        let slot = &mut ends[e.source as usize];
        targets[*slot as usize] = RunEdge::pack(e.target, rank(e.label), e.label);
        *slot += 1;
    }
    scratch.known = edges;
    let mut begin = 0usize;
    for &end in &ends {
        let end = end as usize;
        match end - begin {
            0 | 1 => {}
            2..=16 => RunEdge::sort_short(&mut targets[begin..end]),
            _ => targets[begin..end].sort_by_key(|&edge| RunEdge::key(edge)),
        }
        begin = end;
    }
    scratch.ranks = ranks;
    SortedEdges::BySource { ends, targets }
}

/// An edge within its source's run, packed in a `u64` whose high bits
/// order it: target position (32 bits), type rank (16), label (16).
struct RunEdge;

impl RunEdge {
    const LABEL_BITS: u32 = 16;
    /// Ranks are at most labels, so both fit their 16 bits.
    const MAX_LABELS: usize = 1 << Self::LABEL_BITS;

    #[inline(always)]
    fn pack(target: u32, rank: u32, label: u32) -> u64 {
        (u64::from(target) << 32) | (u64::from(rank) << Self::LABEL_BITS) | u64::from(label)
    }

    /// What the run is sorted by: target, then type rank. Edges with equal
    /// keys keep their order (the label is not part of the key).
    #[inline(always)]
    fn key(edge: u64) -> u64 {
        edge >> Self::LABEL_BITS
    }

    #[inline(always)]
    fn target(edge: u64) -> u32 {
        (edge >> 32) as u32
    }

    #[inline(always)]
    fn label(edge: u64) -> u32 {
        (edge & ((1 << Self::LABEL_BITS) - 1)) as u32
    }

    /// Sorts a short run stably by [`key`](Self::key), without a branch
    /// that depends on the data: an odd-even transposition sort, whose
    /// compare-exchanges of neighbours swap only on a strictly greater key
    /// (so equal keys keep their order) and are done with a mask. The
    /// insertion sort this replaces mispredicted about every other
    /// comparison on random targets.
    #[inline]
    fn sort_short(run: &mut [u64]) {
        let n = run.len();
        for round in 0..n {
            let mut i = round & 1;
            while i + 1 < n {
                let (a, b) = (run[i], run[i + 1]);
                let swap = u64::from(Self::key(a) > Self::key(b)).wrapping_neg();
                let flip = (a ^ b) & swap;
                run[i] = a ^ flip;
                run[i + 1] = b ^ flip;
                i += 2;
            }
        }
    }
}

/// The text after the ids of each label's edge lines, ` type[ status]\n`,
/// one after the other in one buffer, and where each ends.
fn label_suffixes(labels: &EdgeLabels<'_>, bytes: &mut Vec<u8>, ends: &mut Vec<usize>) {
    let total = labels
        .entries
        .iter()
        .map(|e| e.text.0.len() + e.text.1.len() + 3)
        .sum();
    bytes.clear();
    bytes.reserve(total);
    ends.clear();
    ends.reserve(labels.len());
    for e in &labels.entries {
        let (edge_type, status) = e.text;
        bytes.push(b' ');
        bytes.extend_from_slice(edge_type.as_bytes());
        if !status.is_empty() {
            bytes.push(b' ');
            bytes.extend_from_slice(status.as_bytes());
        }
        bytes.push(b'\n');
        ends.push(bytes.len());
    }
}

/// Writes sorted edge lines `@target<@source type[ status]`, each assembled
/// in place: the label's suffix is a padded token, and `<@source` is
/// formatted once per run of edges from the same source (the sort groups
/// them), so a line is one id's digits and two fixed-width copies.
fn write_edge_lines(
    lines: &mut OutputLines<'_>,
    edges: &SortedEdges,
    labels: &EdgeLabels<'_>,
    ids: &Ids<'_>,
    texts: Option<&IdTexts>,
    scratch: &mut Scratch,
) -> Result<(), Error> {
    let mut suffixes = cleared(&mut scratch.suffix_bytes);
    let mut ends = cleared(&mut scratch.suffix_ends);
    label_suffixes(labels, &mut suffixes, &mut ends);
    let mut tokens: Vec<Token<'_>> = recycle(cleared(&mut scratch.suffixes));
    let mut begin = 0;
    for &end in &ends {
        tokens.push(Token::from_bytes(&suffixes[begin..end]));
        begin = end;
    }
    let written = write_edge_tokens(lines, edges, &tokens, ids, texts);
    scratch.suffixes = recycle(tokens);
    scratch.suffix_bytes = suffixes;
    scratch.suffix_ends = ends;
    written
}

/// [`write_edge_lines`] with each label's suffix as a token.
fn write_edge_tokens(
    lines: &mut OutputLines<'_>,
    edges: &SortedEdges,
    tokens: &[Token<'_>],
    ids: &Ids<'_>,
    texts: Option<&IdTexts>,
) -> Result<(), Error> {
    let longest = tokens.iter().map(Token::len).max().unwrap_or(0);
    let max_line = 1 + MAX_DIGITS + 2 + MAX_DIGITS + longest;
    match edges {
        SortedEdges::BySource { ends, targets } => match texts {
            Some(texts) => write_runs(
                lines,
                ends,
                targets,
                tokens,
                max_line,
                |w, at, p| texts.put(w, at, p),
                |p| texts.prefetch(p),
            ),
            None => write_runs(
                lines,
                ends,
                targets,
                tokens,
                max_line,
                |w, at, p| line::put_u64(w, at, u64::from(p)),
                |_| {},
            ),
        },
        SortedEdges::Sorted(edges) => {
            let mut source_part = [0u8; TOKEN_WIDTH];
            source_part[..2].copy_from_slice(b"<@");
            for e in edges {
                let source_len = line::put_u64(&mut source_part, 2, ids.get(e.source as usize).0);
                let Some(suffix) = tokens.get(e.label as usize) else {
                    continue;
                };
                let w = lines.window(max_line)?;
                w[0].write(b'@');
                let at = line::put_u64(w, 1, ids.get(e.target as usize).0);
                w.put_bytes(at, &source_part);
                let at = suffix.put(w, at + source_len);
                // SAFETY: the line's bytes were stored one piece after the
                // other from 0 ('@', the target, `<@source`, the label's
                // suffix), each piece starting where the one before ended.
                unsafe { lines.advance(at) };
            }
            Ok(())
        }
    }
}

/// Writes the edges of each source's run (see [`SortedEdges::BySource`]),
/// formatting `<@source` once per run.
#[inline(always)]
fn write_runs(
    lines: &mut OutputLines<'_>,
    ends: &[u32],
    targets: &[u64],
    suffixes: &[Token<'_>],
    max_line: usize,
    put_id: impl Fn(&mut [MaybeUninit<u8>], usize, u32) -> usize,
    prefetch_id: impl Fn(u32),
) -> Result<(), Error> {
    // Initialised (zeros), though typed like the window `put_id` writes to,
    // so both go through the same `put_id`.
    let mut source_part = [MaybeUninit::new(0u8); TOKEN_WIDTH];
    source_part.put_bytes(0, b"<@");
    let mut begin = 0usize;
    for (source, &end) in ends.iter().enumerate() {
        let end = end as usize;
        let Some(run) = targets.get(begin..end) else {
            break;
        };
        if run.is_empty() {
            continue;
        }
        let source_len = put_id(&mut source_part, 2, source as u32);
        for (k, &edge) in run.iter().enumerate() {
            // Targets are scattered: start on the text of one a few lines on.
            if let Some(&ahead) = targets.get(begin + k + 2 * AHEAD) {
                prefetch_id(RunEdge::target(ahead));
            }
            let (target, label) = (RunEdge::target(edge), RunEdge::label(edge));
            let Some(suffix) = suffixes.get(label as usize) else {
                continue;
            };
            let w = lines.window(max_line)?;
            w[0].write(b'@');
            let at = put_id(w, 1, target);
            w[at..at + TOKEN_WIDTH].copy_from_slice(&source_part);
            let at = suffix.put(w, at + source_len);
            // SAFETY: the line's bytes were stored one piece after the
            // other from 0 ('@', the target, `<@source`, the label's
            // suffix), each piece starting where the one before ended.
            unsafe { lines.advance(at) };
        }
        begin = end;
    }
    Ok(())
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
    let index = if needs_index {
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
        let known = resolve_edges(&index, &payload.edges, &mut labels, &mut per_source, known)?;
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

/// Resolves every edge's endpoints to emission positions, keeping the edges
/// whose endpoints both name a symbol, with their labels, and counting them
/// in `per_source` by source position (when it is not empty).
///
/// Edges usually name their endpoints with the symbols' own strings, found
/// by address: the slots of the edge `AHEAD` places on are prefetched, so
/// the table's cache misses overlap. Other payloads go through
/// [`NameIndex::resolve_pairs`], which hashes names a chunk ahead.
fn resolve_edges<'a, S: AsRef<str>>(
    index: &NameIndex<'a, S>,
    edges: &'a [Edge<S>],
    labels: &mut EdgeLabels<'a>,
    per_source: &mut [u32],
    mut known: Vec<KnownEdge>,
) -> Result<Vec<KnownEdge>, Error> {
    known.reserve(edges.len());
    let endpoints = |e: &'a Edge<S>| (e.source.as_ref(), e.target.as_ref());
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
    if !index.prefers_addresses(edges.iter().map(endpoints)) {
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

/// Padded tokens for the kinds (abbreviated) or provenances of a payload's
/// symbols, found by the string's text: a payload has a handful of distinct
/// kinds and provenances, but an owned payload holds a separate copy for
/// every symbol. Texts of up to 16 bytes (every kind and provenance in
/// practice) become an exact [`ShortKey`] looked up in a small memo, so a
/// lookup reads the string once and compares three words; each distinct
/// text is checked once. Longer texts, and texts the memo has no room for,
/// go through [`TokenCache::find_slow`].
struct TokenCache<'a> {
    entries: Vec<TokenEntry<'a>>,
    /// Entries by their text's [`ShortKey`].
    by_key: TextMemo,
    /// Entries by the address their text was last seen at: a borrowed
    /// payload's kinds are usually one `&'static str` each, found here
    /// without reading their text.
    by_address: TextMemo,
    /// Lookups found by text after missing by address.
    copies: u32,
    /// Every text, once there are more than [`LINEAR_LIMIT`].
    by_text: hashbrown::HashMap<&'a str, u32>,
    /// What the field is called in an error.
    what: &'static str,
    /// What is written for a string: the kind abbreviation, or the string.
    written: fn(&'a str) -> &'a str,
}

/// A distinct kind or provenance: what is written, and how it is found.
#[derive(Clone, Copy)]
pub(crate) struct TokenEntry<'a> {
    token: Token<'a>,
    /// The text the token was made from.
    text: &'a str,
    /// `text`'s key ([`ShortKey::NONE`] past 16 bytes).
    key: ShortKey,
    /// `(address, length)` of the string it was last seen in.
    address: (usize, usize),
}

impl<'a> TokenCache<'a> {
    /// A cache filling `entries` (empty; a buffer to reuse).
    fn new(
        what: &'static str,
        written: fn(&'a str) -> &'a str,
        mut entries: Vec<TokenEntry<'a>>,
    ) -> TokenCache<'a> {
        // A payload's kinds are rarely more, its provenances far fewer.
        entries.reserve(8);
        TokenCache {
            entries,
            by_key: TextMemo::default(),
            by_address: TextMemo::default(),
            copies: 0,
            by_text: hashbrown::HashMap::new(),
            what,
            written,
        }
    }

    /// The index of `text`'s token, checking the text the first time it
    /// is seen ([`check_token`]).
    #[inline(always)]
    fn index(&mut self, text: &'a str) -> Result<u32, Error> {
        let address = (text.as_ptr() as usize, text.len());
        let address_home = memo_home(address.0 ^ address.1.rotate_left(32));
        let entries = &self.entries;
        if self.copies < COPIES_LIMIT {
            if let Some(index) = self.by_address.get(address_home, |i| {
                entries.get(i).is_some_and(|e| e.address == address)
            }) {
                return Ok(index);
            }
        }
        match ShortKey::of(text) {
            Some(key) => {
                let home = memo_home(key.mixed());
                match self
                    .by_key
                    .get(home, |i| entries.get(i).is_some_and(|e| e.key == key))
                {
                    Some(index) => {
                        self.copies += 1;
                        if self.copies < COPIES_LIMIT {
                            self.entries[index as usize].address = address;
                            self.by_address.insert(address_home, index);
                        }
                        Ok(index)
                    }
                    None => self.miss(text, key, home, address, address_home),
                }
            }
            None => self.miss(text, ShortKey::NONE, 0, address, address_home),
        }
    }

    #[cold]
    #[inline(never)]
    fn miss(
        &mut self,
        text: &'a str,
        key: ShortKey,
        home: usize,
        address: (usize, usize),
        address_home: usize,
    ) -> Result<u32, Error> {
        let index = match self.find_slow(text) {
            Some(index) => index,
            None => {
                check_token(self.what, text)?;
                let index = u32::try_from(self.entries.len()).map_err(|_| {
                    Error::new(
                        ErrorKind::LimitExceeded,
                        alloc::format!("too many distinct {}s", self.what),
                    )
                })?;
                self.entries.push(TokenEntry {
                    token: Token::new((self.written)(text)),
                    text,
                    key,
                    address,
                });
                if self.entries.len() > LINEAR_LIMIT {
                    if self.by_text.is_empty() {
                        for (k, e) in self.entries.iter().enumerate() {
                            self.by_text.insert(e.text, k as u32);
                        }
                    } else {
                        self.by_text.insert(text, index);
                    }
                }
                index
            }
        };
        if key != ShortKey::NONE {
            self.by_key.insert(home, index);
        }
        if let Some(entry) = self.entries.get_mut(index as usize) {
            entry.address = address;
            self.by_address.insert(address_home, index);
        }
        Ok(index)
    }

    /// The token made from `text`, without the memo.
    fn find_slow(&self, text: &str) -> Option<u32> {
        if self.entries.len() > LINEAR_LIMIT {
            return self.by_text.get(text).copied();
        }
        self.entries
            .iter()
            .position(|e| e.text == text)
            .map(|k| k as u32)
    }
}

/// A text of at most 16 bytes as three words that determine it exactly: its
/// length and two (possibly overlapping) loads that together cover every
/// byte. Comparing two keys compares the texts without a loop, and making
/// one reads the text once.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
struct ShortKey {
    lo: u64,
    hi: u64,
    len: u64,
}

impl ShortKey {
    /// Matches no text: [`ShortKey::of`] never gives a length above 16.
    const NONE: ShortKey = ShortKey {
        lo: 0,
        hi: 0,
        len: u64::MAX,
    };

    /// The key of `text`, or `None` when it is longer than 16 bytes.
    #[inline(always)]
    fn of(text: &str) -> Option<ShortKey> {
        use crate::words::{load4, load8};
        let b = text.as_bytes();
        let n = b.len();
        let (lo, hi) = if n >= 8 {
            if n > 16 {
                return None;
            }
            // Bytes 0..8 and n-8..n: all of them for n <= 16.
            (load8(b, 0), load8(b, n - 8))
        } else if n >= 4 {
            (u64::from(load4(b, 0)), u64::from(load4(b, n - 4)))
        } else if n > 0 {
            // Bytes 0, n/2 and n-1: all of them for n <= 3.
            let spread = u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16;
            (spread, 0)
        } else {
            (0, 0)
        };
        Some(ShortKey {
            lo,
            hi,
            len: n as u64,
        })
    }

    /// The key's words mixed, for [`memo_home`].
    #[inline(always)]
    fn mixed(&self) -> usize {
        (self.lo ^ self.hi.rotate_left(29) ^ self.len.rotate_left(53)) as usize
    }
}

/// A small table from a key (the text of a kind, provenance or edge label,
/// or the address it was seen at) to the index of its entry: slots hold
/// `index + 1` (0 when free), and the keys sit in the entries, so the table
/// itself is 128 bytes to set up per call.
///
/// Slots are probed linearly from the key's home slot, so a handful of
/// keys never evict each other whatever their homes. A key that finds no
/// free slot among its probes replaces its home slot's entry; that entry's
/// next lookup simply misses (and finds its index the slow way). No slot is
/// ever emptied, so a lookup can stop at the first free slot.
struct TextMemo {
    slots: [u16; MEMO_SLOTS],
}

const MEMO_SLOTS: usize = 64;
const MEMO_PROBES: usize = 4;

impl Default for TextMemo {
    fn default() -> TextMemo {
        TextMemo {
            slots: [0; MEMO_SLOTS],
        }
    }
}

/// The [`TextMemo`] home slot of a key whose words mix to `mixed`.
#[inline(always)]
fn memo_home(mixed: usize) -> usize {
    ((mixed as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize
}

impl TextMemo {
    /// The index kept at `home` (from [`memo_home`]) or a few slots on
    /// whose entry `matches`; almost every lookup ends at the home slot.
    #[inline(always)]
    fn get(&self, home: usize, matches: impl Fn(usize) -> bool) -> Option<u32> {
        let slot = usize::from(self.slots[home % MEMO_SLOTS]);
        let index = slot.checked_sub(1)?;
        if matches(index) {
            return Some(index as u32);
        }
        for probe in 1..MEMO_PROBES {
            let slot = usize::from(self.slots[(home + probe) % MEMO_SLOTS]);
            let index = slot.checked_sub(1)?;
            if matches(index) {
                return Some(index as u32);
            }
        }
        None
    }

    /// Remembers `index` at `home`.
    fn insert(&mut self, home: usize, index: u32) {
        let Some(value) = index.checked_add(1).and_then(|v| u16::try_from(v).ok()) else {
            return;
        };
        for probe in 0..MEMO_PROBES {
            let slot = &mut self.slots[(home + probe) % MEMO_SLOTS];
            if *slot == 0 || *slot == value {
                *slot = value;
                return;
            }
        }
        self.slots[home % MEMO_SLOTS] = value;
    }
}

fn identity(text: &str) -> &str {
    text
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
    fn output_with_multibyte_text_everywhere_is_valid_utf8() {
        // The encoder skips re-validating its output (see `Encoder::encode`);
        // check it here in every build, with multibyte characters in every
        // string field, long and short tokens, and a quoted file path.
        let long_kind = "κ".repeat(40);
        let names: Vec<String> = (0..300).map(|i| alloc::format!("π.Ωmega{i}·ü")).collect();
        let symbols: Vec<Symbol<&str>> = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let kind = if i % 3 == 0 {
                    long_kind.as_str()
                } else {
                    "función"
                };
                Symbol::new(
                    n.as_str(),
                    kind,
                    (i % 97) as f64 / 7.0,
                    "λsp",
                    (i % 5) as u32,
                )
            })
            .collect();
        let edges: Vec<Edge<&str>> = (0..900)
            .map(|k| Edge {
                source: names[k % 300].as_str(),
                target: names[(k * 7 + 1) % 300].as_str(),
                edge_type: ["llama_a", "呼ぶ", "x"][k % 3],
                status: ["", "añadido", "unchanged"][k % 3],
            })
            .collect();
        let locations = vec![Location {
            qualified_name: names[0].as_str(),
            file: "dir with space/ファイル \"q\".go",
            line: 3,
            column: 1,
            end: Some((4, 2)),
        }];
        let p = Payload {
            tool: "t",
            symbols,
            edges,
            locations,
            ..Payload::default()
        };
        let out = encode(&p).unwrap();
        assert!(core::str::from_utf8(out.as_bytes()).is_ok());
        assert!(out.contains("呼ぶ añadido"), "{}", &out[..200]);
        let back = crate::graph::decode(&out).unwrap();
        assert_eq!(back.symbols.len(), 300);
        assert_eq!(back.locations.len(), 1);
    }

    #[test]
    fn radix_order_equals_the_comparison_order() {
        let mut x = 0x853c_49e6_748f_ea9bu64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let sizes: &[usize] = if cfg!(miri) {
            &[0, 1, 256, 300]
        } else {
            &[0, 1, 2, 255, 256, 257, 1000, 5000]
        };
        for &n in sizes {
            for shape in 0..12 {
                let base = 0.25 + (next() >> 11) as f64 / (1u64 << 55) as f64;
                let items: Vec<SortItem> = (0..n)
                    .map(|i| {
                        let r = next();
                        let score = match shape {
                            // Few distinct scores: long runs of ties.
                            0 => (r % 4) as f64 / 4.0,
                            1 => f64::from_bits(r >> 2),
                            2 => -((r >> 11) as f64),
                            3 => [0.0, -0.0, 1e300, -1e300, 5e-324][(r % 5) as usize],
                            // Scores that differ only in their last bits,
                            // below any 32-bit window of the key.
                            5 => f64::from_bits(base.to_bits() + r % 64),
                            6 => f64::from_bits(base.to_bits() ^ (r & 0xff_ffff)),
                            // Subnormals, zeros of both signs, negatives.
                            7 => f64::from_bits(r % 2000) * if r >> 63 == 1 { -1.0 } else { 1.0 },
                            // Every score equal.
                            8 => 0.5,
                            // Both signs, every magnitude.
                            9 => f64::from_bits(r),
                            10 => -((r >> 11) as f64 / (1u64 << 53) as f64),
                            _ => (r >> 11) as f64 / (1u64 << 53) as f64,
                        };
                        let score = if score.is_finite() { score } else { 0.5 };
                        let distance = match shape {
                            1 => (next() >> 32) as u32,
                            2 => (next() % 5000) as u32,
                            4 | 8 => 0,
                            // At and just past the widest narrow distances.
                            5 => [0, u16::MAX as u32][(next() % 2) as usize],
                            6 => [0, 1 << 16][(next() % 2) as usize],
                            9 => [0, u32::MAX, 7][(next() % 3) as usize],
                            10 => (next() % 300) as u32,
                            _ => (next() % 4) as u32,
                        };
                        SortItem {
                            key: descending_score_key(score),
                            index: i as u32,
                            distance,
                        }
                    })
                    .collect();
                let max_distance = items.iter().map(|i| i.distance).max().unwrap_or(0);
                let mut expected = items.clone();
                expected.sort_by_key(|i| (i.distance, i.key, i.index));
                let expected: Vec<u32> = expected.iter().map(|i| i.index).collect();
                let mut wide = items.clone();
                sort_items(&mut wide, max_distance);
                let wide: Vec<u32> = wide.iter().map(|i| i.index).collect();
                assert_eq!(wide, expected, "wide n={n} shape={shape}");
                let distance_bits = 32 - max_distance.leading_zeros();
                if distance_bits <= NARROW_DISTANCE_BITS {
                    let narrow = sort_narrow(&items, distance_bits);
                    assert_eq!(narrow, expected, "narrow n={n} shape={shape}");
                }
                let mut order = Vec::new();
                sort_order(&mut items.clone(), max_distance, &mut order);
                assert_eq!(order, expected, "n={n} shape={shape}");
            }
        }
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

    /// A small deterministic generator for the table-driven tests below.
    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        *state >> 33
    }

    #[test]
    fn short_runs_sort_stably_by_target_and_rank() {
        let mut state = 7;
        let rounds = if cfg!(miri) { 40 } else { 20_000 };
        for round in 0..rounds {
            let len = round % 17;
            // Few targets and ranks, so that equal keys are common; labels
            // tell equal keys apart, so stability shows.
            let run: Vec<u64> = (0..len)
                .map(|k| {
                    let target = (lcg(&mut state) % 4) as u32;
                    let rank = (lcg(&mut state) % 3) as u32;
                    RunEdge::pack(target, rank, k as u32)
                })
                .collect();
            let mut ours = run.clone();
            RunEdge::sort_short(&mut ours);
            let mut expected = run;
            expected.sort_by_key(|&e| RunEdge::key(e));
            assert_eq!(ours, expected, "round {round}");
        }
        let edge = RunEdge::pack(u32::MAX, 0xffff, 0xfffe);
        assert_eq!(RunEdge::target(edge), u32::MAX);
        assert_eq!(RunEdge::label(edge), 0xfffe);
    }

    #[test]
    fn a_reused_encoder_gives_what_a_fresh_one_gives() {
        // Payloads of different sizes, label sets and forms, and a failing
        // one, one after the other through one encoder: each output must
        // equal a fresh encoder's, whatever the buffers kept from before.
        let names: Vec<String> = (0..600).map(|i| alloc::format!("p.N{i}")).collect();
        let build = |n: usize, types: &[&'static str], bad: bool| -> Payload<String> {
            Payload {
                tool: String::from("t"),
                symbols: (0..n)
                    .map(|i| {
                        let name = if bad && i == n / 2 {
                            "a b"
                        } else {
                            names[i].as_str()
                        };
                        Symbol::new(
                            String::from(name),
                            String::from(["function", "type", "widget"][i % 3]),
                            (i % 7) as f64 / 7.0,
                            String::from("lsp"),
                            (i % 3) as u32,
                        )
                    })
                    .collect(),
                edges: (0..3 * n)
                    .map(|k| {
                        Edge::new(
                            names[k / 3].clone(),
                            names[(k * 7 + 1) % (n + 1)].clone(),
                            String::from(types[k % types.len()]),
                        )
                    })
                    .collect(),
                locations: (0..n / 4)
                    .map(|i| Location {
                        qualified_name: names[i * 3].clone(),
                        file: String::from("f.go"),
                        line: 1 + i as u32,
                        column: 1,
                        end: None,
                    })
                    .collect(),
                ..Payload::default()
            }
        };
        let mut reused = Encoder::new();
        let cases = [
            build(300, &["calls", "imports"], false),
            build(10, &["x"], false),
            build(40, &["calls", "refs", "embeds"], true),
            build(500, &["b", "a", "calls"], false),
            build(0, &["calls"], false),
            build(25, &["imports"], false),
        ];
        for (k, p) in cases.iter().enumerate() {
            let fresh = Encoder::new().encode(p);
            let again = reused.encode(p);
            match (fresh, again) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "case {k}"),
                (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "case {k}"),
                (a, b) => panic!("case {k}: {a:?} / {b:?}"),
            }
            let mut sink = Vec::new();
            let streamed = reused.encode_to(p, &mut sink);
            assert_eq!(
                streamed.is_ok(),
                Encoder::new().encode(p).is_ok(),
                "case {k}"
            );
            if streamed.is_ok() {
                assert_eq!(
                    sink,
                    Encoder::new().encode(p).unwrap().into_bytes(),
                    "case {k}"
                );
            }
        }
    }

    #[test]
    fn recycled_buffers_keep_their_allocation() {
        let mut v: Vec<TokenEntry<'static>> = Vec::with_capacity(32);
        v.push(TokenEntry {
            token: Token::new("fn"),
            text: "function",
            key: ShortKey::NONE,
            address: (0, 0),
        });
        let text = String::from("local");
        let mut local: Vec<TokenEntry<'_>> = recycle(v);
        assert!(local.is_empty());
        assert!(local.capacity() >= 32);
        local.push(TokenEntry {
            token: Token::new(&text),
            text: &text,
            key: ShortKey::NONE,
            address: (0, 0),
        });
        let back: Vec<TokenEntry<'static>> = recycle(local);
        assert!(back.is_empty() && back.capacity() >= 32);
    }

    #[test]
    fn text_memo_finds_what_it_keeps() {
        let mut memo = TextMemo::default();
        let mut keys: Vec<u64> = Vec::new();
        // Keys crowded onto four home slots, more than their probes hold.
        let crowded: Vec<(u64, usize)> = (0..40).map(|k| (1000 + k, k as usize % 4)).collect();
        for (index, &(key, home)) in crowded.iter().enumerate() {
            assert_eq!(memo.get(home, |i| keys[i] == key), None);
            keys.push(key);
            memo.insert(home, index as u32);
            assert_eq!(memo.get(home, |i| keys[i] == key), Some(index as u32));
        }
        // Evicted keys miss; kept ones still give their own index.
        for (index, &(key, home)) in crowded.iter().enumerate() {
            let found = memo.get(home, |i| keys[i] == key);
            assert!(found.is_none() || found == Some(index as u32));
        }
        // A handful of keys never evict each other, wherever they land.
        let mut memo = TextMemo::default();
        for k in 0..MEMO_PROBES {
            memo.insert(5, k as u32);
        }
        for k in 0..MEMO_PROBES {
            assert_eq!(memo.get(5, |i| i == k), Some(k as u32));
        }
        assert_eq!(memo.get(MEMO_SLOTS - 1, |_| true), None);
    }

    #[test]
    fn short_keys_are_equal_exactly_when_the_texts_are() {
        // Every text of up to 16 bytes over a small alphabet differs from its
        // neighbours in one byte at each position; keys must tell them apart.
        let base = "abcdefghijklmnopq";
        let mut texts: Vec<String> = Vec::new();
        for len in 0..=16 {
            let text = &base[..len];
            texts.push(String::from(text));
            for pos in 0..len {
                let mut bytes = text.as_bytes().to_vec();
                bytes[pos] = b'Z';
                texts.push(String::from_utf8(bytes).unwrap());
            }
        }
        for a in &texts {
            for b in &texts {
                assert_eq!(ShortKey::of(a) == ShortKey::of(b), a == b, "{a:?} {b:?}");
            }
            assert_ne!(ShortKey::of(a), Some(ShortKey::NONE));
        }
        assert_eq!(ShortKey::of(&base[..16]).unwrap().len, 16);
        assert_eq!(ShortKey::of("abcdefghijklmnopqr"), None);
        assert_eq!(ShortKey::of("é").unwrap(), ShortKey::of("é").unwrap());
        assert_ne!(ShortKey::of("é"), ShortKey::of("è"));
    }

    #[test]
    fn kinds_and_types_beyond_any_cache_encode_alike() {
        // More distinct kinds, provenances and edge types than the address
        // memos hold: the output must not depend on whether each value is
        // one shared string or a separate copy per symbol and edge.
        let kinds: Vec<String> = crate::graph::kind::KINDS
            .iter()
            .map(|k| String::from(k.0))
            .collect();
        let provenances: Vec<String> = (0..70).map(|i| alloc::format!("prov{i}")).collect();
        let types: Vec<String> = (0..90).map(|i| alloc::format!("type{i}")).collect();
        let names: Vec<String> = (0..300).map(|i| alloc::format!("p.N{i}")).collect();
        let shared: Vec<(&str, &str, &str)> = (0..300)
            .map(|i| {
                (
                    kinds[i % kinds.len()].as_str(),
                    provenances[i % 70].as_str(),
                    types[i % 90].as_str(),
                )
            })
            .collect();
        let copies: Vec<(String, String, String)> = shared
            .iter()
            .map(|&(k, p, t)| (String::from(k), String::from(p), String::from(t)))
            .collect();
        let separate: Vec<(&str, &str, &str)> = copies
            .iter()
            .map(|(k, p, t)| (k.as_str(), p.as_str(), t.as_str()))
            .collect();
        let build = |values: &[(&str, &str, &str)]| -> String {
            let symbols = (0..300)
                .map(|i| Symbol::new(names[i].as_str(), values[i].0, 0.5, values[i].1, 0))
                .collect();
            let edges = (0..300)
                .map(|i| {
                    Edge::new(
                        names[i].as_str(),
                        names[(i * 7) % 300].as_str(),
                        values[i].2,
                    )
                })
                .collect();
            encode(&Payload {
                symbols,
                edges,
                ..Payload::default()
            })
            .unwrap()
        };
        let (shared, separate) = (build(&shared), build(&separate));
        assert!(shared.contains("\n@15 svc p.N15 0.50 prov15\n@16 fn p.N16"));
        assert!(shared == separate, "{shared}\n---\n{separate}");
    }

    #[test]
    fn more_labels_than_a_packed_edge_names() {
        // 70,000 distinct edge types between one pair: the comparison sort
        // orders them by type, whatever order they came in.
        let count = if cfg!(miri) {
            40
        } else {
            RunEdge::MAX_LABELS + 4_464
        };
        let types: Vec<String> = (0..count)
            .map(|i| alloc::format!("t{:06}", (i * 7_919) % count))
            .collect();
        let p = Payload {
            symbols: vec![sym("a", 0.9, 0), sym("b", 0.5, 0)],
            edges: types
                .iter()
                .map(|t| Edge::new("a", "b", t.as_str()))
                .collect(),
            ..Payload::default()
        };
        let out = encode(&p).unwrap();
        let lines: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with("## edges"))
            .skip(1)
            .collect();
        assert_eq!(lines.len(), count);
        for (i, line) in lines.iter().enumerate() {
            assert_eq!(*line, alloc::format!("@1<@0 t{i:06}"));
        }
    }
}
