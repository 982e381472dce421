//! Turning decoder input into lines: UTF-8 validation, line numbers, CRLF,
//! indentation, and the line-length and input-size limits.

use crate::error::{Error, ErrorKind};
use crate::limits::Limits;

/// Validates `bytes` as UTF-8, reporting the line and column of the first bad
/// sequence. A UTF-8-encoded surrogate (`ED A0..BF ..`) is reported as
/// `invalid_surrogate`, anything else as `invalid_utf8`.
pub fn validate_utf8(bytes: &[u8]) -> Result<&str, Error> {
    match core::str::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) => {
            let at = e.valid_up_to();
            let before = &bytes[..at];
            let line = memchr::memchr_iter(b'\n', before).count() + 1;
            let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
            // `before` is valid UTF-8 by construction.
            let prefix = core::str::from_utf8(&before[line_start..]).unwrap_or("");
            let column = prefix.chars().count() + 1;
            let surrogate =
                bytes.get(at) == Some(&0xED) && matches!(bytes.get(at + 1), Some(0xA0..=0xBF));
            if surrogate {
                Err(Error::at(
                    ErrorKind::InvalidSurrogate,
                    line,
                    column,
                    "literal UTF-16 surrogate encoded in UTF-8",
                ))
            } else {
                Err(Error::at(
                    ErrorKind::InvalidUtf8,
                    line,
                    column,
                    alloc::format!(
                        "malformed UTF-8 (byte 0x{:02X})",
                        bytes.get(at).copied().unwrap_or(0)
                    ),
                ))
            }
        }
    }
}

/// One physical line of input.
#[derive(Debug, Clone, Copy)]
pub struct SourceLine<'a> {
    /// 1-based line number.
    pub number: usize,
    /// The line without its terminator (and without a trailing `\r`).
    pub text: &'a str,
}

impl<'a> SourceLine<'a> {
    /// Counts leading spaces; a tab among them is an error.
    pub fn indentation(&self) -> Result<usize, Error> {
        let bytes = self.text.as_bytes();
        let mut n = 0;
        while n < bytes.len() {
            match bytes[n] {
                b' ' => n += 1,
                b'\t' => {
                    return Err(Error::at(
                        ErrorKind::TabIndentation,
                        self.number,
                        n + 1,
                        "tab character in indentation; GCF indents with two spaces per level",
                    ))
                }
                _ => break,
            }
        }
        Ok(n)
    }

    /// Whether the line is empty or only spaces. A tab makes it not blank:
    /// it is leading whitespace with a tab in it, which spec §4.1 and §16.5
    /// reject as tab indentation, so [`SourceLine::indentation`] reports it.
    pub fn is_blank(&self) -> bool {
        self.text.bytes().all(|b| b == b' ')
    }

    /// Whether the line is a comment: `#` and a space after indentation
    /// (spec §4: `comment = "#" SP *VCHAR`), so neither a `##` section header
    /// nor a lone `#`, which every reference refuses too.
    pub fn is_comment(&self) -> bool {
        self.text.trim_start_matches(' ').starts_with("# ")
    }

    /// An error at a byte offset of this line.
    #[cold]
    pub fn error_at(
        &self,
        kind: ErrorKind,
        byte: usize,
        message: impl Into<alloc::string::String>,
    ) -> Error {
        Error::at(
            kind,
            self.number,
            crate::text::column_of(self.text, byte),
            message,
        )
    }
}

/// Iterates over the lines of a payload, enforcing the line-length limit.
pub struct SourceLines<'a> {
    rest: &'a str,
    number: usize,
    max_line_len: usize,
}

impl<'a> SourceLines<'a> {
    /// Lines of `input`, after checking its size against `limits`.
    pub fn new(input: &'a str, limits: &Limits) -> Result<SourceLines<'a>, Error> {
        if input.len() > limits.max_input_len {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                alloc::format!(
                    "input is {} bytes, over the configured limit of {}",
                    input.len(),
                    limits.max_input_len
                ),
            ));
        }
        Ok(SourceLines {
            rest: input,
            number: 0,
            max_line_len: limits.max_line_len,
        })
    }

    /// The input not yet returned as lines, for a decoder that parses a
    /// line in place (finding its end itself) instead of calling [`SourceLines::next`].
    #[inline]
    pub(crate) fn remaining(&self) -> &'a str {
        self.rest
    }

    /// Steps over one line that the caller parsed from [`SourceLines::remaining`]:
    /// `len` bytes, its terminator included, ending on a char boundary. The
    /// caller has checked the line against the line-length limit.
    #[inline]
    pub(crate) fn skip_line(&mut self, len: usize) {
        self.rest = &self.rest[len..];
        self.number += 1;
    }

    /// The next line, or `None` at the end of input. A final line terminator
    /// does not produce an empty last line.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<Result<SourceLine<'a>, Error>> {
        if self.rest.is_empty() {
            return None;
        }
        self.number += 1;
        let (mut text, rest) = match memchr::memchr(b'\n', self.rest.as_bytes()) {
            Some(i) => (&self.rest[..i], &self.rest[i + 1..]),
            None => (self.rest, ""),
        };
        self.rest = rest;
        if let Some(stripped) = text.strip_suffix('\r') {
            text = stripped;
        }
        if text.len() > self.max_line_len {
            return Some(Err(Error::at(
                ErrorKind::LimitExceeded,
                self.number,
                1,
                alloc::format!(
                    "line is {} bytes, over the configured limit of {}",
                    text.len(),
                    self.max_line_len
                ),
            )));
        }
        Some(Ok(SourceLine {
            number: self.number,
            text,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn lines(s: &str) -> Vec<(usize, &str)> {
        let mut l = SourceLines::new(s, &Limits::default()).unwrap();
        let mut out = Vec::new();
        while let Some(line) = l.next() {
            let line = line.unwrap();
            out.push((line.number, line.text));
        }
        out
    }

    #[test]
    fn splits_lines_and_strips_cr() {
        assert_eq!(
            lines("a\r\nb\n\nc"),
            [(1, "a"), (2, "b"), (3, ""), (4, "c")]
        );
        assert_eq!(lines("a\n"), [(1, "a")]);
        assert!(lines("").is_empty());
    }

    #[test]
    fn limits_apply() {
        let limits = Limits {
            max_line_len: 3,
            ..Limits::default()
        };
        let mut l = SourceLines::new("abc\nabcd\n", &limits).unwrap();
        assert!(l.next().unwrap().is_ok());
        let e = l.next().unwrap().unwrap_err();
        assert_eq!((e.kind(), e.line()), (ErrorKind::LimitExceeded, Some(2)));
        let limits = Limits {
            max_input_len: 2,
            ..Limits::default()
        };
        assert!(SourceLines::new("abc", &limits).is_err());
    }

    #[test]
    fn utf8_errors_have_positions() {
        let e = validate_utf8(b"GCF profile=generic\nvalue=\xff\n").unwrap_err();
        assert_eq!(
            (e.kind(), e.line(), e.column()),
            (ErrorKind::InvalidUtf8, Some(2), Some(7))
        );
        let e = validate_utf8(b"x=\xed\xa0\x80").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidSurrogate);
        assert_eq!(validate_utf8("é".as_bytes()).unwrap(), "é");
    }

    #[test]
    fn indentation_and_comments() {
        let l = SourceLine {
            number: 1,
            text: "    x",
        };
        assert_eq!(l.indentation().unwrap(), 4);
        let l = SourceLine {
            number: 2,
            text: "  \tx",
        };
        assert_eq!(l.indentation().unwrap_err().column(), Some(3));
        assert!(SourceLine {
            number: 1,
            text: "  # note"
        }
        .is_comment());
        assert!(!SourceLine {
            number: 1,
            text: "## section"
        }
        .is_comment());
        assert!(!SourceLine {
            number: 1,
            text: "#tag=1"
        }
        .is_comment());
        for text in ["#", "  #", "#\t"] {
            assert!(!SourceLine { number: 1, text }.is_comment(), "{text:?}");
        }
        assert!(SourceLine {
            number: 1,
            text: "# "
        }
        .is_comment());
        // A tab makes a line tab indentation, not blank (issue 21).
        assert!(!SourceLine {
            number: 1,
            text: " \t"
        }
        .is_blank());
        assert!(SourceLine {
            number: 1,
            text: "   "
        }
        .is_blank());
    }
}
