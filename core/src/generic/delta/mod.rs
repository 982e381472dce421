//! Generic-profile deltas (spec §10a): keyed sets, their pack roots, full and
//! delta payloads, atomic verified application, the three-outcome rule and a
//! re-anchoring producer session.
//!
//! A keyed set is a table whose rows are identified by one column. A producer
//! sends it once in full (with `pack_root=` and `key=` in the header and the
//! identity column marked `@`); afterwards, when the consumer echoes a root the
//! producer still holds, it sends only the rows that were added, changed
//! (whole-row replacement) or removed. The consumer applies that atomically
//! and checks the result against `new_root`.
//!
//! ```
//! use gcf_core::generic::{apply_delta, diff, encode_delta, KeyedSet, Map, Value};
//!
//! let row = |id: i64, status: &str| {
//!     let mut m = Map::new();
//!     m.insert("id", Value::Int(id));
//!     m.insert("status", Value::from(status));
//!     m
//! };
//! let fields = vec!["id".to_string(), "status".to_string()];
//! let old = KeyedSet { name: "orders".into(), key: "id".into(), fields: fields.clone(), rows: vec![row(1, "open"), row(2, "open")] };
//! let new = KeyedSet { rows: vec![row(1, "open"), row(2, "shipped"), row(3, "open")], ..old.clone() };
//!
//! let delta = diff(&old, &new)?.expect("same schema and unique identities");
//! let wire = encode_delta(&delta)?;
//! assert!(wire.ends_with("## added [1]{@id,status}\n3|open\n## changed [1]{@id,status}\n2|shipped\n"));
//!
//! let applied = apply_delta(&old, &wire)?;
//! assert_eq!(applied.rows, new.rows);
//! # Ok::<(), gcf_core::Error>(())
//! ```

mod apply;
mod encode;
mod full;
mod pack_root;
mod session;

use alloc::string::String;
use alloc::vec::Vec;

use crate::hash::HashMap;

use crate::error::Result;
use crate::number::NumberBuffer;

use super::{Map, Value};

pub use apply::{apply, apply_delta, apply_delta_with, decode_delta, decode_delta_with};
pub use encode::{encode_delta, encode_full};
pub use full::{decode_full, decode_full_with, FullPayload};
pub use pack_root::{canonical_cell, pack_root};
pub use session::{
    respond, respond_echoed, DeltaSession, Outcome, ReanchorPolicy, DEFAULT_REANCHOR_N,
};

/// A keyed set: the unit a generic delta works on (spec §10a.1).
///
/// `fields` is the declared column order of the wire form, `key` names the
/// identity column (one of `fields`), `name` is the section name of the full
/// payload. Rows are objects whose members are declared fields; a declared
/// field a row lacks is written `~`. Row order carries no meaning (§10a.6).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeyedSet {
    /// The section name of the full payload (`## <name> [N]{...}`).
    pub name: String,
    /// The identity field.
    pub key: String,
    /// The declared fields, in wire order.
    pub fields: Vec<String>,
    /// The rows.
    pub rows: Vec<Map>,
}

/// A delta between two keyed sets (spec §10a.2): what [`diff`] computes, what
/// [`encode_delta`] writes and what [`decode_delta`] reads.
///
/// `delta_tokens` and `full_tokens` are the sizes the caller measured with its
/// own tokenizer; when `full_tokens` is non-zero the header carries
/// `savings=<100 * (1 - delta/full)>%`, rounded to an integer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GenericDelta {
    /// The producing tool (omitted from the header when empty).
    pub tool: String,
    /// The identity field.
    pub key: String,
    /// The declared fields of `added` and `changed` rows.
    pub fields: Vec<String>,
    /// The root of the set the delta applies to.
    pub base_root: String,
    /// The root of the set it produces.
    pub new_root: String,
    /// Rows whose identity is not in the base.
    pub added: Vec<Map>,
    /// Rows that replace the base row with the same identity.
    pub changed: Vec<Map>,
    /// Identities to delete.
    pub removed: Vec<Value>,
    /// The delta payload's size in tokens, for `savings=` (0 when unknown).
    pub delta_tokens: u64,
    /// The full payload's size in tokens, for `savings=` (0 omits it).
    pub full_tokens: u64,
}

/// Computes the delta that turns `base` into `new`, or `None` when a delta is
/// not allowed and a full payload must be sent (spec §10a.7): no identity
/// field, a row without an identity, duplicate identities, or a schema change
/// (a different key or field list). A schema that no payload can carry (a
/// field containing `>`, a duplicate field, a key unfit for the header) is an
/// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) error, as it is
/// for [`encode_full`]: whenever `diff` succeeds, its delta encodes.
///
/// `added`, `changed` and `removed` are ordered by the canonical form of the
/// identity, so the output depends on the sets, not on their row order. Rows
/// equal under the pack-root canonical form (where an absent field equals
/// `null`) are not changes. `tool` is empty and the token counts are zero; set
/// them before encoding if wanted.
///
/// ```
/// use gcf_core::generic::{diff, KeyedSet};
/// let a = KeyedSet { name: "t".into(), key: "id".into(), fields: vec!["id".into()], rows: vec![] };
/// let b = KeyedSet { fields: vec!["id".into(), "x".into()], ..a.clone() };
/// assert!(diff(&a, &b)?.is_none(), "a schema change needs a full payload");
/// assert!(diff(&a, &a)?.unwrap().added.is_empty());
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn diff(base: &KeyedSet, new: &KeyedSet) -> Result<Option<GenericDelta>> {
    if base.key != new.key || base.fields != new.fields || !new.fields.contains(&new.key) {
        return Ok(None);
    }
    // A schema no payload can carry (a `>` field, which a decoder reads as a
    // flattened path; a duplicate field; a key unfit for the header) fails
    // here, as `encode_full` and `encode_delta` would fail on it: a diff
    // that succeeds always encodes (issue 21).
    encode::check_schema(&new.key, &new.fields)?;
    // Roots first: they validate every value.
    let base_root = pack_root(base)?;
    let new_root = pack_root(new)?;
    let mut numbers = NumberBuffer::new();
    let (Some(base_index), Some(new_index)) = (
        index_identities(base, &mut numbers)?,
        index_identities(new, &mut numbers)?,
    ) else {
        return Ok(None);
    };
    let mut added = Vec::new();
    let mut changed = Vec::new();
    for (id, &row) in &new_index {
        match base_index.get(id) {
            None => added.push((id, row)),
            Some(&old) => {
                if !rows_equal(&base.rows[old], &new.rows[row], &new.fields, &mut numbers)? {
                    changed.push((id, row));
                }
            }
        }
    }
    let mut removed: Vec<(&Vec<u8>, usize)> = base_index
        .iter()
        .filter(|(id, _)| !new_index.contains_key(*id))
        .map(|(id, &row)| (id, row))
        .collect();
    added.sort_unstable();
    changed.sort_unstable();
    removed.sort_unstable();
    Ok(Some(GenericDelta {
        tool: String::new(),
        key: new.key.clone(),
        fields: new.fields.clone(),
        base_root,
        new_root,
        added: added
            .into_iter()
            .map(|(_, row)| new.rows[row].clone())
            .collect(),
        changed: changed
            .into_iter()
            .map(|(_, row)| new.rows[row].clone())
            .collect(),
        removed: removed
            .into_iter()
            .map(|(_, row)| {
                base.rows[row]
                    .get(&base.key)
                    .cloned()
                    .unwrap_or(Value::Null)
            })
            .collect(),
        delta_tokens: 0,
        full_tokens: 0,
    }))
}

/// Why [`diff`] found no delta from `base` to `new`, as the reference SDKs
/// say it: an [`ErrorKind::DeltaInvalid`](crate::ErrorKind::DeltaInvalid)
/// error reading `no identity key`, `schema change (send full)` (another key
/// or field list, or a key that is not a declared field), `duplicate
/// identity <id> for key <key>` (the base's first, then the new set's, the
/// identity in its canonical form) or `a row has no identity <key>`, with
/// the key as `quote_key` writes it (the crate and 2.5.2 quote it as JSON,
/// gcf-python 2.8.0 as a Python `repr`). Meant for when `diff` returned
/// `None`; for sets it would diff, it says `no delta (send full)`.
///
/// ```
/// use gcf_core::generic::{diff, no_delta, KeyedSet, Map, Value};
/// use gcf_core::ErrorKind;
/// let mut row = Map::new();
/// row.insert("id", Value::Int(1));
/// let set = KeyedSet { name: "t".into(), key: "id".into(), fields: vec!["id".into()], rows: vec![row.clone(), row] };
/// assert!(diff(&set, &set)?.is_none());
/// let quote = |k: &str| format!("{k:?}");
/// let e = no_delta(&set, &set, quote);
/// assert_eq!((e.kind(), e.message()), (ErrorKind::DeltaInvalid, r#"duplicate identity 1 for key "id""#));
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn no_delta(
    base: &KeyedSet,
    new: &KeyedSet,
    quote_key: impl Fn(&str) -> String,
) -> crate::Error {
    let invalid = |message: String| crate::Error::new(crate::ErrorKind::DeltaInvalid, message);
    if new.key.is_empty() {
        return invalid(String::from("no identity key"));
    }
    if base.key != new.key || base.fields != new.fields || !new.fields.contains(&new.key) {
        return invalid(String::from("schema change (send full)"));
    }
    let mut numbers = NumberBuffer::new();
    for set in [base, new] {
        let mut seen = crate::hash::set_with_capacity(set.rows.len());
        for row in &set.rows {
            let id = match identity_of(row, &set.key, &mut numbers) {
                Ok(Some(id)) => id,
                Ok(None) => {
                    return invalid(alloc::format!(
                        "a row has no identity {} (send full)",
                        quote_key(&set.key)
                    ))
                }
                Err(e) => return e,
            };
            if !seen.insert(id.clone()) {
                return invalid(alloc::format!(
                    "duplicate identity {} for key {}",
                    String::from_utf8_lossy(&id),
                    quote_key(&set.key)
                ));
            }
        }
    }
    invalid(String::from("no delta (send full)"))
}

/// The canonical (pack-root) form of a row's identity, or `None` when absent.
fn identity_of(row: &Map, key: &str, numbers: &mut NumberBuffer) -> Result<Option<Vec<u8>>> {
    let Some(value) = row.get(key) else {
        return Ok(None);
    };
    identity_text(value, numbers).map(Some)
}

/// The canonical form of an identity value: equal for equal JSON values.
pub(crate) fn identity_text(value: &Value, numbers: &mut NumberBuffer) -> Result<Vec<u8>> {
    let mut text = Vec::new();
    pack_root::write_canonical(&mut text, Some(value), numbers)?;
    Ok(text)
}

/// Identity -> row index, or `None` when a row lacks its identity or two
/// rows share one.
fn index_identities(
    set: &KeyedSet,
    numbers: &mut NumberBuffer,
) -> Result<Option<HashMap<Vec<u8>, usize>>> {
    let mut index = crate::hash::map_with_capacity(set.rows.len());
    for (i, row) in set.rows.iter().enumerate() {
        let Some(id) = identity_of(row, &set.key, numbers)? else {
            return Ok(None);
        };
        if index.insert(id, i).is_some() {
            return Ok(None);
        }
    }
    Ok(Some(index))
}

/// Whether two rows hash alike over `fields`.
fn rows_equal(a: &Map, b: &Map, fields: &[String], numbers: &mut NumberBuffer) -> Result<bool> {
    let (mut left, mut right) = (Vec::new(), Vec::new());
    let (a, b) = (pack_root::Members::of(a), pack_root::Members::of(b));
    for field in fields {
        left.clear();
        right.clear();
        pack_root::write_canonical(&mut left, a.get(field), numbers)?;
        pack_root::write_canonical(&mut right, b.get(field), numbers)?;
        if left != right {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn row(id: i64, v: &str) -> Map {
        let mut m = Map::new();
        m.insert("id", Value::Int(id));
        m.insert("v", Value::from(v));
        m
    }

    fn set(rows: Vec<Map>) -> KeyedSet {
        KeyedSet {
            name: "t".into(),
            key: "id".into(),
            fields: vec!["id".into(), "v".into()],
            rows,
        }
    }

    #[test]
    fn diff_is_sorted_by_identity_and_ignores_row_order() {
        let base = set(vec![row(10, "a"), row(9, "b"), row(8, "c"), row(7, "d")]);
        let new = set(vec![
            row(11, "n"),
            row(10, "a"),
            row(9, "B"),
            row(1, "m"),
            row(8, "C"),
        ]);
        let d = diff(&base, &new).unwrap().unwrap();
        assert_eq!(d.added, vec![row(1, "m"), row(11, "n")]);
        assert_eq!(d.changed, vec![row(8, "C"), row(9, "B")]);
        assert_eq!(d.removed, vec![Value::Int(7)]);
        let mut shuffled = new.clone();
        shuffled.rows.reverse();
        assert_eq!(diff(&base, &shuffled).unwrap().unwrap(), d);
    }

    #[test]
    fn no_delta_without_identity() {
        let base = set(vec![row(1, "a")]);
        assert!(diff(&base, &set(vec![row(1, "a"), row(1, "b")]))
            .unwrap()
            .is_none());
        let mut anonymous = Map::new();
        anonymous.insert("v", Value::from("x"));
        assert!(diff(&base, &set(vec![anonymous])).unwrap().is_none());
        let mut rekeyed = base.clone();
        rekeyed.key = "v".into();
        assert!(diff(&base, &rekeyed).unwrap().is_none());
        let mut keyless = base.clone();
        keyless.key = "nope".into();
        assert!(diff(&keyless, &keyless).unwrap().is_none());
    }
}
