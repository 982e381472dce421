//! What a whitespace-delimited positional field of a graph line may hold
//! (spec §4 `qname`, `provenance`, `edge-type`): at least one character, no
//! whitespace, no control characters. The encoders refuse other values and
//! the decoders reject lines that carry them, by the same test, so whatever
//! one side rejects the other does too.

use crate::error::{Error, ErrorKind};

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
            "{what} `{value}` must be non-empty and contain no whitespace or control characters"
        ),
    ))
}

/// Whether `value` may be a whitespace-delimited positional field: non-empty,
/// no whitespace, no control characters.
#[inline]
pub(crate) fn is_token(value: &str) -> bool {
    let b = value.as_bytes();
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
    fn word(bytes: &[u8], at: usize) -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(w)
    }
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
        return bad(word(bytes, 0)) || bad(word(bytes, n - 8));
    }
    // Sixteen bytes at a time (a qualified name is typically 40-80 bytes),
    // the last block overlapping the one before it.
    let mut at = 0;
    while at + 16 < n {
        if pair_non_printable(word(bytes, at), word(bytes, at + 8)) {
            return true;
        }
        at += 16;
    }
    pair_non_printable(word(bytes, n - 16), word(bytes, n - 8))
}

/// Whether any of the sixteen bytes of `lo` and `hi` (little-endian) is
/// outside `0x21..=0x7e`: two SSE2 compares and one mask extract.
#[cfg(target_arch = "x86_64")]
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
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn pair_non_printable(lo: u64, hi: u64) -> bool {
    pair_non_printable_portable(lo, hi)
}

/// The portable form of [`pair_non_printable`] (and its test oracle).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn pair_non_printable_portable(lo: u64, hi: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let bad = |x: u64| (!x.wrapping_add(ONES * 0x5f) | x.wrapping_add(ONES) | x) & HIGH != 0;
    bad(lo) || bad(hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

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
}
