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

#[cfg(test)]
mod tests {
    use super::*;

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
