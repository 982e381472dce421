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
use crate::input::{SourceLine, SourceLines};
use crate::number::{
    double_out_of_range_message, out_of_range_message, parse_number, NumberError, ParsedNumber,
};
use crate::text::{column_of, parse_quoted};

use super::delimiters::Delimiters;
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
    lines: SourceLines<'a>,
    peeked: Option<Ln<'a>>,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(lines: SourceLines<'a>) -> Self {
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
            let line: SourceLine<'a> = line?;
            // One scan of the leading spaces decides what `is_blank`,
            // `is_comment` and `indentation` would, in that order.
            let b = line.text.as_bytes();
            let mut spaces = 0;
            while spaces < b.len() && b[spaces] == b' ' {
                spaces += 1;
            }
            let indent = match b.get(spaces) {
                None => continue,
                Some(b'#') if b.get(spaces + 1) == Some(&b' ') => continue,
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
    /// A whole-line value read by [`parse_line_value_at`]: a value
    /// position whose bare string is lent, as a cell's is.
    Lent,
}

/// A decoded cell: a value, the absent marker, or an attachment marker.
#[derive(Debug)]
pub(crate) enum Cell<'a> {
    Value(Value),
    /// A bare string of a tabular row cell, borrowed from the line: made a
    /// [`Value`] only if the decoder keeps it (most go straight to the
    /// builder, [`Build::string`](super::build::Build::string)).
    Str(&'a str),
    Missing,
    /// `^` (no schema) or `^{...}` (the declared inline schema, which may
    /// hold constant fields).
    Marker(Option<Vec<Field>>),
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
    F: FnMut(Cell<'a>, usize) -> Result<(), Error>,
{
    let raw = ln.raw;
    let bytes = raw.as_bytes();
    let mut pos = start;
    let mut n = 0usize;
    let mut delimiters = Delimiters::new(bytes, delim, start);
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
            (Cell::Value(Value::String(Key::from(s))), after)
        } else {
            // Only a tabular row cell can hold a marker, so only there can a
            // bare token span delimiters (a `^{...}` declaration with quoted
            // names); elsewhere, as in the references, it ends at the next
            // delimiter, and the encoder's bare `^{a` followed by a cell
            // `b}` in an inline array reads back as those two strings.
            let end = match ctx {
                Context::Cell if bytes.get(pos) == Some(&b'^') => bare_token_end(bytes, pos, delim),
                _ => delimiters.next_from(pos),
            };
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
            b'"' => i = quoted_end(bytes, i)?,
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
        if bytes.get(i) == Some(&b'=') {
            i += 1;
            if bytes.get(i) == Some(&b'"') {
                i = quoted_end(bytes, i)?;
            } else {
                // A bare constant holds no `|` (encoders quote it): `^{a=x|b}`
                // is the cells `^{a=x` and `b}`, as a reference splits it.
                loop {
                    match bytes.get(i)? {
                        b',' | b'}' => break,
                        b'|' => return None,
                        _ => i += 1,
                    }
                }
            }
        }
        match bytes.get(i)? {
            b',' => i += 1,
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// The offset past the closing quote of the quoted token opening at `open`.
fn quoted_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    loop {
        match bytes.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// A whole-line value: a bare string as the line holds it, or any other
/// scalar.
pub(crate) enum LineValue<'a> {
    Bare(&'a str),
    Value(Value),
}

/// Decodes a whole-rest-of-line value (`key=value`, `@N =value`, `=value`).
pub(crate) fn parse_value_at(ln: &Ln<'_>, start: usize) -> Result<Value, Error> {
    Ok(match parse_line_value_at(ln, start)? {
        LineValue::Bare(s) => Value::String(Key::new(s)),
        LineValue::Value(v) => v,
    })
}

/// [`parse_value_at`], a bare string lent from the line: a builder that
/// copies text into its own objects ([`Build::string`]) makes no [`Key`]
/// for it.
///
/// [`Build::string`]: super::build::Build::string
pub(crate) fn parse_line_value_at<'a>(ln: &Ln<'a>, start: usize) -> Result<LineValue<'a>, Error> {
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
        return Ok(LineValue::Value(Value::String(Key::from(s))));
    }
    match bare_cell(ln, trim_ws(rest), token_start, Context::Lent)? {
        Cell::Value(v) => Ok(LineValue::Value(v)),
        Cell::Str(s) => Ok(LineValue::Bare(s)),
        // bare_cell rejects markers outside cells.
        Cell::Missing | Cell::Marker(_) => {
            Err(ln.error(ErrorKind::InvalidSyntax, token_start, "unexpected marker"))
        }
    }
}

/// A bare string token: borrowed in a row cell and a whole-line value, a
/// [`Value`] elsewhere.
#[inline(always)]
fn string_cell(token: &str, ctx: Context) -> Cell<'_> {
    match ctx {
        Context::Cell | Context::Lent => Cell::Str(token),
        Context::Value => Cell::Value(Value::String(Key::new(token))),
    }
}

/// Applies the scalar precedence (spec §2.1, rules 2-7) to a trimmed bare token.
///
/// Inlined into the token loops: returned through memory, the cell (a
/// `Value` whose inline string is stored piecewise) was read back by wider
/// loads that waited for those stores, 3.6 % of a 10-record decode's
/// instructions and about 4 % of its time on x86-64. Not on WebAssembly,
/// where the copies in every loop cost 5.6 KB of a module over its budget.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
#[cfg_attr(target_arch = "wasm32", inline)]
fn bare_cell<'a>(ln: &Ln<'_>, token: &'a str, at: usize, ctx: Context) -> Result<Cell<'a>, Error> {
    let b = token.as_bytes();
    match b.first() {
        None => return Ok(string_cell(token, ctx)),
        Some(b'-') if b.len() == 1 => return Ok(Cell::Value(Value::Null)),
        Some(b'-' | b'0'..=b'9') => {
            return match parse_number(token) {
                Ok(ParsedNumber::Int(i)) => Ok(Cell::Value(Value::Int(i))),
                Ok(ParsedNumber::Float(f)) => Ok(Cell::Value(Value::Float(f))),
                Err(NumberError::OutOfRange) => {
                    // An integer past int64, or a decimal or exponent past a
                    // double's range (`1e999`): each named for what it is.
                    let message = if b.iter().any(|c| matches!(c, b'.' | b'e' | b'E')) {
                        double_out_of_range_message(token)
                    } else {
                        out_of_range_message(token)
                    };
                    Err(ln.error(ErrorKind::OutOfRange, at, message))
                }
                Err(NumberError::NotANumber) => Ok(string_cell(token, ctx)),
            };
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
            let decl = parse_field_decl(ln, at + 1, Identity::Reject).map_err(|e| {
                // A bad constant keeps its own category: the marker itself is sound.
                let kind = match e.kind() {
                    k @ (ErrorKind::InvalidConstValue | ErrorKind::OutOfRange) => k,
                    _ => ErrorKind::InvalidAttachmentMarker,
                };
                Error::at(
                    kind,
                    e.line().unwrap_or(ln.number),
                    e.column().unwrap_or(1),
                    alloc::format!("malformed inline schema: {}", e.message()),
                )
            })?;
            if decl.end != at + b.len() {
                return Err(ln.error(
                    ErrorKind::InvalidAttachmentMarker,
                    at,
                    "malformed inline schema",
                ));
            }
            if decl.constants == decl.fields.len() {
                return Err(ln.error(
                    ErrorKind::NoBareColumn,
                    at,
                    "every field of the inline schema is constant; its positional body would be empty",
                ));
            }
            return Ok(Cell::Marker(Some(decl.fields)));
        }
        _ => {}
    }
    // By length and words: a `match` on the two texts compiles to a
    // `memcmp` call for every bare string of four or five bytes (1 % of a
    // table decode's instructions).
    let b = token.as_bytes();
    let boolean = match b.len() {
        4 if crate::words::load4(b, 0) == u32::from_le_bytes(*b"true") => Some(true),
        5 if crate::words::load4(b, 0) == u32::from_le_bytes(*b"fals") && b[4] == b'e' => {
            Some(false)
        }
        _ => None,
    };
    match boolean {
        Some(v) => Ok(Cell::Value(Value::Bool(v))),
        None => Ok(string_cell(token, ctx)),
    }
}

/// The message for a field declaration's `@` key (at byte `start` of
/// `raw`) where no `group=` clause or `key=` header allows one, worded as
/// the reference SDKs word it ("invalid field name").
pub(crate) fn at_key_outside_group(raw: &str, start: usize) -> String {
    let name = raw.get(start..).unwrap_or("");
    let end = 1 + name
        .bytes()
        .skip(1)
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
        .count();
    alloc::format!(
        "invalid field name `{}`: an `@` key column is valid only in a grouped section (a `group=` clause) or a keyed delta payload (a `key=` header)",
        crate::error::excerpt(name.get(..end).unwrap_or(name))
    )
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
        Some(b'@') => Err(ln.error(
            ErrorKind::InvalidSyntax,
            start,
            at_key_outside_group(raw, start),
        )),
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
                "invalid count `{}`: expected `0`, a decimal without leading zeros, or `?`",
                crate::error::excerpt(inner)
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

/// One declared field.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    /// A [`Key`], as every row object of the table holds a copy of it.
    pub(crate) name: Key,
    /// Marked `@` (a generic-delta identity column, or a grouped table's key column).
    pub(crate) identity: bool,
    /// `name=value`: a constant column (spec §7.4.7), whose value every row
    /// holds and no row carries a cell for.
    pub(crate) constant: Option<Value>,
}

/// What a declaration may do with `@` marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Identity {
    /// `@` is no part of a key: a syntax error where the key should start.
    Reject,
    /// At most one `@` field (a delta-participating table, spec §10a.1).
    One,
    /// Any number, recorded for the caller to judge (a table whose line may
    /// end in a `group=` clause, which needs exactly one, spec §7.4.8.1).
    Any,
}

/// A parsed field declaration.
#[derive(Debug)]
pub(crate) struct Decl {
    pub(crate) fields: Vec<Field>,
    /// The offset past the `}`.
    pub(crate) end: usize,
    /// How many fields are constant.
    pub(crate) constants: usize,
    /// Byte offsets of the first and second `@` marks.
    pub(crate) marks: [Option<usize>; 2],
}

/// The most fields [`parse_field_decl`] reserves room for up front.
const FIELDS_HINT_MAX: usize = 256;

/// Parses a field declaration `{a,"b c",d=1,e="x,y"}` at byte `start` (a `{`).
///
/// The grammar (spec §2a.3, extended by §7.4.7.2 and §7.4.8.1):
/// `decl = "{" entry *("," entry) "}"`, `entry = ["@"] key ["=" const]`,
/// where `const` is a quoted string or a bare token running to the next `,`
/// or `}` (the encoders quote a value holding either), read with the scalar
/// precedence of a `key=value` line but without trimming: a declaration has
/// no structural whitespace.
pub(crate) fn parse_field_decl(
    ln: &Ln<'_>,
    start: usize,
    identity_mode: Identity,
) -> Result<Decl, Error> {
    let bytes = ln.raw.as_bytes();
    debug_assert_eq!(bytes.get(start), Some(&b'{'));
    // Sized by the commas before the first `}` (a hint: quoted names may
    // hold either), so a declaration does not grow its vector field by field.
    let hint = bytes
        .get(start..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&b| b != b'}')
        .filter(|&&b| b == b',')
        .count();
    let mut fields: Vec<Field> = Vec::with_capacity(hint.min(FIELDS_HINT_MAX) + 1);
    let mut index = KeyIndex::default();
    let mut pos = start + 1;
    let mut marks = [None, None];
    let mut constants = 0;
    loop {
        let name_at = pos;
        let identity = identity_mode != Identity::Reject && bytes.get(pos) == Some(&b'@');
        if identity {
            if marks[0].is_none() {
                marks[0] = Some(pos);
            } else if marks[1].is_none() {
                if identity_mode == Identity::One {
                    return Err(ln.error(
                        ErrorKind::InvalidSyntax,
                        pos,
                        "at most one `@` identity field per declaration",
                    ));
                }
                marks[1] = Some(pos);
            }
            pos += 1;
        }
        let (name, mut end) = parse_key(ln, pos)?;
        if index.contains(|i| fields[i].name.as_str(), fields.len(), &name) {
            return Err(ln.error(
                ErrorKind::DuplicateFieldName,
                name_at,
                alloc::format!("field `{}` is declared twice", crate::error::excerpt(&name)),
            ));
        }
        let mut constant = None;
        if bytes.get(end) == Some(&b'=') {
            let (value, after) = parse_const_in_decl(ln, end + 1)?;
            constant = Some(value);
            constants += 1;
            end = after;
        }
        fields.push(Field {
            name: Key::from(name),
            identity,
            constant,
        });
        index.record(|i| fields[i].name.as_str(), fields.len());
        match bytes.get(end) {
            Some(b',') => pos = end + 1,
            Some(b'}') => {
                return Ok(Decl {
                    fields,
                    end: end + 1,
                    constants,
                    marks,
                })
            }
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

/// A constant's value token at `at` inside a field declaration; returns the
/// value and the offset of the `,` or `}` that ends it.
fn parse_const_in_decl(ln: &Ln<'_>, at: usize) -> Result<(Value, usize), Error> {
    let raw = ln.raw;
    let bytes = raw.as_bytes();
    if bytes.get(at) == Some(&b'"') {
        let (s, end) = parse_quoted(raw, at).map_err(|e| e.with_position(ln.number, 1))?;
        if !matches!(bytes.get(end), Some(b',' | b'}')) {
            return Err(ln.error(
                ErrorKind::TrailingCharacters,
                end,
                "characters follow the closing quote of a constant value",
            ));
        }
        return Ok((Value::String(Key::from(s)), end));
    }
    let mut end = at;
    while end < bytes.len() && !matches!(bytes[end], b',' | b'}') {
        end += 1;
    }
    Ok((parse_const_token(ln, &raw[at..end], at)?, end))
}

/// A bare constant token (spec §7.4.7.2): a scalar by the precedence of
/// §2.1, except that the empty token, `~` and a complete attachment marker
/// (`^`, or `^{...}` ending in `}`) are no constant. A `^{` token without its
/// closing `}` is a plain string, as the references read it.
pub(crate) fn parse_const_token(ln: &Ln<'_>, token: &str, at: usize) -> Result<Value, Error> {
    let b = token.as_bytes();
    let problem = if b.is_empty() {
        Some("empty constant value (an empty string is written `\"\"`)")
    } else if matches!(b[0], b' ' | b'\t') || matches!(b[b.len() - 1], b' ' | b'\t') {
        Some("a bare constant value has no spaces at either end (encoders quote such a string)")
    } else if token == "~" {
        Some("`~` (absent) is no constant value")
    } else if token == "^"
        || (b.len() >= 3 && b[0] == b'^' && b[1] == b'{' && b[b.len() - 1] == b'}')
    {
        Some("an attachment marker is no constant value")
    } else {
        None
    };
    if let Some(problem) = problem {
        return Err(ln.error(ErrorKind::InvalidConstValue, at, problem));
    }
    match bare_cell(ln, token, at, Context::Value)? {
        Cell::Value(v) => Ok(v),
        Cell::Str(_) | Cell::Missing | Cell::Marker(_) => Err(ln.error(
            ErrorKind::InvalidConstValue,
            at,
            "an attachment marker is no constant value",
        )),
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
                alloc::format!("summary field `{}` has no `=`", crate::error::excerpt(pair)),
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
                            "summary count `{}` is not a decimal (generic counts are positional)",
                            crate::error::excerpt(entry)
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
    use crate::input::SourceLines;

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
            let mut cursor = Cursor::new(SourceLines::new(text, &limits).unwrap());
            let got = cursor.fetch().map(|ln| ln.map(|ln| ln.indent));
            let line = SourceLines::new(text, &limits)
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

    fn ln(raw: &str) -> Ln<'_> {
        Ln {
            number: 3,
            indent: raw.len() - raw.trim_start_matches(' ').len(),
            raw,
        }
    }

    /// The cells of a row, each bare string (which a row cell borrows) made
    /// a value as the decoder makes it.
    fn cells(raw: &str) -> Result<Vec<Cell<'_>>, Error> {
        let l = ln(raw);
        let mut out = Vec::new();
        for_each_token(&l, 0, b'|', Context::Cell, |c, _| {
            out.push(match c {
                Cell::Str(s) => Cell::Value(Value::String(Key::new(s))),
                c => c,
            });
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn only_true_and_false_are_booleans() {
        let c = cells("true|false|True|fals|falsy|truE|tru|\"true\"|xrue|falsd").unwrap();
        assert!(matches!(c[0], Cell::Value(Value::Bool(true))));
        assert!(matches!(c[1], Cell::Value(Value::Bool(false))));
        for (i, text) in [
            "True", "fals", "falsy", "truE", "tru", "true", "xrue", "falsd",
        ]
        .iter()
        .enumerate()
        {
            assert!(
                matches!(&c[i + 2], Cell::Value(Value::String(s)) if s == text),
                "{text}: {:?}",
                c[i + 2]
            );
        }
    }

    #[test]
    fn row_cells_borrow_their_bare_strings() {
        let l = ln(r#"a b|"q"|-|01|x"#);
        let mut out = Vec::new();
        for_each_token(&l, 0, b'|', Context::Cell, |c, _| {
            out.push(c);
            Ok(())
        })
        .unwrap();
        assert!(matches!(out[0], Cell::Str("a b")));
        // Quoted strings are unescaped into values of their own.
        assert!(matches!(&out[1], Cell::Value(Value::String(s)) if s == "q"));
        assert!(matches!(out[2], Cell::Value(Value::Null)));
        assert!(matches!(out[3], Cell::Str("01")));
        assert!(matches!(out[4], Cell::Str("x")));
        // Elsewhere a bare string is a value.
        let mut out = Vec::new();
        for_each_token(&l, 0, b'|', Context::Value, |c, _| {
            out.push(c);
            Ok(())
        })
        .unwrap();
        assert!(matches!(&out[0], Cell::Value(Value::String(s)) if s == "a b"));
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
        assert!(
            matches!(&c[7], Cell::Marker(Some(f)) if f.iter().map(|f| f.name.as_str()).eq(["a", "b|c", "d"]))
        );
        assert!(matches!(&c[8], Cell::Value(Value::String(s)) if s == "01"));
    }

    /// Regression (fuzz): outside a tabular row no marker is legal, so a bare
    /// token ends at the next delimiter even where the cells after it would
    /// complete a `^{...}` declaration: the encoder writes the strings `^{a`,
    /// `x{id` and `name}` of an inline array as `^{a,"x{id",name}`.
    #[test]
    fn inline_array_tokens_end_at_the_comma() {
        let l = ln(r#"^{a,"x{id",name},^{b}"#);
        let mut out = Vec::new();
        let e = for_each_token(&l, 0, b',', Context::Value, |c, _| {
            out.push(c);
            Ok(())
        })
        .unwrap_err();
        // The complete `^{b}` is still refused as a marker.
        assert_eq!(e.kind(), ErrorKind::InvalidAttachmentMarker);
        assert_eq!(out.len(), 3, "{out:?}");
        assert!(matches!(&out[0], Cell::Value(Value::String(s)) if s == "^{a"));
        assert!(matches!(&out[1], Cell::Value(Value::String(s)) if s == "x{id"));
        assert!(matches!(&out[2], Cell::Value(Value::String(s)) if s == "name}"));
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
        assert!(matches!(&c[5], Cell::Marker(Some(f)) if f[0].name == "p|q"));
        assert!(matches!(&c[6], Cell::Value(Value::String(s)) if s == "z"));
        // A bare constant with a `|` makes no marker either; a quoted one does.
        let c = cells(r#"^{a=x|b}|^{a="x|y",b}"#).unwrap();
        assert_eq!(c.len(), 3, "{c:?}");
        assert!(matches!(&c[0], Cell::Value(Value::String(s)) if s == "^{a=x"));
        assert!(matches!(&c[1], Cell::Value(Value::String(s)) if s == "b}"));
        assert!(
            matches!(&c[2], Cell::Marker(Some(f)) if f[0].constant == Some(Value::from("x|y")))
        );
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
        let d = parse_field_decl(&l, end, Identity::Reject).unwrap();
        assert_eq!(
            d.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            ["key", "a,b"]
        );
        assert_eq!(d.end, l.raw.len());
        for bad in ["[03]", "[-1]", "[]", "[1.5]", "[0:]", "[x]"] {
            let l = ln(bad);
            assert_eq!(
                parse_count(&l, 0).unwrap_err().kind(),
                ErrorKind::InvalidCount,
                "{bad}"
            );
        }
        let l = ln("{a,b,a}");
        let e = parse_field_decl(&l, 0, Identity::Reject).unwrap_err();
        assert_eq!(
            (e.kind(), e.column()),
            (ErrorKind::DuplicateFieldName, Some(6))
        );
        let l = ln("{@id,x}");
        assert!(parse_field_decl(&l, 0, Identity::Reject).is_err());
        assert!(parse_field_decl(&l, 0, Identity::One).unwrap().fields[0].identity);
    }
}
