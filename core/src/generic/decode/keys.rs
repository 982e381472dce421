//! Duplicate-key detection in O(1) per key (spec §2a.2).
//!
//! Most objects are small, where a linear scan over the keys already stored
//! beats hashing; past [`LINEAR_LIMIT`] members an index over the stored keys
//! takes over, so a hostile million-member object costs a million probes,
//! not half a trillion comparisons. The index stores positions, never key
//! copies.

use core::hash::BuildHasher;

use crate::hash::HashState;
use hashbrown::HashTable;

use alloc::vec::Vec;

use crate::generic::Key;

/// Below this many members a linear scan is the cheaper duplicate check.
const LINEAR_LIMIT: usize = 16;

/// A position index over a list of keys that lives elsewhere.
#[derive(Default)]
pub(crate) struct KeyIndex {
    table: Option<(HashTable<usize>, HashState)>,
    /// How many keys the caller expects (already bounded by the input
    /// size): the table, once built, is sized for them at once instead of
    /// rehashing as it doubles.
    hint: usize,
}

impl KeyIndex {
    /// Whether `key` occurs in `keys` (whose first `keys.len()` entries this
    /// index has seen through [`KeyIndex::record`]).
    pub(crate) fn contains<'k, F>(&self, keys: F, len: usize, key: &str) -> bool
    where
        F: Fn(usize) -> &'k str,
    {
        self.find(keys, len, key).is_some()
    }

    /// The position of `key` in `keys`, if present.
    pub(crate) fn find<'k, F>(&self, keys: F, len: usize, key: &str) -> Option<usize>
    where
        F: Fn(usize) -> &'k str,
    {
        match &self.table {
            None => (0..len).find(|&i| {
                crate::ops::tick(1);
                keys(i) == key
            }),
            Some((table, hasher)) => table
                .find(hasher.hash_one(key), |&i| {
                    crate::ops::tick(1);
                    keys(i) == key
                })
                .copied(),
        }
    }

    /// Records that `keys(len - 1)` was appended, building the table when the
    /// list outgrows a linear scan.
    pub(crate) fn record<'k, F>(&mut self, keys: F, len: usize)
    where
        F: Fn(usize) -> &'k str,
    {
        match &mut self.table {
            Some((table, hasher)) => {
                let i = len - 1;
                let hash = hasher.hash_one(keys(i));
                insert(table, hasher, hash, i, &keys);
            }
            None if len > LINEAR_LIMIT => {
                let hasher = HashState::default();
                let mut table = HashTable::with_capacity((len * 2).max(self.hint));
                for i in 0..len {
                    let hash = hasher.hash_one(keys(i));
                    insert(&mut table, &hasher, hash, i, &keys);
                }
                self.table = Some((table, hasher));
            }
            None => {}
        }
    }
}

/// Inserts position `i` (whose key hashes to `hash`). Not generic over the
/// key list: the table's growth path, which rehashes through `keys`, is
/// then one function for every caller of [`KeyIndex::record`] instead of a
/// copy per caller (about 1.2 KB each in the WebAssembly module). It only
/// runs when the table grows, so the dynamic call costs nothing measurable.
fn insert<'k>(
    table: &mut HashTable<usize>,
    hasher: &HashState,
    hash: u64,
    i: usize,
    keys: &dyn Fn(usize) -> &'k str,
) {
    table.insert_unique(hash, i, |&j| hasher.hash_one(keys(j)));
}

/// An object under construction that rejects duplicate keys: its members
/// are handed to a [`Build`](super::Build) once complete, `V` being what
/// that builder makes.
pub(crate) struct ObjectBuilder<V> {
    entries: Vec<(Key, V)>,
    index: KeyIndex,
}

impl<V> Default for ObjectBuilder<V> {
    fn default() -> Self {
        ObjectBuilder {
            entries: Vec::new(),
            index: KeyIndex::default(),
        }
    }
}

impl<V> ObjectBuilder<V> {
    pub(crate) fn new() -> Self {
        ObjectBuilder::default()
    }

    /// A builder expecting `n` members: `n` must be bounded by the input
    /// still to read (the caller derives it from a declared count capped
    /// by the remaining bytes), so hostile counts cannot size it.
    pub(crate) fn with_capacity(n: usize) -> Self {
        ObjectBuilder {
            entries: Vec::with_capacity(n),
            index: KeyIndex {
                table: None,
                hint: n,
            },
        }
    }

    /// Whether `key` is already a member.
    pub(crate) fn contains(&self, key: &str) -> bool {
        let entries = &self.entries;
        self.index
            .contains(|i| entries[i].0.as_str(), entries.len(), key)
    }

    /// Appends a member; the caller checked [`ObjectBuilder::contains`].
    pub(crate) fn push(&mut self, key: Key, value: V) {
        self.entries.push((key, value));
        let entries = &self.entries;
        self.index.record(|i| entries[i].0.as_str(), entries.len());
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The members, in order, their keys distinct.
    pub(crate) fn finish(self) -> Vec<(Key, V)> {
        self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    #[test]
    fn detects_duplicates_small_and_large() {
        let mut b = ObjectBuilder::new();
        for i in 0..1000 {
            let k = format!("k{i}");
            assert!(!b.contains(&k));
            b.push(Key::from(k), i);
        }
        assert_eq!(b.len(), 1000);
        for i in [0, 7, 16, 17, 999] {
            assert!(b.contains(&format!("k{i}")));
        }
        assert!(!b.contains("k1000"));
        let members = b.finish();
        assert_eq!(members[500].0.as_str(), "k500");
        assert_eq!(members[500].1, 500);
    }
}
