//! Qualified name -> emission position, for resolving edge and location
//! endpoints while encoding (spec §6: edges name their endpoints; a name
//! that occurs twice resolves to its last occurrence in emission order).
//!
//! At 100,000 symbols the names and any table over them are far larger than
//! the CPU caches, and resolving 300,000 edges means 600,000 lookups at
//! scattered addresses. Two choices keep that cheap:
//!
//! - Edges of a borrowed payload usually name their endpoints with the very
//!   `&str` of the symbol, so a table keyed by the name's *address* answers
//!   most lookups without hashing, or even reading, the name's bytes. Any
//!   other string falls back to the table keyed by the name's bytes. That
//!   table is built only when a sample of the edges says it will be used
//!   ([`NameIndex::names_own_strings`]): in an owned payload (parsed from
//!   JSON, handed over by Node, Python or C) every endpoint is a string of
//!   its own, and the table would only cost its memory and its inserts.
//! - Both tables are flat open-addressing arrays whose slot for a key is
//!   known before it is read, so the caller can [`prefetch`](NameIndex::prefetch_address_slot)
//!   the slots of the next few lookups and let the cache misses overlap.
//!   (hashbrown, the general map used elsewhere, exposes no such hint.)

use super::token::NameHasher;
use super::types::Symbol;
use crate::hint::prefetch;

use alloc::vec::Vec;

/// How many insertions ahead the build loops prefetch.
const AHEAD: usize = 8;

/// From this many symbols on, resolving by name prefetches every step of a
/// lookup (see [`NameIndex::resolve_pairs`]).
const DEEP_MIN: usize = 40_000;

/// Up to this many pairs, [`NameIndex::resolve_pairs`] resolves them one by
/// one without prefetching (everything it reads is in cache).
const SMALL: usize = 256;

/// Up to this many symbols, likewise whatever the number of pairs: the
/// tables and names stay in the inner caches, where hashing a chunk ahead
/// and the prefetches are instructions that hide nothing (`graph_probe`,
/// owned payloads: 10.5 % fewer instructions at 100 and 1,000 symbols, 2.5-4 %
/// faster at 1,000-3,000, the same at 5,000, 10 % slower at 10,000 when
/// this was 16,384).
const SMALL_SYMBOLS: usize = 4096;

/// `index` value of a free [`NameSlot`].
const FREE: u32 = u32::MAX;

/// A slot of the by-name table: the hash's high half, which skips almost
/// every mismatch without reading a name, and the input index of the
/// occurrence the name resolves to. Eight bytes, so that at 100,000
/// symbols the table is 2 MB rather than the 6 MB a slot holding the name
/// itself would take; a tag match reads the name through the symbol.
#[derive(Clone, Copy)]
struct NameSlot {
    tag: u32,
    index: u32,
}

impl NameSlot {
    const FREE: NameSlot = NameSlot {
        tag: 0,
        index: FREE,
    };
}

/// A slot of the by-address table; `address == 0` marks a free slot (no
/// `&str` has a null pointer).
#[derive(Clone, Copy)]
struct AddressSlot {
    address: usize,
    len: u32,
    position: u32,
}

impl AddressSlot {
    const FREE: AddressSlot = AddressSlot {
        address: 0,
        len: 0,
        position: 0,
    };
}

/// The tables of a [`NameIndex`], kept by a reused encoder between calls.
#[derive(Default)]
pub(crate) struct Tables {
    position_of: Vec<u32>,
    by_name: Vec<NameSlot>,
    by_address: Vec<AddressSlot>,
}

impl Tables {
    /// The bytes the tables hold.
    #[cfg(feature = "std")]
    pub(crate) fn heap_bytes(&self) -> usize {
        self.position_of.capacity() * core::mem::size_of::<u32>()
            + self.by_name.capacity() * core::mem::size_of::<NameSlot>()
            + self.by_address.capacity() * core::mem::size_of::<AddressSlot>()
    }
}

/// The index over a payload's symbol names.
pub(crate) struct NameIndex<'a, S> {
    symbols: &'a [Symbol<S>],
    position_of: Vec<u32>,
    by_name: Vec<NameSlot>,
    by_address: Vec<AddressSlot>,
    /// `by_name.len() - 1` (both tables have the same power-of-two size).
    mask: usize,
    /// `64 - log2(table size)`: the address hash's top bits pick the slot.
    shift: u32,
    hasher: NameHasher,
    /// Whether two symbols share a name (each copy then resolves to the
    /// occurrence emitted last, whatever its address).
    repeated: bool,
}

impl<'a, S: AsRef<str>> NameIndex<'a, S> {
    /// An index that resolves nothing (for payloads without edges or locations).
    #[cfg(test)]
    pub(crate) fn empty(symbols: &'a [Symbol<S>], hasher: NameHasher) -> NameIndex<'a, S> {
        NameIndex::empty_in(symbols, hasher, Tables::default())
    }

    /// An empty index keeping `tables` (emptied) for later reuse.
    pub(crate) fn empty_in(
        symbols: &'a [Symbol<S>],
        hasher: NameHasher,
        tables: Tables,
    ) -> NameIndex<'a, S> {
        let Tables {
            mut position_of,
            mut by_name,
            mut by_address,
        } = tables;
        position_of.clear();
        by_name.clear();
        by_address.clear();
        NameIndex {
            symbols,
            position_of,
            by_name,
            by_address,
            mask: 0,
            shift: 63,
            hasher,
            repeated: false,
        }
    }

    /// The tables, for reuse.
    pub(crate) fn into_tables(self) -> Tables {
        Tables {
            position_of: self.position_of,
            by_name: self.by_name,
            by_address: self.by_address,
        }
    }

    /// Indexes `symbols`, whose emission order is `order` (a permutation of
    /// their indices, as `emission_order` returns; fewer than `u32::MAX`),
    /// and whose names `hasher` hashes to `hashes` (in input order, as
    /// `emission_order` computes them while checking the names; names
    /// past the end of `hashes` are hashed here); by name and by address.
    #[cfg(test)]
    pub(crate) fn build(
        symbols: &'a [Symbol<S>],
        order: &[u32],
        hasher: NameHasher,
        hashes: &[u64],
    ) -> NameIndex<'a, S> {
        let mut index = NameIndex::build_in(symbols, order, hasher, hashes, Tables::default());
        index.index_addresses();
        index
    }

    /// [`build`](Self::build) in `tables` (a buffer to reuse), by name only:
    /// [`index_addresses`](Self::index_addresses) adds the table by address.
    pub(crate) fn build_in(
        symbols: &'a [Symbol<S>],
        order: &[u32],
        hasher: NameHasher,
        hashes: &[u64],
        tables: Tables,
    ) -> NameIndex<'a, S> {
        let mut index = NameIndex::empty_in(symbols, hasher, tables);
        let n = symbols.len();
        if n == 0 {
            return index;
        }
        index.position_of.resize(n, 0);
        for (position, &i) in order.iter().enumerate() {
            if let Some(slot) = index.position_of.get_mut(i as usize) {
                *slot = position as u32;
            }
        }
        // At most half full: short probe runs, even for the misses of
        // lookups by address of strings that are not the symbols' own.
        let size = n.saturating_mul(2).next_power_of_two().max(2);
        index.mask = size - 1;
        index.shift = 64 - size.trailing_zeros();
        index.by_name.resize(size, NameSlot::FREE);

        // One pass in input order, where the symbols and their names are
        // read the way they usually sit in memory: hash the name and insert
        // it, with the slot of the symbol `AHEAD` places on prefetched.
        let hash_of = |index: &NameIndex<'a, S>, i: usize| match hashes.get(i) {
            Some(&hash) => hash,
            None => index
                .hasher
                .hash(symbols[i].qualified_name.as_ref().as_bytes()),
        };
        let mut ahead = [0u64; AHEAD];
        for (k, slot) in ahead.iter_mut().enumerate().take(n) {
            *slot = hash_of(&index, k);
        }
        let mut repeated = false;
        for i in 0..n {
            let hash = ahead[i % AHEAD];
            if i + AHEAD < n {
                let next = hash_of(&index, i + AHEAD);
                prefetch(&index.by_name[next as usize & index.mask]);
                ahead[i % AHEAD] = next;
            }
            repeated |= index.insert_name(i as u32, hash);
        }
        index.repeated = repeated;
        index
    }

    /// Adds the table by address: from now on a symbol's own `&str` is
    /// found without reading its bytes. For payloads whose edges name their
    /// endpoints with the symbols' strings (see
    /// [`names_own_strings`](Self::names_own_strings)).
    pub(crate) fn index_addresses(&mut self) {
        let n = self.symbols.len();
        if n == 0 || !self.by_address.is_empty() {
            return;
        }
        self.by_address
            .resize(self.by_name.len(), AddressSlot::FREE);
        let symbols = self.symbols;
        if self.repeated {
            // Every copy of a repeated name resolves to its last occurrence
            // in emission order, whatever its address.
            for s in symbols {
                let name = s.qualified_name.as_ref();
                if let Some(position) = self.find_by_name(name, self.hasher.hash(name.as_bytes())) {
                    self.insert_address(name, self.address_slot(name), position);
                }
            }
            return;
        }
        // Small tables stay in cache: prefetching would only add work.
        let ahead = if n > SMALL_SYMBOLS { AHEAD } else { n };
        let position_of = core::mem::take(&mut self.position_of);
        for (i, (s, &position)) in symbols.iter().zip(&position_of).enumerate() {
            if let Some(next) = symbols.get(i + ahead) {
                self.prefetch_address_slot(self.address_slot(next.qualified_name.as_ref()));
            }
            let name = s.qualified_name.as_ref();
            self.insert_address(name, self.address_slot(name), position);
        }
        self.position_of = position_of;
    }

    /// Whether the first few `pairs` (an edge's endpoints) are mostly the
    /// symbols' own strings, as when a payload is built in Rust from its
    /// own symbol table: then [`index_addresses`](Self::index_addresses)
    /// pays for itself. Strings of their own (a payload decoded from JSON)
    /// are found by text, and the table by address would only add its
    /// inserts and a miss to every lookup.
    pub(crate) fn names_own_strings<'p>(
        &self,
        pairs: impl Iterator<Item = (&'p str, &'p str)>,
    ) -> bool {
        if self.by_name.is_empty() {
            return false;
        }
        // Up to 4 pairs decide by majority; the sampling stops once the
        // rest could not change the verdict (an owned payload, whose
        // sources are never the symbols' strings, is decided after 3
        // lookups). Either verdict resolves every pair; a wrong one only
        // costs a miss per lookup.
        const SAMPLED: usize = 4;
        // A few symbols' strings are compared by address one by one, which
        // costs less than hashing the name to find the one to compare.
        const SCANNED: usize = 16;
        let own = |name: &str| {
            if self.symbols.len() <= SCANNED {
                return self.symbols.iter().any(|s| {
                    let s = s.qualified_name.as_ref();
                    s.as_ptr() == name.as_ptr() && s.len() == name.len()
                });
            }
            self.find_index_by_name(name, self.hasher.hash(name.as_bytes()))
                .is_some_and(|i| self.name(i).as_ptr() == name.as_ptr())
        };
        let (lower, _) = pairs.size_hint();
        let sampled = lower.min(SAMPLED);
        let (mut found, mut missed) = (0, 0);
        for (source, target) in pairs.take(SAMPLED) {
            if own(source) && own(target) {
                found += 1;
            } else {
                missed += 1;
            }
            if found * 2 >= sampled || missed * 2 > sampled {
                break;
            }
        }
        sampled > 0 && found * 2 >= sampled
    }

    /// Inserts symbol `i`; returns whether its name was already present (the
    /// slot then keeps the occurrence emitted last).
    fn insert_name(&mut self, i: u32, hash: u64) -> bool {
        let tag = (hash >> 32) as u32;
        let mut slot = hash as usize & self.mask;
        loop {
            let entry = self.by_name[slot];
            if entry.index == FREE {
                self.by_name[slot] = NameSlot { tag, index: i };
                return false;
            }
            if entry.tag == tag && self.name(entry.index) == self.name(i) {
                if self.position_of[i as usize] > self.position_of[entry.index as usize] {
                    self.by_name[slot].index = i;
                }
                return true;
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// The name of symbol `i`.
    #[inline]
    fn name(&self, i: u32) -> &'a str {
        self.symbols
            .get(i as usize)
            .map_or("", |s| s.qualified_name.as_ref())
    }

    /// Inserts `name` by its address, starting at its home `slot`.
    fn insert_address(&mut self, name: &str, mut slot: usize, position: u32) {
        // Names of 4 GiB and more are found by name only.
        let Ok(len) = u32::try_from(name.len()) else {
            return;
        };
        let address = name.as_ptr() as usize;
        loop {
            let entry = &mut self.by_address[slot];
            // The same address and length are the same bytes, the same name.
            if entry.address == 0 || (entry.address == address && entry.len == len) {
                *entry = AddressSlot {
                    address,
                    len,
                    position,
                };
                return;
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// The home slot of `name`'s address in the by-address table (any
    /// value when the index is empty).
    #[inline]
    pub(crate) fn address_slot(&self, name: &str) -> usize {
        let key = (name.as_ptr() as u64) ^ ((name.len() as u64) << 40);
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// The input index of the first symbol whose slot carries `hash`'s tag
    /// within the first few probes: almost always the one a lookup of that
    /// hash compares with, for prefetching.
    #[inline(always)]
    fn candidate(&self, hash: u64) -> Option<usize> {
        let tag = (hash >> 32) as u32;
        let mut slot = hash as usize & self.mask;
        for _ in 0..4 {
            let entry = self.by_name.get(slot)?;
            if entry.index == FREE {
                return None;
            }
            if entry.tag == tag {
                return Some(entry.index as usize);
            }
            slot = (slot + 1) & self.mask;
        }
        None
    }

    /// [`find_by_name`](Self::find_by_name) as a call: for lookups by
    /// address, where finding a name by its text is the rare fallback and
    /// inlining it only made the hot loop larger (1.7 % more instructions
    /// for a 10,000-symbol borrowed encode).
    #[cold]
    #[inline(never)]
    fn find_by_name_outlined(&self, name: &str) -> Option<u32> {
        self.find_by_name(name, self.hasher.hash(name.as_bytes()))
    }

    // Inlined into the resolving loops: the call's prologue and epilogue
    // were a seventh of a lookup on a small payload.
    #[inline(always)]
    fn find_by_name(&self, name: &str, hash: u64) -> Option<u32> {
        self.find_index_by_name(name, hash)
            .map(|i| self.position_of[i as usize])
    }

    /// The input index of the symbol `name` (whose hash is `hash`)
    /// resolves to.
    #[inline(always)]
    fn find_index_by_name(&self, name: &str, hash: u64) -> Option<u32> {
        let tag = (hash >> 32) as u32;
        let mut slot = hash as usize & self.mask;
        loop {
            let entry = self.by_name[slot];
            if entry.index == FREE {
                return None;
            }
            if entry.tag == tag && same_text(self.name(entry.index).as_bytes(), name.as_bytes()) {
                return Some(entry.index);
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// The emission position `name` resolves to, if it names a symbol.
    #[inline]
    pub(crate) fn position(&self, name: &str) -> Option<u32> {
        if self.by_name.is_empty() {
            return None;
        }
        if self.by_address.is_empty() {
            return self.find_by_name(name, self.hasher.hash(name.as_bytes()));
        }
        self.position_by_address(name)
            .or_else(|| self.find_by_name_outlined(name))
    }

    #[inline]
    fn position_by_address(&self, name: &str) -> Option<u32> {
        let address = name.as_ptr() as usize;
        let mut slot = self.address_slot(name);
        loop {
            let entry = self.by_address[slot];
            if entry.address == 0 {
                break;
            }
            if entry.address == address && entry.len as usize == name.len() {
                return Some(entry.position);
            }
            slot = (slot + 1) & self.mask;
        }
        None
    }

    /// Starts loading slot `slot` of the by-address table (from
    /// [`address_slot`](Self::address_slot)); a few lookups ahead.
    #[inline(always)]
    pub(crate) fn prefetch_address_slot(&self, slot: usize) {
        if let Some(entry) = self.by_address.get(slot) {
            prefetch(entry);
        }
    }

    /// [`position`](Self::position) for a `name` whose address slot is
    /// `slot`; only once [`index_addresses`](Self::index_addresses) built
    /// the table by address of a non-empty index.
    #[inline(always)]
    pub(crate) fn position_from_slot(&self, name: &str, mut slot: usize) -> Option<u32> {
        let address = name.as_ptr() as usize;
        loop {
            let entry = self.by_address[slot];
            if entry.address == address && entry.len as usize == name.len() {
                return Some(entry.position);
            }
            if entry.address == 0 {
                return self.find_by_name_outlined(name);
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// Resolves the pairs of names `pair(0..count)` (an edge's source and
    /// target), calling `resolved(j, source position, target position)` in
    /// order, with the lookups of later pairs prefetched.
    ///
    /// Every pair is found by its text, hashed a chunk ahead so that both
    /// the slot and the name it holds can be prefetched: for strings of
    /// their own (a payload decoded from JSON), where probing by address
    /// would only add a miss. The caller samples with
    /// [`names_own_strings`](Self::names_own_strings) first and resolves by
    /// address when the pairs are the symbols' own strings; sampling here
    /// again cost a tenth of a 10-symbol owned encode's lookups for nothing.
    pub(crate) fn resolve_pairs<'p, E>(
        &self,
        count: usize,
        pair: impl Fn(usize) -> (&'p str, &'p str),
        mut resolved: impl FnMut(usize, Option<u32>, Option<u32>) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.by_name.is_empty() {
            for j in 0..count {
                resolved(j, None, None)?;
            }
            return Ok(());
        }
        // Each lookup reads three scattered places one after the other: the
        // slot, the symbol it names (for the name's address) and the name's
        // bytes, to compare. The pairs are hashed a chunk at a time (reading
        // the edges' strings in one go, with the strings of later pairs
        // asked for ahead: in an owned payload each is its own allocation);
        // then, while resolving, each of those reads is asked for a few
        // pairs before it is needed: the slot at `FAR`, the symbol at `MID`,
        // the name at `NEAR`.
        //
        // Edges usually come grouped by source: a source with the text of
        // the pair before's (compared in cache) is neither hashed nor looked
        // up again.
        if count <= SMALL || self.symbols.len() <= SMALL_SYMBOLS {
            // A small payload's tables and names sit in the inner caches:
            // no prefetching, no hashing ahead.
            let mut source_position = None;
            for j in 0..count {
                let (source, target) = pair(j);
                if j == 0 || !same_text(pair(j - 1).0.as_bytes(), source.as_bytes()) {
                    source_position =
                        self.find_by_name(source, self.hasher.hash(source.as_bytes()));
                }
                let target = self.find_by_name(target, self.hasher.hash(target.as_bytes()));
                resolved(j, source_position, target)?;
            }
            return Ok(());
        }
        const CHUNK: usize = 128;
        // Past this many symbols the tables and names outgrow the caches and
        // every step of a lookup is a miss worth asking for early; below it,
        // finding the candidate twice more per endpoint costs more than the
        // misses it hides (measured at 10,000 symbols: 10 % slower).
        let deep = self.symbols.len() >= DEEP_MIN;
        const FAR: usize = 12;
        const MID: usize = 8;
        const NEAR: usize = 4;
        let mut hashes = [(0u64, 0u64, false); CHUNK];
        let mut source_position = None;
        for start in (0..count).step_by(CHUNK) {
            let end = count.min(start + CHUNK);
            for (j, slot) in (start..end).zip(hashes.iter_mut()) {
                if j + AHEAD < count {
                    let (source, target) = pair(j + AHEAD);
                    crate::hint::prefetch_bytes(source.as_bytes());
                    crate::hint::prefetch_bytes(target.as_bytes());
                }
                let (source, target) = pair(j);
                let same_source = j > 0 && same_text(pair(j - 1).0.as_bytes(), source.as_bytes());
                let source_hash = if same_source {
                    0
                } else {
                    self.hasher.hash(source.as_bytes())
                };
                *slot = (
                    source_hash,
                    self.hasher.hash(target.as_bytes()),
                    same_source,
                );
            }
            let chunk = &hashes[..end - start];
            for (k, &(source_hash, target_hash, same_source)) in chunk.iter().enumerate() {
                if let Some(&(s, t, same)) = chunk.get(k + FAR) {
                    if !same {
                        prefetch(&self.by_name[s as usize & self.mask]);
                    }
                    prefetch(&self.by_name[t as usize & self.mask]);
                }
                if let Some(&(s, t, same)) = chunk.get(k + MID) {
                    for (hash, wanted) in [(s, !same), (t, true)] {
                        if !deep {
                            // Small enough to stay in the last-level cache:
                            // the slot asked for `FAR - MID` pairs ago names
                            // the symbol to ask for.
                            if wanted {
                                let entry = self.by_name[hash as usize & self.mask];
                                if let Some(symbol) = self.symbols.get(entry.index as usize) {
                                    crate::hint::prefetch_value(symbol);
                                }
                            }
                            continue;
                        }
                        if let Some(symbol) = self
                            .candidate(hash)
                            .filter(|_| wanted)
                            .and_then(|i| self.symbols.get(i))
                        {
                            crate::hint::prefetch_value(symbol);
                        }
                    }
                }
                if let Some(&(s, t, same)) = chunk.get(k + NEAR).filter(|_| deep) {
                    for (hash, wanted) in [(s, !same), (t, true)] {
                        if let Some(symbol) = self
                            .candidate(hash)
                            .filter(|_| wanted)
                            .and_then(|i| self.symbols.get(i))
                        {
                            crate::hint::prefetch_bytes(symbol.qualified_name.as_ref().as_bytes());
                        }
                    }
                }
                let j = start + k;
                let (source, target) = pair(j);
                if !same_source {
                    source_position = self.find_by_name(source, source_hash);
                }
                resolved(j, source_position, self.find_by_name(target, target_hash))?;
            }
        }
        Ok(())
    }
}

/// Whether `a` and `b` are the same bytes, compared sixteen bytes at a time
/// in registers: a name found by its hash's tag is almost always equal, so
/// the comparison reads both names once, without a library call.
#[inline(always)]
fn same_text(a: &[u8], b: &[u8]) -> bool {
    use crate::words::load8;
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return a == b;
    }
    let mut i = 0;
    while i + 16 <= n {
        if (load8(a, i) ^ load8(b, i)) | (load8(a, i + 8) ^ load8(b, i + 8)) != 0 {
            return false;
        }
        i += 16;
    }
    // The last 0-15 bytes: the word at `i` and the last word overlap them.
    let at = i.min(n - 8);
    (load8(a, at) ^ load8(b, at)) | (load8(a, n - 8) ^ load8(b, n - 8)) == 0
}

#[cfg(test)]
mod tests {
    #[test]
    fn same_text_agrees_with_slice_equality() {
        let base: Vec<u8> = (0..70u8).map(|b| b'!' + b).collect();
        for len in 0..base.len() {
            let a = &base[..len];
            assert!(super::same_text(a, a));
            let copy = a.to_vec();
            assert!(super::same_text(a, copy.as_slice()));
            for pos in 0..len {
                let mut b = a.to_vec();
                b[pos] ^= 0x20;
                assert!(!super::same_text(a, &b), "{len} {pos}");
            }
            if len > 0 {
                assert!(!super::same_text(a, &base[..len - 1]));
            }
        }
    }

    use super::*;
    use alloc::string::{String, ToString};

    fn symbols(names: &[&str]) -> Vec<Symbol<String>> {
        names
            .iter()
            .map(|n| Symbol::new(n.to_string(), "function".into(), 0.5, "x".into(), 0))
            .collect()
    }

    #[test]
    fn resolves_by_address_and_by_bytes() {
        let syms = symbols(&["a.A", "a.B", "a.C"]);
        let order = [2, 0, 1];
        let index = NameIndex::build(&syms, &order, NameHasher::new(), &[]);
        // The symbols' own strings (found by address) ...
        assert_eq!(index.position(&syms[0].qualified_name), Some(1));
        assert_eq!(index.position(&syms[1].qualified_name), Some(2));
        assert_eq!(index.position(&syms[2].qualified_name), Some(0));
        // ... and copies of them elsewhere in memory (found by their bytes).
        let copy = String::from("a.B");
        assert_eq!(index.position(&copy), Some(2));
        assert_eq!(index.position("a.D"), None);
        // A prefix of a name at the same address is a different name.
        assert_eq!(index.position(&syms[0].qualified_name[..2]), None);
        assert_eq!(index.position(""), None);
    }

    #[test]
    fn a_repeated_name_resolves_to_its_last_emitted_occurrence_via_any_copy() {
        let syms = symbols(&["x", "y", "x", "x"]);
        // Emission: 3, 0, 1, 2 -> "x" occurs at positions 0, 1 and 3.
        let order = [3, 0, 1, 2];
        let index = NameIndex::build(&syms, &order, NameHasher::new(), &[]);
        for i in [0, 2, 3] {
            assert_eq!(index.position(&syms[i].qualified_name), Some(3));
        }
        assert_eq!(index.position("x"), Some(3));
        assert_eq!(index.position(&syms[1].qualified_name), Some(2));
    }

    #[test]
    fn pairs_of_copies_resolve_like_single_lookups() {
        // Separate copies of the names (an owned payload), sources grouped
        // in runs that cross the hashing chunks, unknown names among them;
        // one index small enough for the light prefetching, one past
        // `DEEP_MIN`.
        let sizes: &[usize] = if cfg!(miri) { &[20] } else { &[300, DEEP_MIN] };
        for &n in sizes {
            let names: Vec<String> = (0..n)
                .map(|i| alloc::format!("pkg/a.T{i}.Method"))
                .collect();
            let syms = symbols(&names.iter().map(String::as_str).collect::<Vec<_>>());
            let order: Vec<u32> = (0..n as u32).rev().collect();
            let index = NameIndex::build(&syms, &order, NameHasher::new(), &[]);
            let mut pairs: Vec<(String, String)> = Vec::new();
            let mut state = 7u64;
            for i in 0..n.min(2_000) {
                let source = if i % 17 == 5 {
                    String::from("no.Such")
                } else {
                    names[(i * 31) % n].clone()
                };
                for _ in 0..1 + i % 4 {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    let target = (state >> 33) as usize % (n + 3);
                    let target = names.get(target).cloned().unwrap_or_else(|| "x".into());
                    pairs.push((source.clone(), target));
                }
            }
            let mut seen = 0;
            index
                .resolve_pairs(
                    pairs.len(),
                    |j| (pairs[j].0.as_str(), pairs[j].1.as_str()),
                    |j, source, target| {
                        assert_eq!(source, index.position(&pairs[j].0), "{n} {j}");
                        assert_eq!(target, index.position(&pairs[j].1), "{n} {j}");
                        assert_eq!(j, seen);
                        seen += 1;
                        Ok::<(), ()>(())
                    },
                )
                .unwrap();
            assert_eq!(seen, pairs.len());
        }
    }

    #[test]
    fn an_index_by_name_alone_resolves_every_copy() {
        let syms = symbols(&["a.A", "a.B", "a.C"]);
        let order = [2, 0, 1];
        let index = NameIndex::build_in(&syms, &order, NameHasher::new(), &[], Tables::default());
        assert!(index.by_address.is_empty());
        assert_eq!(index.position(&syms[0].qualified_name), Some(1));
        assert_eq!(index.position(&String::from("a.B")), Some(2));
        assert_eq!(index.position("a.D"), None);
        let copies = [("a.C", "a.A")];
        let mut seen = 0;
        index
            .resolve_pairs(
                1,
                |j| copies[j],
                |_, source, target| {
                    assert_eq!((source, target), (Some(0), Some(1)));
                    seen += 1;
                    Ok::<(), ()>(())
                },
            )
            .unwrap();
        assert_eq!(seen, 1);
    }

    #[test]
    fn own_strings_are_told_from_copies() {
        // Up to 16 symbols the sample compares addresses one by one; past
        // it, it finds each name first.
        for n in [3, 16, 17, 300] {
            let names: Vec<String> = (0..n).map(|i| alloc::format!("p.N{i}")).collect();
            let syms = symbols(&names.iter().map(String::as_str).collect::<Vec<_>>());
            let order: Vec<u32> = (0..n as u32).collect();
            let mut index =
                NameIndex::build_in(&syms, &order, NameHasher::new(), &[], Tables::default());
            let own = |i: usize| syms[i % n].qualified_name.as_str();
            let copy = |i: usize| names[i % n].as_str();
            let owned: Vec<(&str, &str)> = (0..10).map(|i| (own(i), own(i + 1))).collect();
            let copied: Vec<(&str, &str)> = (0..10).map(|i| (copy(i), copy(i + 1))).collect();
            // A copy as one endpoint makes a pair not the symbols' own;
            // half of the sample decides for addresses.
            let mixed: Vec<(&str, &str)> = (0..10)
                .map(|i| {
                    if i % 2 == 0 {
                        (own(i), own(i + 1))
                    } else {
                        (own(i), copy(i))
                    }
                })
                .collect();
            let mostly_copied: Vec<(&str, &str)> = (0..10)
                .map(|i| {
                    if i == 0 {
                        (own(i), own(i + 1))
                    } else {
                        (copy(i), own(i))
                    }
                })
                .collect();
            assert!(index.names_own_strings(owned.iter().copied()), "{n}");
            assert!(!index.names_own_strings(copied.iter().copied()), "{n}");
            assert!(index.names_own_strings(mixed.iter().copied()), "{n}");
            assert!(
                !index.names_own_strings(mostly_copied.iter().copied()),
                "{n}"
            );
            assert!(!index.names_own_strings(core::iter::empty()), "{n}");
            // Names that are no symbol's are not its strings either.
            assert!(!index.names_own_strings([("x", "y")].into_iter()), "{n}");
            // Either table resolves both kinds of strings alike.
            let before: Vec<_> = owned
                .iter()
                .chain(&copied)
                .map(|p| index.position(p.0))
                .collect();
            index.index_addresses();
            assert!(!index.by_address.is_empty());
            let after: Vec<_> = owned
                .iter()
                .chain(&copied)
                .map(|p| index.position(p.0))
                .collect();
            assert_eq!(before, after, "{n}");
            assert!(after.iter().all(Option::is_some));
        }
    }

    #[test]
    fn an_empty_index_resolves_nothing() {
        let syms = symbols(&[]);
        let index = NameIndex::build(&syms, &[], NameHasher::new(), &[]);
        assert_eq!(index.position("a"), None);
        let syms = symbols(&["a"]);
        assert_eq!(
            NameIndex::empty(&syms, NameHasher::new()).position(&syms[0].qualified_name),
            None
        );
    }

    #[test]
    fn many_names_with_every_probe_length() {
        // Enough names that probe runs wrap and collide.
        let names: Vec<String> = (0..5000).map(|i| alloc::format!("p.N{i}")).collect();
        let syms: Vec<Symbol<&str>> = names
            .iter()
            .map(|n| Symbol::new(n.as_str(), "var", 0.1, "x", 0))
            .collect();
        let order: Vec<u32> = (0..5000u32).rev().collect();
        let index = NameIndex::build(&syms, &order, NameHasher::new(), &[]);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(index.position(name), Some(4999 - i as u32));
            assert_eq!(index.position(&name.clone()), Some(4999 - i as u32));
        }
        assert_eq!(index.position("p.N5000"), None);
    }
}
