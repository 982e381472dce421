//! Reading delta payloads and applying them atomically (spec §10a.2, §10a.5).

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use hashbrown::HashMap;

use crate::error::{Error, ErrorKind, Result};
use crate::header::{parse_decimal, parse_header, Profile};
use crate::input::{Line, Lines};
use crate::number::{parse_number, NumberBuffer, NumberError, ParsedNumber};
use crate::text::parse_quoted;
use crate::Limits;

use super::super::{Map, Value};
use super::{identity_of, identity_text, pack_root, GenericDelta, KeyedSet};

/// Decodes a delta payload and applies it to `base` (spec §10a.5): see [`apply`].
///
/// ```
/// use gcf_core::generic::{apply_delta, pack_root, KeyedSet, Map, Value};
/// use gcf_core::ErrorKind;
///
/// let mut row = Map::new();
/// row.insert("id", Value::Int(1));
/// let base = KeyedSet { name: "t".into(), key: "id".into(), fields: vec!["id".into()], rows: vec![row] };
/// let root = pack_root(&base)?;
/// let wire = format!("GCF profile=generic delta=true base_root={root} new_root=sha256:0 key=id\n## added [1]{{@id}}\n2\n");
/// assert_eq!(apply_delta(&base, &wire).unwrap_err().kind(), ErrorKind::RootMismatch);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn apply_delta(base: &KeyedSet, delta_text: &str) -> Result<KeyedSet> {
    apply(base, &decode_delta(delta_text)?)
}

/// Applies a delta to `base` atomically and verifies both roots (spec §10a.5).
///
/// `base` is never modified; the result is a new set with the base's name,
/// key and fields, its untouched rows in their order (changed rows replaced
/// in place, removed rows dropped), then the added rows.
///
/// Errors: [`ErrorKind::RootMismatch`] when `base` does not hash to
/// `base_root` or the result does not hash to `new_root`;
/// [`ErrorKind::MalformedDelta`] for a contradictory operation (adding an
/// identity that already exists, changing or removing one that does not,
/// naming one identity twice), a different key or field set, a row without
/// its identity or with an undeclared member.
pub fn apply(base: &KeyedSet, delta: &GenericDelta) -> Result<KeyedSet> {
    let held_root = pack_root(base)?;
    if held_root != delta.base_root {
        return Err(Error::new(
            ErrorKind::RootMismatch,
            alloc::format!(
                "the delta's base_root {} is not the held set's root {held_root}",
                delta.base_root
            ),
        ));
    }
    if delta.key != base.key {
        return Err(malformed(alloc::format!(
            "the delta is keyed by `{}`, the held set by `{}`",
            delta.key,
            base.key
        )));
    }
    let same_fields = delta.fields.len() == base.fields.len()
        && delta.fields.iter().all(|f| base.fields.contains(f));
    if !delta.fields.is_empty() && !same_fields {
        return Err(malformed("the delta declares other fields than the held set; a schema change needs a full payload"));
    }
    let mut numbers = NumberBuffer::new();
    let mut index = HashMap::with_capacity(base.rows.len());
    for (i, row) in base.rows.iter().enumerate() {
        let id = identity_of(row, &base.key, &mut numbers)?.ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidInput,
                "a row of the held set has no identity",
            )
        })?;
        if index.insert(id, i).is_some() {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "the held set has duplicate identities",
            ));
        }
    }

    // Validate every operation against the untouched base before building anything.
    enum Op {
        Removed,
        Changed(usize),
        Added,
    }
    let mut ops: HashMap<Vec<u8>, Op> =
        HashMap::with_capacity(delta.removed.len() + delta.changed.len());
    let show = |id: &[u8]| String::from_utf8_lossy(id).into_owned();
    for value in &delta.removed {
        let id = identity_text(value, &mut numbers)?;
        if !index.contains_key(&id) {
            return Err(malformed(alloc::format!(
                "removed identity {} is not in the base",
                show(&id)
            )));
        }
        if ops.insert(id.clone(), Op::Removed).is_some() {
            return Err(malformed(alloc::format!(
                "identity {} is removed twice",
                show(&id)
            )));
        }
    }
    for (section, rows) in [("changed", &delta.changed), ("added", &delta.added)] {
        for (i, row) in rows.iter().enumerate() {
            if let Some(extra) = row.keys().find(|k| !base.fields.iter().any(|f| f == k)) {
                return Err(malformed(alloc::format!(
                    "{section} row has undeclared member `{extra}`"
                )));
            }
            let id = identity_of(row, &base.key, &mut numbers)?.ok_or_else(|| {
                malformed(alloc::format!(
                    "{section} row has no identity `{}`",
                    base.key
                ))
            })?;
            let exists = index.contains_key(&id);
            if section == "added" && exists {
                return Err(malformed(alloc::format!(
                    "added identity {} already exists in the base",
                    show(&id)
                )));
            }
            if section == "changed" && !exists {
                return Err(malformed(alloc::format!(
                    "changed identity {} is not in the base",
                    show(&id)
                )));
            }
            let op = if section == "added" {
                Op::Added
            } else {
                Op::Changed(i)
            };
            if ops.insert(id.clone(), op).is_some() {
                return Err(malformed(alloc::format!(
                    "identity {} appears in two operations",
                    show(&id)
                )));
            }
        }
    }

    let mut rows = Vec::with_capacity(base.rows.len() + delta.added.len());
    for row in &base.rows {
        let id = identity_of(row, &base.key, &mut numbers)?.unwrap_or_default();
        match ops.get(&id) {
            Some(Op::Removed) => {}
            Some(Op::Changed(i)) => rows.push(delta.changed[*i].clone()),
            Some(Op::Added) | None => rows.push(row.clone()),
        }
    }
    rows.extend(delta.added.iter().cloned());
    let result = KeyedSet {
        name: base.name.clone(),
        key: base.key.clone(),
        fields: base.fields.clone(),
        rows,
    };
    let new_root = pack_root(&result)?;
    if new_root != delta.new_root {
        return Err(Error::new(
            ErrorKind::RootMismatch,
            alloc::format!(
                "the applied set's root {new_root} is not the delta's new_root {}",
                delta.new_root
            ),
        ));
    }
    Ok(result)
}

/// Reads a delta payload (spec §10a.2) without applying it.
///
/// The header must be generic with `delta=true`, `base_root`, `new_root` and
/// `key`; the only sections are `added` and `changed` (full rows, the
/// identity field marked `@`) and `removed` (`{@key}`, one identity per line).
/// Counts are validated (§13): `[N]` against the rows, `[?]` against a
/// `##! summary` trailer when there is one.
pub fn decode_delta(text: &str) -> Result<GenericDelta> {
    let mut lines = Lines::new(text, &Limits::default())?;
    let first = match lines.next() {
        Some(line) => line?,
        None => {
            return Err(Error::at(
                ErrorKind::MissingHeader,
                1,
                1,
                "empty input: expected a GCF header",
            ))
        }
    };
    let header = parse_header(&first)?;
    let required = |key: &str| {
        header.get(key).map(String::from).ok_or_else(|| {
            Error::at(
                ErrorKind::MalformedDelta,
                1,
                1,
                alloc::format!("a delta header needs `{key}=`"),
            )
        })
    };
    if header.profile != Profile::Generic || header.get("delta") != Some("true") {
        return Err(Error::at(
            ErrorKind::MalformedDelta,
            1,
            1,
            "not a generic delta payload (`profile=generic delta=true`)",
        ));
    }
    let mut delta = GenericDelta {
        tool: header.get("tool").map(String::from).unwrap_or_default(),
        key: required("key")?,
        base_root: required("base_root")?,
        new_root: required("new_root")?,
        ..GenericDelta::default()
    };
    let mut seen: [bool; 3] = [false; 3];
    for section in parse_sections(&mut lines)? {
        let at = |message: String| Error::at(ErrorKind::MalformedDelta, section.line, 1, message);
        let slot = match section.name.as_str() {
            "added" => 0,
            "changed" => 1,
            "removed" => 2,
            other => {
                return Err(at(alloc::format!(
                    "`## {other}` is not a delta section (added, changed, removed)"
                )))
            }
        };
        if core::mem::replace(&mut seen[slot], true) {
            return Err(at(alloc::format!(
                "section `{}` appears twice",
                section.name
            )));
        }
        if section.identity.as_deref() != Some(delta.key.as_str()) {
            return Err(at(alloc::format!(
                "the `@` identity field must be the header's key `{}`",
                delta.key
            )));
        }
        if slot == 2 {
            if section.fields.len() != 1 {
                return Err(at(String::from(
                    "`## removed` declares only the identity field",
                )));
            }
            delta.removed = section
                .rows
                .into_iter()
                .map(|row| row.into_vec().pop().map_or(Value::Null, |p| p.1))
                .collect();
            continue;
        }
        if !delta.fields.is_empty() && delta.fields != section.fields {
            return Err(at(String::from(
                "`added` and `changed` declare different fields",
            )));
        }
        delta.fields = section.fields;
        if slot == 0 {
            delta.added = section.rows;
        } else {
            delta.changed = section.rows;
        }
    }
    Ok(delta)
}

/// One `## name [N]{fields}` section with its rows.
struct Section {
    name: String,
    line: usize,
    declared: Option<u64>,
    fields: Vec<String>,
    identity: Option<String>,
    rows: Vec<Map>,
}

/// INTERIM, to be replaced by `Decoder::decode_document` when the generic
/// decoder lands: reads top-level `## name [N|?]{fields}` sections whose rows
/// are flat scalar cells (no `@N` prefixes, no attachments), with count
/// validation and the `##! summary` trailer.
fn parse_sections(lines: &mut Lines<'_>) -> Result<Vec<Section>> {
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
        let last = i + 1 == fields.len();
        match (end == text.len(), last) {
            (false, false) => at = end + 1,
            (true, true) => return Ok(row),
            _ => break,
        }
    }
    let cells = 1 + memchr::memchr_iter(b'|', text.as_bytes()).count();
    Err(line.error_at(
        ErrorKind::RowWidthMismatch,
        0,
        alloc::format!(
            "row has about {cells} cells but the section declares {} fields",
            fields.len()
        ),
    ))
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

#[cold]
fn malformed(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::MalformedDelta, message)
}

#[cfg(test)]
mod tests {
    use super::*;

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
