//! The fields of the compact forms JS sends (NUL-separated text), as
//! `str::split('\0')` yields them. Fields here are short (names, numbers),
//! where `split`'s searcher set-up per field cost more than the scan: in
//! the graph stream it was a quarter of the engine's time a symbol.

/// The first NUL in `b`, eight bytes at a time. Fields are short (keys,
/// strings of a packed value), where memchr's vector setup per call costs
/// more than this scan: a packed graph encode of 10,000 symbols, when its
/// strings were NUL-ended, went from 21.8 M to 21.2 M instructions
/// (callgrind).
pub(crate) fn find_nul(b: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(word) = b.get(i..i + 8) {
        let Ok(word) = <[u8; 8]>::try_from(word) else {
            break;
        };
        let x = u64::from_le_bytes(word);
        // A zero byte sets its high bit here; a borrow can only set bits
        // above a zero byte, so the lowest set bit is the first zero.
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            return Some(i + (zero.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b.get(i..)?.iter().position(|&c| c == 0).map(|p| i + p)
}

/// `text.split('\0')`, by a plain byte scan.
pub(crate) struct NulFields<'a> {
    rest: Option<&'a str>,
}

impl<'a> NulFields<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        NulFields { rest: Some(text) }
    }
}

impl<'a> Iterator for NulFields<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        match rest.bytes().position(|b| b == 0) {
            // NUL is ASCII, so both sides of it are on char boundaries.
            Some(i) => {
                self.rest = rest.get(i + 1..);
                rest.get(..i)
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_nul_finds_the_first_at_every_offset() {
        for len in 0..40 {
            for at in 0..=len {
                let mut b = vec![b'x'; len];
                if at < len {
                    b[at] = 0;
                    // Zeros and 0x01/0x80 bytes after the first change nothing.
                    for (k, c) in b.iter_mut().enumerate().skip(at + 1) {
                        *c = [0, 1, 0x80, 0xff][k % 4];
                    }
                }
                let want = b.iter().position(|&c| c == 0);
                assert_eq!(find_nul(&b), want, "{b:?}");
            }
        }
        assert_eq!(find_nul(&[1, 0x81, 0, 0xff, 1, 1, 1, 1, 1]), Some(2));
        assert_eq!(find_nul(&[0x80; 9]), None);
    }

    #[test]
    fn the_same_fields_as_split() {
        for text in [
            "",
            "\0",
            "a",
            "a\0",
            "\0a",
            "ab\0\0c\0",
            "é\0ü\0\0",
            "x\0yz",
        ] {
            let ours: Vec<&str> = NulFields::new(text).collect();
            let split: Vec<&str> = text.split('\0').collect();
            assert_eq!(ours, split, "{text:?}");
        }
    }
}
