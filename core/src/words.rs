//! Little-endian word loads from byte slices, for the scanners and copiers
//! that read text eight or four bytes at a time (the graph name check and
//! hash, the generic row assembly). Bounds checked, and compiled to a single
//! unaligned load.

/// Eight bytes of `bytes` from `at` (which must leave eight), little-endian.
#[inline(always)]
pub(crate) fn load8(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

/// Four bytes of `bytes` from `at` (which must leave four), little-endian.
#[inline(always)]
pub(crate) fn load4(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

/// `0x01` in every byte of a word: times a byte, that byte in every byte.
pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;

/// The high bit of every byte of a word.
pub(crate) const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// A word whose [`HIGH_BITS`] are not all clear exactly when some byte of
/// `x` is below `n` (`n <= 0x80`). `x - n * ONES` borrows out of a byte only
/// when that byte is below `n`, where the answer is already yes, so bits it
/// sets in the bytes above can never make a no into a yes; a byte below
/// `0x80` keeps its high bit clear in `x`, hence set in `!x`. Only the
/// answer is exact, not which bytes carry the bits.
#[inline(always)]
pub(crate) fn bytes_below(x: u64, n: u8) -> u64 {
    x.wrapping_sub(ONES * u64::from(n)) & !x
}

/// As [`bytes_below`], for "some byte of `x` is `c`": a byte equal to `c`
/// is a zero byte of `x ^ c * ONES`.
#[inline(always)]
pub(crate) fn bytes_equal(x: u64, c: u8) -> u64 {
    bytes_below(x ^ (ONES * u64::from(c)), 1)
}

/// String equality without a `memcmp` call for the short names that
/// dominate real data (one call per cell is the hottest cost of planning a
/// table, one per label a graph decode numbers): up to 16 bytes are compared as two overlapping words (or three
/// bytes), which together cover every byte.
#[inline]
pub(crate) fn same_str(a: &str, b: &str) -> bool {
    crate::ops::tick(1);
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let n = a.len();
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        _ => a == b,
    }
}

/// The `N` bytes of `bytes` from `at`, or zeros past its end (callers stay inside).
#[inline(always)]
fn word<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut w = [0u8; N];
    if let Some(src) = bytes.get(at..at + N) {
        w.copy_from_slice(src);
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;

    #[test]
    fn same_str_agrees_with_equality() {
        // Every length up to 20, a difference at every position.
        for len in 0..=20usize {
            let a: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            assert!(same_str(&a, &a.clone()));
            for pos in 0..len {
                let mut b = a.clone().into_bytes();
                b[pos] = b'Z';
                let b = String::from_utf8(b).unwrap_or_default();
                assert!(!same_str(&a, &b), "{a:?} vs {b:?}");
                assert!(!same_str(&b, &a), "{b:?} vs {a:?}");
            }
            let longer = alloc::format!("{a}x");
            assert!(!same_str(&a, &longer));
        }
    }

    #[test]
    fn loads_are_little_endian_at_any_offset() {
        let bytes: [u8; 12] = core::array::from_fn(|i| i as u8 + 1);
        assert_eq!(load8(&bytes, 0), 0x0807_0605_0403_0201);
        assert_eq!(load8(&bytes, 4), 0x0c0b_0a09_0807_0605);
        assert_eq!(load4(&bytes, 8), 0x0c0b_0a09);
    }

    #[test]
    fn byte_tests_answer_exactly_for_every_byte_in_every_place() {
        // Every byte value at every place, among neighbours that sit on
        // both sides of the thresholds (a borrow from a lower byte must not
        // change the answer).
        for fill in [0x00u8, 0x1f, 0x20, 0x21, 0x61, 0x7f, 0x80, 0xff] {
            for at in 0..8 {
                for b in 0..=255u8 {
                    let mut bytes = [fill; 8];
                    bytes[at] = b;
                    let x = u64::from_le_bytes(bytes);
                    for n in [1u8, 0x20, 0x30, 0x80] {
                        let want = bytes.iter().any(|&y| y < n);
                        assert_eq!(bytes_below(x, n) & HIGH_BITS != 0, want, "{bytes:?} < {n}");
                    }
                    for c in [b'"', b'|', 0x00, 0x7f, 0x80] {
                        let want = bytes.contains(&c);
                        assert_eq!(bytes_equal(x, c) & HIGH_BITS != 0, want, "{bytes:?} = {c}");
                    }
                }
            }
        }
    }
}
