//! The scalar and key grammar (spec §2, §2a) as the reference crate's
//! helpers: quoting, keys, canonical numbers and one token's value.
//!
//! Each helper asks gcf-core's grammar, the one its encoders and decoders
//! use, so a helper cannot spell or read a token otherwise than they do.
//! Where the crate's helper departs from the spec, the spec's answer is
//! given (`bindings-rust/README.md`): `parse_scalar` trims ASCII spaces and
//! tabs around the token (§4.2) and reads `^{...}` in a row cell as an
//! attachment marker (§2.1); a number past a double's range is an
//! `out_of_range` error; numbers the core refuses format as `""`.
//!
//! Not provided: the crate's `split_respecting_quotes`, `split_field_decl`
//! and `find_closing_brace`. They split rows and field declarations by
//! their own reading of quotes (a `"` in the middle of a bare token opens a
//! quoted run there), which is not the spec's, and gcf-core has no public
//! splitter to answer them with.

use gcf_core::generic::{self as core, CellToken, ScalarWriter, Value as CoreValue};
use gcf_core::ErrorKind;

use crate::error_text;

/// The value of one token, with the two row-cell markers: `~` (a field the
/// record lacks) and `^` (a value attached beneath the row).
#[derive(Debug, Clone, PartialEq)]
pub enum ScalarValue {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Missing,
    Attachment,
}

/// Whether `s` must be written quoted to read back as this string (§2.4):
/// empty, a literal or marker (`true`, `-`, `~`, `^`, `^{...}`), shaped like
/// a number, led by `#`, `@`, `.` or a space or ending in one, holding a
/// quote, backslash, `|`, `,`, a control character or Unicode space, or an
/// inline-array-like `[..]:`.
pub fn needs_quote(s: &str) -> bool {
    core::needs_quote(s)
}

/// `s` quoted and escaped, whether or not it needs it.
pub fn quote_string(s: &str) -> String {
    core::quote(s)
}

/// A scalar as a cell or `key=value` line writes it: `-`, `true`/`false`, a
/// canonical number, or a string, quoted when §2.4 asks or when it holds
/// `delimiter` (`'\0'` for none).
///
/// `""` where the core writes nothing: an array or object (not a scalar;
/// the crate writes `-`, which reads back as null) or an integer outside
/// int64.
pub fn format_scalar(v: &serde_json::Value, delimiter: char) -> String {
    let Ok(value) = core::from_json(v) else {
        return String::new();
    };
    let mut buf = [0u8; 4];
    let delimiter = if delimiter == '\0' {
        ""
    } else {
        delimiter.encode_utf8(&mut buf)
    };
    let mut out = Vec::new();
    match ScalarWriter::new().scalar_in(&mut out, &value, delimiter) {
        Ok(true) => String::from_utf8(out).unwrap_or_default(),
        _ => String::new(),
    }
}

/// A number in its canonical form (§2.3.1): an integer as its digits, a
/// double in plain decimal from 1e-6 up to 2^53 and in exponent form
/// otherwise, `0` for either zero.
///
/// `""` for a number the core refuses (an integer outside int64, a literal
/// past a double's range), where the crate writes the literal itself;
/// [`format_number_checked`] gives the reason.
pub fn format_number(n: &serde_json::Number) -> String {
    format_number_checked(n).unwrap_or_default()
}

/// [`format_number`], or for a number outside the numeric domain (§2.3.2)
/// its literal and an `out_of_range: ...` message.
pub fn format_number_checked(n: &serde_json::Number) -> Result<String, (String, String)> {
    let refused = |e: gcf_core::Error| (n.to_string(), error_text(&e));
    let value = core::from_json(&serde_json::Value::Number(n.clone())).map_err(refused)?;
    match core::format_scalar(&value) {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err((n.to_string(), out_of_range_message(&n.to_string()))),
        Err(e) => Err(refused(e)),
    }
}

/// The message for an integer outside int64 (§2.3.2): `out_of_range: `, the
/// value, the range and the remedy (write it as a string).
pub fn out_of_range_message(value: &str) -> String {
    format!(
        "{}: {}",
        ErrorKind::OutOfRange.name(),
        gcf_core::int64_out_of_range_message(value)
    )
}

/// Whether `s` may be written as a bare key (§2a.1): `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_bare_key(s: &str) -> bool {
    core::is_bare_key(s)
}

/// A key or field name: bare when it can be, else quoted.
pub fn format_key(s: &str) -> String {
    core::format_key(s)
}

fn scalar_out(v: CoreValue) -> ScalarValue {
    match v {
        CoreValue::Null => ScalarValue::Null,
        CoreValue::Bool(b) => ScalarValue::Bool(b),
        CoreValue::Int(i) => ScalarValue::Int(i),
        CoreValue::Float(f) => ScalarValue::Float(f),
        CoreValue::String(s) => ScalarValue::Str(s.to_string()),
        // One token is never a container; its JSON text keeps it readable.
        other => ScalarValue::Str(core::to_json(&other).to_string()),
    }
}

/// The value of one token (§2.1), ASCII spaces and tabs around it trimmed
/// (§4.2): a quoted string, `-` as null, `true`/`false`, a number, or a bare
/// string. In a table row cell (`tabular_context`) `~` is
/// [`ScalarValue::Missing`] and `^` or `^{...}` [`ScalarValue::Attachment`];
/// elsewhere they are `invalid_missing` and `invalid_attachment_marker`.
///
/// Errors are `category: message (line 1, column C)`: a malformed quoted
/// string (`unterminated_quote`, `invalid_escape`, `invalid_surrogate`,
/// `trailing_characters`) or a number outside the numeric domain
/// (`out_of_range`).
pub fn parse_scalar(s: &str, tabular_context: bool) -> Result<ScalarValue, String> {
    if !tabular_context {
        return core::parse_scalar(s)
            .map(scalar_out)
            .map_err(|e| error_text(&e));
    }
    match core::parse_cell_token(s).map_err(|e| error_text(&e))? {
        CellToken::Value(v) => Ok(scalar_out(v)),
        CellToken::Missing => Ok(ScalarValue::Missing),
        CellToken::Attachment(_) => Ok(ScalarValue::Attachment),
    }
}

/// The string one quoted token (`"..."`, JSON escapes) holds; the token is
/// all of `s`, so anything after its closing quote, whitespace included, is
/// `trailing_characters`. A token that does not start with `"` is
/// `unterminated_quote`.
pub fn parse_quoted_string(s: &str) -> Result<String, String> {
    if !s.starts_with('"') {
        return Err(format!(
            "{}: a quoted string starts with '\"'",
            ErrorKind::UnterminatedQuote.name()
        ));
    }
    match core::parse_scalar(s).map_err(|e| error_text(&e))? {
        // The core trims what trails a value line's token; a lone token
        // has nothing after its closing quote.
        CoreValue::String(_) if s.ends_with([' ', '\t']) => Err(format!(
            "{}: after the closing quote",
            ErrorKind::TrailingCharacters.name()
        )),
        CoreValue::String(v) => Ok(v.to_string()),
        // A token led by `"` reads as a string or not at all.
        _ => Err(format!(
            "{}: not one quoted string",
            ErrorKind::UnterminatedQuote.name()
        )),
    }
}
