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
}
