//! Where a line's delimiters are, 64 bytes at a time.
//!
//! A table row is split into cells at every `|`. Searching for the next one
//! from each cell's start read the row's bytes again per cell and cost more
//! than the rest of reading a short cell; [`Delimiters`] instead marks every
//! delimiter of a 64-byte block in one `u64` (four SSE2 compares on x86-64,
//! eight exact word tests elsewhere) and answers each cell with a bit scan.

use crate::words::{load8, HIGH_BITS};

/// The delimiters of `bytes`, found a block at a time as they are asked for.
pub(crate) struct Delimiters<'b> {
    bytes: &'b [u8],
    delim: u8,
    /// Where the block in `bits` starts.
    base: usize,
    /// Bit `i` set where `bytes[base + i]` is the delimiter.
    bits: u64,
}

impl<'b> Delimiters<'b> {
    /// A scanner of `bytes` for `delim`.
    #[inline]
    pub(crate) fn new(bytes: &'b [u8], delim: u8, from: usize) -> Delimiters<'b> {
        Delimiters {
            bytes,
            delim,
            base: from,
            bits: block(bytes, from, delim),
        }
    }

    /// The first delimiter at or after `pos`, or `bytes.len()`. Positions
    /// usually grow from call to call (each cell starts past the last
    /// delimiter); one outside the current block starts a new block there.
    #[inline(always)]
    pub(crate) fn next_from(&mut self, pos: usize) -> usize {
        let offset = pos.wrapping_sub(self.base);
        if offset >= 64 {
            self.base = pos;
            self.bits = block(self.bytes, pos, self.delim);
            return self.next_in_block(self.bits);
        }
        self.next_in_block(self.bits & (u64::MAX << offset))
    }

    #[inline(always)]
    fn next_in_block(&mut self, mut bits: u64) -> usize {
        loop {
            if bits != 0 {
                return self.base + bits.trailing_zeros() as usize;
            }
            self.base += 64;
            if self.base >= self.bytes.len() {
                return self.bytes.len();
            }
            self.bits = block(self.bytes, self.base, self.delim);
            bits = self.bits;
        }
    }
}

/// Bit `i` set where `bytes[base + i]` is `delim`, for `i < 64`: sixteen
/// bytes at a time, a line's last partial chunk read as the sixteen bytes
/// that end the line (overlapping the chunk before), so that no byte past
/// the line is read and nothing is copied.
#[inline]
fn block(bytes: &[u8], base: usize, delim: u8) -> u64 {
    let rest = bytes.get(base..).unwrap_or_default();
    let n = rest.len().min(64);
    let mut bits = 0u64;
    let mut i = 0;
    while i + 16 <= n {
        bits |= chunk_bits(rest, i, delim) << i;
        i += 16;
    }
    if i < n {
        if n >= 16 {
            // The chunk [n - 16, n) overlaps the one before by i - (n - 16).
            let at = n - 16;
            bits |= (chunk_bits(rest, at, delim) >> (i - at)) << i;
        } else if n >= 8 {
            let low = word_bits(load8(rest, 0), delim);
            let high = word_bits(load8(rest, n - 8), delim) << (n - 8);
            bits = low | high;
        } else {
            for (k, &b) in rest.iter().enumerate() {
                bits |= u64::from(b == delim) << k;
            }
        }
    }
    bits
}

/// Bit `i` set where `b[at + i]` is `delim`, for `i < 16`.
#[cfg(all(target_arch = "x86_64", not(gcf_portable)))]
#[inline(always)]
fn chunk_bits(b: &[u8], at: usize, delim: u8) -> u64 {
    use core::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x};
    // SAFETY: SSE2 is part of the x86-64 baseline; nothing here touches
    // memory (the bytes come in as two words, loaded with bounds checks).
    let lanes = unsafe {
        let x = _mm_set_epi64x(load8(b, at + 8) as i64, load8(b, at) as i64);
        _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(delim as i8)))
    };
    u64::from(lanes as u16)
}

/// The portable form: two words in general registers.
#[cfg(any(not(target_arch = "x86_64"), gcf_portable))]
#[inline(always)]
fn chunk_bits(b: &[u8], at: usize, delim: u8) -> u64 {
    word_bits(load8(b, at), delim) | word_bits(load8(b, at + 8), delim) << 8
}

/// Bit `i` set where byte `i` of `x` (little-endian) is `delim`: an exact
/// zero-byte test of `x ^ delim` (no borrow crosses a byte), its high bits
/// gathered into the low eight by one multiply.
#[inline(always)]
fn word_bits(x: u64, delim: u8) -> u64 {
    const LOW_SEVEN: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let y = x ^ (crate::words::ONES * u64::from(delim));
    // A byte's high bit ends up set exactly when the byte is zero.
    let zero = !(((y & LOW_SEVEN) + LOW_SEVEN) | y) & HIGH_BITS;
    // Bit 7 of byte k moves to bit 56 + k; the sum has no carries.
    (zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn every(bytes: &[u8], delim: u8, from: usize) -> Vec<usize> {
        let mut found = Vec::new();
        let mut d = Delimiters::new(bytes, delim, from);
        let mut pos = from;
        loop {
            let at = d.next_from(pos);
            if at >= bytes.len() {
                return found;
            }
            found.push(at);
            pos = at + 1;
        }
    }

    fn naive(bytes: &[u8], delim: u8, from: usize) -> Vec<usize> {
        (from..bytes.len()).filter(|&i| bytes[i] == delim).collect()
    }

    #[test]
    fn finds_every_delimiter_across_blocks_and_tails() {
        // Lengths around the block and word sizes, delimiters at every
        // place, including next to bytes a borrow would disturb (0x00,
        // 0x80, 0xff, the delimiter plus and minus one).
        for len in [0usize, 1, 7, 8, 15, 16, 63, 64, 65, 127, 128, 130, 200] {
            // Fewer under Miri, which interprets every SSE2 compare.
            for seed in 0..if cfg!(miri) { 2 } else { 16u64 } {
                let bytes: Vec<u8> = (0..len)
                    .map(|i| {
                        let r = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ seed;
                        [b'|', b'a', 0, 0x80, 0xff, b'|' + 1, b'|' - 1, b'|']
                            [(r >> 59) as usize % 8]
                    })
                    .collect();
                for from in [0, 1, len / 2, len.saturating_sub(1)] {
                    let from = from.min(len);
                    assert_eq!(every(&bytes, b'|', from), naive(&bytes, b'|', from));
                }
            }
        }
    }

    #[test]
    fn word_bits_marks_exactly_the_delimiter_bytes() {
        for delim in [b'|', b',', 1, 0x7f, 0x80, 0xff] {
            for k in 0..8 {
                for other in [0u8, 1, 0x7f, 0x80, 0xfe, 0xff, b'|'] {
                    let mut w = [other; 8];
                    w[k] = delim;
                    let expect: u64 = (0..8).filter(|&i| w[i] == delim).map(|i| 1 << i).sum();
                    assert_eq!(word_bits(u64::from_le_bytes(w), delim), expect);
                }
            }
        }
    }

    #[test]
    fn positions_may_jump_forward_and_back() {
        let mut line = b"a|b|c|".to_vec();
        line.extend([b'd'; 70]);
        line.extend(b"|e|");
        let bars = naive(&line, b'|', 0);
        let mut d = Delimiters::new(&line, b'|', 0);
        assert_eq!(d.next_from(0), bars[0]);
        // Further on, beyond the block (past a long quoted token).
        assert_eq!(d.next_from(70), bars[3]);
        assert_eq!(d.next_from(bars[3] + 1), bars[4]);
        assert_eq!(d.next_from(bars[4] + 1), line.len());
        // Back before the block (a caller restarting), and past the end.
        assert_eq!(d.next_from(2), bars[1]);
        assert_eq!(d.next_from(line.len() + 5), line.len());
    }
}
