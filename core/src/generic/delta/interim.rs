//! INTERIM text -> sections reader for delta payloads, to be replaced by
//! `Decoder::decode_document` when the generic decoder lands (this whole file
//! goes then). It reads only what delta payloads need: top-level
//! `## name [N|?]{fields}` sections whose rows are flat scalar cells (no `@N`
//! prefixes, no attachments), with count validation (spec §13) and the
//! `##! summary` trailer.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, ErrorKind, Result};
use crate::header::parse_decimal;
use crate::input::{Line, Lines};
use crate::number::{parse_number, NumberError, ParsedNumber};
use crate::text::parse_quoted;

use super::super::{Map, Value};

/// One `## name [N]{fields}` section with its rows.
pub(super) struct Section {
    pub(super) name: String,
    pub(super) line: usize,
    pub(super) declared: Option<u64>,
    pub(super) fields: Vec<String>,
    pub(super) identity: Option<String>,
    pub(super) rows: Vec<Map>,
}

/// Reads the sections after the header line.
pub(super) fn parse_sections(lines: &mut Lines<'_>) -> Result<Vec<Section>> {
    let mut sections: Vec<Section> = Vec::new();
    let mut summary: Option<(usize, String)> = None;
    while let Some(line) = lines.next() {
        let line = line?;
        if line.is_blank() || line.is_comment() {
            continue;
        }
        if line.indentation()? > 0 {
            return Err(line.error_at(
                ErrorKind::InvalidIndent,
                0,
                "delta payloads have no indented lines",
            ));
        }
        if let Some(pairs) = line.text.strip_prefix("##! summary") {
            let counts = pairs
                .split(' ')
                .find_map(|p| p.strip_prefix("counts="))
                .unwrap_or("");
            summary = Some((line.number, String::from(counts)));
        } else if let Some(head) = line.text.strip_prefix("## ") {
            if let Some(last) = sections.last() {
                check_count(last, last.declared, last.line)?;
            }
            sections.push(parse_section_header(&line, head)?);
        } else {
            let Some(section) = sections.last_mut() else {
                return Err(line.error_at(
                    ErrorKind::InvalidSyntax,
                    0,
                    "a row before any `##` section",
                ));
            };
            if section
                .declared
                .is_some_and(|n| section.rows.len() as u64 >= n)
            {
                return Err(line.error_at(
                    ErrorKind::CountMismatch,
                    0,
                    "more rows than the section's declared count",
                ));
            }
            let row = parse_row(&line, &section.fields)?;
            section.rows.push(row);
        }
    }
    if let Some(last) = sections.last() {
        check_count(last, last.declared, last.line)?;
    }
    if let Some((number, counts)) = summary {
        let mut entries = counts.split(',').filter(|c| !c.is_empty());
        for section in sections.iter().filter(|s| s.declared.is_none()) {
            let n = entries.next().and_then(parse_decimal);
            check_count(section, Some(n.unwrap_or(u64::MAX)), number)?;
        }
        if entries.next().is_some() {
            return Err(Error::at(
                ErrorKind::CountMismatch,
                number,
                1,
                "the summary has more counts than `[?]` sections",
            ));
        }
    }
    Ok(sections)
}

/// `declared` against the rows, reported at `line`.
fn check_count(section: &Section, declared: Option<u64>, line: usize) -> Result<()> {
    match declared {
        Some(n) if n != section.rows.len() as u64 => Err(Error::at(
            ErrorKind::CountMismatch,
            line,
            1,
            alloc::format!(
                "section `{}` declares {n} rows but has {}",
                section.name,
                section.rows.len()
            ),
        )),
        _ => Ok(()),
    }
}

/// `name [N]{@id,field,...}` after `## `.
fn parse_section_header(line: &Line<'_>, head: &str) -> Result<Section> {
    let start = line.text.len() - head.len();
    let (name, mut at) = parse_key(line, start)?;
    let text = line.text;
    let bad = |at: usize, what: &str| {
        line.error_at(
            ErrorKind::InvalidSyntax,
            at,
            alloc::format!("expected {what}"),
        )
    };
    if !text[at..].starts_with(" [") {
        return Err(bad(at, "` [count]{fields}` after the section name"));
    }
    let close = text[at..]
        .find(']')
        .map(|i| at + i)
        .ok_or_else(|| bad(at, "`]`"))?;
    let count = &text[at + 2..close];
    let declared = match count {
        "?" => None,
        _ => Some(
            parse_decimal(count)
                .ok_or_else(|| line.error_at(ErrorKind::InvalidCount, at + 2, "invalid count"))?,
        ),
    };
    at = close + 1;
    if !text[at..].starts_with('{') {
        return Err(bad(at, "`{` opening the field declaration"));
    }
    let (mut fields, mut identity) = (Vec::new(), None);
    loop {
        at += 1;
        let marked = text[at..].starts_with('@');
        let (field, end) = parse_key(line, at + usize::from(marked))?;
        if fields.contains(&field) {
            return Err(line.error_at(
                ErrorKind::DuplicateFieldName,
                at,
                alloc::format!("field `{field}` declared twice"),
            ));
        }
        if marked && identity.replace(field.clone()).is_some() {
            return Err(line.error_at(
                ErrorKind::MalformedDelta,
                at,
                "more than one `@` identity field",
            ));
        }
        fields.push(field);
        at = end;
        match text.as_bytes().get(at) {
            Some(b',') => {}
            Some(b'}') if at + 1 == text.len() => break,
            _ => return Err(bad(at, "`,` or a final `}`")),
        }
    }
    Ok(Section {
        name,
        line: line.number,
        declared,
        fields,
        identity,
        rows: Vec::new(),
    })
}

/// A bare or quoted key at byte `at`, and the byte after it.
fn parse_key(line: &Line<'_>, at: usize) -> Result<(String, usize)> {
    let rest = &line.text[at..];
    if rest.starts_with('"') {
        let (key, end) =
            parse_quoted(line.text, at).map_err(|e| e.with_position(line.number, 1))?;
        return Ok((key.into_owned(), end));
    }
    let len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    if len == 0 || rest.as_bytes()[0].is_ascii_digit() {
        return Err(line.error_at(
            ErrorKind::InvalidSyntax,
            at,
            "expected a key (bare or quoted)",
        ));
    }
    Ok((String::from(&rest[..len]), at + len))
}

/// One row of flat scalar cells, split on `|` outside quotes (spec §2.1, §7.4).
fn parse_row(line: &Line<'_>, fields: &[String]) -> Result<Map> {
    let text = line.text;
    if text.starts_with('@') {
        return Err(line.error_at(
            ErrorKind::MalformedDelta,
            0,
            "`@N` rows (attachments) are not supported in delta rows",
        ));
    }
    let mut row = Map::with_capacity(fields.len());
    let mut at = 0;
    for (i, field) in fields.iter().enumerate() {
        let start = at + text[at..].len() - text[at..].trim_start_matches([' ', '\t']).len();
        let (value, end) = if text[start..].starts_with('"') {
            let (s, end) =
                parse_quoted(text, start).map_err(|e| e.with_position(line.number, 1))?;
            let after = end + text[end..].len() - text[end..].trim_start_matches([' ', '\t']).len();
            if !(after == text.len() || text.as_bytes()[after] == b'|') {
                return Err(line.error_at(
                    ErrorKind::TrailingCharacters,
                    after,
                    "characters after a closing quote",
                ));
            }
            (Some(Value::String(Cow::into_owned(s))), after)
        } else {
            let end =
                memchr::memchr(b'|', &text.as_bytes()[start..]).map_or(text.len(), |j| start + j);
            (
                bare_scalar(line, start, text[start..end].trim_end_matches([' ', '\t']))?,
                end,
            )
        };
        if let Some(value) = value {
            row.push_unique(field.clone(), value);
        }
        match (end == text.len(), i + 1 == fields.len()) {
            (false, false) => at = end + 1,
            (true, true) => return Ok(row),
            (ended, _) => {
                let fewer = if ended { "fewer" } else { "more" };
                return Err(line.error_at(
                    ErrorKind::RowWidthMismatch,
                    0,
                    alloc::format!(
                        "row has {fewer} cells than the section's {} fields",
                        fields.len()
                    ),
                ));
            }
        }
    }
    Ok(row) // unreachable: a declaration has at least one field
}

/// An unquoted cell by the scalar precedence (spec §2.1); `None` is `~`.
fn bare_scalar(line: &Line<'_>, at: usize, token: &str) -> Result<Option<Value>> {
    Ok(Some(match token {
        "-" => Value::Null,
        "~" => return Ok(None),
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ if token.starts_with('^') && (token == "^" || token.starts_with("^{")) => {
            return Err(line.error_at(
                ErrorKind::MalformedDelta,
                at,
                "attachments are not supported in delta rows",
            ))
        }
        _ => match parse_number(token) {
            Ok(ParsedNumber::Int(i)) => Value::Int(i),
            Ok(ParsedNumber::Float(f)) => Value::Float(f),
            Err(NumberError::OutOfRange) => {
                return Err(line.error_at(
                    ErrorKind::OutOfRange,
                    at,
                    crate::number::out_of_range_message(token),
                ))
            }
            Err(NumberError::NotANumber) => Value::String(String::from(token)),
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;

    fn sections(text: &str) -> Result<Vec<Section>> {
        parse_sections(&mut Lines::new(text, &Limits::default()).unwrap())
    }

    #[test]
    fn rows_follow_the_scalar_precedence() {
        let s = sections("## added [1]{@id,a,b,c,d,e}\nx | \"a|b\" |-|~|1.50|\"\"\n").unwrap();
        let row = &s[0].rows[0];
        assert_eq!(row.get("id"), Some(&Value::from("x")));
        assert_eq!(row.get("a"), Some(&Value::from("a|b")));
        assert_eq!(row.get("b"), Some(&Value::Null));
        assert_eq!(row.get("c"), None);
        assert_eq!(row.get("d"), Some(&Value::Float(1.5)));
        assert_eq!(row.get("e"), Some(&Value::from("")));
        assert_eq!(s[0].identity.as_deref(), Some("id"));
    }

    #[test]
    fn errors_have_kinds_and_lines() {
        let cases = [
            ("## added [1]{@id,a}\n1\n", ErrorKind::RowWidthMismatch, 2),
            (
                "## added [1]{@id,a}\n1|2|3\n",
                ErrorKind::RowWidthMismatch,
                2,
            ),
            ("## added [2]{@id}\n1\n", ErrorKind::CountMismatch, 1),
            ("## added [01]{@id}\n", ErrorKind::InvalidCount, 1),
            ("## added [1]{@id,id}\n", ErrorKind::DuplicateFieldName, 1),
            (
                "## added [1]{@id}\n\"a\"x\n",
                ErrorKind::TrailingCharacters,
                2,
            ),
            ("## added [1]{@id}\n\"a\n", ErrorKind::UnterminatedQuote, 2),
            (
                "## added [1]{@id}\n99999999999999999999\n",
                ErrorKind::OutOfRange,
                2,
            ),
            (
                "## added [?]{@id}\n1\n##! summary counts=2\n",
                ErrorKind::CountMismatch,
                3,
            ),
            ("1\n", ErrorKind::InvalidSyntax, 1),
            ("## added [1]{@id}\n  1\n", ErrorKind::InvalidIndent, 2),
            ("## added [1]{@id}\n^\n", ErrorKind::MalformedDelta, 2),
        ];
        for (text, kind, line) in cases {
            let e = sections(text)
                .err()
                .unwrap_or_else(|| panic!("{text:?} must fail"));
            assert_eq!((e.kind(), e.line()), (kind, Some(line)), "{text:?}: {e}");
        }
        assert_eq!(
            sections("## added [?]{@id}\n1\n##! summary counts=1\n").unwrap()[0]
                .rows
                .len(),
            1
        );
    }
}
