//! The generic canonical pack root, `gcf-pack-root-v1` for keyed sets (spec §10a.3).

use alloc::string::String;
use alloc::vec::Vec;

use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind, Result};
use crate::number::NumberBuffer;
use crate::text::write_quoted;

use super::super::{Map, Value};
use super::KeyedSet;

/// Computes the `pack_root` of a keyed set: `sha256:` and 64 lowercase hex digits.
///
/// One record per row, `R<TAB>field<TAB>value...<LF>` with the fields in byte
/// order; `null` is `-`, booleans and numbers are bare and canonical (so `75`
/// and `75.0` hash alike, as they are the same JSON number), strings are
/// always quoted. Records are sorted before hashing, so row order does not
/// matter (set semantics).
///
/// A declared field absent from a row hashes as `-`, like `null`: every other
/// implementation of the fleet does so, and roots must agree across them.
/// A row member that is not a declared field is not part of the set, and is
/// left out, as every reference SDK leaves it out (the declared fields are
/// the set's schema: rows taken from a wider record hash as their
/// projection). A duplicate declared field or a nested value is refused with
/// [`ErrorKind::InvalidInput`]: the record has no canonical form for them.
///
/// ```
/// use gcf_core::generic::{pack_root, KeyedSet, Map, Value};
///
/// let mut row = Map::new();
/// row.insert("id", Value::Int(1));
/// row.insert("name", Value::from("Ada"));
/// let set = KeyedSet { name: "users".into(), key: "id".into(), fields: vec!["id".into(), "name".into()], rows: vec![row] };
/// let root = pack_root(&set)?;
/// assert!(root.starts_with("sha256:") && root.len() == 7 + 64);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn pack_root(set: &KeyedSet) -> Result<String> {
    let mut order: Vec<&str> = set.fields.iter().map(String::as_str).collect();
    order.sort_unstable();
    if let Some(pair) = order.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            alloc::format!(
                "field `{}` is declared twice",
                crate::error::excerpt(pair[0])
            ),
        ));
    }
    let mut numbers = NumberBuffer::new();
    let mut records: Vec<Vec<u8>> = Vec::with_capacity(set.rows.len());
    for row in &set.rows {
        let members = Members::of(row);
        let mut record = Vec::with_capacity(16 * order.len() + 2);
        record.push(b'R');
        for field in &order {
            record.push(b'\t');
            record.extend_from_slice(field.as_bytes());
            record.push(b'\t');
            write_canonical(&mut record, members.get(field), &mut numbers)?;
        }
        record.push(b'\n');
        records.push(record);
    }
    records.sort_unstable();
    let mut hasher = Sha256::new();
    for record in &records {
        hasher.update(record);
    }
    Ok(crate::protocol::format_root(&hasher.finalize()))
}

/// A row's members by name: a wide row's by hash (a scan of its members per
/// field is quadratic in its width), a narrow one's by scan.
pub(super) struct Members<'a> {
    row: &'a Map,
    index: Option<crate::hash::HashMap<&'a str, &'a Value>>,
}

impl<'a> Members<'a> {
    pub(super) fn of(row: &'a Map) -> Members<'a> {
        let index = (row.len() > super::encode::WIDE).then(|| row.iter().collect());
        Members { row, index }
    }

    pub(super) fn get(&self, field: &str) -> Option<&'a Value> {
        match &self.index {
            Some(index) => index.get(field).copied(),
            None => self.row.get(field),
        }
    }
}

/// One cell's hashing form (spec §10a.3): `-` for null, `true`/`false`,
/// canonical numbers, strings always quoted. Nested values have none
/// ([`ErrorKind::InvalidInput`]).
///
/// ```
/// use gcf_core::generic::{canonical_cell, Value};
/// assert_eq!(canonical_cell(&Value::from("true"))?, "\"true\"");
/// assert_eq!(canonical_cell(&Value::Null)?, "-");
/// assert_eq!(canonical_cell(&Value::Float(1.5))?, "1.5");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn canonical_cell(value: &Value) -> Result<String> {
    let mut out = Vec::new();
    write_canonical(&mut out, Some(value), &mut NumberBuffer::new())?;
    String::from_utf8(out)
        .map_err(|_| Error::new(ErrorKind::InvalidState, "canonical cell is not UTF-8"))
}

/// Writes one value in its hashing form (not its wire form): strings always
/// quoted, so `"true"` cannot collide with `true` nor a tab break the record.
pub(super) fn write_canonical(
    out: &mut Vec<u8>,
    value: Option<&Value>,
    numbers: &mut NumberBuffer,
) -> Result<()> {
    match value {
        None | Some(Value::Null) => out.push(b'-'),
        Some(Value::Bool(b)) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Some(Value::Int(i)) => out.extend_from_slice(itoa::Buffer::new().format(*i).as_bytes()),
        Some(Value::Float(f)) => out.extend_from_slice(numbers.format_f64(*f)?.as_bytes()),
        Some(Value::String(s)) => write_quoted(out, s)?,
        Some(Value::Array(_) | Value::Object(_)) => {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "a keyed-set cell must be a scalar: the pack root (spec §10a.3) defines no form for nested values",
            ))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generic::Map;
    use alloc::vec;

    fn set(rows: Vec<Map>) -> KeyedSet {
        KeyedSet {
            name: "t".into(),
            key: "id".into(),
            fields: vec!["id".into(), "v".into()],
            rows,
        }
    }

    fn row(id: i64, v: Value) -> Map {
        let mut m = Map::new();
        m.insert("id", Value::Int(id));
        m.insert("v", v);
        m
    }

    #[test]
    fn empty_set_is_the_hash_of_nothing() {
        assert_eq!(
            pack_root(&set(vec![])).unwrap(),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn order_free_and_type_sensitive() {
        let a = set(vec![row(1, Value::Int(75)), row(2, Value::from("x"))]);
        let b = set(vec![row(2, Value::from("x")), row(1, Value::Float(75.0))]);
        assert_eq!(pack_root(&a).unwrap(), pack_root(&b).unwrap());
        let c = set(vec![row(1, Value::from("75")), row(2, Value::from("x"))]);
        assert_ne!(pack_root(&a).unwrap(), pack_root(&c).unwrap());
        let mut absent = Map::new();
        absent.insert("id", Value::Int(1));
        assert_eq!(
            pack_root(&set(vec![absent])).unwrap(),
            pack_root(&set(vec![row(1, Value::Null)])).unwrap()
        );
    }

    #[test]
    fn members_outside_the_declared_fields_are_not_part_of_the_set() {
        // As the reference SDKs hash a row: its declared fields only, so a
        // row taken from a wider record hashes as its projection, whatever
        // the other members hold (nested values included).
        let mut wider = row(1, Value::Null);
        wider.insert("w", Value::Array(vec![Value::Int(1)]));
        wider.insert("z", Value::from("x"));
        assert_eq!(
            pack_root(&set(vec![wider])).unwrap(),
            pack_root(&set(vec![row(1, Value::Null)])).unwrap()
        );
    }

    #[test]
    fn refuses_what_it_cannot_hash() {
        assert_eq!(
            pack_root(&set(vec![row(1, Value::Array(vec![]))]))
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidInput
        );
        let mut dup = set(vec![]);
        dup.fields.push("id".into());
        assert_eq!(pack_root(&dup).unwrap_err().kind(), ErrorKind::InvalidInput);
        assert_eq!(
            pack_root(&set(vec![row(1, Value::Float(f64::NAN))]))
                .unwrap_err()
                .kind(),
            ErrorKind::OutOfRange
        );
    }
}
