//! The hasher of every table keyed on input text, and its seed.
//!
//! Decoding and encoding index names, keys and labels taken from the input
//! in hash tables. A table whose hash an attacker can predict can be fed
//! keys that all land in a few slots, turning each lookup into a scan: a
//! megabyte of such keys then costs minutes instead of milliseconds. The
//! tables therefore hash with keys the input cannot know.
//!
//! On a native target those keys come from address-space layout
//! randomization (foldhash's random state). A WebAssembly module has no such
//! entropy: its addresses, like everything else in it, are the same on every
//! run, so every copy of a published module would hash alike. A host that
//! can draw random bytes (`crypto.getRandomValues` in a browser, an edge
//! runtime or Node) hands them to [`set_hash_seed`] once, before the first
//! call; the JS package does so when it loads its WebAssembly engine.
//!
//! The output never depends on the seed: tables only find things, and every
//! order the format fixes is made by sorting, never by a table's iteration.

use core::hash::BuildHasher;
use core::sync::atomic::{AtomicU32, Ordering};

/// The secret mixed into every hasher's keys, as two halves (32-bit atomic
/// loads and stores are the widest every target has).
static SECRET: [AtomicU32; 2] = [AtomicU32::new(0), AtomicU32::new(0)];

/// Mixes `entropy` into the keys of every hasher made from now on.
///
/// For hosts without address randomization (WebAssembly): call it once, with
/// 64 bits a client of the host cannot learn, before decoding untrusted
/// input. Calling it again mixes in more; tables made before keep their keys.
/// On native targets it is optional (their keys are already random).
///
/// ```
/// gcf_core::hash::set_hash_seed(0x5eed_1234_abcd_9876);
/// let payload = gcf_core::graph::decode("GCF profile=graph symbols=0 edges=0\n").unwrap();
/// assert!(payload.symbols.is_empty());
/// ```
pub fn set_hash_seed(entropy: u64) {
    // Fold the new entropy into what is there (so two calls never cancel
    // out), through the same hasher, keyed by the secret so far.
    let mixed = HashState::new().hash_one(entropy);
    SECRET[0].store(mixed as u32, Ordering::Relaxed);
    SECRET[1].store((mixed >> 32) as u32, Ordering::Relaxed);
}

fn secret() -> u64 {
    u64::from(SECRET[0].load(Ordering::Relaxed))
        | (u64::from(SECRET[1].load(Ordering::Relaxed)) << 32)
}

/// The [`BuildHasher`] of gcf-core's tables (foldhash's fast hash): keys
/// from foldhash's random state and the secret of [`set_hash_seed`].
#[derive(Clone, Copy, Debug)]
pub struct HashState(foldhash::fast::FixedState);

impl HashState {
    /// A state with fresh keys: the process's random state (address-space
    /// layout randomization, where there is any) keyed by the seed.
    // Not inlined: made once per table, at dozens of sites, and the
    // WebAssembly module pays for every copy in bytes.
    #[inline(never)]
    pub fn new() -> HashState {
        HashState::keyed(foldhash::fast::RandomState::default(), secret())
    }

    /// The keys of a table: the secret hashed under the process's state.
    /// Where the process's state is the same in every run (WebAssembly),
    /// the secret alone tells instances apart.
    #[inline(always)]
    fn keyed(process: impl BuildHasher, secret: u64) -> HashState {
        HashState(foldhash::fast::FixedState::with_seed(
            process.hash_one(secret),
        ))
    }
}

impl Default for HashState {
    #[inline]
    fn default() -> HashState {
        HashState::new()
    }
}

impl BuildHasher for HashState {
    type Hasher = foldhash::fast::FoldHasher;

    #[inline(always)]
    fn build_hasher(&self) -> foldhash::fast::FoldHasher {
        self.0.build_hasher()
    }
}

/// hashbrown's map with [`HashState`].
pub(crate) type HashMap<K, V> = hashbrown::HashMap<K, V, HashState>;

/// hashbrown's set with [`HashState`].
pub(crate) type HashSet<T> = hashbrown::HashSet<T, HashState>;

/// A map with room for `capacity` entries.
#[inline]
pub(crate) fn map_with_capacity<K, V>(capacity: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(capacity, HashState::new())
}

/// A set with room for `capacity` items.
#[inline]
pub(crate) fn set_with_capacity<T>(capacity: usize) -> HashSet<T> {
    HashSet::with_capacity_and_hasher(capacity, HashState::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_text_hashes_alike_within_a_state() {
        let state = HashState::new();
        assert_eq!(state.hash_one("name"), state.hash_one("name"));
        assert_ne!(state.hash_one("name"), state.hash_one("nome"));
    }

    #[test]
    fn the_secret_keys_the_tables_where_the_process_state_is_fixed() {
        // A process state that is the same in every run, as WebAssembly's
        // is: the keys then follow the secret, and only the secret.
        let fixed = foldhash::fast::FixedState::default;
        let probe = |secret| HashState::keyed(fixed(), secret).hash_one("symbol");
        assert_eq!(probe(1), probe(1));
        assert_ne!(probe(1), probe(2));
        assert_ne!(probe(0), probe(0x5eed));
    }

    #[test]
    fn seeding_mixes_in_and_never_resets() {
        set_hash_seed(7);
        let once = secret();
        set_hash_seed(7);
        assert_ne!(secret(), once, "a second call mixes in");
        assert_ne!(secret(), 0);
    }

    #[test]
    fn tables_find_what_they_hold() {
        let mut map = map_with_capacity(4);
        let mut set = set_with_capacity(4);
        for i in 0..1000u32 {
            map.insert(i, i * 2);
            set.insert(i);
        }
        assert!((0..1000).all(|i| map[&i] == i * 2 && set.contains(&i)));
    }
}
