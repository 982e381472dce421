//! Edge labels (type and written status) resolved by text, each distinct
//! label checked once.
use alloc::vec::Vec;

use super::*;
use crate::error::{Error, ErrorKind};

/// An edge whose endpoints resolved, by emission position, with its label.
#[derive(Clone, Copy)]
pub(super) struct KnownEdge {
    pub(super) source: u32,
    pub(super) target: u32,
    pub(super) label: u32,
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
pub(super) struct EdgeLabels<'a> {
    pub(super) entries: Vec<LabelEntry<'a>>,
    /// Labels by the [`ShortKey`]s of their type and written status.
    pub(super) by_key: TextMemo,
    /// Labels by the addresses and lengths of the type and status they were
    /// last seen at: a borrowed payload's labels are usually one
    /// `&'static str` each, found here without reading their text.
    pub(super) by_address: TextMemo,
    /// Lookups found by text after missing by address.
    pub(super) copies: u32,
    /// Every label by its text, once there are more than a linear scan
    /// should visit ([`LINEAR_LIMIT`]): made only then (see
    /// [`TokenCache::by_text`](super::tokens::TokenCache::by_text)).
    pub(super) by_text: Option<crate::hash::HashMap<(&'a str, &'a str), u32>>,
}

/// A distinct label: its text and how it is found.
#[derive(Clone, Copy)]
pub(super) struct LabelEntry<'a> {
    /// `(edge type, written status)`.
    pub(super) text: (&'a str, &'a str),
    /// The keys of `text` (both [`ShortKey::NONE`] past 16 bytes).
    pub(super) key: (ShortKey, ShortKey),
    /// Where the type and status were last seen.
    pub(super) address: LabelAddress,
}

impl<'a> EdgeLabels<'a> {
    /// Labels filling `entries` (empty; a buffer to reuse).
    pub(super) fn with_entries(mut entries: Vec<LabelEntry<'a>>) -> EdgeLabels<'a> {
        entries.reserve(8);
        EdgeLabels {
            entries,
            by_key: TextMemo::default(),
            by_address: TextMemo::default(),
            copies: 0,
            by_text: None,
        }
    }
}

/// `(type address, type length, status address, status length)`.
pub(super) type LabelAddress = (usize, usize, usize, usize);

/// After this many lookups found by text but not by address, the strings
/// are separate copies (an owned payload): addresses are no longer tried.
pub(super) const COPIES_LIMIT: u32 = 8;

/// How many distinct kinds, provenances or labels a memo miss scans
/// linearly before a hash map takes over.
pub(super) const LINEAR_LIMIT: usize = 32;

/// Adds `text`, entry `index`, to `by_text`, the map that finds the entries
/// of a cache past [`LINEAR_LIMIT`] by their text. The first time, makes
/// the map from `all` (each entry's text in order, the new one included;
/// `None` for an entry not to index).
pub(super) fn index_by_text<K: core::hash::Hash + Eq>(
    by_text: &mut Option<crate::hash::HashMap<K, u32>>,
    all: impl Iterator<Item = Option<K>>,
    text: K,
    index: u32,
) {
    match by_text {
        Some(by_text) => {
            by_text.insert(text, index);
        }
        None => {
            let mut map = crate::hash::HashMap::default();
            for (k, entry) in all.enumerate() {
                if let Some(entry) = entry {
                    map.insert(entry, k as u32);
                }
            }
            *by_text = Some(map);
        }
    }
}

impl<'a> EdgeLabels<'a> {
    /// The label of an edge, checking its tokens the first time they are seen.
    #[inline(always)]
    pub(super) fn intern(&mut self, edge_type: &'a str, status: &'a str) -> Result<u32, Error> {
        if self.copies >= COPIES_LIMIT && status.is_empty() {
            // The usual edge of an owned payload (addresses no longer
            // tried): found by its type's key alone, an empty status keying
            // as all zeros, which mix to 0.
            if let Some(t) = ShortKey::of(edge_type) {
                let key = (t, ShortKey::default());
                let entries = &self.entries;
                if let Some(label) = self.by_key.get(memo_home(t.mixed()), |i| {
                    entries.get(i).is_some_and(|e| e.key == key)
                }) {
                    return Ok(label);
                }
            }
        }
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
    pub(super) fn intern_by_text(
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
    pub(super) fn intern_slow(
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
                    let all = self.entries.iter().map(|e| Some(e.text));
                    index_by_text(&mut self.by_text, all, text, label);
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
    pub(super) fn find_slow(&self, text: (&str, &str)) -> Option<u32> {
        if self.entries.len() > LINEAR_LIMIT {
            return self.by_text.as_ref()?.get(&text).copied();
        }
        self.entries
            .iter()
            .position(|e| e.text == text)
            .map(|k| k as u32)
    }

    #[inline]
    pub(super) fn get(&self, label: u32) -> (&'a str, &'a str) {
        self.entries
            .get(label as usize)
            .map_or(("", ""), |e| e.text)
    }

    /// The number of labels.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Each label's rank in edge-type order (labels with one type share a
    /// rank), so that sorting edges compares integers, not strings.
    /// `by_type` and the result are buffers to reuse.
    pub(super) fn type_ranks(
        &self,
        mut by_type: Vec<u32>,
        mut ranks: Vec<u32>,
    ) -> (Vec<u32>, Vec<u32>) {
        by_type.clear();
        let n = self.len();
        if n <= FEW_LABELS {
            // A payload's handful of types, sorted by their first sixteen
            // bytes as one integer, the text compared only when those tie:
            // `str::cmp` called `memcmp` for every comparison (2.5 % of a
            // 10-symbol encode).
            let mut keyed = [(0u128, 0u32); FEW_LABELS];
            for (label, slot) in keyed[..n].iter_mut().enumerate() {
                *slot = (order_prefix(self.get(label as u32).0), label as u32);
            }
            keyed[..n].sort_unstable_by(|a, b| {
                a.0.cmp(&b.0)
                    .then_with(|| self.get(a.1).0.cmp(self.get(b.1).0))
            });
            by_type.extend(keyed[..n].iter().map(|&(_, label)| label));
        } else {
            by_type.extend(0..n as u32);
            by_type.sort_by(|&a, &b| self.get(a).0.cmp(self.get(b).0));
        }
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

/// The first sixteen bytes of `text` as a big-endian integer, zero-padded:
/// two texts whose prefixes differ compare as those integers do (a tie
/// leaves the order to the whole texts).
#[inline]
fn order_prefix(text: &str) -> u128 {
    let mut prefix = [0u8; 16];
    let n = text.len().min(16);
    prefix[..n].copy_from_slice(&text.as_bytes()[..n]);
    u128::from_be_bytes(prefix)
}

/// Up to this many labels, [`EdgeLabels::type_ranks`] sorts them by
/// [`order_prefix`] on the stack.
const FEW_LABELS: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;

    /// Ranks by plain `str` order: equal types share a rank, and each
    /// distinct type ranks by how many distinct types sort before it.
    fn naive_ranks(types: &[&str]) -> Vec<u32> {
        let mut distinct: Vec<&str> = types.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        types
            .iter()
            .map(|t| distinct.iter().position(|d| d == t).unwrap() as u32)
            .collect()
    }

    fn ranks_of(types: &[&'static str]) -> Vec<u32> {
        let mut labels = EdgeLabels::with_entries(Vec::new());
        for (k, &t) in types.iter().enumerate() {
            // Distinct labels may share a type (their statuses differ).
            let status = if k % 2 == 0 { "" } else { "added" };
            labels.entries.push(LabelEntry {
                text: (t, status),
                key: (ShortKey::NONE, ShortKey::NONE),
                address: (0, 0, 0, 0),
            });
        }
        labels.type_ranks(Vec::new(), Vec::new()).1
    }

    #[test]
    fn type_ranks_follow_text_order_when_prefixes_tie() {
        let cases: &[&[&'static str]] = &[
            &[
                "calls",
                "imports",
                "calls",
                "returns",
                "embeds",
                "implements",
            ],
            // Sixteen-byte prefixes that tie, a prefix of another type,
            // bytes that a zero padding would confuse, non-ASCII text.
            &[
                "references_to_the_symbol_b",
                "references_to_the_symbol_a",
                "references_to_th",
                "references_to_the_symbol",
                "a",
                "a\u{1}",
                "",
                "\u{e9}dge",
                "calls",
                "a",
            ],
        ];
        for types in cases {
            assert_eq!(ranks_of(types), naive_ranks(types), "{types:?}");
        }
        // Past the labels sorted on the stack, the same order.
        let many: Vec<&'static str> = (0..3 * FEW_LABELS)
            .map(|k| &*alloc::format!("type_{:02}", (k * 7) % 40).leak())
            .collect();
        assert_eq!(ranks_of(&many), naive_ranks(&many));
        let few: Vec<&'static str> = many[..FEW_LABELS].to_vec();
        assert_eq!(ranks_of(&few), naive_ranks(&few));
    }
}
