//! Reading a delta-participating full payload back into its keyed set
//! (spec §10a.1): what a consumer holds before the first delta.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, ErrorKind, Result};
use crate::header::{detect_profile, Profile};
use crate::limits::Limits;

use super::super::decode::{Decoder, SectionDecl};
use super::super::Value;
use super::KeyedSet;

/// A decoded full payload: the keyed set and what its header says of it.
#[derive(Debug, Clone, PartialEq)]
pub struct FullPayload {
    /// The set: the table's name (empty for a root `## [N]{...}` table), the
    /// header's `key=` (else the `@` field), the declared fields in order,
    /// and the rows.
    pub set: KeyedSet,
    /// The header's `pack_root=`, as written (empty when absent; not checked
    /// against the rows: [`pack_root`](super::pack_root) computes theirs).
    pub pack_root: String,
    /// The header's `tool=` (empty when absent).
    pub tool: String,
}

/// Decodes a delta-participating full payload (spec §10a.1): one table,
/// `key=` and `pack_root=` in the header, the identity field marked `@`.
///
/// The fields are the table's declaration, so an empty table keeps them; a
/// row holds a member for each of its cells (`-` reads as null, `~` leaves
/// the member out). Refused: a repeated identity (`duplicate_key`, at the
/// repeating row), a `key=` the declaration does not mark `@`
/// (`invalid_syntax`), anything but one table of records (`invalid_input`),
/// and every malformed input the generic decoder refuses.
///
/// ```
/// use gcf_core::generic::{decode_full, encode_full, pack_root, KeyedSet, Map, Value};
///
/// let mut row = Map::new();
/// row.insert("id", Value::Int(7));
/// row.insert("name", Value::from("Ada"));
/// let set = KeyedSet { name: "users".into(), key: "id".into(), fields: vec!["id".into(), "name".into()], rows: vec![row] };
/// let full = decode_full(&encode_full(&set, "t")?)?;
/// assert_eq!((full.set, full.pack_root, full.tool.as_str()), (set.clone(), pack_root(&set)?, "t"));
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn decode_full(text: &str) -> Result<FullPayload> {
    decode_full_with(text, &Limits::DEFAULT)
}

/// [`decode_full`] with `limits` in place of the defaults.
pub fn decode_full_with(text: &str, limits: &Limits) -> Result<FullPayload> {
    if detect_profile(text)? != Profile::Generic {
        return Err(Error::at(
            ErrorKind::InvalidInput,
            1,
            1,
            "not a generic payload: a full keyed payload is `GCF profile=generic ... key=...`",
        ));
    }
    let (document, sections) = Decoder::new()
        .limits(*limits)
        .allow_identity_fields(true)
        .decode_sections(text, true)?;
    let header = |key: &str| {
        document
            .header
            .iter()
            .find(|(k, _)| k == key)
            .map_or_else(String::new, |(_, v)| v.clone())
    };
    // At the table (or the root) that is not one of records, at a second
    // member, or at the header of a payload with no body.
    let one_table = |at: Option<&SectionDecl>| {
        let (line, column) = at.map_or((1, 1), |s| (s.line, s.column));
        Error::at(
            ErrorKind::InvalidInput,
            line,
            column,
            "a full keyed payload holds one table of records (`## name [N]{@key,...}`)",
        )
    };
    let (name, rows) = match document.value {
        Value::Array(rows) => (String::new(), rows),
        Value::Object(members) if members.len() == 1 => {
            let Some((name, Value::Array(rows))) = members.into_vec().pop() else {
                return Err(one_table(sections.first()));
            };
            (String::from(name.as_str()), rows)
        }
        _ => return Err(one_table(sections.get(1).or(sections.first()))),
    };
    // The root array or the one member: the only record.
    let declared = sections.first();
    let mut fields: Vec<String> =
        declared
            .and_then(|s| s.fields.as_ref())
            .map_or_else(Vec::new, |fields| {
                fields
                    .iter()
                    .map(|f| String::from(f.name.as_str()))
                    .collect()
            });
    let from_rows = fields.is_empty();
    let mut maps = Vec::with_capacity(rows.len());
    for row in rows {
        let Value::Object(map) = row else {
            return Err(one_table(declared));
        };
        if from_rows {
            // A root table records no declaration: its fields are its rows'.
            for k in map.keys() {
                if !fields.iter().any(|f| f == k) {
                    fields.push(String::from(k));
                }
            }
        }
        maps.push(map);
    }
    let mut key = header("key");
    if key.is_empty() {
        key = document.identity_field.unwrap_or_default();
    }
    Ok(FullPayload {
        set: KeyedSet {
            name,
            key,
            fields,
            rows: maps,
        },
        pack_root: header("pack_root"),
        tool: header("tool"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generic::{encode_full, Map};
    use alloc::vec;

    fn row(id: i64, name: Option<&str>) -> Map {
        let mut m = Map::new();
        m.insert("id", Value::Int(id));
        if let Some(name) = name {
            m.insert("name", Value::from(name));
        }
        m
    }

    fn set(rows: Vec<Map>) -> KeyedSet {
        KeyedSet {
            name: "users".into(),
            key: "id".into(),
            fields: vec!["id".into(), "name".into()],
            rows,
        }
    }

    #[test]
    fn a_full_payload_reads_back_as_its_set() {
        let sent = set(vec![row(1, Some("a")), row(2, Some("b"))]);
        let full = decode_full(&encode_full(&sent, "").unwrap()).unwrap();
        assert_eq!(full.set, sent);
        assert_eq!(full.tool, "");
        // An empty table keeps its declared fields.
        let empty = decode_full(&encode_full(&set(vec![]), "t").unwrap()).unwrap();
        assert_eq!(empty.set, set(vec![]));
        // An absent field is written `-` and reads back as null.
        let back = decode_full(&encode_full(&set(vec![row(3, None)]), "").unwrap()).unwrap();
        assert_eq!(back.set.rows[0].get("name"), Some(&Value::Null));
    }

    #[test]
    fn what_is_refused() {
        let text = "GCF profile=generic pack_root=sha256:00 key=id\n## t [2]{@id,v}\n1|a\n1.0|b\n";
        let err = decode_full(text).unwrap_err();
        assert_eq!((err.kind(), err.line()), (ErrorKind::DuplicateKey, Some(4)));
        let err = decode_full("GCF profile=generic key=id\n## t [1]{@v,id}\n1|2\n").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidSyntax);
        // Anything but one table of records: at the member or root that is
        // not one, at a second member, at the header of an empty payload.
        for (text, line, column) in [
            ("GCF profile=generic key=id\nx=1\n", 2, 1),
            (
                "GCF profile=generic key=id\n## a [1]{@id}\n1\n## b [1]{@id}\n2\n",
                4,
                4,
            ),
            ("GCF profile=generic key=id\n## [2]: 1,2\n", 2, 1),
            ("GCF profile=generic key=id\n# note\n=1\n", 3, 1),
            ("GCF profile=generic key=id\n## items [1]\n@0 =1\n", 2, 4),
            ("GCF profile=generic key=id\n", 1, 1),
            ("GCF profile=graph symbols=0\n", 1, 1),
        ] {
            let err = decode_full(text).unwrap_err();
            assert_eq!(
                (err.kind(), err.line(), err.column()),
                (ErrorKind::InvalidInput, Some(line), Some(column)),
                "{text}"
            );
        }
        // A root table: no name, fields from its rows.
        let root = decode_full("GCF profile=generic key=id\n## [1]{@id,v}\n1|x\n").unwrap();
        assert_eq!((root.set.name.as_str(), root.set.fields.len()), ("", 2));
    }
}
