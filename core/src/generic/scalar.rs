//! Writing scalars and keys with the quoting obligations of spec §2.4 and §2a.
//!
//! Shared by the buffered encoder, the streaming writer and generic deltas so
//! that every path quotes identically.

use crate::error::Error;
use crate::number::NumberBuffer;
use crate::sink::Sink;
use crate::text::write_quoted;
use crate::words::{bytes_below, bytes_equal, HIGH_BITS};

use super::{Cell, Value};
use alloc::string::String;
use alloc::vec::Vec;

/// Whether a bare string would be misread, so it must be written quoted (spec §2.4).
///
/// `|` and `,` are quoted in every context, not only where they are the active
/// delimiter: the conformance fixtures (for example `with_pipe="a|b"` on a
/// `key=value` line) and every reference encoder do so, and §2.4 only sets a
/// minimum. A string shaped like `^{...}` is quoted whatever is inside the
/// braces, because a decoder rejects a malformed inline schema rather than
/// reading it as text (§2.1 rule 4).
///
/// ```
/// use gcf_core::generic::needs_quote;
/// assert!(needs_quote("true") && needs_quote("12") && needs_quote("01") && needs_quote(""));
/// assert!(needs_quote("a|b") && needs_quote("ERR[404]: Not Found") && needs_quote(" x"));
/// assert!(!needs_quote("hello world") && !needs_quote("1.٥") && !needs_quote("123abc"));
/// ```
#[inline]
pub fn needs_quote(s: &str) -> bool {
    let b = s.as_bytes();
    // The common case, decided with one pass over the words: a string that
    // starts with a letter is not empty, a number, a `^{...}` schema, or
    // led by `-`, `~`, `^`, `#`, `@`, `.` or a space; without classified
    // bytes it holds nothing else that forces quotes.
    if let (Some(first), Some(&last)) = (b.first(), b.last()) {
        if first.is_ascii_alphabetic() && last != b' ' && !has_classified_byte(b) {
            return matches!(b, b"true" | b"false");
        }
    }
    needs_quote_in_general(s)
}

/// [`needs_quote`] for every string, including those its fast path defers.
#[inline(never)]
fn needs_quote_in_general(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(&first) = b.first() else { return true };
    if matches!(s, "-" | "~" | "^" | "true" | "false") {
        return true;
    }
    if b.len() >= 3 && first == b'^' && b[1] == b'{' && b[b.len() - 1] == b'}' {
        return true;
    }
    if matches!(first, b'#' | b'@' | b'.') {
        return true;
    }
    if looks_numeric(b) {
        return true;
    }
    if first == b' ' || b[b.len() - 1] == b' ' {
        return true;
    }
    if !has_classified_byte(b) {
        return false;
    }
    let mut seen = 0u8;
    for &byte in b {
        let class = BYTE_CLASS[byte as usize];
        if class & QUOTE != 0 {
            return true;
        }
        seen |= class;
    }
    if seen & NON_ASCII != 0 && s.chars().any(needs_quote_non_ascii) {
        return true;
    }
    seen & BRACKET != 0 && has_inline_array_pattern(b)
}

/// The byte forces quoting wherever it appears: `"`, `\`, `|`, `,`, or a C0
/// control character.
const QUOTE: u8 = 1;
/// `[`: the string may look like an inline array header (`ERR[404]: x`).
const BRACKET: u8 = 2;
/// A byte of a multi-byte character, which needs the per-char check.
const NON_ASCII: u8 = 4;

/// The class of every byte, so the common all-ASCII string is checked with one
/// table lookup per byte instead of decoding characters.
const BYTE_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = match i as u8 {
            b'"' | b'\\' | b'|' | b',' | 0x00..=0x1f => QUOTE,
            b'[' => BRACKET,
            0x80..=0xff => NON_ASCII,
            _ => 0,
        };
        i += 1;
    }
    table
};

/// Whether any byte has a class in [`BYTE_CLASS`]: `"`, `\\`, `|`, `,`, a C0
/// control, `[`, or a byte of a non-ASCII character. Most strings have none,
/// and this answers for them eight bytes at a time; only a string with one
/// goes through the per-byte classification.
///
/// Per 64-bit word, with the byte tests of `crate::words` ([`bytes_below`],
/// [`bytes_equal`]), and `x & 0x80..` for non-ASCII bytes. Every word
/// checked holds only bytes of `b` (the tail overlaps bytes already checked),
/// so no padding value can change the answer.
#[inline]
fn has_classified_byte(b: &[u8]) -> bool {
    let mut words = b.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        if word_has_classified_byte(u64::from_le_bytes(w)) {
            return true;
        }
    }
    let tail = words.remainder();
    let word = match b.len() {
        0 => return false,
        // Whole words only: no tail left over.
        n if n >= 8 && tail.is_empty() => return false,
        // The last eight bytes (overlapping the words already checked).
        n if n >= 8 => {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[n - 8..]);
            u64::from_le_bytes(w)
        }
        // The first and the last four bytes, overlapping when `n < 8`.
        n if n >= 4 => {
            let mut lo = [0u8; 4];
            let mut hi = [0u8; 4];
            lo.copy_from_slice(&b[..4]);
            hi.copy_from_slice(&b[n - 4..]);
            u64::from(u32::from_le_bytes(lo)) | u64::from(u32::from_le_bytes(hi)) << 32
        }
        // One to three bytes: the first, the middle and the last, repeated.
        n => {
            let (x, y, z) = (b[0], b[n / 2], b[n - 1]);
            u64::from_le_bytes([x, y, z, x, y, z, x, y])
        }
    };
    word_has_classified_byte(word)
}

/// The word test of [`has_classified_byte`].
#[inline(always)]
fn word_has_classified_byte(x: u64) -> bool {
    let equal = |c: u8| bytes_equal(x, c);
    let found = bytes_below(x, 0x20)
        | equal(b'"')
        | equal(b'\\')
        | equal(b'|')
        | equal(b',')
        | equal(b'[')
        | x;
    found & HIGH_BITS != 0
}

/// A non-ASCII character a decoder would trim or misread: C1 controls,
/// Unicode whitespace and the byte-order mark.
fn needs_quote_non_ascii(c: char) -> bool {
    let code = c as u32;
    code >= 0x80 && ((0x80..=0x9f).contains(&code) || c.is_whitespace() || code == 0xfeff)
}

/// A token that parses as a number, or starts like a malformed one
/// (`+1`, `-.5`, `.5`, `01`); ASCII digits only (spec §2.3, §2.4).
fn looks_numeric(b: &[u8]) -> bool {
    let digit_at = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    match b[0] {
        b'+' | b'-' => digit_at(1) || (b.get(1) == Some(&b'.') && digit_at(2)) || is_json_number(b),
        b'.' => digit_at(1),
        b'0' => digit_at(1) || is_json_number(b),
        b'1'..=b'9' => is_json_number(b),
        _ => false,
    }
}

fn is_json_number(b: &[u8]) -> bool {
    // parse_number validates the grammar; a range error still means "a number".
    core::str::from_utf8(b).is_ok_and(|s| {
        !matches!(
            crate::number::parse_number(s),
            Err(crate::number::NumberError::NotANumber)
        )
    })
}

/// `[`, then anything but `]`, then `]`, optional whitespace, `:` — would read
/// as an inline array header (`ERR[404]: Not Found`).
fn has_inline_array_pattern(b: &[u8]) -> bool {
    let mut i = 0;
    while let Some(open) = memchr::memchr(b'[', &b[i..]) {
        let from = i + open + 1;
        let Some(close) = memchr::memchr(b']', &b[from..]) else {
            return false;
        };
        let mut j = from + close + 1;
        // Skip whitespace (ASCII here; non-ASCII whitespace is quoted anyway).
        while j < b.len() && matches!(b[j], b' ' | b'\t') {
            j += 1;
        }
        if b.get(j) == Some(&b':') {
            return true;
        }
        i = from;
    }
    false
}

/// Writes a string value, bare or quoted as §2.4 demands.
#[inline]
pub(crate) fn write_string<S: Sink + ?Sized>(sink: &mut S, s: &str) -> Result<(), Error> {
    if needs_quote(s) {
        write_quoted(sink, s)
    } else {
        sink.write_str(s).map_err(Into::into)
    }
}

/// Whether `key` can be written bare (spec §2a.1): `[A-Za-z_][A-Za-z0-9_]*`.
///
/// ```
/// use gcf_core::generic::is_bare_key;
/// assert!(is_bare_key("total_2") && is_bare_key("_id"));
/// assert!(!is_bare_key("2x") && !is_bare_key("a-b") && !is_bare_key(""));
/// ```
#[inline]
pub fn is_bare_key(key: &str) -> bool {
    let b = key.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// Writes a key or field name, quoting it unless it is a bare key.
#[inline]
pub(crate) fn write_key<S: Sink + ?Sized>(sink: &mut S, key: &str) -> Result<(), Error> {
    if is_bare_key(key) {
        sink.write_str(key).map_err(Into::into)
    } else {
        write_quoted(sink, key)
    }
}

/// Writes a scalar value: `-`, `true`/`false`, a canonical number, or a string.
///
/// Arrays and objects are not scalars; they write nothing and return `Ok(false)`
/// so the caller can choose a container form.
#[inline]
pub(crate) fn write_scalar<S: Sink + ?Sized>(
    sink: &mut S,
    value: &Value,
    numbers: &mut NumberBuffer,
) -> Result<bool, Error> {
    match Cell::from_value(value) {
        Some(cell) => write_cell(sink, cell, numbers).map(|()| true),
        None => Ok(false),
    }
}

/// A cell as a line writes it (§2.4): `-` for null, `~` for a missing field.
pub(crate) fn write_cell<S: Sink + ?Sized>(
    sink: &mut S,
    cell: Cell<'_>,
    numbers: &mut NumberBuffer,
) -> Result<(), Error> {
    match cell {
        Cell::Null => sink.write_bytes(b"-")?,
        Cell::Missing => sink.write_bytes(b"~")?,
        Cell::Bool(true) => sink.write_bytes(b"true")?,
        Cell::Bool(false) => sink.write_bytes(b"false")?,
        Cell::Int(i) => sink.write_str(itoa::Buffer::new().format(i))?,
        Cell::Float(f) => sink.write_bytes(numbers.format_f64_bytes(f)?)?,
        Cell::Str(s) => write_string(sink, s)?,
    }
    Ok(())
}

/// A key or field name as a line writes it: bare when it can be (§2a.1),
/// else quoted and escaped.
///
/// ```
/// use gcf_core::generic::format_key;
/// assert_eq!(format_key("total_2"), "total_2");
/// assert_eq!(format_key("unit price"), "\"unit price\"");
/// ```
pub fn format_key(key: &str) -> String {
    let mut out = Vec::with_capacity(key.len() + 2);
    // A `Vec` sink cannot fail and a key is never a number.
    let _ = write_key(&mut out, key);
    String::from_utf8(out).unwrap_or_default()
}

/// A string in its quoted form (§2.4), whether or not it needs quotes.
///
/// ```
/// use gcf_core::generic::quote;
/// assert_eq!(quote("a"), "\"a\"");
/// assert_eq!(quote("say \"hi\""), "\"say \\\"hi\\\"\"");
/// ```
pub fn quote(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 2);
    let _ = write_quoted(&mut out, s);
    String::from_utf8(out).unwrap_or_default()
}

/// A scalar as a cell writes it: `-`, `true`/`false`, a canonical number
/// (§2.3.1), or a string quoted when §2.4 demands; `None` for an array or
/// an object, which are not scalars.
///
/// # Errors
/// [`ErrorKind::OutOfRange`](crate::ErrorKind::OutOfRange) for a non-finite float.
///
/// ```
/// use gcf_core::generic::{format_scalar, Value};
/// assert_eq!(format_scalar(&Value::Float(2.50))?.as_deref(), Some("2.5"));
/// assert_eq!(format_scalar(&Value::from("12"))?.as_deref(), Some("\"12\""));
/// assert_eq!(format_scalar(&Value::Array(vec![]))?, None);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn format_scalar(value: &Value) -> Result<Option<String>, Error> {
    let mut out = Vec::new();
    if !write_scalar(&mut out, value, &mut NumberBuffer::new())? {
        return Ok(None);
    }
    Ok(Some(String::from_utf8(out).unwrap_or_default()))
}

/// Writes scalar tokens (keys, quoted strings, cells) straight into a sink,
/// with the same quoting and number layout as the encoders, and without
/// allocating: for binding code that keeps a line layout of its own (the
/// npm package's `GenericStreamEncoder` keeps 2.5.2's) but must not spell
/// a token differently from the core.
///
/// ```
/// use gcf_core::generic::{ScalarWriter, Value};
/// let mut out = Vec::new();
/// let mut w = ScalarWriter::new();
/// w.key(&mut out, "unit price")?;
/// out.push(b'=');
/// assert!(w.scalar(&mut out, &Value::Float(2.50))?);
/// assert_eq!(out, b"\"unit price\"=2.5");
/// # Ok::<(), gcf_core::Error>(())
/// ```
#[derive(Default)]
pub struct ScalarWriter {
    numbers: NumberBuffer,
}

impl ScalarWriter {
    /// A writer with its own number buffer.
    pub fn new() -> Self {
        ScalarWriter {
            numbers: NumberBuffer::new(),
        }
    }

    /// A key or field name: bare when it can be (§2a.1), else quoted.
    ///
    /// # Errors
    /// Only the sink's own error.
    pub fn key<S: Sink + ?Sized>(&mut self, sink: &mut S, key: &str) -> Result<(), Error> {
        write_key(sink, key)
    }

    /// A string in its quoted form (§2.4), whether or not it needs quotes.
    ///
    /// # Errors
    /// Only the sink's own error.
    pub fn quoted<S: Sink + ?Sized>(&mut self, sink: &mut S, s: &str) -> Result<(), Error> {
        write_quoted(sink, s)
    }

    /// A scalar as a cell writes it; `Ok(false)` and nothing written for an
    /// array or an object.
    ///
    /// # Errors
    /// [`ErrorKind::OutOfRange`](crate::ErrorKind::OutOfRange) for a
    /// non-finite float, or the sink's own error.
    pub fn scalar<S: Sink + ?Sized>(&mut self, sink: &mut S, value: &Value) -> Result<bool, Error> {
        write_scalar(sink, value, &mut self.numbers)
    }

    /// [`scalar`](Self::scalar) for a context delimited by `delimiter`: a
    /// string holding it is quoted too, as the SDKs' `format_scalar(v,
    /// delimiter)` helpers quote it (`|` and `,` are quoted everywhere
    /// already; an empty `delimiter` adds nothing).
    ///
    /// ```
    /// use gcf_core::generic::{ScalarWriter, Value};
    /// let mut out = Vec::new();
    /// ScalarWriter::new().scalar_in(&mut out, &Value::from("a=b"), "=")?;
    /// assert_eq!(out, b"\"a=b\"");
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`scalar`](Self::scalar).
    pub fn scalar_in<S: Sink + ?Sized>(
        &mut self,
        sink: &mut S,
        value: &Value,
        delimiter: &str,
    ) -> Result<bool, Error> {
        if let Value::String(s) = value {
            let s = s.as_str();
            if !delimiter.is_empty() && s.contains(delimiter) && !needs_quote(s) {
                write_quoted(sink, s)?;
                return Ok(true);
            }
        }
        self.scalar(sink, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::{format, vec};

    #[test]
    fn quoting_obligations() {
        let quoted = [
            "",
            "-",
            "~",
            "^",
            "true",
            "false",
            "^{a}",
            "^{a b}",
            "^{}",
            "123",
            "-0",
            "1e10",
            "01",
            "00.5",
            "+1",
            "+.5",
            "-.5",
            ".5",
            " hello",
            "hello ",
            "   ",
            "# c",
            "@h",
            ".x",
            "a\"b",
            "a\\b",
            "a\nb",
            "a\rb",
            "a\tb",
            "a\u{1}b",
            "a\u{85}b",
            "a\u{a0}b",
            "a\u{2028}b",
            "a\u{feff}b",
            "a\u{3000}b",
            "a|b",
            "a,b",
            "ERR[404]: Not Found",
            "[Speaker 1]: Hello",
            "x[] :y",
            "00:01:23,456",
        ];
        for s in quoted {
            assert!(needs_quote(s), "{s:?} must be quoted");
        }
        let bare = [
            "hello world",
            "Alice",
            "1.٥",
            "+٥",
            "0٥",
            "123abc",
            "1.2.3",
            "a-b",
            "a:b",
            "[x]",
            "a [1] b",
            "x]:[",
            "é",
            "😀",
            "^x",
            "^{",
            "0x1f",
            "application/json",
            "smile: 😀",
            "-a",
            "a\u{7f}b",
            "ௗP",
        ];
        for s in bare {
            assert!(!needs_quote(s), "{s:?} must stay bare");
        }
    }

    /// The char-by-char definition the byte table replaced, kept as an oracle.
    fn needs_quote_by_chars(s: &str) -> bool {
        let b = s.as_bytes();
        let Some(&first) = b.first() else { return true };
        if matches!(s, "-" | "~" | "^" | "true" | "false")
            || (b.len() >= 3 && first == b'^' && b[1] == b'{' && b[b.len() - 1] == b'}')
            || matches!(first, b'#' | b'@' | b'.')
            || looks_numeric(b)
        {
            return true;
        }
        let mut saw_bracket = false;
        for (i, c) in s.char_indices() {
            let code = c as u32;
            if code < 0x80 {
                match c {
                    '"' | '\\' | '|' | ',' => return true,
                    '[' => saw_bracket = true,
                    ' ' if i == 0 || i + 1 == s.len() => return true,
                    _ if code < 0x20 => return true,
                    _ => {}
                }
            } else if (0x80..=0x9f).contains(&code) || c.is_whitespace() || code == 0xfeff {
                return true;
            }
        }
        saw_bracket && has_inline_array_pattern(b)
    }

    #[test]
    fn byte_table_matches_the_char_definition() {
        let alphabet = [
            "a", "1", " ", "[", "]", ":", "|", ",", "\"", "\\", "\t", "\u{1}", "\u{7f}", "\u{85}",
            "\u{a0}", "\u{2028}", "\u{feff}", "\u{301}", "é", "😀", "-", ".", "^", "{", "}", "#",
        ];
        // Every string of up to three symbols from the alphabet.
        let mut strings = vec![String::new()];
        let mut frontier = strings.clone();
        for _ in 0..3 {
            let mut next = Vec::new();
            for prefix in &frontier {
                for symbol in alphabet {
                    next.push(format!("{prefix}{symbol}"));
                }
            }
            strings.extend(next.iter().cloned());
            frontier = next;
        }
        for s in &strings {
            assert_eq!(needs_quote(s), needs_quote_by_chars(s), "{s:?}");
        }
    }

    #[test]
    fn word_at_a_time_check_agrees_with_the_byte_table() {
        let naive = |b: &[u8]| b.iter().any(|&c| BYTE_CLASS[c as usize] != 0);
        // Every byte value at every position of strings of length 1..=20, in
        // a background of unclassified and of classified bytes.
        for len in 1..=20 {
            for background in [b'a', b' ', b']', 0x7f, b'!', b'[', 0x80, 0xff] {
                for pos in 0..len {
                    for byte in 0..=255u8 {
                        let mut s = vec![background; len];
                        s[pos] = byte;
                        assert_eq!(has_classified_byte(&s), naive(&s), "{s:?}");
                    }
                }
            }
        }
        assert!(!has_classified_byte(b""));
        assert!(!has_classified_byte(b"alice.smith123@example.com"));
        assert!(has_classified_byte(b"alice.smith123@example.co|"));
    }

    #[test]
    fn every_character_at_every_position_matches_the_char_definition() {
        // All ASCII, and non-ASCII characters covering every lead byte and
        // every continuation byte of UTF-8.
        let mut chars: Vec<char> = (0u32..0x100).filter_map(char::from_u32).collect();
        chars.extend((0x100u32..0x800).step_by(0x40).filter_map(char::from_u32));
        chars.extend(
            (0x800u32..0x1_0000)
                .step_by(0x1000)
                .filter_map(char::from_u32),
        );
        chars.extend([
            '\u{2028}', '\u{3000}', '\u{feff}', '\u{85}', '\u{a0}', '\u{d7ff}',
        ]);
        chars.extend(
            [0x1_0000u32, 0x4_0000, 0x8_0000, 0xc_0000, 0x10_ffff]
                .map(|c| char::from_u32(c).unwrap_or('a')),
        );
        for len in 1..=17 {
            for background in ['a', 'x'] {
                for pos in 0..len {
                    for &c in &chars {
                        let s: String = (0..len)
                            .map(|i| if i == pos { c } else { background })
                            .collect();
                        assert_eq!(needs_quote(&s), needs_quote_by_chars(&s), "{s:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn keys() {
        for k in ["name", "_root", "age_2", "A"] {
            assert!(is_bare_key(k));
        }
        for k in ["", "2a", "a-b", "a b", "a.b", "é", "a>b"] {
            assert!(!is_bare_key(k));
        }
        let mut out = Vec::new();
        write_key(&mut out, "content-type").unwrap();
        out.push(b' ');
        write_key(&mut out, "ok").unwrap();
        assert_eq!(out, br#""content-type" ok"#);
    }

    #[test]
    fn scalars() {
        let mut nb = NumberBuffer::new();
        let mut out = String::new();
        for v in [
            Value::Null,
            Value::Bool(true),
            Value::Int(-5),
            Value::Float(2.5),
            Value::from("x y"),
            Value::from("true"),
        ] {
            assert!(write_scalar(&mut out, &v, &mut nb).unwrap());
            out.push(';');
        }
        assert_eq!(out, "-;true;-5;2.5;x y;\"true\";");
        assert!(!write_scalar(&mut out, &Value::Array(Vec::new()), &mut nb).unwrap());
    }
}

#[cfg(test)]
mod string_form_tests {
    use super::*;

    #[test]
    fn string_forms_match_the_writers() {
        assert_eq!(format_key("a b"), "\"a b\"");
        assert_eq!(format_key("_k9"), "_k9");
        assert_eq!(quote("x\ny"), "\"x\\ny\"");
        assert_eq!(format_scalar(&Value::Null).unwrap().as_deref(), Some("-"));
        assert_eq!(
            format_scalar(&Value::Int(-3)).unwrap().as_deref(),
            Some("-3")
        );
        assert_eq!(
            format_scalar(&Value::from("true")).unwrap().as_deref(),
            Some("\"true\"")
        );
        assert!(format_scalar(&Value::Float(f64::NAN)).is_err());
    }
}
