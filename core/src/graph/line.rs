//! Line assembly for the graph writers.
//!
//! A symbol line (`@12 fn pkg.Server.Handle 0.78 lsp_resolved`) or an edge
//! line (`@4<@12 calls`) is built in place, in output memory known to have
//! room for the whole line, instead of as seven to ten `write_bytes` calls
//! that each check capacity and call `memcpy` for a few bytes. Three things
//! make a line cheap:
//!
//! - [`OutputLines`] hands out a window with room for the line plus [`SLACK`]
//!   bytes, one capacity check per line;
//! - the short strings a payload repeats on every line (kind abbreviations,
//!   provenances, edge types) are kept as [`Token`]s padded to
//!   [`TOKEN_WIDTH`] bytes, so copying one is a fixed-size copy (two vector
//!   moves) that may spill into the slack, which the next line overwrites;
//! - ids and scores are written digit pair by digit pair straight into the
//!   window ([`put_u64`], [`put_score`]).
//!
//! The output is byte for byte what the piecewise writers produce; the
//! tests below compare both on many values.

use alloc::vec::Vec;

use core::mem::MaybeUninit;

pub(crate) use crate::digits::put_u64;
use crate::digits::{ByteSlots, DIGIT_PAIRS};
use crate::error::Error;
use crate::number::hundredths_half_even_narrow;
use crate::sink::Sink;

/// Tokens up to this long are copied as one fixed-width block.
pub(crate) const TOKEN_WIDTH: usize = 32;

/// Bytes a window always has beyond the line asked for: a fixed-width token
/// copy writes up to [`TOKEN_WIDTH`] bytes whatever the token's length.
pub(crate) const SLACK: usize = TOKEN_WIDTH;

/// Longest decimal `u64`; [`put_u64`] also needs eight bytes of room,
/// which [`SLACK`] covers.
pub(crate) const MAX_DIGITS: usize = 20;

/// Longest score [`put_score`] writes: a sign, the digits of `u64::MAX / 100`
/// (18), the point and two decimals. Larger scores take [`put_score`]'s `None`.
pub(crate) const MAX_SCORE: usize = 1 + 18 + 1 + 2;

/// A short string a writer copies onto many lines: its bytes, and the same
/// bytes zero-padded to [`TOKEN_WIDTH`] when they fit.
#[derive(Clone, Copy)]
pub(crate) struct Token<'a> {
    /// The text. When `padded` holds it, only its length is read: a token
    /// made by [`Token::owned`] has zero bytes of that length here.
    text: &'a [u8],
    /// The text padded, when it fits.
    padded: Option<Padded>,
}

/// Zero bytes, whose prefixes stand in for the text of an owned token.
static ZEROS: [u8; TOKEN_WIDTH] = [0; TOKEN_WIDTH];

impl<'a> Token<'a> {
    /// A token for `text` (any length; only short ones get the fast copy).
    pub(crate) fn new(text: &'a str) -> Token<'a> {
        Token::from_bytes(text.as_bytes())
    }

    /// A token for UTF-8 `text` the caller assembled.
    pub(crate) fn from_bytes(text: &'a [u8]) -> Token<'a> {
        Token {
            text,
            padded: Padded::new(text),
        }
    }

    /// The same token borrowing nothing, when it is short enough to be
    /// held padded (an encoder keeps those between calls).
    pub(crate) fn owned(&self) -> Option<Token<'static>> {
        let padded = self.padded?;
        Some(Token {
            text: ZEROS.get(..self.text.len())?,
            padded: Some(padded),
        })
    }

    /// The token's length.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.text.len()
    }

    /// Copies the token to `out[at..]` and returns the end. `out` must have
    /// room for the token plus [`SLACK`] bytes.
    #[inline(always)]
    pub(crate) fn put<D: ByteSlots + ?Sized>(&self, out: &mut D, at: usize) -> usize {
        match &self.padded {
            Some(padded) => padded.put(out, at),
            None => put(out, at, self.text),
        }
    }
}

/// A short string, zero-padded to [`TOKEN_WIDTH`], owned.
#[derive(Clone, Copy)]
pub(crate) struct Padded {
    bytes: [u8; TOKEN_WIDTH],
    len: u8,
}

impl Padded {
    const EMPTY: Padded = Padded {
        bytes: [0; TOKEN_WIDTH],
        len: 0,
    };

    /// `text` padded; `None` when it is longer than [`TOKEN_WIDTH`].
    #[inline]
    fn new(text: &[u8]) -> Option<Padded> {
        let mut bytes = [0u8; TOKEN_WIDTH];
        bytes.get_mut(..text.len())?.copy_from_slice(text);
        Some(Padded {
            bytes,
            len: text.len() as u8,
        })
    }

    /// Whether the text is `bytes` (`1..=TOKEN_WIDTH` long), whose
    /// [`token_key`] is `key`: for up to sixteen bytes the key is the whole
    /// text, so one length and two word compares decide.
    #[inline(always)]
    fn holds_key(&self, bytes: &[u8], key: (u64, u64)) -> bool {
        let n = bytes.len();
        if n != self.len as usize || token_key(&self.bytes[..n]) != key {
            return false;
        }
        n <= 16 || self.bytes[8..n - 8] == bytes[8..n - 8]
    }

    /// The length of the text.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    /// Copies the text to `out[at..]` and returns the end; `out` must have
    /// room for [`TOKEN_WIDTH`] bytes.
    #[inline(always)]
    pub(crate) fn put<D: ByteSlots + ?Sized>(&self, out: &mut D, at: usize) -> usize {
        out.put_bytes(at, &self.bytes);
        at + self.len as usize
    }
}

/// The last few short tokens a streaming writer accepted, by content, with
/// what it writes for each (a kind's abbreviation, or the token itself).
///
/// A stream's kinds, provenances and edge types are a handful of values
/// repeated on every line: remembering the checked ones skips the token
/// check and the kind lookup for nearly every line. Entries are compared by
/// content, never by address: a caller may reuse one buffer for every
/// token. Fixed size, so a stream of ever-new tokens costs no memory.
pub(crate) struct ShortTokens {
    /// Pairs of ways: a token lives in `2 * set` or `2 * set + 1`, the more
    /// recently inserted first.
    slots: [(Padded, Padded); 2 * SETS],
}

/// Sets of [`ShortTokens`]; with two ways each, a stream's sixteen kinds
/// find room however their hashes fall.
const SETS: usize = 32;

impl ShortTokens {
    pub(crate) const fn new() -> ShortTokens {
        ShortTokens {
            slots: [(Padded::EMPTY, Padded::EMPTY); 2 * SETS],
        }
    }

    /// What is written for `text`: remembered, or `accept(text)` (which
    /// checks it and returns the text to write) remembered now. Tokens
    /// longer than [`TOKEN_WIDTH`] are accepted every time, not remembered.
    #[inline]
    pub(crate) fn get<'s, 't>(
        &'s mut self,
        text: &'t str,
        accept: impl FnOnce(&'t str) -> Result<&'t str, Error>,
    ) -> Result<Written<'s, 't>, Error> {
        let bytes = text.as_bytes();
        if bytes.is_empty() || bytes.len() > TOKEN_WIDTH {
            return accept(text).map(Written::Long);
        }
        // The first and the last word (which tell a stream's kinds,
        // provenances and edge types apart) pick the set, and compare a
        // token of up to sixteen bytes whole.
        let key = token_key(bytes);
        let mixed = key.0 ^ key.1.rotate_left(29) ^ bytes.len() as u64;
        let set = 2 * (fold_hash(mixed) as usize % SETS);
        if self.slots[set].0.holds_key(bytes, key) {
            return Ok(Written::Short(&self.slots[set].1));
        }
        if self.slots[set + 1].0.holds_key(bytes, key) {
            return Ok(Written::Short(&self.slots[set + 1].1));
        }
        self.insert(text, set, accept)
    }

    #[cold]
    #[inline(never)]
    fn insert<'s, 't>(
        &'s mut self,
        text: &'t str,
        set: usize,
        accept: impl FnOnce(&'t str) -> Result<&'t str, Error>,
    ) -> Result<Written<'s, 't>, Error> {
        let written = accept(text)?;
        let (Some(seen), Some(padded)) = (
            Padded::new(text.as_bytes()),
            Padded::new(written.as_bytes()),
        ) else {
            return Ok(Written::Long(written));
        };
        self.slots[set + 1] = self.slots[set];
        self.slots[set] = (seen, padded);
        Ok(Written::Short(&self.slots[set].1))
    }
}

/// The first and the last word of a non-empty `bytes` (eight bytes from
/// eight on, four below, the bytes themselves below four), overlapping when
/// shorter than two words: two loads, and the whole text up to sixteen bytes.
#[inline(always)]
fn token_key(bytes: &[u8]) -> (u64, u64) {
    let n = bytes.len();
    if n >= 8 {
        let word = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(w)
        };
        (word(0), word(n - 8))
    } else if n >= 4 {
        let half = |at: usize| {
            let mut w = [0u8; 4];
            w.copy_from_slice(&bytes[at..at + 4]);
            u64::from(u32::from_le_bytes(w))
        };
        (half(0), half(n - 4))
    } else {
        let byte = |at: usize| u64::from(bytes.get(at).copied().unwrap_or(0));
        (
            byte(0) | byte(n / 2) << 8 | byte(n.saturating_sub(1)) << 16,
            0,
        )
    }
}

/// One multiply by the golden ratio with its high half folded onto the low
/// one: cheap (the lookup runs for every token of every line), and enough to
/// give each of the spec's sixteen kinds a set of its own, where the top bits
/// of the product alone put three of them in one set and made them evict
/// each other.
#[inline(always)]
fn fold_hash(key: u64) -> u64 {
    let h = key.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^ (h >> 32)
}

/// What a streaming writer writes for a token.
#[derive(Clone, Copy)]
pub(crate) enum Written<'s, 't> {
    /// A short token, copied as one fixed-width block.
    Short(&'s Padded),
    /// Any other.
    Long(&'t str),
}

impl Written<'_, '_> {
    /// The length of the text.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        match self {
            Written::Short(p) => p.len(),
            Written::Long(s) => s.len(),
        }
    }

    /// Copies the text to `out[at..]` and returns the end; `out` must have
    /// room for the text plus [`SLACK`] bytes.
    #[inline(always)]
    pub(crate) fn put<D: ByteSlots + ?Sized>(&self, out: &mut D, at: usize) -> usize {
        match self {
            Written::Short(p) => p.put(out, at),
            Written::Long(s) => put(out, at, s.as_bytes()),
        }
    }
}

/// Copies `bytes` to `out[at..]` and returns the end.
#[inline(always)]
pub(crate) fn put<D: ByteSlots + ?Sized>(out: &mut D, at: usize, bytes: &[u8]) -> usize {
    out.put_bytes(at, bytes);
    at + bytes.len()
}

/// [`put`] for text of any length that is usually a few dozen bytes (a
/// qualified name): copied in 16-byte blocks, the last one overlapping the
/// one before, instead of a call to `memcpy` with its size dispatch.
#[inline(always)]
pub(crate) fn put_text<D: ByteSlots + ?Sized>(out: &mut D, at: usize, bytes: &[u8]) -> usize {
    let n = bytes.len();
    if n < 16 {
        return put(out, at, bytes);
    }
    let mut i = 0;
    while i + 16 < n {
        out.put_bytes(at + i, &bytes[i..i + 16]);
        i += 16;
    }
    out.put_bytes(at + n - 16, &bytes[n - 16..]);
    at + n
}

/// Writes a score as `[-]DIGITS.DD`, rounded half to even on its exact
/// binary value (spec §5), and returns the end; `None` when the score is
/// too large for this path (at least `2^56`), which
/// [`NumberBuffer::format_score`](crate::number::NumberBuffer::format_score)
/// handles. `out` must have room for [`MAX_SCORE`] bytes; `score` must be
/// finite.
#[inline(always)]
pub(crate) fn put_score<D: ByteSlots + ?Sized>(
    out: &mut D,
    at: usize,
    score: f64,
) -> Option<usize> {
    let hundredths = hundredths_half_even_narrow(score.abs())?;
    let mut at = at;
    if score.is_sign_negative() {
        out.put_byte(at, b'-');
        at += 1;
    }
    let whole = hundredths / 100;
    let cents = (hundredths % 100) as usize * 2;
    // Scores are mostly in [0, 10): one digit, no digit count.
    at = if whole < 10 {
        out.put_byte(at, b'0' + whole as u8);
        at + 1
    } else {
        put_u64(out, at, whole)
    };
    out.put_byte(at, b'.');
    out.put_bytes(at + 1, &DIGIT_PAIRS[cents..cents + 2]);
    Some(at + 3)
}

/// The decimal text of the ids `0..n`, for encoders that write each id
/// several times (on its symbol line, and as the source and the target of
/// its edges): writing one is an 8-byte copy instead of a digit loop.
///
/// Each entry holds up to seven digits in its low bytes, first digit in the
/// lowest (they are stored as little-endian bytes, see
/// [`put`](IdTexts::put)), and the digit count in its top byte.
pub(crate) struct IdTexts(Vec<u64>);

/// Ids below this have at most seven digits.
const ID_TEXTS_MAX: usize = 10_000_000;

impl IdTexts {
    /// The texts of `0..n`; `None` when `n` is too large for seven digits.
    #[cfg(test)]
    pub(crate) fn sequential(n: usize) -> Option<IdTexts> {
        IdTexts::sequential_in(n, Vec::new())
    }

    /// [`sequential`](Self::sequential) in `texts` (empty; a buffer to reuse).
    pub(crate) fn sequential_in(n: usize, mut texts: Vec<u64>) -> Option<IdTexts> {
        if n > ID_TEXTS_MAX {
            return None;
        }
        // Ids come in decades that differ only in their last digit and have
        // one digit count (`10 * k` to `10 * k + 9`): each decade's first
        // text is converted, the other nine add their last digit to it.
        texts.clear();
        texts.reserve(n.next_multiple_of(10));
        for first in (0..n as u32).step_by(10) {
            // The id's eight digits at once; its leading zeros are the low
            // bytes (at least one, as ids have at most seven digits),
            // shifted out, which leaves the top byte free for the count.
            let digits = crate::digits::eight_digits(first);
            let skip = (digits.trailing_zeros() / 8).clamp(1, 7);
            let text = (digits + 0x3030_3030_3030_3030) >> (8 * skip);
            let text = text | (u64::from(8 - skip) << 56);
            let last_digit = 8 * (7 - skip);
            // The decade on the stack, then one copy: a push per text checked
            // the capacity each time (most of a one-symbol payload's table).
            let decade: [u64; 10] =
                core::array::from_fn(|digit| text + ((digit as u64) << last_digit));
            texts.extend_from_slice(&decade);
        }
        texts.truncate(n);
        Some(IdTexts(texts))
    }

    /// The buffer, for reuse.
    pub(crate) fn into_vec(self) -> Vec<u64> {
        self.0
    }

    /// Writes the text of `id` (below the `n` it was built for) to
    /// `out[at..]` and returns the end; `out` must have room for eight bytes.
    #[inline(always)]
    pub(crate) fn put<D: ByteSlots + ?Sized>(&self, out: &mut D, at: usize, id: u32) -> usize {
        let packed = self.0[id as usize];
        out.put_bytes(at, &packed.to_le_bytes());
        at + (packed >> 56) as usize
    }

    /// Starts loading the text of `id`.
    #[inline(always)]
    pub(crate) fn prefetch(&self, id: u32) {
        if let Some(packed) = self.0.get(id as usize) {
            crate::hint::prefetch(packed);
        }
    }
}

/// Size of the chunk an [`OutputLines`] writing to a sink fills before handing it
/// over: large enough that the sink sees few calls, small enough to stay in
/// the CPU's cache.
const CHUNK: usize = 32 * 1024;

/// Where assembled lines go: a growing buffer that becomes the output, or a
/// fixed chunk handed to a [`Sink`] whenever it fills.
///
/// `buf[..len]` is the output so far; lines are assembled in the buffer's
/// spare capacity, which is never zeroed (zeroing the output a chunk ahead
/// of the lines was about 4 % of a graph encode's time, 9 % of its
/// instructions). The window a writer gets is that uninitialised memory,
/// written through [`ByteSlots`] stores, which only store initialised bytes
/// and are bounds checked; [`advance`](Self::advance) is `unsafe` because
/// the writer vouches that it wrote every byte it commits.
pub(crate) struct OutputLines<'k> {
    buf: Vec<u8>,
    sink: Option<&'k mut dyn Sink>,
}

impl OutputLines<'static> {
    /// Lines that become the output, with room reserved for about
    /// `len_hint` bytes.
    pub(crate) fn owned(len_hint: usize) -> OutputLines<'static> {
        OutputLines {
            buf: Vec::with_capacity(len_hint.saturating_add(SLACK)),
            sink: None,
        }
    }
}

impl<'k> OutputLines<'k> {
    /// Lines handed to `sink` a chunk at a time.
    pub(crate) fn to_sink(sink: &'k mut dyn Sink) -> OutputLines<'k> {
        OutputLines {
            buf: Vec::with_capacity(CHUNK + SLACK),
            sink: Some(sink),
        }
    }

    /// The free part of the buffer, with room for at least `max` bytes plus
    /// [`SLACK`]; write into it from index 0, then [`advance`](Self::advance).
    #[inline(always)]
    pub(crate) fn window(&mut self, max: usize) -> Result<&mut [MaybeUninit<u8>], Error> {
        if self.buf.capacity() - self.buf.len() < max.saturating_add(SLACK) {
            self.make_room(max)?;
        }
        Ok(self.buf.spare_capacity_mut())
    }

    /// Commits `n` bytes written at the start of the last window.
    ///
    /// # Safety
    ///
    /// Every byte of `window[..n]` of the last [`window`](Self::window) was
    /// written since. (`n` is then within the window: the stores are bounds
    /// checked.)
    #[inline(always)]
    pub(crate) unsafe fn advance(&mut self, n: usize) {
        debug_assert!(n <= self.buf.capacity() - self.buf.len());
        // SAFETY: the caller wrote `n` bytes from the old length on, within
        // the capacity, so they are initialised.
        unsafe { self.buf.set_len(self.buf.len() + n) };
    }

    /// Writes `bytes`.
    #[inline]
    pub(crate) fn put(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let window = self.window(bytes.len())?;
        window.put_bytes(0, bytes);
        // SAFETY: `bytes` was just stored at the start of the window.
        unsafe { self.advance(bytes.len()) };
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn make_room(&mut self, max: usize) -> Result<(), Error> {
        let need = max
            .checked_add(SLACK)
            .ok_or_else(|| Error::from(crate::sink::SinkError))?;
        if let Some(sink) = &mut self.sink {
            if !self.buf.is_empty() {
                sink.write_bytes(&self.buf)?;
                self.buf.clear();
            }
        }
        // Past the reserved capacity `Vec` grows by doubling as usual.
        self.buf.reserve(need);
        Ok(())
    }

    /// Hands the rest to the sink, or returns the output.
    pub(crate) fn finish(mut self) -> Result<Vec<u8>, Error> {
        match self.sink.take() {
            Some(sink) => {
                if !self.buf.is_empty() {
                    sink.write_bytes(&self.buf)?;
                }
                Ok(Vec::new())
            }
            None => Ok(self.buf),
        }
    }
}

/// A `Sink` that the encoders can write their rare, irregular parts
/// (headers, locations) through with the usual helpers.
impl Sink for OutputLines<'_> {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), crate::sink::SinkError> {
        self.put(bytes).map_err(|_| crate::sink::SinkError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::NumberBuffer;
    use alloc::string::String;
    use alloc::vec;

    #[test]
    fn an_owned_token_writes_what_its_original_writes() {
        let text: String = (0..40u8).map(|b| char::from(b'a' + b % 26)).collect();
        for len in 0..=text.len() {
            let token = Token::new(&text[..len]);
            let owned = token.owned();
            assert_eq!(owned.is_some(), len <= TOKEN_WIDTH, "{len}");
            let Some(owned) = owned else { continue };
            assert_eq!(owned.len(), len);
            let (mut a, mut b) = ([b'#'; 80], [b'#'; 80]);
            let end = token.put(&mut a[..], 2);
            assert_eq!(owned.put(&mut b[..], 2), end);
            assert_eq!(&a[..end], &b[..end]);
            assert_eq!(&b[2..end], &text.as_bytes()[..len]);
        }
    }

    #[test]
    fn put_text_copies_every_length() {
        let text: Vec<u8> = (0..100u8).map(|b| b'!' + b % 90).collect();
        for len in 0..=text.len() {
            let mut out = [b'#'; 140];
            let end = put_text(&mut out, 3, &text[..len]);
            assert_eq!(end, 3 + len);
            assert_eq!(&out[3..end], &text[..len]);
            assert!(out[..3].iter().chain(&out[end..]).all(|&b| b == b'#'));
        }
    }

    #[test]
    fn id_texts_match_itoa() {
        let n = if cfg!(miri) { 1_234 } else { 1_234_567 };
        let texts = IdTexts::sequential(n).unwrap();
        assert_eq!(texts.0.len(), n);
        let mut out = [b'#'; 24];
        for id in 0..n as u32 {
            let end = texts.put(&mut out, 2, id);
            assert_eq!(
                &out[2..end],
                itoa::Buffer::new().format(id).as_bytes(),
                "{id}"
            );
        }
        for n in [0, 1, 9, 10, 11, 99, 101] {
            assert_eq!(IdTexts::sequential(n).unwrap().0.len(), n);
        }
        if !cfg!(miri) {
            let last = IdTexts::sequential(ID_TEXTS_MAX).unwrap();
            let end = last.put(&mut out, 0, ID_TEXTS_MAX as u32 - 1);
            assert_eq!(&out[..end], b"9999999");
        }
        assert!(IdTexts::sequential(ID_TEXTS_MAX + 1).is_none());
    }

    #[test]
    fn scores_match_the_general_formatter() {
        let mut numbers = NumberBuffer::new();
        let mut samples = vec![
            0.0,
            -0.0,
            0.005,
            0.015,
            0.025,
            0.125,
            0.135,
            0.9999,
            0.995,
            1.0,
            1.005,
            2.675,
            99.995,
            1e-300,
            -1e-300,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            0.5,
            -0.5,
            1e15,
            123_456_789.125,
            (1u64 << 56) as f64,
            (1u64 << 57) as f64 - 64.0,
            f64::from_bits((1u64 << 57) as f64 as u64 - 1),
        ];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Uniform [0, 1), uniform bit patterns, and short decimals.
            samples.push((x >> 11) as f64 / (1u64 << 53) as f64);
            let bits = f64::from_bits(x);
            if bits.is_finite() {
                samples.push(bits);
            }
            samples.push((x % 100_000) as f64 / 1000.0 - 50.0);
        }
        let mut out = [0u8; 64];
        let mut fast = 0;
        for score in samples {
            let Ok(expected) = numbers.format_score(score).map(String::from) else {
                // Too large for two decimals anywhere: the fast path declines too.
                assert_eq!(put_score(&mut out, 1, score), None, "{score:e}");
                continue;
            };
            match put_score(&mut out, 1, score) {
                Some(end) => {
                    fast += 1;
                    assert_eq!(&out[1..end], expected.as_bytes(), "{score:e}");
                    assert!(end - 1 <= MAX_SCORE);
                }
                None => assert!(score.abs() >= (1u64 << 56) as f64, "{score:e}"),
            }
        }
        assert!(fast > 400_000);
        assert_eq!(put_score(&mut out, 0, f64::NAN), None);
        assert_eq!(put_score(&mut out, 0, f64::INFINITY), None);
    }

    #[test]
    fn short_tokens_remember_by_content_and_check_each_new_one() {
        let mut tokens = ShortTokens::new();
        let mut checks = 0;
        fn accept<'t>(t: &'t str, checks: &mut i32) -> Result<&'t str, Error> {
            *checks += 1;
            if t.is_empty() || t.contains(' ') {
                Err(Error::new(crate::ErrorKind::InvalidInput, "bad"))
            } else {
                Ok(if t == "function" { "fn" } else { t })
            }
        }
        let text = |w: Written<'_, '_>| {
            let mut out = [0u8; 128];
            let end = w.put(&mut out, 1);
            assert_eq!(end - 1, w.len());
            out[1..end].to_vec()
        };
        let mut reused = String::from("function");
        for round in 0..3 {
            let got = tokens.get(&reused, |t| accept(t, &mut checks)).unwrap();
            assert!(matches!(got, Written::Short(_)));
            assert_eq!(text(got), b"fn");
            assert_eq!(checks, 1, "round {round}");
        }
        // Same buffer, same length, new content: not the remembered token.
        reused.clear();
        reused.push_str("fun tion");
        assert!(tokens.get(&reused, |t| accept(t, &mut checks)).is_err());
        reused.clear();
        reused.push_str("funcxion");
        let got = tokens.get(&reused, |t| accept(t, &mut checks)).unwrap();
        assert_eq!(text(got), b"funcxion");
        // Empty and long tokens are checked every time and never remembered.
        let long = "y".repeat(TOKEN_WIDTH + 1);
        let before = checks;
        for _ in 0..2 {
            let got = tokens.get(&long, |t| accept(t, &mut checks)).unwrap();
            assert!(matches!(got, Written::Long(_)));
            assert_eq!(text(got), long.as_bytes());
            assert!(tokens.get("", |t| accept(t, &mut checks)).is_err());
        }
        let spaced = "z ".repeat(TOKEN_WIDTH);
        assert!(tokens.get(&spaced, |t| accept(t, &mut checks)).is_err());
        assert_eq!(checks, before + 5);
        // Many distinct tokens evict each other without growing anything.
        for i in 0..1000 {
            let t = alloc::format!("t{i}");
            let got = tokens.get(&t, |t| accept(t, &mut checks)).unwrap();
            assert_eq!(text(got), t.as_bytes());
        }
    }

    #[test]
    fn every_kind_of_the_spec_stays_remembered() {
        // A stream's kinds, drawn at random: each is checked once, however
        // the set hash places them (a weak hash once made three share a set).
        let kinds: Vec<&str> = crate::graph::kind::KINDS.iter().map(|k| k.0).collect();
        let mut tokens = ShortTokens::new();
        let mut checks = 0;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let kind = kinds[(x % kinds.len() as u64) as usize];
            let written = tokens
                .get(kind, |k| {
                    checks += 1;
                    Ok(k)
                })
                .unwrap();
            assert_eq!(written.len(), kind.len());
        }
        assert_eq!(checks, kinds.len());
    }

    #[test]
    fn padded_comparison_agrees_with_slice_equality() {
        let base: Vec<u8> = (0..TOKEN_WIDTH as u8).map(|i| b'a' + i % 26).collect();
        let holds = |padded: &Padded, bytes: &[u8]| padded.holds_key(bytes, token_key(bytes));
        for len in 1..=TOKEN_WIDTH {
            let padded = Padded::new(&base[..len]).unwrap();
            assert!(holds(&padded, &base[..len]));
            for other_len in 1..=TOKEN_WIDTH {
                assert_eq!(holds(&padded, &base[..other_len]), other_len == len);
            }
            for pos in 0..len {
                let mut changed = base[..len].to_vec();
                changed[pos] ^= 0x20;
                assert!(!holds(&padded, &changed), "{len} {pos}");
            }
        }
    }

    #[test]
    fn tokens_copy_exactly_whatever_their_length() {
        let long = "x".repeat(TOKEN_WIDTH + 5);
        for text in [
            "",
            "a",
            "calls",
            "lsp_resolved",
            &long[..TOKEN_WIDTH],
            &long,
        ] {
            let token = Token::new(text);
            let mut out = [b'#'; 2 * TOKEN_WIDTH + 16];
            let end = token.put(&mut out, 2);
            assert_eq!(&out[2..end], text.as_bytes());
            assert_eq!(token.len(), text.len());
            assert_eq!(&out[..2], b"##");
        }
    }

    #[test]
    fn lines_grow_or_flush_and_keep_every_byte() {
        // Owned: grows past a tiny hint.
        let mut lines = OutputLines::owned(4);
        let mut expected = Vec::new();
        let count = if cfg!(miri) { 300 } else { 5_000u64 };
        for i in 0..count {
            let w = lines.window(MAX_DIGITS + 1).unwrap();
            let end = put_u64(w, 0, i * 7919);
            w[end].write(b'\n');
            // SAFETY: the digits and the newline were stored from 0 on.
            unsafe { lines.advance(end + 1) };
            expected.extend_from_slice(itoa::Buffer::new().format(i * 7919).as_bytes());
            expected.push(b'\n');
        }
        lines.put(&[b'z'; 100_000]).unwrap();
        expected.extend_from_slice(&[b'z'; 100_000]);
        assert_eq!(lines.finish().unwrap(), expected);

        // Sink: flushed in chunks, large writes included, nothing lost.
        let mut got = Vec::new();
        let mut calls = 0;
        {
            let mut sink = crate::FnSink(|b: &[u8]| {
                calls += 1;
                got.extend_from_slice(b);
                Ok(())
            });
            let mut lines = OutputLines::to_sink(&mut sink);
            for chunk in expected.chunks(997) {
                lines.put(chunk).unwrap();
            }
            assert!(lines.finish().unwrap().is_empty());
        }
        assert_eq!(got, expected);
        assert!(calls > 1 && calls < 20, "{calls} sink calls");

        // A failing sink is an error, not a panic.
        let mut failing = crate::FnSink(|_: &[u8]| Err(crate::SinkError));
        let mut lines = OutputLines::to_sink(&mut failing);
        let mut result = Ok(());
        for _ in 0..100 {
            result = result.and(lines.put(&[b'a'; 1000]));
        }
        assert!(result.is_err());
    }

    /// Every writer stores into an `OutputLines` window (uninitialised memory)
    /// exactly what it stores into initialised bytes; reading the output
    /// back (as Miri does) finds every committed byte written.
    #[test]
    fn writers_fill_uninitialised_windows_like_initialised_ones() {
        let name = "pkg.Server.HandleRequestWithAVeryLongName";
        let kind = Token::new("fn");
        let long = Token::new("provenance_longer_than_the_token_width_x");
        let texts = IdTexts::sequential(1_000).unwrap();
        let mut expected = Vec::new();
        let mut got: Vec<u8> = Vec::new();
        let mut owned = OutputLines::owned(0);
        let mut sink = &mut got;
        let mut to_sink = OutputLines::to_sink(&mut sink);
        let write = |w: &mut [MaybeUninit<u8>], i: u32, len: usize| -> usize {
            let mut at = texts.put(w, 0, i);
            at = kind.put(w, at);
            at = put_text(w, at, &name.as_bytes()[..len]);
            at = put_score(w, at, f64::from(i) * -1.37).unwrap();
            at = long.put(w, at);
            at = put_u64(w, at, u64::from(i) * 1_000_000_007);
            w.put_byte(at, b'\n');
            at + 1
        };
        let rounds = if cfg!(miri) { 40 } else { 1_000 };
        for i in 0..rounds {
            let len = i as usize % (name.len() + 1);
            let mut plain = [0u8; 200];
            let mut into_plain = [MaybeUninit::new(0u8); 200];
            let end = write(&mut into_plain, i, len);
            for (p, u) in plain.iter_mut().zip(&into_plain[..end]) {
                // SAFETY: `into_plain` was initialised with zeros.
                *p = unsafe { u.assume_init() };
            }
            expected.extend_from_slice(&plain[..end]);
            let w = owned.window(200).unwrap();
            let end = write(w, i, len);
            // SAFETY: `write` stores its pieces from 0 on, each where the
            // one before ended, up to the newline before `end`.
            unsafe { owned.advance(end) };
            let w = to_sink.window(200).unwrap();
            let end = write(w, i, len);
            // SAFETY: as above.
            unsafe { to_sink.advance(end) };
        }
        assert_eq!(owned.finish().unwrap(), expected);
        assert!(to_sink.finish().unwrap().is_empty());
        assert_eq!(got, expected);
        assert!(expected.ends_with(b"\n") && !expected.contains(&0));
    }
}
