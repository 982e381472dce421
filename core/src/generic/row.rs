//! Row assembly, shared by the generic profile's two writers: the streaming
//! writer ([`StreamWriter`](super::StreamWriter)) and the buffered encoder
//! ([`encode`](super::encode())) lay out a table row (indentation, the
//! optional keyed-map key, the cells with their separators and the LF) with
//! this one code, [`assemble_row`], so both write the same bytes for the same
//! row and a change to the row layout is made once.
//!
//! A row is laid out straight into the output buffer's free tail through raw
//! stores ([`RowTail`]): the room is checked once per cell (against
//! [`CELL_ROOM`]) and once per string (against its length) instead of once
//! per store, strings are copied and classified bare or quoted in the same
//! pass, and numbers are formatted in place. When the tail runs out the
//! caller is told how far the row got ([`Assembled::Stopped`]) and finishes
//! it by its own general path; nothing of the row is published until it is
//! complete.

use alloc::format;
use core::marker::PhantomData;

use crate::digits::put_i64 as put_i64_checked;
use crate::digits::{eight_digits, put_u64, short_digits, DIGIT_PAIRS};
use crate::error::{Error, ErrorKind, Result};
use crate::number::{short_decimal_parts, NumberBuffer, NUMBER_BUFFER_LEN};
use crate::sink::{Sink, SinkError};
use crate::text::write_quoted;
use crate::words::{bytes_below, bytes_equal, load4, load8, HIGH_BITS, ONES};

use super::cell::Cell;
use super::scalar::needs_quote;
use super::Value;

/// Rejects what could only fail half-way through a line.
#[inline]
pub(super) fn check_cell(cell: Cell<'_>) -> Result<()> {
    match cell {
        Cell::Float(f) if !f.is_finite() => Err(Error::new(
            ErrorKind::OutOfRange,
            format!("{f} is not a finite number; GCF numbers follow the JSON data model, so model it as a string or null"),
        )),
        _ => Ok(()),
    }
}

/// How far [`assemble_row`] got.
#[derive(Debug)]
pub(super) enum Assembled {
    /// The whole line, LF included, is the first `.0` bytes.
    Row(usize),
    /// The tail ran out of room (or a quoted string's worst case would not
    /// fit) with `.1` pieces still to write: piece 0 is the indentation and
    /// key, piece `k + 1` is cell `k`, so it stopped before piece
    /// `cells + 1 - .1` ([`Assembled::stopped_piece`]). The first `.0` bytes
    /// hold every piece before it, each cell followed by its separator.
    ///
    /// Counted from the end so that the cell loop keeps no count of its own:
    /// the source's remaining length says it.
    Stopped(usize, usize),
}

impl Assembled {
    /// The piece a row of `cells` cells stopped before, given the pieces
    /// [`Assembled::Stopped`] reports left.
    pub(super) fn stopped_piece(cells: usize, left: usize) -> usize {
        (cells + 1).saturating_sub(left)
    }
}

/// What [`assemble_row`] lays out: a streaming row's [`Cell`]s, or the
/// scalar values of a row object for the buffered encoder.
pub(super) trait RowCell<'c> {
    /// The value as a cell (only scalars are ever asked).
    fn cell(self) -> Cell<'c>;
}

impl<'c> RowCell<'c> for Cell<'c> {
    #[inline(always)]
    fn cell(self) -> Cell<'c> {
        self
    }
}

impl<'c> RowCell<'c> for &'c Cell<'c> {
    #[inline(always)]
    fn cell(self) -> Cell<'c> {
        *self
    }
}

impl<'c> RowCell<'c> for &'c Value {
    /// A container, which callers never pass, would be written `-`.
    #[inline(always)]
    fn cell(self) -> Cell<'c> {
        debug_assert!(self.is_scalar());
        Cell::from_value(self).unwrap_or(Cell::Null)
    }
}

/// The room [`assemble_row`] makes sure of before each cell: enough for any
/// cell but a string (a float's general form is at most
/// [`NUMBER_BUFFER_LEN`] bytes), its separator, and the eight-byte digit
/// and four-byte fraction stores that may reach past a number's end.
const CELL_ROOM: usize = NUMBER_BUFFER_LEN + 8;

/// The output buffer's free tail while a row is laid out in it.
///
/// Stores go through a raw pointer: each piece's room is proven once (one
/// compare per cell against [`CELL_ROOM`], one per string against its
/// length), and every store after that would otherwise repeat a bounds
/// check the compiler cannot see through (two to five instructions a
/// store). Pieces that are rare (quoted strings, negative or nine-digit
/// integers, floats outside the short-decimal form) are laid out through
/// [`RowTail::rest`], a checked slice.
struct RowTail<'a> {
    base: *mut u8,
    cap: usize,
    _tail: PhantomData<&'a mut [u8]>,
}

impl<'a> RowTail<'a> {
    #[inline(always)]
    fn new(tail: &'a mut [u8]) -> Self {
        RowTail {
            base: tail.as_mut_ptr(),
            cap: tail.len(),
            _tail: PhantomData,
        }
    }

    /// Stores `byte` at `pos`.
    ///
    /// # Safety
    /// `pos < self.cap`.
    #[inline(always)]
    unsafe fn store_byte(&mut self, pos: usize, byte: u8) {
        debug_assert!(pos < self.cap);
        // SAFETY: `base` is valid for writes of `cap` bytes for `'a` (it
        // comes from the exclusively borrowed tail), and `pos < cap`.
        unsafe { self.base.add(pos).write(byte) }
    }

    /// Stores `word` little-endian at `pos..pos + 4`.
    ///
    /// # Safety
    /// `pos + 4 <= self.cap`.
    #[inline(always)]
    unsafe fn store_u32(&mut self, pos: usize, word: u32) {
        debug_assert!(pos + 4 <= self.cap);
        // SAFETY: as in `store_byte`, with the four bytes in bounds; the
        // store is unaligned.
        unsafe {
            self.base
                .add(pos)
                .cast::<u32>()
                .write_unaligned(word.to_le())
        }
    }

    /// Stores `word` little-endian at `pos..pos + 8`.
    ///
    /// # Safety
    /// `pos + 8 <= self.cap`.
    #[inline(always)]
    unsafe fn store_word(&mut self, pos: usize, word: u64) {
        debug_assert!(pos + 8 <= self.cap);
        // SAFETY: as in `store_byte`, with the eight bytes in bounds; the
        // store is unaligned.
        unsafe {
            self.base
                .add(pos)
                .cast::<u64>()
                .write_unaligned(word.to_le())
        }
    }

    /// Copies `bytes` to `pos..`.
    ///
    /// # Safety
    /// `pos + bytes.len() <= self.cap`.
    #[inline(always)]
    unsafe fn store_bytes(&mut self, pos: usize, bytes: &[u8]) {
        debug_assert!(pos + bytes.len() <= self.cap);
        // SAFETY: as in `store_byte`, with every byte in bounds; `bytes` is
        // borrowed shared, so it cannot overlap the exclusively borrowed tail.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.base.add(pos), bytes.len()) }
    }

    /// The tail from `pos` (clamped to its end) as a checked slice.
    #[inline(always)]
    fn rest(&mut self, pos: usize) -> &mut [u8] {
        let pos = pos.min(self.cap);
        // SAFETY: `base..base + cap` is the tail borrowed for `'a`, and this
        // slice, borrowed from `self`, is its part from `pos <= cap`; no
        // store goes through `base` while the slice lives.
        unsafe { core::slice::from_raw_parts_mut(self.base.add(pos), self.cap - pos) }
    }
}

/// Lays out indentation, the optional key and `cells` (each followed by `|`,
/// the last one's turned into the LF) at the start of `dst`, checking the
/// room left before each piece and each cell as it comes. A non-finite
/// float is refused with [`check_cell`]'s error (nothing is published).
///
/// Inlined into its caller: the row's `Result<Assembled>` then stays in
/// registers instead of going through memory, the call's register saves go,
/// and a row without a key (`row`) is laid out with the key code folded
/// away; together about 65 instructions per employee row.
///
/// `cells` is any exact-size source of cells: a slice's (the streaming
/// rows) or a row object's values (the buffered encoder's scalar rows), so
/// both writers lay out rows with the same code.
#[inline(always)]
pub(super) fn assemble_row<'c>(
    dst: &mut [u8],
    numbers: &mut NumberBuffer,
    indent: usize,
    key: Option<&str>,
    cells: impl ExactSizeIterator<Item = impl RowCell<'c>>,
) -> Result<Assembled> {
    // No overflow: a `str` is at most `isize::MAX` bytes.
    let key_len = key.map_or(0, str::len);
    if key_len + indent + CELL_ROOM > dst.len() {
        return Ok(Assembled::Stopped(0, cells.len() + 1));
    }
    if indent > 0 {
        dst[..indent].fill(b' ');
    }
    if key.is_none() && cells.len() == 0 {
        dst[indent] = b'\n';
        return Ok(Assembled::Row(indent + 1));
    }
    let mut pos = indent;
    let mut line = RowTail::new(dst);
    // From here every cell starts at or before `last_start`, so it has
    // `CELL_ROOM` bytes.
    let last_start = line.cap - CELL_ROOM;
    if let Some(key) = key {
        // SAFETY: `indent + key.len() + CELL_ROOM <= cap` was checked above.
        match unsafe { put_str(&mut line, pos, key) } {
            Some(end) => pos = end,
            None => return Ok(Assembled::Stopped(0, cells.len() + 1)),
        }
        // SAFETY: `put_str` leaves at least one byte after its end.
        unsafe { line.store_byte(pos, b'|') };
        pos += 1;
    }
    let mut rest = cells;
    while let Some(cell) = rest.next() {
        let cell = cell.cell();
        if pos > last_start {
            return Ok(Assembled::Stopped(pos, rest.len() + 1));
        }
        // In every arm below, `pos + CELL_ROOM <= cap`.
        pos = match cell {
            Cell::Null => {
                // SAFETY: one byte of the cell's room.
                unsafe { line.store_byte(pos, b'-') };
                pos + 1
            }
            Cell::Missing => {
                // SAFETY: one byte of the cell's room.
                unsafe { line.store_byte(pos, b'~') };
                pos + 1
            }
            Cell::Bool(b) => {
                // One store either way; the zeros past the word's end are
                // overwritten or left unpublished.
                let (word, len) = if b {
                    (u64::from_le_bytes(*b"true\0\0\0\0"), 4)
                } else {
                    (u64::from_le_bytes(*b"false\0\0\0"), 5)
                };
                // SAFETY: eight bytes of the cell's room.
                unsafe { line.store_word(pos, word) };
                pos + len
            }
            // SAFETY: the cell's room covers a sign, eight digits' store
            // and the separator after the digits.
            Cell::Int(n) => unsafe { put_i64(&mut line, pos, n) },
            // SAFETY: as for an integer, and a general-form float is at
            // most `NUMBER_BUFFER_LEN` bytes.
            Cell::Float(f) => unsafe { put_f64(&mut line, pos, numbers, f)? },
            Cell::Str(s) => {
                // `pos + s.len() >= cap`, against the bound already in a
                // register (no overflow: `pos <= last_start`).
                if pos + s.len() >= last_start + CELL_ROOM {
                    return Ok(Assembled::Stopped(pos, rest.len() + 1));
                }
                // SAFETY: `pos + s.len() < cap`, just checked.
                match unsafe { put_str(&mut line, pos, s) } {
                    Some(end) => end,
                    None => return Ok(Assembled::Stopped(pos, rest.len() + 1)),
                }
            }
        };
        // SAFETY: every piece above ends before the tail does.
        unsafe { line.store_byte(pos, b'|') };
        pos += 1;
    }
    // The last separator (there is one: a key or a cell was written)
    // becomes the line end.
    // SAFETY: `pos - 1` held that separator.
    unsafe { line.store_byte(pos - 1, b'\n') };
    Ok(Assembled::Row(pos))
}

/// Writes `n` in decimal at `pos` and returns the end: one compare admits
/// the common case (zero to eight digits, not negative) to a single store;
/// the rest goes through [`put_i64_general`].
///
/// # Safety
/// `pos + CELL_ROOM <= line.cap`.
#[inline(always)]
unsafe fn put_i64(line: &mut RowTail<'_>, pos: usize, n: i64) -> usize {
    if (n as u64) < 100_000_000 {
        let (word, len) = short_digits(n as u32);
        // SAFETY: `pos + 8 <= cap` by the caller's room.
        unsafe { line.store_word(pos, word) };
        return pos + len;
    }
    pos + put_i64_general(line.rest(pos), n)
}

/// [`put_i64`] for a negative integer or one of nine digits or more, at the
/// start of `dst` (which has [`CELL_ROOM`] bytes); returns the length. Out
/// of line: it is the less common case.
#[cold]
#[inline(never)]
fn put_i64_general(dst: &mut [u8], n: i64) -> usize {
    put_i64_checked(dst, 0, n)
}

/// Writes `s` at `pos`, bare or quoted as [`write_string`] would, and
/// returns the end with at least one byte left after it; `None` when it
/// needs quotes and its escaped worst case might not leave that.
///
/// The common bare string is decided while it is copied
/// ([`copy_plainly_bare`]); anything else asks [`needs_quote`] itself.
///
/// # Safety
/// `pos + s.len() < line.cap` (the bare copy and one byte after it).
///
/// [`write_string`]: super::scalar::write_string
#[inline(always)]
unsafe fn put_str(line: &mut RowTail<'_>, pos: usize, s: &str) -> Option<usize> {
    // SAFETY: the caller's contract.
    if unsafe { copy_plainly_bare(line, pos, s.as_bytes()) } || !needs_quote(s) {
        return Some(pos + s.len());
    }
    put_quoted(line.rest(pos), s).map(|len| pos + len)
}

/// Copies `src` to `pos..` and returns whether it passes [`needs_quote`]'s
/// fast test, so certainly stays bare: a leading letter, no trailing space,
/// not `true` or `false`, and no byte that [`needs_quote`] classifies (`"`,
/// `\`, `|`, `,`, `[`, a C0 control or a non-ASCII byte) nor `{` (see
/// [`classified_lanes`]). `false` says nothing: the caller asks
/// [`needs_quote`].
///
/// Each length class moves the string as at most four overlapping
/// fixed-size loads and stores (no call into `memcpy`), classifies the very
/// words it loaded sixteen bytes at a time (never re-reading the bytes just
/// stored, which would stall on store forwarding). Every word loaded lies
/// inside `src`; a byte seen twice (the overlap) cannot change the answer.
/// The length picks its class in a two-level tree (below eight bytes or
/// not, then the class), and only the class that holds four- and
/// five-byte strings looks for `true` and `false`, with two word compares.
///
/// # Safety
/// `pos + src.len() <= line.cap`.
#[inline(always)]
unsafe fn copy_plainly_bare(line: &mut RowTail<'_>, pos: usize, src: &[u8]) -> bool {
    let n = src.len();
    // A two-level tree over the length: every class is two compares away
    // (a chain tested in turn costs up to five for short words).
    let suspect = if n < 8 {
        if n >= 4 {
            let (lo, hi) = (load4(src, 0), load4(src, n - 4));
            // SAFETY: `4 <= n` and `pos + n <= cap`.
            unsafe {
                line.store_u32(pos, lo);
                line.store_u32(pos + n - 4, hi);
            }
            let word = u64::from(lo) | u64::from(hi) << 32;
            // The two overlapping halves spell `truetrue` only for `true`
            // and `falsalse` only for `false`, whatever the length.
            let keyword = word == u64::from_le_bytes(*b"truetrue")
                || word == u64::from_le_bytes(*b"falsalse");
            pair_classified(word, word) | keyword
        } else if n == 0 {
            return false;
        } else {
            let (x, y, z) = (src[0], src[n / 2], src[n - 1]);
            // SAFETY: `n / 2 < n` and `pos + n <= cap`.
            unsafe {
                line.store_byte(pos, x);
                line.store_byte(pos + n / 2, y);
                line.store_byte(pos + n - 1, z);
            }
            let word = u64::from_le_bytes([x, y, z, x, y, z, x, y]);
            pair_classified(word, word)
        }
    } else if n <= 16 {
        let (lo, hi) = (load8(src, 0), load8(src, n - 8));
        // SAFETY: `8 <= n` and `pos + n <= cap`.
        unsafe {
            line.store_word(pos, lo);
            line.store_word(pos + n - 8, hi);
        }
        pair_classified(lo, hi)
    } else if n <= 32 {
        let (a, b) = (load8(src, 0), load8(src, 8));
        let (c, d) = (load8(src, n - 16), load8(src, n - 8));
        // SAFETY: `16 < n` and `pos + n <= cap`.
        unsafe {
            line.store_word(pos, a);
            line.store_word(pos + 8, b);
            line.store_word(pos + n - 16, c);
            line.store_word(pos + n - 8, d);
        }
        quad_classified(a, b, c, d)
    } else {
        // SAFETY: `pos + n <= cap`.
        unsafe { line.store_bytes(pos, src) };
        src.chunks_exact(16)
            .any(|block| pair_classified(load8(block, 0), load8(block, 8)))
            || pair_classified(load8(src, n - 16), load8(src, n - 8))
    };
    let (first, last) = (src[0], src[n - 1]);
    // `is_ascii_alphabetic` without its two range branches: folding to
    // lowercase maps exactly the letters onto `a..=z`.
    let letter = (first | 0x20).wrapping_sub(b'a') < 26;
    !suspect & letter & (last != b' ')
}

/// The bytes of a vector that [`copy_plainly_bare`] looks for, as a mask:
/// five SSE2 compares. With bit `0x20` set in every byte, `\` and `|`
/// become one byte, and so do `[` and `{` (never quoted, so a false alarm:
/// it only sends a rare string to [`needs_quote`]), which saves a compare;
/// the C0 controls that land on `"` or `,` are caught by the low test.
#[cfg(all(target_arch = "x86_64", not(gcf_portable)))]
#[inline(always)]
fn classified_lanes(x: core::arch::x86_64::__m128i) -> core::arch::x86_64::__m128i {
    use core::arch::x86_64::{_mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_or_si128, _mm_set1_epi8};
    // SAFETY: SSE2 is part of the x86-64 baseline, so every intrinsic here
    // is available; none of them touches memory.
    unsafe {
        // Signed: C0 controls and every byte >= 0x80 are below 0x20.
        let low = _mm_cmplt_epi8(x, _mm_set1_epi8(0x20));
        let folded = _mm_or_si128(x, _mm_set1_epi8(0x20));
        let eq = |c: u8| _mm_cmpeq_epi8(folded, _mm_set1_epi8(c as i8));
        _mm_or_si128(
            _mm_or_si128(low, eq(b'"')),
            _mm_or_si128(eq(b','), _mm_or_si128(eq(b'|'), eq(b'{'))),
        )
    }
}

/// Whether any of the sixteen bytes of `lo` and `hi` (little-endian) is one
/// [`copy_plainly_bare`] looks for.
#[cfg(all(target_arch = "x86_64", not(gcf_portable)))]
#[inline(always)]
fn pair_classified(lo: u64, hi: u64) -> bool {
    use core::arch::x86_64::{_mm_movemask_epi8, _mm_set_epi64x};
    // SAFETY: SSE2 is part of the x86-64 baseline; nothing here touches memory.
    unsafe { _mm_movemask_epi8(classified_lanes(_mm_set_epi64x(hi as i64, lo as i64))) != 0 }
}

/// [`pair_classified`] over thirty-two bytes, with one mask extract.
#[cfg(all(target_arch = "x86_64", not(gcf_portable)))]
#[inline(always)]
fn quad_classified(a: u64, b: u64, c: u64, d: u64) -> bool {
    use core::arch::x86_64::{_mm_movemask_epi8, _mm_or_si128, _mm_set_epi64x};
    // SAFETY: SSE2 is part of the x86-64 baseline; nothing here touches memory.
    unsafe {
        let front = classified_lanes(_mm_set_epi64x(b as i64, a as i64));
        let back = classified_lanes(_mm_set_epi64x(d as i64, c as i64));
        _mm_movemask_epi8(_mm_or_si128(front, back)) != 0
    }
}

/// [`pair_classified`] elsewhere.
#[cfg(any(not(target_arch = "x86_64"), gcf_portable))]
#[inline(always)]
fn pair_classified(lo: u64, hi: u64) -> bool {
    pair_classified_portable(lo, hi)
}

/// [`quad_classified`] elsewhere. Out of line, as the portable pair is.
#[cfg(any(not(target_arch = "x86_64"), gcf_portable))]
#[inline(never)]
fn quad_classified(a: u64, b: u64, c: u64, d: u64) -> bool {
    (word_classified(a) | word_classified(b) | word_classified(c) | word_classified(d)) & HIGH_BITS
        != 0
}

/// The portable form of [`pair_classified`], eight bytes at a time in a
/// general register (WebAssembly, aarch64 and other targets without SSE2).
/// Out of line: inlined into every row writer it made the WebAssembly
/// module 36 KB larger, for about 6 % of a generic encode.
#[cfg_attr(all(target_arch = "x86_64", not(gcf_portable)), allow(dead_code))]
#[inline(never)]
fn pair_classified_portable(lo: u64, hi: u64) -> bool {
    (word_classified(lo) | word_classified(hi)) & HIGH_BITS != 0
}

/// The bytes `classified_lanes` (the SSE2 form) finds, in one word: some [`HIGH_BITS`]
/// are set exactly when `x` holds one. The same folding: with bit `0x20`
/// set in every byte, `\` reads as `|` and `[` as `{`, and the C0 controls
/// that land on `"` or `,` are caught by the low test; a non-ASCII byte has
/// its own high bit set.
#[cfg_attr(all(target_arch = "x86_64", not(gcf_portable)), allow(dead_code))]
#[inline(always)]
fn word_classified(x: u64) -> u64 {
    let folded = x | (ONES * 0x20);
    bytes_below(x, 0x20)
        | x
        | bytes_equal(folded, b'"')
        | bytes_equal(folded, b',')
        | bytes_equal(folded, b'|')
        | bytes_equal(folded, b'{')
}

/// The quoted arm of [`put_str`], out of line: it is rare. Returns the
/// length written at the start of `dst`, leaving a byte after it.
#[inline(never)]
fn put_quoted(dst: &mut [u8], s: &str) -> Option<usize> {
    // Two quotes, at most six bytes per byte (`\u00XX`), the separator.
    let worst = s.len().checked_mul(6)?.checked_add(3)?;
    if worst > dst.len() {
        return None;
    }
    let mut out = SliceSink { dst, len: 0 };
    write_quoted(&mut out, s).ok()?;
    Some(out.len)
}

/// A sink over a fixed slice, refusing what does not fit.
struct SliceSink<'a> {
    dst: &'a mut [u8],
    len: usize,
}

impl Sink for SliceSink<'_> {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> core::result::Result<(), SinkError> {
        let end = self.len.checked_add(bytes.len()).ok_or(SinkError)?;
        self.dst
            .get_mut(self.len..end)
            .ok_or(SinkError)?
            .copy_from_slice(bytes);
        self.len = end;
        Ok(())
    }
}

/// Writes a finite double canonically and returns the end: below `10^5`
/// with at most three decimals, all its digits from one integer
/// ([`put_short_decimal`]); anything else through [`put_f64_general`].
/// A non-finite value is refused with [`check_cell`]'s error; the test for
/// it is only made off the short path, whose range test already excludes it.
///
/// # Safety
/// `pos + CELL_ROOM <= line.cap`.
#[inline(always)]
unsafe fn put_f64(
    line: &mut RowTail<'_>,
    mut pos: usize,
    numbers: &mut NumberBuffer,
    f: f64,
) -> Result<usize> {
    let f = crate::hint::float_of_this_branch(f);
    let magnitude = f.abs();
    if magnitude < 100_000.0 {
        // `short_decimal_parts`' test, with its integer case folded in: an
        // integral magnitude below 10^5 times 1000 is exact, so it passes.
        // SAFETY: `0 <= magnitude * 1000 + 0.5 < 10^8 + 1` (the bound above
        // was tested on a value that is not NaN), so the truncation fits a
        // `u32`. The unchecked conversion is one `cvttsd2si`; `as` would
        // clamp it to the range first (four more instructions).
        let thousandths: u32 = unsafe { (magnitude * 1000.0 + 0.5).to_int_unchecked() };
        // Below `10^8` follows from the equality: `10^8 / 1000` is not
        // below `10^5`, which `magnitude` is.
        if f64::from(thousandths) / 1000.0 == magnitude {
            debug_assert!(thousandths < 100_000_000);
            if f < 0.0 {
                // SAFETY: the first byte of the caller's room.
                unsafe { line.store_byte(pos, b'-') };
                pos += 1;
            }
            // SAFETY: `pos + 9 < cap` by the caller's room.
            return Ok(unsafe { put_short_decimal(line, pos, thousandths) });
        }
    }
    check_cell(Cell::Float(f))?;
    Ok(pos + put_f64_general(line.rest(pos), numbers, f)?)
}

/// [`put_f64`] off its short path, at the start of `dst` (which has
/// [`CELL_ROOM`] bytes); returns the length. Out of line: it is rare.
#[inline(never)]
fn put_f64_general(dst: &mut [u8], numbers: &mut NumberBuffer, f: f64) -> Result<usize> {
    let Some((whole, thousandths)) = short_decimal_parts(f) else {
        let bytes = numbers.format_f64_bytes(f)?;
        dst[..bytes.len()].copy_from_slice(bytes);
        return Ok(bytes.len());
    };
    let mut pos = 0;
    if f < 0.0 {
        dst[pos] = b'-';
        pos += 1;
    }
    pos = put_u64(dst, pos, whole);
    if thousandths != 0 {
        let t = thousandths as usize;
        dst[pos..pos + 4].copy_from_slice(&[
            b'.',
            b'0' + (t / 100) as u8,
            DIGIT_PAIRS[t % 100 * 2],
            DIGIT_PAIRS[t % 100 * 2 + 1],
        ]);
        // Drop the trailing zeros (`.500` is `.5`, `.750` is `.75`),
        // without a branch on the data.
        let kept = 1 + usize::from(t % 100 != 0) + usize::from(t % 10 != 0);
        pos += 1 + kept;
    }
    Ok(pos)
}

/// The bytes of `.` and a three-digit fraction kept after dropping 0, 1, 2
/// or 3 trailing zero digits (all three: no `.` either).
static FRACTION_LEN: [usize; 4] = [4, 3, 2, 0];

/// Writes `thousandths / 1000` (below `10^8`, so the whole part is below
/// `10^5`) in the short-decimal layout, with the fraction's trailing zeros
/// dropped and no `.` for a whole number, and returns the end.
///
/// All eight digits come from one [`eight_digits`] (no split into whole
/// part and fraction, no second conversion): the leading zero bytes give
/// the whole part's length, the fraction's trailing zero digits the bytes
/// to drop; a marker bit in the whole part's units digit (byte 4, which
/// always stays) bounds both counts, so neither needs a clamp. The whole
/// part is stored as one word with the fraction digits after it, then `.`
/// and the fraction are stored over them one byte later; a whole number's
/// end simply stops before the `.`. No branch on the data.
///
/// # Safety
/// `pos + 9 <= line.cap` (the word store reaches `pos + 8`, the fraction
/// store `pos + 9`).
#[inline(always)]
unsafe fn put_short_decimal(line: &mut RowTail<'_>, pos: usize, thousandths: u32) -> usize {
    let digits = eight_digits(thousandths);
    let marked = digits | 1 << 32;
    let skip = (marked.trailing_zeros() / 8) as usize;
    // Trailing zero digits of the fraction: 3 means a whole number.
    let dropped = (marked.leading_zeros() / 8) as usize;
    let ascii = digits + 0x3030_3030_3030_3030;
    let dot = pos + 5 - skip;
    let fraction = u32::from(b'.') | ((ascii >> 40) as u32) << 8;
    // SAFETY: `skip <= 4`, so `dot + 4 <= pos + 9 <= cap`.
    unsafe {
        line.store_word(pos, ascii >> (8 * skip));
        line.store_u32(dot, fraction);
    }
    dot + FRACTION_LEN[dropped & 3]
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use alloc::borrow::ToOwned;
    use alloc::string::String;
    use alloc::vec;
    use alloc::vec::Vec;

    use crate::generic::scalar::write_string;

    /// A deterministic xorshift generator for the fast-path tests.
    pub(in crate::generic) struct Rng(pub(in crate::generic) u64);

    impl Rng {
        pub(in crate::generic) fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Strings that exercise every branch of the bare/quoted decision and
    /// every copy length class.
    pub(in crate::generic) fn sample_strings(rng: &mut Rng) -> Vec<String> {
        let mut out: Vec<String> = [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "abcdefg",
            "abcdefgh",
            "Engineering",
            "true",
            "false",
            "True",
            "-",
            "~",
            "^",
            "^{a}",
            "#x",
            "@x",
            ".5",
            "12",
            "01",
            "1.5",
            "-3",
            "+1",
            "1e5",
            "a b",
            " a",
            "a ",
            "a|b",
            "a,b",
            "a\"b",
            "a\\b",
            "a[1]: x",
            "ERR[404]: Not Found",
            "a[b",
            // `{` shares a compare with `[` in the fast test: a false
            // alarm there, never quoted.
            "a{b",
            "{a}",
            "ab{",
            "abcdefgh{}",
            "abcdefghijklmnopq{",
            "São Paulo",
            "é",
            "naïve",
            "a\u{85}b",
            "a\u{a0}b",
            "\u{feff}x",
            "x\u{3000}",
            "tab\there",
            "nl\nx",
            "ctl\u{1}",
            "1.٥",
            "123abc",
            "alice.smith1@example.com",
            "Zz_-.@#/:;<=>?!$%&'()*+",
            "abcdefghijklmnop",
            "abcdefghijklmnopq",
        ]
        .iter()
        .map(|s| String::from(*s))
        .collect();
        const ALPHABET: &[&str] = &[
            "a", "b", "Z", " ", "|", ",", "\"", "\\", "[", "]", "{", "}", ":", "-", "0", "9", ".",
            "é", "\u{7f}", "\u{1f}", "\u{a0}", "t", "r", "u", "e", "日本",
        ];
        // Fewer under Miri, which interprets every instruction.
        for _ in 0..if cfg!(miri) { 60 } else { 4000 } {
            let len = (rng.next() % 70) as usize;
            let mut text = String::new();
            for _ in 0..len {
                // Mostly letters, so that long bare strings are common.
                let r = rng.next();
                if r % 4 != 0 {
                    text.push((b'a' + (r >> 8) as u8 % 26) as char);
                } else {
                    text.push_str(ALPHABET[(r >> 8) as usize % ALPHABET.len()]);
                }
            }
            out.push(text);
        }
        out
    }

    /// The line the general (piecewise) path writes for a row.
    pub(in crate::generic) fn reference_line(
        indent: usize,
        key: Option<&str>,
        cells: &[Cell<'_>],
    ) -> String {
        let mut out = String::new();
        for _ in 0..indent {
            out.push(' ');
        }
        if let Some(key) = key {
            write_string(&mut out, key).unwrap();
        }
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 || key.is_some() {
                out.push('|');
            }
            match *cell {
                Cell::Null => out.push('-'),
                Cell::Missing => out.push('~'),
                Cell::Bool(b) => out.push_str(if b { "true" } else { "false" }),
                Cell::Int(n) => out.push_str(itoa::Buffer::new().format(n)),
                Cell::Float(f) => out.push_str(NumberBuffer::new().format_f64(f).unwrap()),
                Cell::Str(s) => write_string(&mut out, s).unwrap(),
            }
        }
        out.push('\n');
        out
    }

    /// Runs `assemble_row` into a buffer of `room` bytes (filled with junk)
    /// and returns what it published, or `None` if it stopped early (after
    /// checking that what it kept is the reference line's prefix).
    fn assembled(
        room: usize,
        indent: usize,
        key: Option<&str>,
        cells: &[Cell<'_>],
    ) -> Option<String> {
        let mut dst = vec![0xa5u8; room];
        match assemble_row(
            &mut dst,
            &mut NumberBuffer::new(),
            indent,
            key,
            cells.iter(),
        )
        .unwrap()
        {
            Assembled::Row(len) => Some(String::from_utf8(dst[..len].to_vec()).unwrap()),
            Assembled::Stopped(len, left) => {
                let piece = Assembled::stopped_piece(cells.len(), left);
                let text = String::from_utf8(dst[..len].to_vec()).unwrap();
                let full = reference_line(indent, key, cells);
                let rest = match piece {
                    0 => full.clone(),
                    piece => reference_line(0, None, &cells[piece - 1..]),
                };
                assert_eq!(format!("{text}{rest}"), full);
                None
            }
        }
    }

    #[test]
    fn floats_match_format_f64() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            4.99,
            1e-7,
            0.001,
            0.0015,
            0.0005,
            0.01,
            0.1,
            7.0,
            10.07,
            123.456,
            12_345.678,
            99_999.0,
            99_999.999,
            99_999.999_5,
            99_999.999_9,
            // The largest double below 10^5, and one whose rounded
            // thousandths land on 10^8 (refused by the equality alone).
            f64::from_bits(100_000f64.to_bits() - 1),
            99_999.999_499_999_99,
            100_000.0,
            100_000.001,
            2f64.powi(38),
            2f64.powi(53),
            2f64.powi(53) - 1.0,
            1e300,
            f64::MIN_POSITIVE,
            f64::MAX,
            5e-324,
        ];
        for _ in 0..if cfg!(miri) { 200 } else { 300_000 } {
            let r = rng.next();
            values.push((r % 500) as f64 / 100.0);
            values.push((r >> 20) as f64 / 10f64.powi((r % 5) as i32));
            values.push(f64::from_bits(rng.next()));
            // Every layout of `put_short_fraction`: whole parts of one to
            // five digits and at the 10^5 boundary, one to three fraction
            // digits.
            let m = r % 100_000_000;
            values.push(m as f64 / 1000.0);
            values.push((m % 10_000) as f64 / 1000.0);
            values.push((m % 100_000) as f64 / 100.0);
            values.push((m % 1_000_000) as f64 / 10.0);
            values.push((99_999_000 + r % 2_000) as f64 / 1000.0);
        }
        let mut numbers = NumberBuffer::new();
        let mut dst = [0u8; CELL_ROOM + 3];
        for v in values {
            if !v.is_finite() {
                continue;
            }
            for v in [v, -v] {
                // SAFETY: `3 + CELL_ROOM` is the buffer's length.
                let end =
                    unsafe { put_f64(&mut RowTail::new(&mut dst), 3, &mut numbers, v) }.unwrap();
                let expected = NumberBuffer::new().format_f64(v).unwrap().to_owned();
                assert_eq!(&dst[3..end], expected.as_bytes(), "{v:e}");
            }
        }
    }

    #[test]
    fn copies_are_exact_and_classified() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let classified = |b: u8| {
            !(0x20..0x80).contains(&b) || matches!(b, b'"' | b'\\' | b'|' | b',' | b'[' | b'{')
        };
        // Fewer rounds under Miri, which interprets every instruction.
        let (rounds, pairs) = if cfg!(miri) {
            (300, 300)
        } else {
            (20_000, 100_000)
        };
        for round in 0..rounds {
            let n = round % 100;
            let mut src: Vec<u8> = (0..n).map(|_| b'a' + (rng.next() % 26) as u8).collect();
            if n > 0 && round % 3 != 0 {
                // One classified byte (or a neighbour of one) anywhere.
                let at = (rng.next() as usize) % n;
                src[at] = rng.next() as u8;
            }
            if round % 5 == 0 && n > 0 {
                // A leading non-letter or a trailing space.
                let at = if round % 2 == 0 { 0 } else { n - 1 };
                src[at] = [b' ', b'1', b'_', b'@'][(rng.next() % 4) as usize];
            }
            let plainly_bare = !src.iter().any(|&b| classified(b))
                && src.first().is_some_and(u8::is_ascii_alphabetic)
                && src.last() != Some(&b' ')
                && src != b"true"
                && src != b"false";
            for pos in [0, 1, 7] {
                let mut dst = vec![b'#'; pos + n + 9];
                // SAFETY: the buffer holds `pos + n` bytes and more.
                let bare = unsafe { copy_plainly_bare(&mut RowTail::new(&mut dst), pos, &src) };
                assert_eq!(&dst[pos..pos + n], &src[..]);
                assert!(dst[..pos].iter().chain(&dst[pos + n..]).all(|&b| b == b'#'));
                assert_eq!(bare, plainly_bare, "{src:?}");
            }
        }
        for (word, bare) in [
            ("true", false),
            ("false", false),
            ("trUe", true),
            ("falsE", true),
            ("fals", true),
            ("tru", true),
            ("trues", true),
        ] {
            let mut dst = [0u8; 16];
            // SAFETY: sixteen bytes hold every word here.
            let got = unsafe { copy_plainly_bare(&mut RowTail::new(&mut dst), 0, word.as_bytes()) };
            assert_eq!(got, bare, "{word}");
        }
        for _ in 0..pairs {
            let (lo, hi) = (rng.next(), rng.next());
            assert_eq!(pair_classified(lo, hi), pair_classified_portable(lo, hi));
            let (c, d) = (rng.next(), rng.next());
            assert_eq!(
                quad_classified(lo, hi, c, d),
                pair_classified_portable(lo, hi) || pair_classified_portable(c, d)
            );
        }
        // The portable form against the byte oracle, whichever form
        // `pair_classified` is here: words of letters, specials, controls
        // and non-ASCII bytes, mixed.
        let pick = [
            b'a', b'Z', b'"', b'\\', b'|', b',', b'[', b'{', b']', b'}', 0x00, 0x1f, 0x20, 0x7f,
            0x80, 0xff, 0x5c, 0x7c,
        ];
        for _ in 0..pairs {
            let bytes: [u8; 16] = core::array::from_fn(|_| {
                let r = rng.next();
                if r % 4 == 0 {
                    pick[(r >> 8) as usize % pick.len()]
                } else if r % 4 == 1 {
                    (r >> 8) as u8
                } else {
                    b'a' + ((r >> 8) % 26) as u8
                }
            });
            let (lo, hi) = (load8(&bytes, 0), load8(&bytes, 8));
            let want = bytes.iter().any(|&b| classified(b));
            assert_eq!(pair_classified_portable(lo, hi), want, "{bytes:?}");
        }
        for b in 0..=255u8 {
            let word = u64::from_le_bytes([b; 8]);
            for at in 0..8 {
                let mut one = [b'a'; 8];
                one[at] = b;
                let one = u64::from_le_bytes(one);
                assert_eq!(
                    pair_classified_portable(one, 0x6161_6161_6161_6161),
                    classified(b),
                    "{b:#x} at {at}"
                );
                assert_eq!(
                    pair_classified_portable(0x6161_6161_6161_6161, one),
                    classified(b),
                    "{b:#x} at {at}"
                );
            }
            assert_eq!(
                pair_classified(word, 0x6161_6161_6161_6161),
                classified(b),
                "{b:#x}"
            );
            assert_eq!(
                pair_classified(0x6161_6161_6161_6161, word),
                classified(b),
                "{b:#x}"
            );
        }
    }

    #[test]
    fn strings_match_write_string() {
        let mut rng = Rng(0xdead_beef_cafe_f00d);
        for s in sample_strings(&mut rng) {
            let mut expected = String::new();
            write_string(&mut expected, &s).unwrap();
            // Plenty of room, then room that ends inside the string's last
            // block, then too little room for the quoted worst case.
            for (room, pos) in [
                (s.len() * 6 + 64, 0),
                (s.len() * 6 + 64, 5),
                (s.len() + 3, 0),
                (s.len() + 2, 1),
            ] {
                let mut dst = vec![b'#'; room];
                // SAFETY: every room here leaves a byte after the bare copy.
                match unsafe { put_str(&mut RowTail::new(&mut dst), pos, &s) } {
                    Some(end) => assert_eq!(
                        core::str::from_utf8(&dst[pos..end]).unwrap(),
                        expected,
                        "{s:?} room {room}"
                    ),
                    None => assert!(needs_quote(&s), "{s:?}"),
                }
            }
        }
    }

    #[test]
    fn assembled_rows_match_the_general_path() {
        let mut rng = Rng(0x0bad_5eed_1234_5678);
        let strings = sample_strings(&mut rng);
        let (mut whole, mut stopped) = (0, 0);
        let rounds = if cfg!(miri) { 150 } else { 20_000 };
        for round in 0..rounds {
            let width = 1 + (rng.next() % 9) as usize;
            let mut cells = Vec::new();
            for _ in 0..width {
                let r = rng.next();
                cells.push(match r % 8 {
                    0 => Cell::Null,
                    1 => Cell::Missing,
                    2 => Cell::Bool(r & 256 != 0),
                    3 => Cell::Int((rng.next() as i64) >> ((r >> 8) % 64)),
                    4 => Cell::Float((r >> 12) as f64 / 10f64.powi((r >> 4) as i32 % 5)),
                    5 => Cell::Float(f64::from_bits(rng.next()) % 1e30),
                    _ => Cell::Str(&strings[(r >> 8) as usize % strings.len()]),
                });
            }
            let cells: Vec<Cell<'_>> = cells
                .into_iter()
                .map(|c| match c {
                    Cell::Float(f) if !f.is_finite() => Cell::Float(0.25),
                    c => c,
                })
                .collect();
            let key = (round % 3 == 0).then(|| strings[round % strings.len()].as_str());
            let indent = 2 * (round % 3);
            let expected = reference_line(indent, key, &cells);
            let line = expected.len();
            for room in [line / 2, line, line + CELL_ROOM, line * 7 + 64] {
                match assembled(room, indent, key, &cells) {
                    Some(text) => {
                        assert_eq!(text, expected, "{cells:?}");
                        whole += 1;
                    }
                    None => stopped += 1,
                }
            }
        }
        // Both outcomes are exercised.
        assert!(
            whole > rounds / 2 && stopped > rounds / 20,
            "{whole} {stopped}"
        );
    }
}
