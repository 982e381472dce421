//! Parsers of single fields and lines, shared with the delta decoder.
use alloc::borrow::Cow;

use crate::error::{excerpt, Error, ErrorKind};
use crate::graph::kind::expand_known;
use crate::graph::token::is_token;
use crate::input::SourceLine;

#[cold]
pub(super) fn duplicate_id(line: &SourceLine<'_>, id: u64) -> Error {
    line.error_at(
        ErrorKind::InvalidSymbolId,
        1,
        alloc::format!("symbol id @{id} is declared twice"),
    )
}

/// Known kinds expand to their `'static` full form; unknown kinds pass through.
#[inline]
pub(crate) fn expand_kind_cow(abbrev: &str) -> Cow<'_, str> {
    match expand_known(abbrev) {
        Some(full) => Cow::Borrowed(full),
        None => Cow::Borrowed(abbrev),
    }
}

/// Parses `@<digits>` at the start of `text`, returning the id and the rest.
pub(crate) fn parse_id_prefix<'a>(
    line: &SourceLine<'_>,
    text: &'a str,
    missing: ErrorKind,
) -> Result<(u64, &'a str), Error> {
    let Some(rest) = text.strip_prefix('@') else {
        return Err(line.error_at(missing, 0, "expected a line starting with `@id`"));
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let id = if digits == 0 {
        None
    } else {
        rest[..digits].parse::<u64>().ok()
    };
    match id {
        Some(id) => Ok((id, &rest[digits..])),
        None => {
            let token_end = rest.find(' ').unwrap_or(rest.len());
            Err(line.error_at(
                ErrorKind::InvalidSymbolId,
                1,
                alloc::format!(
                    "invalid symbol id `@{}`: not a decimal number",
                    excerpt(&rest[..token_end])
                ),
            ))
        }
    }
}

/// Splits ` a b c d` (leading space included) into exactly `N`
/// space-separated fields, each a token (non-empty, no whitespace or control
/// characters: spec §4 `qname`, `provenance`; see [`is_token`]).
#[inline]
pub(crate) fn split_fields<const N: usize>(rest: &str) -> Option<[&str; N]> {
    let mut rest = rest.strip_prefix(' ')?;
    let mut out = [""; N];
    for (i, slot) in out.iter_mut().enumerate() {
        let end = if i + 1 == N {
            if rest.contains(' ') {
                return None;
            }
            rest.len()
        } else {
            rest.find(' ')?
        };
        if !is_token(&rest[..end]) {
            return None;
        }
        *slot = &rest[..end];
        rest = rest.get(end + 1..).unwrap_or("");
    }
    Some(out)
}

/// Parses a score with the grammar `[-]DIGITS.2DIGIT` (spec §4).
pub(crate) fn parse_score(line: &SourceLine<'_>, text: &str) -> Result<f64, Error> {
    let b = text.as_bytes();
    let digits = if b.first() == Some(&b'-') { &b[1..] } else { b };
    let n = digits.len();
    let shaped = n >= 4
        && digits[n - 3] == b'.'
        && digits[..n - 3].iter().all(u8::is_ascii_digit)
        && digits[n - 2..].iter().all(u8::is_ascii_digit);
    let value = if shaped {
        text.parse::<f64>().ok().filter(|v| v.is_finite())
    } else {
        None
    };
    value.ok_or_else(|| {
        let at = line.text.find(text).unwrap_or(0);
        line.error_at(
            ErrorKind::InvalidScore,
            at,
            alloc::format!(
                "invalid score `{}`: a score is written [-]DIGITS.DD",
                excerpt(text)
            ),
        )
    })
}

pub(crate) struct EdgeLine<'a> {
    pub source: u64,
    pub target: u64,
    pub source_at: usize,
    pub edge_type: &'a str,
    pub status: &'a str,
}

/// Parses `@target<@source type [status]`.
pub(crate) fn parse_edge_line<'a>(line: &SourceLine<'a>) -> Result<EdgeLine<'a>, Error> {
    let text = line.text;
    let Some(lt) = text.find('<') else {
        return Err(line.error_at(
            ErrorKind::InvalidEdgeSyntax,
            0,
            alloc::format!(
                "edge line missing '<' separator in `{}` (an edge line is `@target<@source type`)",
                excerpt(text)
            ),
        ));
    };
    let syntax = |msg: &str| {
        line.error_at(
            ErrorKind::InvalidEdgeSyntax,
            0,
            alloc::format!("invalid edge line: {msg}"),
        )
    };
    let (target, after_target) = parse_id_prefix(line, &text[..lt], ErrorKind::InvalidEdgeSyntax)?;
    if !after_target.is_empty() {
        return Err(syntax("expected `<` right after the target id"));
    }
    let source_at = lt + 1;
    let (source, rest) = parse_id_prefix(line, &text[source_at..], ErrorKind::InvalidEdgeSyntax)?;
    let rest = rest
        .strip_prefix(' ')
        .ok_or_else(|| syntax("expected ` type` after the source id"))?;
    let mut parts = rest.split(' ');
    let edge_type = parts
        .next()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| syntax("missing edge type"))?;
    let status = parts.next().unwrap_or("");
    if parts.next().is_some() || (status.is_empty() && rest.len() > edge_type.len()) {
        return Err(syntax("expected `@target<@source type [status]`"));
    }
    if !is_token(edge_type) || !(status.is_empty() || is_token(status)) {
        return Err(syntax(
            "the edge type and status contain no whitespace or control characters",
        ));
    }
    Ok(EdgeLine {
        source,
        target,
        source_at,
        edge_type,
        status,
    })
}
