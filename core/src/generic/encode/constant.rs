//! Constant-column factoring: a column whose value is the same scalar in
//! every row is declared once in the field declaration as `name=value` and
//! left out of the rows.
//!
//! The GCF fleet (the `gcf` 3.1.0 crate, gcf-python 2.8.0, and the Go
//! reference they cite) calls this "§7.4.7" of spec v3.6.0 and writes it by
//! default; this encoder follows them byte for byte. Their rules, which this
//! module and the table planning implement:
//!
//! - **Where.** Only tables written at a named position or the root: the
//!   root array (`## [N]{...}`) and an object member's array
//!   (`## name [N]{...}`) at any depth, including inside objects that are
//!   themselves attachments or expanded items. Never a keyed map
//!   (`[N:]{key,...}`), a table that is an attachment's value
//!   (`.name [N]{...}`), or a table that is an expanded item (`@i [N]{...}`).
//! - **When.** The table has at least two rows.
//! - **Which columns.** A plain column (not a `>` path column of a flattened
//!   field, not an excluded `>` name, not an inline schema) present in every
//!   row with a scalar there (`null` included), the same in every row.
//!   "The same" is the references' comparison of the values' header forms,
//!   so `75` and `75.0` (both written `75`) are the same, as are `0` and
//!   `-0.0`; a string is never the same as a number, boolean or null (it
//!   would be quoted).
//! - **At least one cell per row.** When every column qualifies, the last
//!   column of the declaration stays a per-row column.
//! - **Where it goes.** In place: the declaration keeps the union order and
//!   a factored column is written `name=value` at its position.
//! - **How the value is written.** As a scalar in a cell (§2.4), and
//!   additionally quoted when it is a string holding `}` (which would end
//!   the declaration); `null` is `-`.

use alloc::vec::Vec;

use crate::error::Error;
use crate::sink::Sink;
use crate::text::write_quoted;

use super::super::scalar::{needs_quote, write_key, write_scalar};
use super::super::{Map, Value};
use super::table::same_str;
use crate::number::NumberBuffer;

/// Doubles from this magnitude up are written in exponent form (§2.3.1), so
/// they never read like an integer.
const EXPONENT_FROM: f64 = 9_007_199_254_740_992.0;

/// Whether two scalars are written the same way in a cell, without writing
/// them: the references decide a constant column on the written form.
#[inline]
pub(super) fn same_cell(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        // The shortest round-trip form tells distinct doubles apart; `-0.0`
        // and `0.0` are both `0`. A NaN equals nothing, which leaves its
        // column to the cell writer's error.
        (Value::Float(x), Value::Float(y)) => x == y,
        (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) => {
            // Below 2^53 an integral double converts exactly both ways.
            -EXPONENT_FROM < *f && *f < EXPONENT_FROM && *f as i64 == *i && *i as f64 == *f
        }
        (Value::String(x), Value::String(y)) => same_str(x, y),
        _ => false,
    }
}

/// The columns a table keeps in its rows when its rows all have `proto`'s
/// keys in its order, every value a scalar (`table::uniform_scalar_rows`):
/// `None` when no column is constant (the common case, decided without
/// allocating), otherwise the indices of the columns that are not. Rows are compared in order, all live
/// columns at once, so a table whose columns all vary is settled at its
/// second row.
pub(super) fn uniform_constants(items: &[Value], proto: &Map) -> Option<Vec<usize>> {
    let cols = proto.len();
    if items.len() < 2 || cols == 0 {
        return None;
    }
    let first = proto.as_slice();
    // The first 64 columns as a bit set, the rest (rare) one by one.
    let mut live: u64 = if cols >= 64 {
        u64::MAX
    } else {
        (1u64 << cols) - 1
    };
    for item in &items[1..] {
        if live == 0 {
            break;
        }
        let Value::Object(row) = item else {
            return None;
        };
        let mut bits = live;
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let same = match (first.get(j), row.as_slice().get(j)) {
                (Some((_, a)), Some((_, b))) => same_cell(a, b),
                _ => false,
            };
            if !same {
                live &= !(1u64 << j);
            }
        }
    }
    let wide: Vec<usize> = if cols > 64 {
        (64..cols)
            .filter(|&j| {
                items[1..].iter().all(|item| match item {
                    Value::Object(row) => match (first.get(j), row.as_slice().get(j)) {
                        (Some((_, a)), Some((_, b))) => same_cell(a, b),
                        _ => false,
                    },
                    _ => false,
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    if live == 0 && wide.is_empty() {
        return None;
    }
    let mut mask: Vec<bool> = (0..cols)
        .map(|j| j < 64 && live & (1u64 << j) != 0)
        .collect();
    for j in wide {
        if let Some(flag) = mask.get_mut(j) {
            *flag = true;
        }
    }
    // A row keeps at least one cell: the last column, if need be.
    if mask.iter().all(|&c| c) {
        if let Some(last) = mask.last_mut() {
            *last = false;
        }
    }
    Some((0..cols).filter(|&j| !mask[j]).collect())
}

/// Writes a constant column's declaration entry, `name=value`.
pub(super) fn write_entry<S: Sink + ?Sized>(
    sink: &mut S,
    name: &str,
    value: &Value,
    numbers: &mut NumberBuffer,
) -> Result<(), Error> {
    write_key(sink, name)?;
    sink.write_bytes(b"=")?;
    match value {
        Value::String(s) if !needs_quote(s) && s.contains('}') => write_quoted(sink, s),
        other => write_scalar(sink, other, numbers).map(drop),
    }
}

/// `Value::Null`, for a kept column a row lacks (which a table that takes
/// the row fast paths never has).
static NULL: Value = Value::Null;

/// A row's values in the `kept` columns, in order: an exact-size source of
/// cells for the row assembly, one index per cell and no test per column.
#[inline]
pub(super) fn kept_cells<'v>(
    row: &'v Map,
    kept: &'v [usize],
) -> impl ExactSizeIterator<Item = &'v Value> + Clone + 'v {
    let values = row.as_slice();
    kept.iter()
        .map(move |&j| values.get(j).map_or(&NULL, |(_, v)| v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_cell_follows_the_written_form() {
        use Value::*;
        assert!(same_cell(&Int(75), &Float(75.0)));
        assert!(same_cell(&Float(-0.0), &Int(0)));
        assert!(same_cell(&Float(0.0), &Float(-0.0)));
        assert!(!same_cell(&Int(1), &Float(1.5)));
        assert!(!same_cell(&Int(1), &String("1".into())));
        assert!(!same_cell(&Null, &String("-".into())));
        assert!(!same_cell(&Bool(true), &String("true".into())));
        assert!(!same_cell(&Float(f64::NAN), &Float(f64::NAN)));
        // 2^53 is written `9.007199254740992e+15`, never as the integer.
        assert!(!same_cell(&Int(1 << 53), &Float(EXPONENT_FROM)));
        assert!(same_cell(&Int((1 << 53) - 1), &Float(EXPONENT_FROM - 1.0)));
        assert!(!same_cell(&Int(i64::MAX), &Float(i64::MAX as f64)));
    }

    #[test]
    fn uniform_constants_keep_one_cell() {
        let row = |a: i64, b: &str| {
            let mut m = Map::new();
            m.insert("a", Value::Int(a));
            m.insert("b", Value::from(b));
            Value::Object(m)
        };
        let proto = |items: &[Value]| items[0].as_object().cloned().unwrap();
        let all = [row(1, "x"), row(1, "x")];
        assert_eq!(uniform_constants(&all, &proto(&all)), Some(alloc::vec![1]));
        let some = [row(1, "x"), row(2, "x"), row(3, "x")];
        assert_eq!(
            uniform_constants(&some, &proto(&some)),
            Some(alloc::vec![0])
        );
        let none = [row(1, "x"), row(2, "y")];
        assert_eq!(uniform_constants(&none, &proto(&none)), None);
        assert_eq!(uniform_constants(&all[..1], &proto(&all)), None);
    }

    #[test]
    fn kept_cells_are_exact_size() {
        let mut row = Map::new();
        for (k, v) in [("a", 1), ("b", 2), ("c", 3)] {
            row.insert(k, Value::Int(v));
        }
        let kept = [0, 2, 7];
        let it = kept_cells(&row, &kept);
        assert_eq!(it.len(), 3);
        let cells: alloc::vec::Vec<&Value> = it.collect();
        assert_eq!(cells, [&Value::Int(1), &Value::Int(3), &Value::Null]);
    }
}
