//! What a whitespace-delimited positional field of a graph line may hold
//! (spec §4 `qname`, `provenance`, `edge-type`): at least one character, no
//! whitespace, no control characters. The encoders refuse other values and
//! the decoders reject lines that carry them, by the same test, so whatever
//! one side rejects the other does too.

use crate::error::{Error, ErrorKind};
use crate::words::load8;

/// Checks a whitespace-delimited positional field: non-empty, no whitespace,
/// no control characters (spec §4 `qname`, `provenance`, `edge-type`).
#[inline]
pub(crate) fn check_token(what: &str, value: &str) -> Result<(), Error> {
    if is_token(value) {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::InvalidInput,
        alloc::format!(
            "{what} `{}` must be non-empty and contain no whitespace or control characters",
            crate::error::excerpt(value)
        ),
    ))
}

/// Whether `value` may be a whitespace-delimited positional field: non-empty,
/// no whitespace, no control characters.
#[inline]
pub(crate) fn is_token(value: &str) -> bool {
    let b = value.as_bytes();
    crate::ops::tick(b.len());
    // Fast path: printable ASCII only. Anything else (including every
    // non-ASCII byte) is decided per character: U+00A0, U+2028, U+3000 and
    // the other Unicode spaces and C1 controls are rejected too.
    if b.is_empty() {
        return false;
    }
    !has_non_printable_ascii(b)
        || value
            .chars()
            .all(|c| c != ' ' && !c.is_control() && !c.is_whitespace())
}

/// Whether any byte is outside printable ASCII `0x21..=0x7e`: whitespace or
/// a control (`<= 0x20`), DEL (`0x7f`), or part of a non-ASCII character
/// (`>= 0x80`, left to the per-character check). Eight bytes at a time:
/// every qualified name is checked once per symbol, and this was the largest
/// single cost of the streaming writer.
///
/// Per 64-bit word `x`, for an ASCII byte `b` the sum `b + 0x5f` has its top
/// bit set exactly when `b >= 0x21`, and `b + 0x01` exactly when
/// `b >= 0x7f`; so `(!(x + 0x5f..) | (x + 0x01..) | x) & 0x80..` is non-zero
/// when some byte is too low, too high, or not ASCII. A carry out of a byte
/// only happens from a byte `>= 0xa1`, whose own top bit already makes the
/// answer "yes", so carries never hide a bad byte. A name of eight bytes or
/// more ends with one more word read over its last eight bytes, which
/// overlaps the word before it instead of a loop over the remainder.
#[inline]
fn has_non_printable_ascii(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    #[inline(always)]
    fn bad(x: u64) -> bool {
        let at_least_0x21 = x.wrapping_add(ONES * 0x5f);
        let at_least_0x7f = x.wrapping_add(ONES);
        (!at_least_0x21 | at_least_0x7f | x) & HIGH != 0
    }
    let n = bytes.len();
    if n < 8 {
        return bytes.iter().any(|&c| !(0x21..=0x7e).contains(&c));
    }
    if n < 16 {
        return bad(load8(bytes, 0)) || bad(load8(bytes, n - 8));
    }
    // Sixteen bytes at a time (a qualified name is typically 40-80 bytes),
    // the last block overlapping the one before it.
    let mut at = 0;
    while at + 16 < n {
        if pair_non_printable(load8(bytes, at), load8(bytes, at + 8)) {
            return true;
        }
        at += 16;
    }
    pair_non_printable(load8(bytes, n - 16), load8(bytes, n - 8))
}

/// Whether any of the sixteen bytes of `lo` and `hi` (little-endian) is
/// outside `0x21..=0x7e`: two SSE2 compares and one mask extract.
#[cfg(all(target_arch = "x86_64", not(gcf_portable)))]
#[inline(always)]
fn pair_non_printable(lo: u64, hi: u64) -> bool {
    use core::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x,
    };
    // SAFETY: SSE2 is part of the x86-64 baseline, so every intrinsic here
    // is available; none of them touches memory.
    unsafe {
        let x = _mm_set_epi64x(hi as i64, lo as i64);
        // Signed: every byte >= 0x80 is negative, so "> 0x20" holds exactly
        // for 0x21..=0x7f; DEL is the one left to exclude.
        let printable = _mm_cmpgt_epi8(x, _mm_set1_epi8(0x20));
        let del = _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f));
        _mm_movemask_epi8(printable) != 0xffff || _mm_movemask_epi8(del) != 0
    }
}

/// [`pair_non_printable`] elsewhere.
#[cfg(any(not(target_arch = "x86_64"), gcf_portable))]
#[inline(always)]
fn pair_non_printable(lo: u64, hi: u64) -> bool {
    pair_non_printable_portable(lo, hi)
}

/// The portable form of [`pair_non_printable`] (and its test oracle).
#[cfg_attr(all(target_arch = "x86_64", not(gcf_portable)), allow(dead_code))]
#[inline(always)]
fn pair_non_printable_portable(lo: u64, hi: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let bad = |x: u64| (!x.wrapping_add(ONES * 0x5f) | x.wrapping_add(ONES) | x) & HIGH != 0;
    bad(lo) || bad(hi)
}

/// A keyed hash of names for the encoder's name index, computed over the
/// same 16-byte blocks the token check reads, so that checking a qualified
/// name and hashing it read the name once ([`NameHasher::check_and_hash`]).
///
/// Each block is one folded multiply (the 128-bit product of the block's
/// two words, each mixed with the keys and the running state, its halves
/// xored), as in foldhash, the hash this replaces. The keys come from
/// [`HashState`](crate::hash::HashState), as every table's do: random per
/// process on native targets, and keyed by the host's seed
/// ([`set_hash_seed`](crate::hash::set_hash_seed)) on WebAssembly, so a
/// payload cannot be crafted to collide in the index without knowing them.
#[derive(Clone, Copy)]
pub(crate) struct NameHasher {
    keys: [u64; 4],
}

/// The high and the low half of the 128-bit product, xored.
#[cfg(any(
    target_pointer_width = "64",
    target_arch = "aarch64",
    target_arch = "x86_64"
))]
#[inline(always)]
fn folded_multiply(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

/// [`folded_multiply`] where a 64-by-64-bit product needs a library call
/// (WebAssembly and other 32-bit targets): the two cross products of the
/// halves, one rotated, as foldhash does there. Only the quality of the
/// spread matters: the index compares names, so any hash gives the same
/// output.
#[cfg(not(any(
    target_pointer_width = "64",
    target_arch = "aarch64",
    target_arch = "x86_64"
)))]
#[inline(always)]
fn folded_multiply(a: u64, b: u64) -> u64 {
    let (a_lo, a_hi) = (a & 0xffff_ffff, a >> 32);
    let (b_lo, b_hi) = (b & 0xffff_ffff, b >> 32);
    (a_lo * b_hi) ^ (a_hi * b_lo).rotate_right(32)
}

/// The two words of a 16-byte block.
#[inline(always)]
fn block_words(block: &[u8]) -> (u64, u64) {
    (load8(block, 0), load8(block, 8))
}

/// The 16-byte blocks of `bytes` (at least 16 long) that the checks and the
/// hash read: every whole block that ends before the last byte, then the
/// last sixteen bytes (overlapping the block before unless the length is a
/// multiple of 16). Fixed-size chunks, so loading their words needs no
/// bounds checks.
#[inline(always)]
fn blocks(bytes: &[u8]) -> (core::slice::ChunksExact<'_, u8>, &[u8; 16]) {
    let n = bytes.len();
    let last = bytes.last_chunk::<16>().unwrap_or(&[0; 16]);
    (bytes[..n.saturating_sub(1)].chunks_exact(16), last)
}

impl NameHasher {
    /// A hasher with fresh random keys.
    pub(crate) fn new() -> NameHasher {
        use core::hash::BuildHasher;
        let seeded = crate::hash::HashState::default();
        NameHasher {
            keys: core::array::from_fn(|i| seeded.hash_one(i as u64)),
        }
    }

    #[inline(always)]
    fn start(&self, len: usize) -> u64 {
        self.keys[2].wrapping_add(len as u64)
    }

    #[inline(always)]
    fn block(&self, state: u64, lo: u64, hi: u64) -> u64 {
        folded_multiply(lo ^ self.keys[0], hi ^ self.keys[1] ^ state)
    }

    #[inline(always)]
    fn finish(&self, state: u64) -> u64 {
        folded_multiply(state ^ self.keys[3], 0x9e37_79b9_7f4a_7c15)
    }

    /// The hash of `bytes`: from 16 bytes on, the blocks the token check
    /// reads (sixteen bytes at a time, the last block overlapping the one
    /// before); from eight, the first and the last word; below, the bytes
    /// in one word. The length is mixed in first, so padding is unambiguous.
    #[inline]
    pub(crate) fn hash(&self, bytes: &[u8]) -> u64 {
        let n = bytes.len();
        let mut state = self.start(n);
        if n >= 16 {
            let (body, last) = blocks(bytes);
            for block in body {
                let (lo, hi) = block_words(block);
                state = self.block(state, lo, hi);
            }
            let (lo, hi) = block_words(last);
            state = self.block(state, lo, hi);
        } else if n >= 8 {
            state = self.block(state, load8(bytes, 0), load8(bytes, n - 8));
        } else {
            let mut short = [0u8; 8];
            short[..n].copy_from_slice(bytes);
            state = self.block(state, u64::from_le_bytes(short), 0);
        }
        self.finish(state)
    }

    /// [`check_token`] and [`hash`](Self::hash) in one pass over the usual
    /// qualified name (sixteen bytes or more of printable ASCII); any other
    /// value is checked and hashed apart.
    #[inline]
    pub(crate) fn check_and_hash(&self, what: &str, value: &str) -> Result<u64, Error> {
        let bytes = value.as_bytes();
        let n = bytes.len();
        if n >= 16 {
            let mut state = self.start(n);
            let mut printable = true;
            let (body, last) = blocks(bytes);
            for block in body {
                let (lo, hi) = block_words(block);
                printable &= !pair_non_printable(lo, hi);
                state = self.block(state, lo, hi);
            }
            let (lo, hi) = block_words(last);
            printable &= !pair_non_printable(lo, hi);
            if printable {
                return Ok(self.finish(self.block(state, lo, hi)));
            }
        }
        check_token(what, value)?;
        Ok(self.hash(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    #[test]
    fn hashes_spread_over_slots_and_tags() {
        // The name index takes a slot from the low bits and a tag from the
        // high half: both must spread, on 64-bit targets (a 128-bit product)
        // and 32-bit ones (two 64-bit products of halves). 4,096 names in
        // 4,096 slots fill about 63 % of them when the hash is uniform.
        let hasher = NameHasher::new();
        for names in [
            (0..4096)
                .map(|i| alloc::format!("pkg/mod{}.Symbol{i}", i % 97))
                .collect::<Vec<_>>(),
            (0..4096).map(|i| alloc::format!("s{i}")).collect(),
            (0..4096).map(|i| alloc::format!("{i:0>20}")).collect(),
        ] {
            let hashes: Vec<u64> = names.iter().map(|n| hasher.hash(n.as_bytes())).collect();
            let mut slots = vec![false; 4096];
            let mut tags = crate::hash::HashSet::default();
            for h in &hashes {
                slots[(*h & 4095) as usize] = true;
                tags.insert(h >> 32);
            }
            let filled = slots.iter().filter(|&&s| s).count();
            assert!(
                filled > 2400,
                "{filled} of 4096 slots for {:?}",
                &names[..2]
            );
            assert!(
                tags.len() > 4080,
                "{} distinct tags for {:?}",
                tags.len(),
                &names[..2]
            );
        }
    }

    #[test]
    fn word_at_a_time_check_agrees_with_the_byte_test() {
        let naive = |b: &[u8]| b.iter().any(|&c| !(0x21..=0x7e).contains(&c));
        // Every byte value at every position of strings of length 1..=40,
        // in a background of ordinary and of non-ASCII bytes.
        // Under Miri, which interprets every instruction, lengths that take
        // each path once (bytes, one word, pairs of words, blocks and tails).
        let lengths: Vec<usize> = if cfg!(miri) {
            vec![3, 8, 15, 16, 17, 33]
        } else {
            (1..=40).collect()
        };
        let backgrounds: &[u8] = if cfg!(miri) {
            &[b'a', 0xc3]
        } else {
            &[b'a', 0x21, 0x7e, 0x80, 0xc3, 0xff]
        };
        for &len in &lengths {
            for &background in backgrounds {
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
        // The SSE2 pair test against its portable oracle on every byte value
        // in every position, and on random words.
        for pos in 0..16 {
            for byte in 0..=255u8 {
                let mut block = [b'a'; 16];
                block[pos] = byte;
                let lo = u64::from_le_bytes(block[..8].try_into().unwrap());
                let hi = u64::from_le_bytes(block[8..].try_into().unwrap());
                assert_eq!(pair_non_printable(lo, hi), naive(&block), "{block:?}");
                assert_eq!(pair_non_printable_portable(lo, hi), naive(&block));
            }
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..if cfg!(miri) { 300 } else { 100_000 } {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (lo, hi) = (x, x.rotate_left(29) | 0x2020_2020_2020_2020);
            assert_eq!(
                pair_non_printable(lo, hi),
                pair_non_printable_portable(lo, hi)
            );
        }
        assert!(has_non_printable_ascii(
            b"github.com/acme/billing/internal/auth.Server\x7fHandle"
        ));
    }

    #[test]
    fn check_and_hash_agrees_with_the_check_and_the_hash_apart() {
        let hasher = NameHasher::new();
        let base: Vec<u8> = (0..100u8).map(|b| b'!' + b % 90).collect();
        let lengths: Vec<usize> = if cfg!(miri) {
            vec![0, 3, 8, 15, 16, 17, 32, 33, 48]
        } else {
            (0..=base.len()).collect()
        };
        let mut seen = Vec::new();
        for &len in &lengths {
            for byte in [b'a', b' ', 0x7f, 0x1f, 0xc3] {
                for pos in 0..len.max(1) {
                    let mut bytes = base[..len].to_vec();
                    if let Some(b) = bytes.get_mut(pos) {
                        *b = byte;
                    }
                    let Ok(text) = core::str::from_utf8(&bytes) else {
                        continue;
                    };
                    match hasher.check_and_hash("name", text) {
                        Ok(hash) => {
                            assert!(is_token(text), "{text:?}");
                            assert_eq!(hash, hasher.hash(text.as_bytes()), "{text:?}");
                        }
                        Err(_) => assert!(!is_token(text), "{text:?}"),
                    }
                }
            }
            seen.push(hasher.hash(&base[..len]));
        }
        // Multibyte names take the checked path and hash alike.
        let name = "paquet.Größe.naïve_função";
        assert_eq!(
            hasher.check_and_hash("name", name).unwrap(),
            hasher.hash(name.as_bytes())
        );
        // Prefixes of one text (the length is mixed in) and other keys differ.
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), lengths.len());
        let other = NameHasher::new();
        assert_ne!(other.hash(&base[..40]), hasher.hash(&base[..40]));
    }
}
