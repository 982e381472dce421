//! Lines, tokens, scalars, keys, count brackets and field declarations: the
//! pieces of the generic grammar that live inside one line (spec §2, §2a, §4).
//!
//! Everything here borrows from the input; the only allocations are the
//! decoded strings themselves (and an escape-bearing quoted token).

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, ErrorKind};
use crate::generic::{Key, Value};
use crate::input::{Line, Lines};
use crate::number::{out_of_range_message, parse_number, NumberError, ParsedNumber};
use crate::text::{column_of, parse_quoted};

use super::keys::KeyIndex;

/// One significant line: not blank, not a comment, indentation measured.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ln<'a> {
    pub(crate) number: usize,
    /// Leading spaces.
    pub(crate) indent: usize,
    /// The whole line (without its terminator), for error columns.
    pub(crate) raw: &'a str,
}

impl<'a> Ln<'a> {
    /// The line after its indentation.
    #[inline]
    pub(crate) fn text(&self) -> &'a str {
        self.raw.get(self.indent..).unwrap_or("")
    }

    /// An error at byte `at` of the raw line.
    #[cold]
    pub(crate) fn error(&self, kind: ErrorKind, at: usize, message: impl Into<String>) -> Error {
        Error::at(kind, self.number, column_of(self.raw, at), message)
    }

    /// Byte offset of `part` (a subslice of this line) within the line.
    #[inline]
    pub(crate) fn offset_of(&self, part: &str) -> usize {
        (part.as_ptr() as usize)
            .wrapping_sub(self.raw.as_ptr() as usize)
            .min(self.raw.len())
    }
}

/// The significant lines of a body, with one line of lookahead.
pub(crate) struct Cursor<'a> {
    lines: Lines<'a>,
    peeked: Option<Ln<'a>>,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(lines: Lines<'a>) -> Self {
        Cursor {
            lines,
            peeked: None,
        }
    }

    /// The next significant line without consuming it.
    pub(crate) fn peek(&mut self) -> Result<Option<Ln<'a>>, Error> {
        if self.peeked.is_none() {
            self.peeked = self.fetch()?;
        }
        Ok(self.peeked)
    }

    /// Bytes not yet consumed, the peeked line (if any) included: an upper
    /// bound for sizing a container from a declared count.
    #[inline]
    pub(crate) fn remaining_len(&self) -> usize {
        self.lines.remaining().len() + self.peeked.map_or(0, |ln| ln.raw.len() + 1)
    }

    /// Consumes the line returned by the last [`Cursor::peek`].
    pub(crate) fn bump(&mut self) {
        self.peeked = None;
    }

    fn fetch(&mut self) -> Result<Option<Ln<'a>>, Error> {
        while let Some(line) = self.lines.next() {
            let line: Line<'a> = line?;
            // One scan of the leading spaces decides what `is_blank`,
            // `is_comment` and `indentation` would, in that order.
            let b = line.text.as_bytes();
            let mut spaces = 0;
            while spaces < b.len() && b[spaces] == b' ' {
                spaces += 1;
            }
            let indent = match b.get(spaces) {
                None => continue,
                Some(b'#') if matches!(b.get(spaces + 1), None | Some(b' ')) => continue,
                // A tab in the indentation, even on an otherwise blank line.
                Some(b'\t') => line.indentation()?,
                Some(_) => spaces,
            };
            if indent % 2 != 0 {
                return Err(line.error_at(
                    ErrorKind::InvalidIndent,
                    indent,
                    "indentation must be a multiple of two spaces",
                ));
            }
            return Ok(Some(Ln {
                number: line.number,
                indent,
                raw: line.text,
            }));
        }
        Ok(None)
    }
}

/// Where a scalar was found, which decides whether `~` and `^` are legal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    /// A tabular row cell: `~` and `^`/`^{...}` are allowed.
    Cell,
    /// Any other value position (`key=value`, list element, `@N =v`, root, positional body).
    Value,
}

/// A decoded cell: a value, the absent marker, or an attachment marker.
#[derive(Debug)]
pub(crate) enum Cell {
    Value(Value),
    Missing,
    /// `^` (no schema) or `^{...}` (the declared inline schema).
    Marker(Option<Vec<Key>>),
}

#[inline]
fn trim_ws(s: &str) -> &str {
    s.trim_matches([' ', '\t'])
}

#[inline]
fn trim_ws_start(s: &str) -> &str {
    s.trim_start_matches([' ', '\t'])
}

/// Splits `line.raw[start..]` on `delim` outside quoted tokens and decodes
/// each token with `f(cell, byte_offset_of_token)`. Returns the token count.
pub(crate) fn for_each_token<'a, F>(
    ln: &Ln<'a>,
    start: usize,
    delim: u8,
    ctx: Context,
    mut f: F,
) -> Result<usize, Error>
where
    F: FnMut(Cell, usize) -> Result<(), Error>,
{
    let raw = ln.raw;
    let bytes = raw.as_bytes();
    let mut pos = start;
    let mut n = 0usize;
    loop {
        // Skip leading structural whitespace.
        while pos < bytes.len() && matches!(bytes[pos], b' ' | b'\t') {
            pos += 1;
        }
        let token_start = pos;
        let (cell, after) = if bytes.get(pos) == Some(&b'"') {
            let (s, end) = parse_quoted(raw, pos).map_err(|e| e.with_position(ln.number, 1))?;
            let mut after = end;
            while after < bytes.len() && matches!(bytes[after], b' ' | b'\t') {
                after += 1;
            }
            if after < bytes.len() && bytes[after] != delim {
                return Err(ln.error(
                    ErrorKind::TrailingCharacters,
                    end,
                    "characters follow the closing quote of a quoted value",
                ));
            }
            (Cell::Value(Value::String(s.into_owned())), after)
        } else {
            let end = bare_token_end(bytes, pos, delim);
            // Leading whitespace is already skipped: trim the trailing only.
            let mut last = end;
            while last > pos && matches!(bytes[last - 1], b' ' | b'\t') {
                last -= 1;
            }
            let token = raw.get(pos..last).unwrap_or("");
            (bare_cell(ln, token, token_start, ctx)?, end)
        };
        f(cell, token_start)?;
        n += 1;
        if after >= bytes.len() {
            return Ok(n);
        }
        pos = after + 1; // past the delimiter
    }
}

/// The end of a bare token: the next `delim`, except that a `^{...}` marker
/// may hold quoted field names containing the delimiter.
///
/// The marker reading applies only when a complete field declaration follows
/// `^` and the token ends right after its `}`. Anything else starting with
/// `^{` (`^{abc`, `^{a` followed by a cell `b}`) is an ordinary token that
/// ends at the next delimiter: an encoder leaves such a string bare, because
/// it does not match `^{fields}` (spec §2.4).
fn bare_token_end(bytes: &[u8], pos: usize, delim: u8) -> usize {
    if bytes.get(pos) == Some(&b'^') && bytes.get(pos + 1) == Some(&b'{') {
        if let Some(close) = field_decl_end(bytes, pos + 1) {
            let mut end = close;
            while end < bytes.len() && matches!(bytes[end], b' ' | b'\t') {
                end += 1;
            }
            if end == bytes.len() || bytes[end] == delim {
                return end;
            }
        }
    }
    find_byte(bytes, pos, delim)
}

/// The offset of the first `needle` in `bytes` at or after `from`, or
/// `bytes.len()`. Cells are short (a few bytes to a few words), where a
/// `memchr` call costs more than the search: the first 32 bytes are searched
/// a word at a time inline, and only a longer token goes to `memchr`.
///
/// Per 64-bit word, `x = w ^ needle * 0x01..` has a zero byte exactly where
/// `w` holds `needle`; `(x - 0x01..) & !x & 0x80..` sets the high bit of
/// every zero byte and, through borrows, possibly of bytes above one, so its
/// lowest set bit marks the first match (words are read little-endian).
#[inline]
pub(crate) fn find_byte(bytes: &[u8], from: usize, needle: u8) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const INLINE: usize = 32;
    let Some(hay) = bytes.get(from..) else {
        return bytes.len();
    };
    let pattern = ONES * u64::from(needle);
    let mut i = 0;
    while i < INLINE {
        let Some(chunk) = hay.get(i..i + 8) else {
            // Fewer than eight bytes left.
            return hay[i..]
                .iter()
                .position(|&b| b == needle)
                .map_or(bytes.len(), |j| from + i + j);
        };
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let x = u64::from_le_bytes(w) ^ pattern;
        let found = x.wrapping_sub(ONES) & !x & HIGH;
        if found != 0 {
            return from + i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    memchr::memchr(needle, &hay[i..]).map_or(bytes.len(), |j| from + i + j)
}

/// The offset past the `}` of a syntactically complete field declaration
/// `{key,...}` starting at `open` (spec §2a.3), without decoding it.
fn field_decl_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    loop {
        match bytes.get(i)? {
            b'"' => {
                i += 1;
                loop {
                    match bytes.get(i)? {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            c if c.is_ascii_alphabetic() || *c == b'_' => {
                while bytes
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    i += 1;
                }
            }
            _ => return None,
        }
        match bytes.get(i)? {
            b',' => i += 1,
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Decodes a whole-rest-of-line value (`key=value`, `@N =value`, `=value`).
pub(crate) fn parse_value_at(ln: &Ln<'_>, start: usize) -> Result<Value, Error> {
    let raw = ln.raw;
    let rest = trim_ws_start(raw.get(start..).unwrap_or(""));
    let token_start = ln.offset_of(rest);
    if rest.starts_with('"') {
        let (s, end) = parse_quoted(raw, token_start).map_err(|e| e.with_position(ln.number, 1))?;
        if !trim_ws(&raw[end..]).is_empty() {
            return Err(ln.error(
                ErrorKind::TrailingCharacters,
                end,
                "characters follow the closing quote of a quoted value",
            ));
        }
        return Ok(Value::String(s.into_owned()));
    }
    match bare_cell(ln, trim_ws(rest), token_start, Context::Value)? {
        Cell::Value(v) => Ok(v),
        // bare_cell rejects markers outside cells.
        Cell::Missing | Cell::Marker(_) => {
            Err(ln.error(ErrorKind::InvalidSyntax, token_start, "unexpected marker"))
        }
    }
}

/// Applies the scalar precedence (spec §2.1, rules 2-7) to a trimmed bare token.
fn bare_cell(ln: &Ln<'_>, token: &str, at: usize, ctx: Context) -> Result<Cell, Error> {
    let b = token.as_bytes();
    match b.first() {
        None => return Ok(Cell::Value(Value::String(String::new()))),
        Some(b'-') if b.len() == 1 => return Ok(Cell::Value(Value::Null)),
        Some(b'-' | b'0'..=b'9') => {
            return match parse_number(token) {
                Ok(ParsedNumber::Int(i)) => Ok(Cell::Value(Value::Int(i))),
                Ok(ParsedNumber::Float(f)) => Ok(Cell::Value(Value::Float(f))),
                Err(NumberError::OutOfRange) => {
                    Err(ln.error(ErrorKind::OutOfRange, at, out_of_range_message(token)))
                }
                Err(NumberError::NotANumber) => Ok(Cell::Value(Value::String(String::from(token)))),
            }
        }
        Some(b'~') if b.len() == 1 => {
            if ctx == Context::Cell {
                return Ok(Cell::Missing);
            }
            return Err(ln.error(
                ErrorKind::InvalidMissing,
                at,
                "`~` (absent) is only valid in a tabular row cell; quote it (\"~\") for the string",
            ));
        }
        Some(b'^') if b.len() == 1 || (b.len() >= 3 && b[1] == b'{' && b[b.len() - 1] == b'}') => {
            if ctx != Context::Cell {
                return Err(ln.error(
                    ErrorKind::InvalidAttachmentMarker,
                    at,
                    "attachment marker outside a tabular row cell; quote it for the string",
                ));
            }
            if b.len() == 1 {
                return Ok(Cell::Marker(None));
            }
            let (fields, end) = parse_field_decl(ln, at + 1, false).map_err(|e| {
                Error::at(
                    ErrorKind::InvalidAttachmentMarker,
                    e.line().unwrap_or(ln.number),
                    e.column().unwrap_or(1),
                    alloc::format!("malformed inline schema: {}", e.message()),
                )
            })?;
            if end != at + b.len() {
                return Err(ln.error(
                    ErrorKind::InvalidAttachmentMarker,
                    at,
                    "malformed inline schema",
                ));
            }
            return Ok(Cell::Marker(Some(
                fields.into_iter().map(|f| f.name).collect(),
            )));
        }
        _ => {}
    }
    match token {
        "true" => Ok(Cell::Value(Value::Bool(true))),
        "false" => Ok(Cell::Value(Value::Bool(false))),
        _ => Ok(Cell::Value(Value::String(String::from(token)))),
    }
}

/// Parses a key (spec §2a.1) starting at byte `start` of the line; returns
/// the key and the byte offset just past it.
pub(crate) fn parse_key<'a>(ln: &Ln<'a>, start: usize) -> Result<(Cow<'a, str>, usize), Error> {
    let raw = ln.raw;
    let bytes = raw.as_bytes();
    match bytes.get(start) {
        Some(b'"') => parse_quoted(raw, start).map_err(|e| e.with_position(ln.number, 1)),
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
            let mut end = start + 1;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                end += 1;
            }
            Ok((Cow::Borrowed(&raw[start..end]), end))
        }
        _ => Err(ln.error(
            ErrorKind::InvalidSyntax,
            start,
            "expected a key (a bare key or a quoted string)",
        )),
    }
}

/// A declared count: `[N]`, `[?]`, `[N:]`, `[?:]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Count {
    /// `None` for a deferred `?`. Counts beyond `u64` saturate (they can never match).
    pub(crate) n: Option<u64>,
    pub(crate) keyed: bool,
    /// Byte offset of the `[`.
    pub(crate) at: usize,
}

/// Parses a count bracket at byte `start` (a `[`); returns it and the offset past `]`.
pub(crate) fn parse_count(ln: &Ln<'_>, start: usize) -> Result<(Count, usize), Error> {
    let bytes = ln.raw.as_bytes();
    let Some(close) = memchr::memchr(b']', &bytes[start..]).map(|i| start + i) else {
        return Err(ln.error(
            ErrorKind::InvalidSyntax,
            start,
            "count bracket has no closing `]`",
        ));
    };
    let mut inner = &ln.raw[start + 1..close];
    let keyed = inner.ends_with(':');
    if keyed {
        inner = &inner[..inner.len() - 1];
    }
    let invalid = || {
        ln.error(
            ErrorKind::InvalidCount,
            start + 1,
            alloc::format!(
                "invalid count `{inner}`: expected `0`, a decimal without leading zeros, or `?`"
            ),
        )
    };
    let n = if inner == "?" {
        None
    } else {
        let d = inner.as_bytes();
        if d.is_empty() || !d.iter().all(u8::is_ascii_digit) || (d.len() > 1 && d[0] == b'0') {
            return Err(invalid());
        }
        Some(d.iter().fold(0u64, |acc, &c| {
            acc.saturating_mul(10).saturating_add(u64::from(c - b'0'))
        }))
    };
    if keyed && n == Some(0) {
        return Err(ln.error(
            ErrorKind::InvalidCount,
            start + 1,
            "zero count `[0:]`: a keyed map has at least one member (an empty object is `## name`)",
        ));
    }
    Ok((
        Count {
            n,
            keyed,
            at: start,
        },
        close + 1,
    ))
}

/// One declared field name.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    /// A [`Key`], as every row object of the table holds a copy of it.
    pub(crate) name: Key,
    /// Marked `@` (a generic-delta identity column).
    pub(crate) identity: bool,
}

/// Parses a field declaration `{a,"b c",d}` at byte `start` (a `{`);
/// returns the fields and the offset past `}`.
pub(crate) fn parse_field_decl(
    ln: &Ln<'_>,
    start: usize,
    allow_identity: bool,
) -> Result<(Vec<Field>, usize), Error> {
    let bytes = ln.raw.as_bytes();
    debug_assert_eq!(bytes.get(start), Some(&b'{'));
    let mut fields: Vec<Field> = Vec::new();
    let mut index = KeyIndex::default();
    let mut pos = start + 1;
    let mut identity_seen = false;
    loop {
        let name_at = pos;
        let identity = allow_identity && bytes.get(pos) == Some(&b'@');
        if identity {
            if identity_seen {
                return Err(ln.error(
                    ErrorKind::InvalidSyntax,
                    pos,
                    "at most one `@` identity field per declaration",
                ));
            }
            identity_seen = true;
            pos += 1;
        }
        let (name, end) = parse_key(ln, pos)?;
        if index.contains(|i| fields[i].name.as_str(), fields.len(), &name) {
            return Err(ln.error(
                ErrorKind::DuplicateFieldName,
                name_at,
                alloc::format!("field `{name}` is declared twice"),
            ));
        }
        fields.push(Field {
            name: Key::from(name),
            identity,
        });
        index.record(|i| fields[i].name.as_str(), fields.len());
        match bytes.get(end) {
            Some(b',') => pos = end + 1,
            Some(b'}') => return Ok((fields, end + 1)),
            _ => {
                return Err(ln.error(
                    ErrorKind::InvalidSyntax,
                    end,
                    "expected `,` or `}` in the field declaration",
                ))
            }
        }
    }
}

/// Parses a summary trailer `##! summary k=v ...`, returning its `counts`.
pub(crate) fn parse_trailer(ln: &Ln<'_>) -> Result<Option<Vec<u64>>, Error> {
    let text = ln.text();
    let Some(rest) = text
        .strip_prefix("##! summary")
        .filter(|r| r.is_empty() || r.starts_with(' '))
    else {
        return Err(ln.error(
            ErrorKind::InvalidSyntax,
            ln.indent,
            "`##!` must begin a `##! summary` trailer",
        ));
    };
    let mut counts = None;
    for pair in rest.split(' ').filter(|p| !p.is_empty()) {
        let at = ln.offset_of(pair);
        let Some((key, value)) = pair.split_once('=') else {
            return Err(ln.error(
                ErrorKind::MalformedHeaderField,
                at,
                alloc::format!("summary field `{pair}` has no `=`"),
            ));
        };
        if key != "counts" {
            continue;
        }
        let mut list = Vec::new();
        for entry in value.split(',') {
            match crate::header::parse_decimal(entry) {
                Some(n) => list.push(n),
                None => {
                    return Err(ln.error(
                        ErrorKind::InvalidCount,
                        ln.offset_of(entry),
                        alloc::format!(
                        "summary count `{entry}` is not a decimal (generic counts are positional)"
                    ),
                    ))
                }
            }
        }
        counts = Some(list);
    }
    Ok(counts)
}

#[cfg(test)]
mod fetch_tests {
    use super::Cursor;
    use crate::input::Lines;

    /// The fused leading-space scan skips and measures lines exactly as
    /// `is_blank`, `is_comment` and `indentation` do.
    #[test]
    fn fetch_agrees_with_the_line_predicates() {
        let pieces = ["", " ", "  ", "\t", "#", "# ", "##", "#x", "x", "- ", "\t#"];
        let mut lines = alloc::vec::Vec::new();
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    lines.push(alloc::format!("{a}{b}{c}"));
                }
            }
        }
        for text in &lines {
            let limits = crate::Limits::default();
            let mut cursor = Cursor::new(Lines::new(text, &limits).unwrap());
            let got = cursor.fetch().map(|ln| ln.map(|ln| ln.indent));
            let line = Lines::new(text, &limits)
                .unwrap()
                .next()
                .map(|l| l.unwrap());
            let want = match line {
                None => Ok(None),
                Some(l) if l.is_blank() || l.is_comment() => Ok(None),
                Some(l) => match l.indentation() {
                    Err(e) => Err(e),
                    Ok(n) if n % 2 != 0 => {
                        Err(crate::Error::new(crate::ErrorKind::InvalidIndent, ""))
                    }
                    Ok(n) => Ok(Some(n)),
                },
            };
            match (got, want) {
                (Ok(g), Ok(w)) => assert_eq!(g, w, "{text:?}"),
                (Err(g), Err(w)) => {
                    assert_eq!(g.kind(), w.kind(), "{text:?}");
                    if w.kind() == crate::ErrorKind::TabIndentation {
                        assert_eq!((g.line(), g.column()), (w.line(), w.column()), "{text:?}");
                    }
                }
                (g, w) => panic!("{text:?}: {g:?} vs {w:?}"),
            }
        }
    }
}

#[cfg(test)]
mod find_byte_tests {
    use super::find_byte;
    use alloc::vec::Vec;

    /// The word-at-a-time search agrees with a byte loop at every length
    /// up to and past the inline window, every match position and start,
    /// with non-ASCII bytes and bytes one above or below the needle around.
    #[test]
    fn find_byte_agrees_with_a_byte_loop() {
        let fillers: [u8; 6] = [b'a', 0x7b, 0x7d, 0xfc, 0x00, 0xff];
        for len in 0..80usize {
            for filler in fillers {
                for needle in [b'|', b',', 0x00, 0xfc] {
                    let mut hay: Vec<u8> = (0..len)
                        .map(|i| {
                            if i % 3 == 0 {
                                filler
                            } else {
                                b'x' ^ (i as u8 & 1)
                            }
                        })
                        .filter(|&b| b != needle)
                        .collect();
                    let n = hay.len();
                    let naive = |h: &[u8], from: usize| {
                        h.iter()
                            .skip(from)
                            .position(|&b| b == needle)
                            .map_or(h.len(), |j| from + j)
                    };
                    for from in [0, 1, 7, 8, 9, n.saturating_sub(1), n, n + 1] {
                        assert_eq!(find_byte(&hay, from, needle), naive(&hay, from));
                    }
                    for at in 0..n {
                        let saved = hay[at];
                        hay[at] = needle;
                        if at + 1 < n {
                            hay[at + 1] = needle;
                        }
                        for from in [0, at / 2, at, at + 1] {
                            assert_eq!(
                                find_byte(&hay, from, needle),
                                naive(&hay, from),
                                "len {n} at {at} from {from}"
                            );
                        }
                        hay[at] = saved;
                        if at + 1 < n {
                            hay[at + 1] = hay[at + 1] ^ needle ^ b'y';
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn ln(raw: &str) -> Ln<'_> {
        Ln {
            number: 3,
            indent: raw.len() - raw.trim_start_matches(' ').len(),
            raw,
        }
    }

    fn cells(raw: &str) -> Result<Vec<Cell>, Error> {
        let l = ln(raw);
        let mut out = Vec::new();
        for_each_token(&l, 0, b'|', Context::Cell, |c, _| {
            out.push(c);
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn splits_cells_outside_quotes() {
        let c = cells(r#"1| "a|b" |~|^|-|x y |true|^{a,"b|c",d}|01"#).unwrap();
        assert_eq!(c.len(), 9);
        assert!(matches!(&c[0], Cell::Value(Value::Int(1))));
        assert!(matches!(&c[1], Cell::Value(Value::String(s)) if s == "a|b"));
        assert!(matches!(&c[2], Cell::Missing));
        assert!(matches!(&c[3], Cell::Marker(None)));
        assert!(matches!(&c[4], Cell::Value(Value::Null)));
        assert!(matches!(&c[5], Cell::Value(Value::String(s)) if s == "x y"));
        assert!(matches!(&c[6], Cell::Value(Value::Bool(true))));
        assert!(matches!(&c[7], Cell::Marker(Some(f)) if f == &vec!["a", "b|c", "d"]));
        assert!(matches!(&c[8], Cell::Value(Value::String(s)) if s == "01"));
    }

    /// Regression (property test): a string starting `^{` that is no complete
    /// marker is written bare and must end at the next `|`, not at a `}` of
    /// a later cell or the end of the line.
    #[test]
    fn caret_brace_strings_that_are_not_markers() {
        let c = cells(r#"^{.|false|^{a|b}|^{a,b}x|^{"p|q"} |z"#).unwrap();
        assert_eq!(c.len(), 7, "{c:?}");
        assert!(matches!(&c[0], Cell::Value(Value::String(s)) if s == "^{."));
        assert!(matches!(&c[1], Cell::Value(Value::Bool(false))));
        assert!(matches!(&c[2], Cell::Value(Value::String(s)) if s == "^{a"));
        assert!(matches!(&c[3], Cell::Value(Value::String(s)) if s == "b}"));
        assert!(matches!(&c[4], Cell::Value(Value::String(s)) if s == "^{a,b}x"));
        assert!(matches!(&c[5], Cell::Marker(Some(f)) if f == &vec!["p|q"]));
        assert!(matches!(&c[6], Cell::Value(Value::String(s)) if s == "z"));
        // A complete `^{...}` shape with a malformed declaration is rejected.
        assert_eq!(
            cells("^{.}|1").unwrap_err().kind(),
            ErrorKind::InvalidAttachmentMarker
        );
    }

    #[test]
    fn cell_errors_have_columns() {
        let e = cells(r#"1|"ab"c|2"#).unwrap_err();
        assert_eq!(
            (e.kind(), e.line(), e.column()),
            (ErrorKind::TrailingCharacters, Some(3), Some(7))
        );
        let e = cells("1|^{a,a}").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidAttachmentMarker);
        let e = cells("1|9223372036854775808").unwrap_err();
        assert_eq!((e.kind(), e.column()), (ErrorKind::OutOfRange, Some(3)));
        let e = cells(r#"é|"\q""#).unwrap_err();
        assert_eq!((e.kind(), e.column()), (ErrorKind::InvalidEscape, Some(4)));
    }

    #[test]
    fn values_reject_markers() {
        let l = ln("v=~");
        assert_eq!(
            parse_value_at(&l, 2).unwrap_err().kind(),
            ErrorKind::InvalidMissing
        );
        let l = ln("v=^{a}");
        assert_eq!(
            parse_value_at(&l, 2).unwrap_err().kind(),
            ErrorKind::InvalidAttachmentMarker
        );
        let l = ln("v= a|b ");
        assert_eq!(parse_value_at(&l, 2).unwrap(), Value::from("a|b"));
        let l = ln("v=^{");
        assert_eq!(parse_value_at(&l, 2).unwrap(), Value::from("^{"));
    }

    #[test]
    fn counts_and_fields() {
        let l = ln("## x [12:]{key,\"a,b\"}");
        let (c, end) = parse_count(&l, 5).unwrap();
        assert_eq!((c.n, c.keyed, end), (Some(12), true, 10));
        let (f, end) = parse_field_decl(&l, end, false).unwrap();
        assert_eq!(
            f.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            ["key", "a,b"]
        );
        assert_eq!(end, l.raw.len());
        for bad in ["[03]", "[-1]", "[]", "[1.5]", "[0:]", "[x]"] {
            let l = ln(bad);
            assert_eq!(
                parse_count(&l, 0).unwrap_err().kind(),
                ErrorKind::InvalidCount,
                "{bad}"
            );
        }
        let l = ln("{a,b,a}");
        let e = parse_field_decl(&l, 0, false).unwrap_err();
        assert_eq!(
            (e.kind(), e.column()),
            (ErrorKind::DuplicateFieldName, Some(6))
        );
        let l = ln("{@id,x}");
        assert!(parse_field_decl(&l, 0, false).is_err());
        assert!(parse_field_decl(&l, 0, true).unwrap().0[0].identity);
    }
}
