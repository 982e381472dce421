//! Strings the JS layer sends back to back, each sliced where its length
//! says. JS knows a string's length in UTF-16 code units without reading
//! it, so the layer writes no separator (concatenating one per string
//! doubled the pieces `TextEncoder.encodeInto` flattens, most of its cost)
//! and puts the lengths among its numbers; this side slices by bytes when
//! the text is ASCII, which one pass tells, else by counting code units.
//! The packed graph payloads and packed generic values both travel so.

/// Strings sent back to back, read front to back by their lengths in
/// UTF-16 code units.
pub(crate) struct Strings<'a> {
    rest: &'a str,
    /// Every byte is ASCII: a length in code units is one in bytes.
    ascii: bool,
}

impl<'a> Strings<'a> {
    pub(crate) fn new(text: &'a str) -> Strings<'a> {
        Strings {
            rest: text,
            ascii: text.is_ascii(),
        }
    }

    /// The next string, of `units` UTF-16 code units; `None` when what is
    /// left is shorter, or would be cut inside a character. Inlined: a
    /// record's strings are short, and the call cost as much as the slice.
    #[inline]
    pub(crate) fn next(&mut self, units: f64) -> Option<&'a str> {
        let units = index(units)?;
        let end = if self.ascii {
            units
        } else {
            self.bytes_of(units)?
        };
        let (s, rest) = self.rest.split_at_checked(end)?;
        self.rest = rest;
        Some(s)
    }

    /// How many bytes of what is left hold its first `units` UTF-16 code
    /// units, or `None` when it is shorter or they end inside a character.
    fn bytes_of(&self, units: usize) -> Option<usize> {
        let mut counted = 0;
        let mut end = 0;
        for c in self.rest.chars() {
            if counted >= units {
                break;
            }
            counted += c.len_utf16();
            end += c.len_utf8();
        }
        (counted == units).then_some(end)
    }

    /// Whether every string has been read.
    pub(crate) fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }
}

/// A JS number that is a non-negative integer a `usize` holds.
///
/// Whole is tested by a round trip through `i64` (exact in the range, which
/// NaN fails), not `f64::fract`: on x86-64 without SSE4.1 that is a call to
/// libm's `trunc`, 4.5 % of a packed encode of 10,000 symbols (five numbers
/// a symbol and edge are indices). Through `u64` the round trip cost about
/// 25 instructions (x86-64 converts unsigned integers in several steps),
/// through `i64` one conversion each way: it runs for every string's length.
#[inline]
pub(crate) fn index(x: f64) -> Option<usize> {
    if !(0.0..=9_007_199_254_740_991.0).contains(&x) {
        return None;
    }
    let i = x as i64;
    if i as f64 != x {
        return None;
    }
    usize::try_from(i).ok()
}

/// A string's length as JS counts it (UTF-16 code units), as a number of
/// the packed arguments: for the builders of such arguments (tests,
/// benches, the fuzz targets).
pub fn utf16_len(s: &str) -> f64 {
    s.encode_utf16().count() as f64
}
