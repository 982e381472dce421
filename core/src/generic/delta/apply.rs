//! Reading delta payloads and applying them atomically (spec §10a.2, §10a.5).

use alloc::string::String;
use alloc::vec::Vec;

use crate::hash::HashMap;

use crate::error::{Error, ErrorKind, Result};
use crate::header::{detect_profile, Profile};
use crate::limits::Limits;
use crate::number::NumberBuffer;

use super::super::decode::Decoder;
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
///
/// Every error has a position in `delta_text`: an operation the base
/// contradicts is at its row's line, a root that does not match at that
/// root's value in the header, another key at `key=`, other fields at the
/// section that declares them.
pub fn apply_delta(base: &KeyedSet, delta_text: &str) -> Result<KeyedSet> {
    apply_delta_with(base, delta_text, &Limits::DEFAULT)
}

/// [`apply_delta`] with the delta text decoded under `limits`.
///
/// ```
/// use gcf_core::generic::{apply_delta_with, pack_root, KeyedSet, Map, Value};
/// use gcf_core::{ErrorKind, Limits};
///
/// let mut row = Map::new();
/// row.insert("id", Value::Int(1));
/// let base = KeyedSet { name: "t".into(), key: "id".into(), fields: vec!["id".into()], rows: vec![row] };
/// let root = pack_root(&base)?;
/// let wire = format!("GCF profile=generic delta=true base_root={root} new_root=sha256:0 key=id\n## removed [2]{{@id}}\n1\n5\n");
/// let e = apply_delta_with(&base, &wire, &Limits::default()).unwrap_err();
/// // Identity 5 is not in the base: the row that names it.
/// assert_eq!((e.kind(), e.line(), e.column()), (ErrorKind::DeltaInvalid, Some(4), Some(1)));
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn apply_delta_with(base: &KeyedSet, delta_text: &str, limits: &Limits) -> Result<KeyedSet> {
    let mut positions = DeltaPositions::default();
    let delta = decode_delta_at(delta_text, limits, Some(&mut positions))?;
    apply_at(base, &delta, Some(&positions))
}

/// Where a delta's parts were read (1-based lines and columns), so that
/// [`apply_delta`] can point at what the base contradicts.
#[derive(Default)]
struct DeltaPositions {
    /// The header values' positions, by key.
    key: Option<(usize, usize)>,
    base_root: Option<(usize, usize)>,
    new_root: Option<(usize, usize)>,
    /// Where `added` or `changed` declares its fields (the later one: the
    /// one a mismatch is found at).
    fields: Option<(usize, usize)>,
    removed: Vec<usize>,
    changed: Vec<usize>,
    added: Vec<usize>,
}

impl DeltaPositions {
    /// `error` at `at(positions)` when the delta was read from text.
    fn locate(
        positions: Option<&Self>,
        at: impl Fn(&Self) -> Option<(usize, usize)>,
        error: Error,
    ) -> Error {
        error.relocated(positions.and_then(at))
    }

    /// `error` at the start of a row's line.
    fn row(
        positions: Option<&Self>,
        rows: impl Fn(&Self) -> &[usize],
        index: usize,
        error: Error,
    ) -> Error {
        error.relocated(positions.and_then(|p| Some((*rows(p).get(index)?, 1))))
    }
}

/// Applies a delta to `base` atomically and verifies both roots (spec §10a.5).
///
/// `base` is never modified; the result is a new set with the base's name,
/// key and fields, its untouched rows in their order (changed rows replaced
/// in place, removed rows dropped), then the added rows.
///
/// Errors (the reference SDKs' categories): [`ErrorKind::BaseMismatch`]
/// when `base` does not hash to `base_root`, [`ErrorKind::RootMismatch`]
/// when the result does not hash to `new_root`; [`ErrorKind::DeltaInvalid`]
/// for a contradictory operation (adding an identity that already exists,
/// changing or removing one that does not, naming one identity twice), a
/// different key or field set, a row without its identity. A row member
/// that is not a declared field is not part of the set (see [`pack_root`]).
pub fn apply(base: &KeyedSet, delta: &GenericDelta) -> Result<KeyedSet> {
    apply_at(base, delta, None)
}

fn apply_at(
    base: &KeyedSet,
    delta: &GenericDelta,
    positions: Option<&DeltaPositions>,
) -> Result<KeyedSet> {
    let held_root = pack_root(base)?;
    if held_root != delta.base_root {
        return Err(DeltaPositions::locate(
            positions,
            |p| p.base_root,
            Error::new(
                ErrorKind::BaseMismatch,
                alloc::format!(
                    "the delta's base_root {} is not the held set's root {held_root}",
                    delta.base_root
                ),
            ),
        ));
    }
    if delta.key != base.key {
        return Err(DeltaPositions::locate(
            positions,
            |p| p.key,
            invalid(alloc::format!(
                "the delta is keyed by `{}`, the held set by `{}`",
                delta.key,
                base.key
            )),
        ));
    }
    let same_fields = delta.fields.len() == base.fields.len()
        && delta.fields.iter().all(|f| base.fields.contains(f));
    if !delta.fields.is_empty() && !same_fields {
        return Err(DeltaPositions::locate(
            positions,
            |p| p.fields,
            invalid("the delta declares other fields than the held set; a schema change needs a full payload"),
        ));
    }
    let mut numbers = NumberBuffer::new();
    let mut index = crate::hash::map_with_capacity(base.rows.len());
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
        crate::hash::map_with_capacity(delta.removed.len() + delta.changed.len());
    let show = |id: &[u8]| String::from_utf8_lossy(id).into_owned();
    for (i, value) in delta.removed.iter().enumerate() {
        let at = |error: Error| DeltaPositions::row(positions, |p| &p.removed, i, error);
        let id = identity_text(value, &mut numbers).map_err(at)?;
        if !index.contains_key(&id) {
            return Err(at(invalid(alloc::format!(
                "removed identity {} not in base",
                show(&id)
            ))));
        }
        if ops.insert(id.clone(), Op::Removed).is_some() {
            return Err(at(invalid(alloc::format!(
                "identity {} is removed twice",
                show(&id)
            ))));
        }
    }
    type RowLines = fn(&DeltaPositions) -> &[usize];
    let sections: [(&str, &Vec<Map>, RowLines); 2] = [
        ("changed", &delta.changed, |p| &p.changed),
        ("added", &delta.added, |p| &p.added),
    ];
    for (section, rows, lines) in sections {
        for (i, row) in rows.iter().enumerate() {
            let at = |error: Error| DeltaPositions::row(positions, lines, i, error);
            let id = identity_of(row, &base.key, &mut numbers)
                .map_err(at)?
                .ok_or_else(|| {
                    at(invalid(alloc::format!(
                        "{section} row has no identity `{}`",
                        base.key
                    )))
                })?;
            let exists = index.contains_key(&id);
            if section == "added" && exists {
                return Err(at(invalid(alloc::format!(
                    "added identity {} already exists in the base",
                    show(&id)
                ))));
            }
            if section == "changed" && !exists {
                return Err(at(invalid(alloc::format!(
                    "changed identity {} not in base",
                    show(&id)
                ))));
            }
            let op = if section == "added" {
                Op::Added
            } else {
                Op::Changed(i)
            };
            if ops.insert(id.clone(), op).is_some() {
                return Err(at(invalid(alloc::format!(
                    "identity {} appears in two operations",
                    show(&id)
                ))));
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
        return Err(DeltaPositions::locate(
            positions,
            |p| p.new_root,
            Error::new(
                ErrorKind::RootMismatch,
                alloc::format!(
                    "the applied set's root {new_root} is not the delta's new_root {}",
                    delta.new_root
                ),
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
/// The body is read by the generic decoder, so rows may carry nested values
/// (attachments) and counts are validated as anywhere else (§13): `[N]`
/// against the rows, `[?]` against the `##! summary` trailer.
///
/// ```
/// use gcf_core::generic::{decode_delta, Value};
/// let wire = "GCF profile=generic delta=true base_root=sha256:a new_root=sha256:b key=id\
///     \n## added [1]{@id,tags}\n@0 7|^\n.tags [2]: x,y\n## removed [1]{@id}\n3\n";
/// let delta = decode_delta(wire)?;
/// assert_eq!(delta.fields, ["id", "tags"]);
/// assert_eq!(delta.added[0].get("tags"), Some(&Value::Array(vec!["x".into(), "y".into()])));
/// assert_eq!(delta.removed, [Value::Int(3)]);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn decode_delta(text: &str) -> Result<GenericDelta> {
    decode_delta_with(text, &Limits::DEFAULT)
}

/// [`decode_delta`] with `limits` in place of the defaults.
pub fn decode_delta_with(text: &str, limits: &Limits) -> Result<GenericDelta> {
    decode_delta_at(text, limits, None)
}

/// [`decode_delta_with`], recording where each part was read when
/// `positions` is given.
fn decode_delta_at(
    text: &str,
    limits: &Limits,
    mut positions: Option<&mut DeltaPositions>,
) -> Result<GenericDelta> {
    let not_delta = || {
        Error::at(
            ErrorKind::MalformedDelta,
            1,
            1,
            "not a generic delta payload (`profile=generic delta=true`)",
        )
    };
    if detect_profile(text)? != Profile::Generic {
        return Err(not_delta());
    }
    let (document, sections) = Decoder::new()
        .limits(*limits)
        .allow_identity_fields(true)
        .decode_sections(text, false)
        .map_err(|e| section_twice(text, e))?;
    let header = |key: &str| {
        document
            .header
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let required = |key: &str| {
        header(key).map(String::from).ok_or_else(|| {
            Error::at(
                ErrorKind::MalformedDelta,
                1,
                1,
                alloc::format!("a delta header needs `{key}=`"),
            )
        })
    };
    if header("delta") != Some("true") {
        return Err(not_delta());
    }
    let mut delta = GenericDelta {
        tool: header("tool").map(String::from).unwrap_or_default(),
        key: required("key")?,
        base_root: required("base_root")?,
        new_root: required("new_root")?,
        ..GenericDelta::default()
    };
    if let Some(p) = positions.as_deref_mut() {
        // The header is line 1.
        let line = text.split('\n').next().unwrap_or("");
        let value_at = |key: &str| Some((1, crate::header::value_column(line, key)?));
        p.key = value_at("key");
        p.base_root = value_at("base_root");
        p.new_root = value_at("new_root");
    }
    let members = match document.value {
        Value::Object(members) => members.into_vec(),
        _ => {
            // The root array or scalar, where it starts.
            let (line, column) = sections.first().map_or((2, 1), |s| (s.line, s.column));
            return Err(Error::at(
                ErrorKind::MalformedDelta,
                line,
                column,
                "a delta body is `##` sections (added, changed, removed)",
            ));
        }
    };
    // One record per member, both in document order.
    for ((name, value), section) in members.into_iter().zip(sections) {
        let (Some(fields), Value::Array(rows)) = (section.fields, value) else {
            return Err(Error::at(
                ErrorKind::MalformedDelta,
                section.line,
                section.column,
                alloc::format!(
                    "`{0}` is not a delta section: expected `## {0} [N]{{@{1},...}}`",
                    crate::error::excerpt(&name),
                    crate::error::excerpt(&delta.key)
                ),
            ));
        };
        let at = |message: String| Error::at(ErrorKind::MalformedDelta, section.line, 1, message);
        let slot = match name.as_str() {
            "added" | "changed" | "removed" => name.as_str(),
            other => {
                return Err(at(alloc::format!(
                    "`## {}` is not a delta section (added, changed, removed)",
                    crate::error::excerpt(other)
                )))
            }
        };
        let identity = fields.iter().find(|f| f.identity);
        if identity.map(|f| f.name.as_str()) != Some(delta.key.as_str()) {
            return Err(at(alloc::format!(
                "the `@` identity field must be the header's key `{}`",
                delta.key
            )));
        }
        let fields: Vec<String> = fields.into_iter().map(|f| String::from(f.name)).collect();
        let mut rows: Vec<Map> = rows
            .into_iter()
            .map(|row| match row {
                Value::Object(m) => m,
                _ => Map::new(), // a table decodes every row to an object
            })
            .collect();
        if slot == "removed" {
            if fields.len() != 1 {
                return Err(at(String::from(
                    "`## removed` declares only the identity field",
                )));
            }
            delta.removed = rows
                .iter_mut()
                .map(|row| row.get(&delta.key).cloned().unwrap_or(Value::Null))
                .collect();
            if let Some(p) = positions.as_deref_mut() {
                p.removed = section.row_lines;
            }
            continue;
        }
        if !delta.fields.is_empty() && delta.fields != fields {
            return Err(at(String::from(
                "`added` and `changed` declare different fields",
            )));
        }
        delta.fields = fields;
        if let Some(p) = positions.as_deref_mut() {
            p.fields = Some((section.line, section.column));
            let lines = section.row_lines;
            if slot == "added" {
                p.added = lines;
            } else {
                p.changed = lines;
            }
        }
        if slot == "added" {
            delta.added = rows;
        } else {
            delta.changed = rows;
        }
    }
    Ok(delta)
}

/// A duplicate top-level section is a contradictory delta, not just a
/// duplicate object key.
#[cold]
fn section_twice(text: &str, err: Error) -> Error {
    let line = err.line().unwrap_or(0);
    let is_section = line > 0
        && text
            .split('\n')
            .nth(line - 1)
            .is_some_and(|l| l.starts_with("## "));
    if err.kind() != ErrorKind::DuplicateKey || !is_section {
        return err;
    }
    Error::at(
        ErrorKind::MalformedDelta,
        line,
        err.column().unwrap_or(1),
        alloc::format!("a delta section appears twice: {}", err.message()),
    )
}

/// An operation the held set contradicts, or another key or schema.
#[cold]
fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::DeltaInvalid, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    const HEAD: &str =
        "GCF profile=generic delta=true base_root=sha256:a new_root=sha256:b key=id\n";

    fn read(body: &str) -> Result<GenericDelta> {
        decode_delta(&alloc::format!("{HEAD}{body}"))
    }

    #[test]
    fn rows_follow_the_scalar_precedence() {
        let d = read("## added [1]{@id,a,b,c,d,e}\nx | \"a|b\" |-|~|1.50|\"\"\n").unwrap();
        let row = &d.added[0];
        assert_eq!(row.get("id"), Some(&Value::from("x")));
        assert_eq!(row.get("a"), Some(&Value::from("a|b")));
        assert_eq!(row.get("b"), Some(&Value::Null));
        assert_eq!(row.get("c"), None);
        assert_eq!(row.get("d"), Some(&Value::Float(1.5)));
        assert_eq!(row.get("e"), Some(&Value::from("")));
        assert_eq!(d.fields, ["id", "a", "b", "c", "d", "e"]);
    }

    #[test]
    fn fields_survive_empty_sections() {
        let d = read("## added [0]{@id,v}\n## changed [?]{@id,v}\n## removed [0]{@id}\n##! summary counts=0\n")
            .unwrap();
        assert_eq!(d.fields, ["id", "v"]);
        assert!(d.added.is_empty() && d.changed.is_empty() && d.removed.is_empty());
    }

    /// Rows with attachments decode; applying them fails clearly, because a
    /// pack root has no form for nested values (spec §10a.3).
    #[test]
    fn nested_values_decode_and_are_refused_by_apply() {
        let d = read("## added [1]{@id,tags}\n@0 1|^\n.tags [2]: a,b\n").unwrap();
        assert_eq!(
            d.added[0].get("tags"),
            Some(&Value::Array(vec!["a".into(), "b".into()]))
        );
        let base = KeyedSet {
            name: "t".into(),
            key: "id".into(),
            fields: vec!["id".into(), "tags".into()],
            rows: Vec::new(),
        };
        let delta = GenericDelta {
            base_root: pack_root(&base).unwrap(),
            ..d
        };
        let err = apply(&base, &delta).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(err.message().contains("nested"), "{err}");
    }

    #[test]
    fn errors_have_kinds_and_lines() {
        let cases = [
            ("## added [1]{@id,a}\n1\n", ErrorKind::RowWidthMismatch, 3),
            (
                "## added [1]{@id,a}\n1|2|3\n",
                ErrorKind::RowWidthMismatch,
                3,
            ),
            ("## added [2]{@id}\n1\n", ErrorKind::CountMismatch, 2),
            ("## added [1]{@id}\n1\n2\n", ErrorKind::CountMismatch, 4),
            ("## added [01]{@id}\n", ErrorKind::InvalidCount, 2),
            ("## added [1]{@id,id}\n", ErrorKind::DuplicateFieldName, 2),
            ("## added [1]{@id,@a}\n", ErrorKind::InvalidSyntax, 2),
            (
                "## added [1]{@id}\n\"a\"x\n",
                ErrorKind::TrailingCharacters,
                3,
            ),
            ("## added [1]{@id}\n\"a\n", ErrorKind::UnterminatedQuote, 3),
            (
                "## added [1]{@id}\n99999999999999999999\n",
                ErrorKind::OutOfRange,
                3,
            ),
            (
                "## added [?]{@id}\n1\n##! summary counts=2\n",
                ErrorKind::CountMismatch,
                4,
            ),
            ("1\n", ErrorKind::InvalidLine, 2),
            ("## added [1]{@id}\n  1\n", ErrorKind::InvalidIndent, 3),
            ("## added [1]{@id}\n^\n", ErrorKind::MissingAttachment, 3),
            ("## added [1]{id}\n1\n", ErrorKind::MalformedDelta, 2),
            ("## added [1]{@v}\n1\n", ErrorKind::MalformedDelta, 2),
            ("## other [1]{@id}\n1\n", ErrorKind::MalformedDelta, 2),
            ("## removed [1]{@id,v}\n1|2\n", ErrorKind::MalformedDelta, 2),
            (
                "## added [0]{@id,a}\n## changed [0]{@id,b}\n",
                ErrorKind::MalformedDelta,
                3,
            ),
            (
                "## added [0]{@id}\n## added [0]{@id}\n",
                ErrorKind::MalformedDelta,
                3,
            ),
        ];
        for (body, kind, line) in cases {
            let e = read(body)
                .err()
                .unwrap_or_else(|| panic!("{body:?} must fail"));
            assert_eq!((e.kind(), e.line()), (kind, Some(line)), "{body:?}: {e}");
        }
        // Not a table at all (at the member's key, or where the root
        // starts), and not a delta header.
        for (body, line, column) in [
            ("added=1\n", 2, 1),
            ("## added\n  x=1\n", 2, 4),
            ("## added [1]\n@0 =1\n", 2, 4),
            ("## added [1:]{@id,v}\nk|1\n", 2, 4),
            ("## added [0]{@id}\nx=1\n", 3, 1),
            ("# note\n\n## [1]{@id}\n1\n", 4, 1),
            ("=1\n", 2, 1),
        ] {
            let e = read(body).unwrap_err();
            assert_eq!(
                (e.kind(), e.line(), e.column()),
                (ErrorKind::MalformedDelta, Some(line), Some(column)),
                "{body:?}: {e}"
            );
        }
        for text in [
            "GCF profile=generic key=id base_root=a new_root=b\n",
            "GCF profile=graph delta=true\n",
        ] {
            assert_eq!(
                decode_delta(text).unwrap_err().kind(),
                ErrorKind::MalformedDelta
            );
        }
        let e =
            decode_delta("GCF profile=generic delta=true base_root=a new_root=b\n").unwrap_err();
        assert!(e.message().contains("key="), "{e}");
    }

    /// An error of `apply_delta` points at what the base contradicts: the
    /// row's first line (attachments and inline-schema bodies counted as
    /// lines of their row), the declaration of other fields, or a header
    /// value; `apply` of a decoded delta has no text to point into.
    #[test]
    fn apply_errors_point_at_the_row_or_the_header() {
        let row = |id: i64, v: &str| {
            let mut m = Map::new();
            m.insert("id", Value::Int(id));
            m.insert("v", Value::from(v));
            m
        };
        let base = KeyedSet {
            name: "t".into(),
            key: "id".into(),
            fields: vec!["id".into(), "v".into()],
            rows: vec![row(1, "a"), row(2, "b")],
        };
        let root = pack_root(&base).unwrap();
        let head = alloc::format!(
            "GCF profile=generic delta=true base_root={root} new_root=sha256:0 key=id\n"
        );
        let at = |body: &str| {
            let e = apply_delta(&base, &alloc::format!("{head}{body}")).unwrap_err();
            (e.kind(), e.line(), e.column())
        };
        let invalid = ErrorKind::DeltaInvalid;
        assert_eq!(
            at("## removed [2]{@id}\n1\n7\n"),
            (invalid, Some(4), Some(1))
        );
        assert_eq!(
            at("## removed [2]{@id}\n2\n2\n"),
            (invalid, Some(4), Some(1))
        );
        // A row with an attachment takes two lines: the next row is line 5.
        assert_eq!(
            at("## changed [2]{@id,v}\n@0 1|^\n.v [2]: x,y\n9|z\n"),
            (invalid, Some(5), Some(1))
        );
        assert_eq!(
            at("## changed [1]{@id,v}\n1|x\n## added [2]{@id,v}\n3|c\n2|b\n"),
            (invalid, Some(6), Some(1))
        );
        assert_eq!(
            at("## removed [1]{@id}\n1\n## added [1]{@id,v}\n1|a\n"),
            (invalid, Some(5), Some(1))
        );
        // Other fields: where the section declaring them starts.
        assert_eq!(
            at("## added [1]{@id,w}\n3|c\n"),
            (invalid, Some(2), Some(4))
        );
        // Header values: the promised root, another key, another base.
        let column = |key: &str| head.find(key).unwrap() + key.len() + 1;
        assert_eq!(
            at("## added [1]{@id,v}\n3|c\n"),
            (ErrorKind::RootMismatch, Some(1), Some(column(" new_root=")))
        );
        let keyed_by_v = head.replace("key=id", "key=v");
        let e = apply_delta(
            &base,
            &alloc::format!("{keyed_by_v}## removed [1]{{@v}}\na\n"),
        )
        .unwrap_err();
        assert_eq!(
            (e.kind(), e.line(), e.column()),
            (invalid, Some(1), Some(column(" key=")))
        );
        let e = apply_delta(&base, HEAD).unwrap_err();
        assert_eq!(
            (e.kind(), e.line(), e.column()),
            (ErrorKind::BaseMismatch, Some(1), Some(42))
        );
        // Decoded apart, the same contradiction has no position.
        let d = decode_delta(&alloc::format!("{head}## removed [1]{{@id}}\n7\n")).unwrap();
        let e = apply(&base, &d).unwrap_err();
        assert_eq!((e.kind(), e.line()), (invalid, None));
    }
}
