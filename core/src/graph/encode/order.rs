//! The canonical symbol order (spec §5): ascending distance, descending
//! score, input order on ties, sorted by radix for large payloads.
use alloc::vec;
use alloc::vec::Vec;

use crate::graph::kind::abbreviate_kind;

use super::*;
use crate::error::{Error, ErrorKind};
use crate::graph::line::Token;
use crate::graph::token::NameHasher;
use crate::graph::types::Symbol;
use crate::limits::Limits;

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
pub(super) fn emission_order_in<'a, S: AsRef<str>>(
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
        &scratch.kind_seeds,
    );
    let mut provenances = TokenCache::new(
        "provenance",
        identity,
        recycle(cleared(&mut scratch.provenances)),
        &scratch.provenance_seeds,
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
                    crate::error::excerpt(s.qualified_name.as_ref()),
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
    pub(super) kinds: Vec<TokenEntry<'a>>,
    pub(super) provenances: Vec<TokenEntry<'a>>,
    /// `(kind, provenance)` of each symbol, in input order.
    pub(super) of: Vec<(u32, u32)>,
    /// What hashed the names, for the name index.
    pub(super) hasher: NameHasher,
    /// The hash of each symbol's name, in input order.
    pub(super) name_hashes: Vec<u64>,
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
    pub(super) fn of(&self, i: usize) -> (&Token<'a>, &Token<'a>) {
        let (kind, provenance) = self.of[i];
        (
            &self.kinds[kind as usize].token,
            &self.provenances[provenance as usize].token,
        )
    }

    #[inline(always)]
    pub(super) fn prefetch(&self, i: usize) {
        if let Some(pair) = self.of.get(i) {
            crate::hint::prefetch(pair);
        }
    }
}

/// A symbol's place in the sort: distance, then the score as an unsigned key
/// that orders like descending scores, then input position.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) struct SortItem {
    pub(super) key: u64,
    pub(super) index: u32,
    pub(super) distance: u32,
}

/// A key whose ascending order is descending `score` order (`-0.0` ties
/// with `0.0`); `score` is finite.
#[inline]
pub(super) fn descending_score_key(score: f64) -> u64 {
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
pub(super) const RADIX_MIN: usize = 256;

/// From this many items a small payload's symbols are sorted as packed
/// integers ([`sort_small_narrow`]); below it, an insertion sort of the
/// items is cheaper than making the keys (measured at 10 symbols).
pub(super) const SMALL_PACKED_MIN: usize = 24;

/// Bits per radix digit: 2,048 counters per digit stay in the L1 cache.
pub(super) const DIGIT_BITS: u32 = 11;

/// Digits of the score key (64 bits) and of the distance (32 bits).
pub(super) const KEY_DIGITS: usize = 6;
pub(super) const DISTANCE_DIGITS: usize = 3;

/// Distances up to this many bits take [`sort_narrow`]; it leaves at least
/// `32 - NARROW_DISTANCE_BITS` bits of each score key in the 32-bit sort key.
pub(super) const NARROW_DISTANCE_BITS: u32 = 16;

/// The input indices of `items` (whose `index` is their position) sorted by
/// (distance, key), ties in input order.
/// `order` (empty) receives them; `items` is left in any order.
pub(super) fn sort_order(items: &mut Vec<SortItem>, max_distance: u32, order: &mut Vec<u32>) {
    debug_assert!(items
        .iter()
        .enumerate()
        .all(|(i, item)| item.index as usize == i));
    let distance_bits = 32 - max_distance.leading_zeros();
    if items.len() < RADIX_MIN {
        if items.len() >= SMALL_PACKED_MIN && distance_bits <= NARROW_DISTANCE_BITS {
            sort_small_narrow(items, distance_bits, order);
        } else {
            items.sort_unstable_by_key(|item| (item.distance, item.key, item.index));
            order.extend(items.iter().map(|item| item.index));
        }
        return;
    }
    if distance_bits <= NARROW_DISTANCE_BITS {
        *order = sort_narrow(items, distance_bits);
        return;
    }
    sort_items(items, max_distance);
    order.extend(items.iter().map(|item| item.index));
}

/// The 64-bit sort keys of [`sort_narrow`]: the distance, then as many of
/// the score key's leading distinct bits as fit in the high half; the input
/// index in the low half, so equal keys are told apart in input order.
#[derive(Clone, Copy)]
struct NarrowKeys {
    /// Leading bits that are the same in every score key.
    common: u32,
    /// Bits of the high half left to the score.
    score_bits: u32,
}

impl NarrowKeys {
    fn of(items: &[SortItem], distance_bits: u32) -> NarrowKeys {
        let (any, all) = items.iter().fold((0u64, u64::MAX), |(any, all), item| {
            (any | item.key, all & item.key)
        });
        NarrowKeys {
            // All 64 when every key is equal: the sort keys then hold no
            // score bits, all alike.
            common: (any ^ all).leading_zeros(),
            score_bits: 32 - distance_bits,
        }
    }

    #[inline(always)]
    fn key(self, item: &SortItem) -> u64 {
        let score = item.key.checked_shl(self.common).unwrap_or(0) >> (64 - self.score_bits);
        (((u64::from(item.distance) << self.score_bits) | score) << 32) | u64::from(item.index)
    }
}

/// Puts each run of equal high halves in `packed` (sorted) in full-key
/// order; the low halves (input indices) already order equal full keys.
fn order_equal_runs(items: &[SortItem], packed: &mut [u64]) {
    let full_key = |packed: u64| items[packed as u32 as usize].key;
    let high = |packed: u64| packed >> 32;
    let n = packed.len();
    let mut next = 1;
    while next < n {
        // Most neighbours differ: only a tie starts a run.
        if high(packed[next]) != high(packed[next - 1]) {
            next += 1;
            continue;
        }
        let begin = next - 1;
        let mut end = next + 1;
        while end < n && high(packed[end]) == high(packed[begin]) {
            end += 1;
        }
        packed[begin..end].sort_by_key(|&packed| full_key(packed));
        next = end + 1;
    }
}

/// [`sort_order`] for fewer than [`RADIX_MIN`] items with narrow distances:
/// the [`NarrowKeys`] of [`sort_narrow`], each a distinct `u64`, in a
/// stack buffer, by one unstable sort of plain integers (a third of the
/// instructions of sorting the items by a (distance, key, index) tuple).
fn sort_small_narrow(items: &[SortItem], distance_bits: u32, order: &mut Vec<u32>) {
    let n = items.len();
    debug_assert!(n < RADIX_MIN);
    let keys = NarrowKeys::of(items, distance_bits);
    let mut buffer = [0u64; RADIX_MIN];
    let packed = &mut buffer[..n];
    for (slot, item) in packed.iter_mut().zip(items) {
        *slot = keys.key(item);
    }
    packed.sort_unstable();
    order_equal_runs(items, packed);
    order.extend(packed.iter().map(|&packed| packed as u32));
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
pub(super) fn sort_narrow(items: &[SortItem], distance_bits: u32) -> Vec<u32> {
    let n = items.len();
    if n == 0 {
        return Vec::new();
    }
    let keys = NarrowKeys::of(items, distance_bits);
    const BUCKETS: usize = 1 << DIGIT_BITS;
    const MASK: u64 = BUCKETS as u64 - 1;
    const PASSES: usize = 3;
    let digit =
        |packed: u64, pass: usize| ((packed >> (32 + pass as u32 * DIGIT_BITS)) & MASK) as usize;
    let mut from: Vec<u64> = Vec::with_capacity(n);
    let mut counts = vec![[0u32; BUCKETS]; PASSES];
    for item in items {
        let packed = keys.key(item);
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
    order_equal_runs(items, &mut from);
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
pub(super) fn sort_items(items: &mut Vec<SortItem>, max_distance: u32) {
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
