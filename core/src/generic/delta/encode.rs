//! Writing delta-participating full payloads and delta payloads (spec §10a.1, §10a.2).

use alloc::string::String;

use crate::hash::HashMap;

use crate::error::{Error, ErrorKind, Result};
use crate::number::NumberBuffer;

use super::super::scalar::{write_key, write_scalar};
use super::super::Map;
use super::{identity_of, pack_root, GenericDelta, KeyedSet};
use crate::header::check_header_value;

/// Writes a keyed set as a delta-participating full payload:
/// `GCF profile=generic [tool=..] pack_root=.. key=..`, then
/// `## <name> [N]{...}` with the identity field marked `@`, one row per line
/// in the set's order.
///
/// Refused with [`ErrorKind::InvalidInput`]: a key that is not a declared
/// field or cannot be a header value, a field containing `>` (it would read
/// as a flattened path), a row without its identity, duplicate identities
/// (§10a.1), nested values. A row member that is not a declared field is
/// not part of the set and is not written (see [`super::pack_root`]).
///
/// ```
/// use gcf_core::generic::{encode_full, KeyedSet, Map, Value};
///
/// let mut row = Map::new();
/// row.insert("id", Value::Int(1001));
/// row.insert("total", Value::Float(59.98));
/// let set = KeyedSet { name: "orders".into(), key: "id".into(), fields: vec!["id".into(), "total".into()], rows: vec![row] };
/// let text = encode_full(&set, "orders_query")?;
/// assert!(text.starts_with("GCF profile=generic tool=orders_query pack_root=sha256:"));
/// assert!(text.ends_with(" key=id\n## orders [1]{@id,total}\n1001|59.98\n"));
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn encode_full(set: &KeyedSet, tool: &str) -> Result<String> {
    check_schema(&set.key, &set.fields)?;
    let root = pack_root(set)?;
    let mut numbers = NumberBuffer::new();
    let mut seen = crate::hash::set_with_capacity(set.rows.len());
    for row in &set.rows {
        let Some(id) = identity_of(row, &set.key, &mut numbers)? else {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                alloc::format!(
                    "a row has no identity `{}`",
                    crate::error::excerpt(&set.key)
                ),
            ));
        };
        if !seen.insert(id) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                alloc::format!(
                    "two rows share one identity `{}` (spec §10a.1)",
                    crate::error::excerpt(&set.key)
                ),
            ));
        }
    }
    let mut out = String::with_capacity(64 + set.rows.len() * 8 * set.fields.len());
    out.push_str("GCF profile=generic");
    push_tool(&mut out, tool)?;
    out.push_str(" pack_root=");
    out.push_str(&root);
    out.push_str(" key=");
    out.push_str(&set.key);
    out.push_str("\n## ");
    write_key(&mut out, &set.name)?;
    out.push(' ');
    write_rows_section(
        &mut out,
        set.rows.iter(),
        &set.fields,
        &set.key,
        &mut numbers,
    )?;
    Ok(out)
}

/// Writes a delta payload (spec §10a.2): the header with `delta=true`,
/// `base_root`, `new_root`, `key` and, when `full_tokens` is non-zero,
/// `savings`; then the non-empty sections in the order `added`, `changed`,
/// `removed` (§10a.6). An empty delta is the header alone.
///
/// ```
/// use gcf_core::generic::{encode_delta, GenericDelta, Value};
///
/// let delta = GenericDelta {
///     key: "id".into(),
///     base_root: "sha256:aaa".into(),
///     new_root: "sha256:bbb".into(),
///     removed: vec![Value::Int(1001), Value::from("1002")],
///     delta_tokens: 30,
///     full_tokens: 160,
///     ..GenericDelta::default()
/// };
/// assert_eq!(
///     encode_delta(&delta)?,
///     concat!(
///         "GCF profile=generic delta=true base_root=sha256:aaa new_root=sha256:bbb key=id savings=81%\n",
///         "## removed [2]{@id}\n1001\n\"1002\"\n",
///     )
/// );
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn encode_delta(delta: &GenericDelta) -> Result<String> {
    check_header_value("key", &delta.key)?;
    check_header_value("base_root", &delta.base_root)?;
    check_header_value("new_root", &delta.new_root)?;
    if !delta.added.is_empty() || !delta.changed.is_empty() {
        check_schema(&delta.key, &delta.fields)?;
    }
    let mut numbers = NumberBuffer::new();
    let mut out = String::with_capacity(256);
    out.push_str("GCF profile=generic");
    push_tool(&mut out, &delta.tool)?;
    out.push_str(" delta=true base_root=");
    out.push_str(&delta.base_root);
    out.push_str(" new_root=");
    out.push_str(&delta.new_root);
    out.push_str(" key=");
    out.push_str(&delta.key);
    out.push_str(&crate::protocol::savings_field(
        delta.delta_tokens,
        delta.full_tokens,
    ));
    out.push('\n');
    for (name, rows) in [("added", &delta.added), ("changed", &delta.changed)] {
        if !rows.is_empty() {
            out.push_str("## ");
            out.push_str(name);
            out.push(' ');
            write_rows_section(
                &mut out,
                rows.iter(),
                &delta.fields,
                &delta.key,
                &mut numbers,
            )?;
        }
    }
    if !delta.removed.is_empty() {
        out.push_str("## removed [");
        out.push_str(itoa::Buffer::new().format(delta.removed.len()));
        out.push_str("]{@");
        write_key(&mut out, &delta.key)?;
        out.push_str("}\n");
        for id in &delta.removed {
            write_cell(&mut out, Some(id), &mut numbers)?;
            out.push('\n');
        }
    }
    Ok(out)
}

/// `[N]{decl}` and the rows, after the section name.
fn write_rows_section<'a>(
    out: &mut String,
    rows: impl ExactSizeIterator<Item = &'a Map>,
    fields: &[String],
    key: &str,
    numbers: &mut NumberBuffer,
) -> Result<()> {
    out.push('[');
    out.push_str(itoa::Buffer::new().format(rows.len()));
    out.push_str("]{");
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if field == key {
            out.push('@');
        }
        write_key(out, field)?;
    }
    out.push_str("}\n");
    // A member that is not a declared field is not part of the set and is
    // not written, as the reference SDKs leave it out (see `pack_root`).
    for row in rows {
        let members: Option<HashMap<&str, &super::Value>> =
            (row.len() > WIDE).then(|| row.iter().collect());
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                out.push('|');
            }
            let value = match &members {
                Some(members) => members.get(field.as_str()).copied(),
                None => row.get(field),
            };
            write_cell(out, value, numbers)?;
        }
        out.push('\n');
    }
    Ok(())
}

/// Rows and field lists longer than this are indexed rather than scanned.
pub(super) const WIDE: usize = 16;

/// A tabular cell: a scalar, or `-` for an absent field.
///
/// A keyed set's rows are records over its declared fields, where an absent
/// field is null: it hashes as `-` in the pack root (§10a.3), and a row that
/// only gains or loses a null member is not changed. So it is written `-`,
/// as the `gcf` crate, gcf-python 2.8.0 and the npm package all write it,
/// and reads back as null, the same set under the same root (`~` would make
/// a full payload say more than the deltas after it can).
fn write_cell(
    out: &mut String,
    value: Option<&super::Value>,
    numbers: &mut NumberBuffer,
) -> Result<()> {
    match value {
        None => out.push('-'),
        Some(value) => {
            if !write_scalar(out, value, numbers)? {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    "a keyed-set cell must be a scalar: nested values have no pack-root form (spec §10a.3)",
                ));
            }
        }
    }
    Ok(())
}

fn push_tool(out: &mut String, tool: &str) -> Result<()> {
    if !tool.is_empty() {
        check_header_value("tool", tool)?;
        out.push_str(" tool=");
        out.push_str(tool);
    }
    Ok(())
}

/// The key names a declared field and fits in the header; fields are unique
/// and none contains `>`.
pub(super) fn check_schema(key: &str, fields: &[String]) -> Result<()> {
    check_header_value("key", key)?;
    if !fields.iter().any(|f| f == key) {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            alloc::format!(
                "the key `{}` is not a declared field",
                crate::error::excerpt(key)
            ),
        ));
    }
    // What a decoder with default limits reads back: every section
    // declares the fields (the identity among them, marked `@`).
    let max_fields = crate::limits::Limits::DEFAULT.max_fields;
    if fields.len() > max_fields {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            alloc::format!(
                "a keyed set of {} fields: more than the limit of {max_fields} fields a decoder reads",
                fields.len()
            ),
        ));
    }
    let repeat = crate::repeats::first_repeat(fields);
    for (i, field) in fields.iter().enumerate() {
        if field.contains('>') {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                alloc::format!("field `{}` contains `>`, which a decoder reads as a flattened path (spec §7.4.6)", crate::error::excerpt(field)),
            ));
        }
        if repeat == Some(i) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                alloc::format!("field `{}` is declared twice", crate::error::excerpt(field)),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generic::Value;
    use alloc::vec;
    use alloc::vec::Vec;

    fn set(rows: Vec<Map>) -> KeyedSet {
        KeyedSet {
            name: "a b".into(),
            key: "id".into(),
            fields: vec!["v".into(), "id".into()],
            rows,
        }
    }

    #[test]
    fn quoting_absent_cells_and_key_position() {
        let mut r = Map::new();
        r.insert("id", Value::from("007"));
        let text = encode_full(&set(vec![r]), "").unwrap();
        let body = text.split_once('\n').unwrap().1;
        assert_eq!(body, "## \"a b\" [1]{v,@id}\n-|\"007\"\n");
    }

    #[test]
    fn refusals() {
        let mut r = Map::new();
        r.insert("id", Value::Int(1));
        let dup = set(vec![r.clone(), r.clone()]);
        assert_eq!(
            encode_full(&dup, "").unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        assert_eq!(
            encode_full(&set(vec![Map::new()]), "").unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        assert_eq!(
            encode_full(&set(vec![]), "two words").unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        let mut arrow = set(vec![]);
        arrow.fields.push("a>b".into());
        assert_eq!(
            encode_full(&arrow, "").unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        // As many fields as a decoder with default limits reads, and one more.
        let mut wide = set(vec![]);
        let limit = crate::limits::Limits::DEFAULT.max_fields;
        wide.fields
            .extend((wide.fields.len()..limit).map(|i| alloc::format!("f{i}")));
        let text = encode_full(&wide, "").unwrap();
        assert!(crate::generic::decode(&text).is_ok());
        wide.fields.push("one_more".into());
        assert_eq!(
            encode_full(&wide, "").unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
        let delta = GenericDelta {
            key: "id".into(),
            base_root: "r".into(),
            new_root: "".into(),
            ..Default::default()
        };
        assert_eq!(
            encode_delta(&delta).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
    }

    #[test]
    fn savings_rounding() {
        let mut d = GenericDelta {
            key: "id".into(),
            base_root: "a".into(),
            new_root: "b".into(),
            ..Default::default()
        };
        for (delta, full, want) in [
            (30, 160, "81%"),
            (0, 1, "100%"),
            (1, 8, "88%"),
            (200, 100, "-100%"),
        ] {
            d.delta_tokens = delta;
            d.full_tokens = full;
            let text = encode_delta(&d).unwrap();
            assert!(
                text.ends_with(&alloc::format!("savings={want}\n")),
                "{text}"
            );
        }
    }
}
