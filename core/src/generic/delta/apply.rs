//! Reading delta payloads and applying them atomically (spec §10a.2, §10a.5).

use alloc::string::String;
use alloc::vec::Vec;

use hashbrown::HashMap;

use crate::error::{Error, ErrorKind, Result};
use crate::header::{parse_header, Profile};
use crate::input::Lines;
use crate::number::NumberBuffer;
use crate::Limits;

use super::super::Value;
use super::interim::parse_sections;
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

#[cold]
fn malformed(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::MalformedDelta, message)
}
