//! Quoted strings (spec §2.2): the canonical escaper and the strict parser.

use alloc::borrow::Cow;
use alloc::string::String;

use crate::error::{Error, ErrorKind};
use crate::sink::Sink;

/// What each byte needs inside a quoted string: `0` for nothing, `u` for a
/// `\u00XX` escape, otherwise the letter of its short escape.
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = b'u';
        i += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// Writes `s` as a JSON quoted string with the canonical escapes: `\"`, `\\`,
/// the short control escapes, `\u00XX` for the other C0 controls, everything
/// else literal. Runs that need no escape are copied as one slice.
pub fn write_quoted<S: Sink + ?Sized>(sink: &mut S, s: &str) -> Result<(), Error> {
    sink.write_bytes(b"\"")?;
    write_escaped(sink, s)?;
    sink.write_bytes(b"\"")?;
    Ok(())
}

/// Writes the inside of a quoted string (no surrounding quotes).
pub fn write_escaped<S: Sink + ?Sized>(sink: &mut S, s: &str) -> Result<(), Error> {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc = ESCAPE[b as usize];
        if esc == 0 {
            continue;
        }
        if start < i {
            sink.write_bytes(&bytes[start..i])?;
        }
        if esc == b'u' {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let seq = [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 0xf) as usize],
            ];
            sink.write_bytes(&seq)?;
        } else {
            sink.write_bytes(&[b'\\', esc])?;
        }
        start = i + 1;
    }
    if start < bytes.len() {
        sink.write_bytes(&bytes[start..])?;
    }
    Ok(())
}

/// Parses the quoted string that starts at byte `start` of `line` (which must
/// be a `"`), returning its value and the byte index just past the closing
/// quote. Errors carry the column of the offending character relative to
/// `line`; callers add the line number.
///
/// Strings without escapes are borrowed from `line`.
pub fn parse_quoted(line: &str, start: usize) -> Result<(Cow<'_, str>, usize), Error> {
    let bytes = line.as_bytes();
    debug_assert_eq!(bytes.get(start), Some(&b'"'));
    let body = start + 1;
    // Fast path: no backslash before the closing quote.
    match memchr::memchr2(b'"', b'\\', &bytes[body..]) {
        None => {
            return Err(Error::at(
                ErrorKind::UnterminatedQuote,
                0,
                column_of(line, start),
                "quoted string has no closing quote",
            ))
        }
        Some(off) if bytes[body + off] == b'"' => {
            check_unescaped(line, body, body + off)?;
            return Ok((Cow::Borrowed(&line[body..body + off]), body + off + 1));
        }
        Some(_) => {}
    }
    let mut out = String::new();
    let mut i = body;
    loop {
        let Some(off) = memchr::memchr2(b'"', b'\\', &bytes[i..]) else {
            return Err(Error::at(
                ErrorKind::UnterminatedQuote,
                0,
                column_of(line, start),
                "quoted string has no closing quote",
            ));
        };
        check_unescaped(line, i, i + off)?;
        crate::ops::tick(off + 1);
        out.push_str(&line[i..i + off]);
        i += off;
        if bytes[i] == b'"' {
            return Ok((Cow::Owned(out), i + 1));
        }
        // A backslash escape. Its column is counted only for an error:
        // counting it for every escape made a line of escapes quadratic.
        let esc_at = i;
        let Some(&kind) = bytes.get(i + 1) else {
            return Err(Error::at(
                ErrorKind::UnterminatedQuote,
                0,
                column_of(line, start),
                "quoted string has no closing quote",
            ));
        };
        i += 2;
        let simple = match kind {
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'u' => None,
            _ => {
                return Err(Error::at(
                    ErrorKind::InvalidEscape,
                    0,
                    column_of(line, esc_at),
                    alloc::format!("invalid escape sequence \\{}", char_at(line, i - 1)),
                ))
            }
        };
        if let Some(c) = simple {
            out.push(c);
            continue;
        }
        let unit = hex4(bytes, i).ok_or_else(|| {
            Error::at(
                ErrorKind::InvalidEscape,
                0,
                column_of(line, esc_at),
                "\\u must be followed by four hex digits",
            )
        })?;
        i += 4;
        let c = match unit {
            0xD800..=0xDBFF => {
                let low = if bytes.get(i) == Some(&b'\\') && bytes.get(i + 1) == Some(&b'u') {
                    hex4(bytes, i + 2)
                } else {
                    None
                };
                match low {
                    Some(low @ 0xDC00..=0xDFFF) => {
                        i += 6;
                        let scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        char::from_u32(scalar)
                    }
                    _ => None,
                }
                .ok_or_else(|| {
                    Error::at(
                        ErrorKind::InvalidSurrogate,
                        0,
                        column_of(line, esc_at),
                        alloc::format!(
                            "high surrogate \\u{unit:04X} is not followed by a low surrogate"
                        ),
                    )
                })?
            }
            0xDC00..=0xDFFF => {
                return Err(Error::at(
                    ErrorKind::InvalidSurrogate,
                    0,
                    column_of(line, esc_at),
                    alloc::format!("isolated low surrogate \\u{unit:04X}"),
                ))
            }
            _ => char::from_u32(unit).unwrap_or('\u{FFFD}'),
        };
        out.push(c);
    }
}

/// Rejects a raw control character (U+0000-U+001F) in `line[from..to]`, a
/// run of quoted-string text between escapes: spec §2.2 `unescaped` starts
/// at `%x20`, so a tab, a NUL or a lone `\r` must be written as an escape.
/// The category is `invalid_escape`, as in the reference crate: the
/// character is valid only in its escaped form.
#[inline]
fn check_unescaped(line: &str, from: usize, to: usize) -> Result<(), Error> {
    match line.as_bytes()[from..to].iter().position(|&b| b < 0x20) {
        None => Ok(()),
        Some(at) => Err(Error::at(
            ErrorKind::InvalidEscape,
            0,
            column_of(line, from + at),
            alloc::format!(
                "raw control character U+{:04X} in a quoted string; write it as an escape",
                line.as_bytes()[from + at]
            ),
        )),
    }
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let mut v = 0u32;
    for &d in digits {
        v = v * 16 + (d as char).to_digit(16)?;
    }
    Some(v)
}

fn char_at(line: &str, byte: usize) -> char {
    line.get(byte..)
        .and_then(|s| s.chars().next())
        .unwrap_or('?')
}

/// The 1-based column (in characters) of byte offset `byte` in `line`.
pub fn column_of(line: &str, byte: usize) -> usize {
    let byte = byte.min(line.len());
    // A scan from the line's start: counted, so that a caller doing it once
    // per token (quadratic on a long line) fails the complexity tests.
    crate::ops::tick(byte);
    // Count characters by counting non-continuation bytes.
    line.as_bytes()[..byte]
        .iter()
        .filter(|&&b| (b as i8) >= -0x40)
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn quoted(s: &str) -> String {
        let mut v = Vec::new();
        write_quoted(&mut v, s).unwrap();
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn escapes_canonically() {
        assert_eq!(quoted("plain"), "\"plain\"");
        assert_eq!(quoted("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(quoted("\n\r\t\u{8}\u{c}"), r#""\n\r\t\b\f""#);
        assert_eq!(quoted("\u{0}\u{1f}"), r#""\u0000\u001f""#);
        assert_eq!(quoted("é/😀\u{7f}"), "\"é/😀\u{7f}\"");
    }

    #[test]
    fn parses_and_round_trips() {
        for s in [
            "",
            "plain",
            "a\"b\\c",
            "\n\r\t\u{8}\u{c}",
            "\u{0}\u{1f}",
            "é😀|,",
        ] {
            let q = quoted(s);
            let (v, end) = parse_quoted(&q, 0).unwrap();
            assert_eq!(v, s);
            assert_eq!(end, q.len());
        }
        let (v, end) = parse_quoted(r#"x="\u00e9\ud83d\ude00\/"|rest"#, 2).unwrap();
        assert_eq!(v, "é😀/");
        assert_eq!(end, 24);
        assert!(matches!(
            parse_quoted("\"borrowed\" tail", 0).unwrap().0,
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn rejects_bad_strings() {
        let kind = |s: &str| parse_quoted(s, 0).unwrap_err().kind();
        assert_eq!(kind("\"open"), ErrorKind::UnterminatedQuote);
        assert_eq!(kind("\"open\\\""), ErrorKind::UnterminatedQuote);
        assert_eq!(kind("\"bad\\x\""), ErrorKind::InvalidEscape);
        assert_eq!(kind("\"bad\\u12\""), ErrorKind::InvalidEscape);
        assert_eq!(kind("\"\\uD800\""), ErrorKind::InvalidSurrogate);
        assert_eq!(kind("\"\\uDC00\""), ErrorKind::InvalidSurrogate);
        assert_eq!(kind("\"\\uD83D\\u0041\""), ErrorKind::InvalidSurrogate);
        let e = parse_quoted("\"é\\q\"", 0).unwrap_err();
        assert_eq!(e.column(), Some(3));
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(column_of("abc", 0), 1);
        assert_eq!(column_of("éa", 2), 2);
        assert_eq!(column_of("😀x", 4), 2);
    }
}
