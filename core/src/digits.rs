//! Decimal digits written in place, for the writers that assemble a line in
//! a buffer with room to spare.
//!
//! `itoa` formats into its own scratch buffer, which the caller then copies;
//! here the digits land where they belong. Below `10^8` (ids, counts,
//! amounts, a score's or a float's whole part) they are computed all at once
//! with no data-dependent branch ([`eight_digits`]) and stored as one
//! eight-byte word with the leading zeros shifted out, so a caller leaves
//! eight bytes of room after the digits it expects.

use core::mem::MaybeUninit;

/// Output memory a writer stores bytes into by index: initialised bytes, or
/// the spare capacity of a `Vec` (which the graph encoder writes its lines
/// into without zeroing it first). Every store writes initialised bytes, so
/// whatever a writer stores is initialised afterwards; out-of-range
/// indexes panic as slice indexing does.
pub(crate) trait ByteSlots {
    /// Stores `byte` at `at`.
    fn put_byte(&mut self, at: usize, byte: u8);
    /// Stores `bytes` at `at..`.
    fn put_bytes(&mut self, at: usize, bytes: &[u8]);
}

impl ByteSlots for [u8] {
    #[inline(always)]
    fn put_byte(&mut self, at: usize, byte: u8) {
        self[at] = byte;
    }

    #[inline(always)]
    fn put_bytes(&mut self, at: usize, bytes: &[u8]) {
        self[at..at + bytes.len()].copy_from_slice(bytes);
    }
}

/// As the slice: a fixed array is a slice whose length the compiler knows,
/// so the bounds checks of constant offsets fold away.
impl<const N: usize> ByteSlots for [u8; N] {
    #[inline(always)]
    fn put_byte(&mut self, at: usize, byte: u8) {
        self.as_mut_slice().put_byte(at, byte);
    }

    #[inline(always)]
    fn put_bytes(&mut self, at: usize, bytes: &[u8]) {
        self.as_mut_slice().put_bytes(at, bytes);
    }
}

impl ByteSlots for [MaybeUninit<u8>] {
    #[inline(always)]
    fn put_byte(&mut self, at: usize, byte: u8) {
        self[at].write(byte);
    }

    #[inline(always)]
    fn put_bytes(&mut self, at: usize, bytes: &[u8]) {
        // SAFETY: `MaybeUninit<u8>` has the layout of `u8`, and the source
        // is only read through this shared slice, never written, so no
        // uninitialised byte can be stored into `bytes` (this is what
        // `<[MaybeUninit<u8>]>::write_copy_of_slice` does, which is newer
        // than this crate's minimum Rust version).
        let bytes = unsafe { &*(bytes as *const [u8] as *const [MaybeUninit<u8>]) };
        self[at..at + bytes.len()].copy_from_slice(bytes);
    }
}

/// Two decimal digits per entry, `00` to `99`.
pub(crate) const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// `10^i`.
const POWERS_OF_TEN: [u64; 20] = {
    let mut table = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
};

/// The number of decimal digits of `n` (1 for 0): `log10` from the bit
/// length (`1233 / 4096` is just above `log10 2`), corrected by one compare
/// (`n | 1` so that 0 counts as one digit; no power of ten above 1 is odd).
#[inline(always)]
pub(crate) fn decimal_digits(n: u64) -> usize {
    let bits = 64 - (n | 1).leading_zeros() as usize;
    let t = (bits * 1233) >> 12;
    let n = n | 1;
    t + 1 - usize::from(n < POWERS_OF_TEN[t])
}

/// Writes `n` in decimal at `dst[pos..]` and returns the end; `dst` must
/// have room for eight bytes past `pos` (or the digits, if more).
#[inline(always)]
pub(crate) fn put_u64<D: ByteSlots + ?Sized>(dst: &mut D, pos: usize, n: u64) -> usize {
    if n < 100_000_000 {
        let digits = eight_digits(n as u32);
        // Leading zero digits are the low zero bytes (0 keeps one digit).
        let skip = (digits.trailing_zeros() / 8).min(7);
        let word = (digits + 0x3030_3030_3030_3030) >> (8 * skip);
        dst.put_bytes(pos, &word.to_le_bytes());
        return pos + 8 - skip as usize;
    }
    put_u64_long(dst, pos, n, decimal_digits(n))
}

/// The decimal digits of `n < 10^8` in ASCII, the first in the low byte of
/// the word, and how many there are. A marker bit in the units digit (byte
/// 7, which always stays) bounds the count of leading zeros, so it needs no
/// clamp and no zero test.
#[inline(always)]
pub(crate) fn short_digits(n: u32) -> (u64, usize) {
    let digits = eight_digits(n);
    let skip = (digits | 1 << 56).trailing_zeros() / 8;
    (
        (digits + 0x3030_3030_3030_3030) >> (8 * skip),
        8 - skip as usize,
    )
}

/// [`put_u64`] for a signed value.
#[inline(always)]
pub(crate) fn put_i64(dst: &mut [u8], mut pos: usize, n: i64) -> usize {
    if n < 0 {
        dst[pos] = b'-';
        pos += 1;
    }
    put_u64(dst, pos, n.unsigned_abs())
}

/// The eight decimal digits of `n < 10^8`, zero-padded, as byte values
/// 0-9 in a little-endian word (the first digit in the low byte): split into
/// 4 + 4 digits, then 2 + 2 per half, then 1 + 1 per pair, each split one
/// multiply-shift in every lane at once (`x * 10486 >> 20` is `x / 100` for
/// `x < 10^4`, `x * 103 >> 10` is `x / 10` for `x < 100`; no lane carries
/// into the next).
///
/// A split lane `q | (x - q * d) << s` is formed as
/// `(x << s) - q * ((d << s) - 1)`: one multiply by a constant and a
/// subtraction instead of a multiply, an add, a shift and an or. Every
/// lane's result is that non-negative pair, so no borrow crosses into the
/// next lane.
#[inline(always)]
pub(crate) fn eight_digits(n: u32) -> u64 {
    let x = u64::from(n / 10_000) | u64::from(n % 10_000) << 32;
    let hundreds = ((x * 10_486) >> 20) & 0x0000_007f_0000_007f;
    let x = (x << 16) - hundreds * ((100 << 16) - 1);
    let tens = ((x * 103) >> 10) & 0x000f_000f_000f_000f;
    (x << 8) - tens * ((10 << 8) - 1)
}

/// [`eight_digits`] of two numbers at once (an edge line's two ids): on
/// x86-64 both go through one SSE2 register, sixteen-bit lanes split into
/// hundreds and then tens with one multiply each for all digits, about half
/// the instructions of two scalar conversions.
#[cfg(all(target_arch = "x86_64", not(gcf_portable)))]
#[inline(always)]
pub(crate) fn eight_digits_pair(a: u32, b: u32) -> (u64, u64) {
    use core::arch::x86_64::{
        _mm_cvtsi128_si64, _mm_mul_epu32, _mm_mulhi_epu16, _mm_mullo_epi16, _mm_or_si128,
        _mm_set1_epi16, _mm_set1_epi64x, _mm_set_epi64x, _mm_shuffle_epi32, _mm_slli_epi16,
        _mm_slli_epi64, _mm_srli_epi16, _mm_srli_epi64, _mm_sub_epi16, _mm_sub_epi32,
        _mm_unpackhi_epi64, _mm_unpacklo_epi16,
    };
    // SAFETY: SSE2 is part of the x86-64 baseline, so every intrinsic here
    // is available; none of them touches memory.
    unsafe {
        let n = _mm_set_epi64x(i64::from(b), i64::from(a));
        // n / 10^4 and n % 10^4 per 64-bit lane (the multiply-shift the
        // compiler uses for a `u32` divided by 10^4).
        let high = _mm_srli_epi64(_mm_mul_epu32(n, _mm_set1_epi64x(0xd1b7_1759)), 45);
        let low = _mm_sub_epi32(n, _mm_mul_epu32(high, _mm_set1_epi64x(10_000)));
        // Sixteen-bit lanes [a / 10^4, a % 10^4, b / 10^4, b % 10^4].
        let quads = _mm_shuffle_epi32(_mm_or_si128(high, _mm_slli_epi64(low, 16)), 0b00_00_10_00);
        // Each below 10^4: `x * 5243 >> 19` is `x / 100`.
        let hundreds = _mm_srli_epi16(_mm_mulhi_epu16(quads, _mm_set1_epi16(5243)), 3);
        let below_hundred = _mm_sub_epi16(quads, _mm_mullo_epi16(hundreds, _mm_set1_epi16(100)));
        // Eight digit pairs in order, each below 100: `x * 6554 >> 16` is `x / 10`.
        let pairs = _mm_unpacklo_epi16(hundreds, below_hundred);
        let tens = _mm_mulhi_epu16(pairs, _mm_set1_epi16(6554));
        let ones = _mm_sub_epi16(pairs, _mm_mullo_epi16(tens, _mm_set1_epi16(10)));
        // Tens in the low byte of each pair, ones in the high: a's digits
        // in the low eight bytes, first digit first, then b's.
        let digits = _mm_or_si128(tens, _mm_slli_epi16(ones, 8));
        (
            _mm_cvtsi128_si64(digits) as u64,
            _mm_cvtsi128_si64(_mm_unpackhi_epi64(digits, digits)) as u64,
        )
    }
}

/// [`eight_digits_pair`] elsewhere.
#[cfg(any(not(target_arch = "x86_64"), gcf_portable))]
#[inline(always)]
pub(crate) fn eight_digits_pair(a: u32, b: u32) -> (u64, u64) {
    (eight_digits(a), eight_digits(b))
}

/// The ASCII text of [`eight_digits`]'s word and its length: leading zero
/// digits (the low zero bytes; 0 keeps one digit) shifted out.
#[inline(always)]
pub(crate) fn ascii_digits(digits: u64) -> (u64, usize) {
    let skip = (digits.trailing_zeros() / 8).min(7);
    (
        (digits + 0x3030_3030_3030_3030) >> (8 * skip),
        8 - skip as usize,
    )
}

/// [`put_u64`] from `10^8` up: two digits per step from the end.
#[inline(never)]
fn put_u64_long<D: ByteSlots + ?Sized>(dst: &mut D, pos: usize, mut n: u64, len: usize) -> usize {
    let mut i = pos + len;
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        dst.put_bytes(i, &DIGIT_PAIRS[pair..pair + 2]);
    }
    if n >= 10 {
        let pair = n as usize * 2;
        dst.put_bytes(pos, &DIGIT_PAIRS[pair..pair + 2]);
    } else {
        dst.put_byte(pos, b'0' + n as u8);
    }
    pos + len
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    #[test]
    fn digits_match_itoa() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut values: Vec<i64> = vec![0, 1, -1, i64::MIN, i64::MAX, i64::MIN + 1];
        let mut p = 1i64;
        for _ in 0..19 {
            values.extend([p - 1, p, p + 1, -p, -p + 1, -p - 1]);
            p = p.saturating_mul(10);
        }
        // Fewer under Miri, which interprets every instruction.
        let (random, step) = if cfg!(miri) {
            (500, 1_000_003)
        } else {
            (200_000, 997)
        };
        for _ in 0..random {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push((x as i64) >> (x % 64));
        }
        let mut dst = [0u8; 32];
        for n in values {
            let end = put_i64(&mut dst, 2, n);
            assert_eq!(
                &dst[2..end],
                itoa::Buffer::new().format(n).as_bytes(),
                "{n}"
            );
            let u = n as u64;
            let end = put_u64(&mut dst, 3, u);
            assert_eq!(
                &dst[3..end],
                itoa::Buffer::new().format(u).as_bytes(),
                "{u}"
            );
            assert_eq!(decimal_digits(u), end - 3, "{u}");
        }
        assert_eq!(decimal_digits(u64::MAX), 20);
        // The branch-free eight-digit path over its whole range, sampled.
        for n in (0..random)
            .chain((0..100_000_000).step_by(step))
            .chain(99_999_990..100_000_010)
        {
            let end = put_u64(&mut dst, 0, n);
            assert_eq!(&dst[..end], itoa::Buffer::new().format(n).as_bytes(), "{n}");
            if n < 100_000_000 {
                let (word, len) = short_digits(n as u32);
                assert_eq!(
                    &word.to_le_bytes()[..len],
                    itoa::Buffer::new().format(n).as_bytes(),
                    "{n}"
                );
            }
        }
    }

    #[test]
    fn digit_pairs_match_one_at_a_time() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut values: Vec<u32> = vec![0, 1, 9, 10, 99, 100, 9_999, 10_000, 99_999_999];
        for _ in 0..if cfg!(miri) { 200 } else { 200_000 } {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push((x % 100_000_000) as u32 >> (x >> 60));
        }
        for pair in values.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            assert_eq!(
                eight_digits_pair(a, b),
                (eight_digits(a), eight_digits(b)),
                "{a} {b}"
            );
            let (word, len) = ascii_digits(eight_digits(a));
            assert_eq!(
                &word.to_le_bytes()[..len],
                itoa::Buffer::new().format(a).as_bytes()
            );
        }
    }
}
