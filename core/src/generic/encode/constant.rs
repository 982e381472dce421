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
use core::slice;

use crate::error::Error;
use crate::sink::Sink;
use crate::text::write_quoted;

use super::super::scalar::{needs_quote, write_cell, write_key};
use super::super::view::View;
use super::super::Cell;
use super::table::member_value;
use crate::number::NumberBuffer;
use crate::words::same_str;

/// Doubles from this magnitude up are written in exponent form (§2.3.1), so
/// they never read like an integer.
const EXPONENT_FROM: f64 = 9_007_199_254_740_992.0;

/// Whether two scalars are written the same way in a cell, without writing
/// them: the references decide a constant column on the written form.
#[inline]
pub(super) fn same_cell(a: Cell<'_>, b: Cell<'_>) -> bool {
    match (a, b) {
        (Cell::Null, Cell::Null) => true,
        (Cell::Bool(x), Cell::Bool(y)) => x == y,
        (Cell::Int(x), Cell::Int(y)) => x == y,
        // The shortest round-trip form tells distinct doubles apart; `-0.0`
        // and `0.0` are both `0`. A NaN equals nothing, which leaves its
        // column to the cell writer's error.
        (Cell::Float(x), Cell::Float(y)) => x == y,
        (Cell::Int(i), Cell::Float(f)) | (Cell::Float(f), Cell::Int(i)) => {
            // Below 2^53 an integral double converts exactly both ways.
            -EXPONENT_FROM < f && f < EXPONENT_FROM && f as i64 == i && i as f64 == f
        }
        (Cell::Str(x), Cell::Str(y)) => same_str(x, y),
        _ => false,
    }
}

/// The columns a table keeps in its rows when its rows all have `proto`'s
/// keys in its order, every value a scalar (`table::uniform_scalar_rows`):
/// `None` when no column is constant (the common case, decided without
/// allocating), otherwise the indices of the columns that are not. Rows are
/// compared in order, all live columns at once, so a table whose columns
/// all vary is settled at its second row.
pub(super) fn uniform_constants<'a, V: View<'a>>(items: V::Items, proto: V) -> Option<Vec<usize>> {
    let cols = proto.members().len();
    if items.len() < 2 || cols == 0 {
        return None;
    }
    // The first 64 columns as a bit set, the rest (rare) one by one.
    let mut live: u64 = if cols >= 64 {
        u64::MAX
    } else {
        (1u64 << cols) - 1
    };
    let same_at = |row: V, j: usize| match (proto.member_at(j), row.member_at(j)) {
        (Some((_, a)), Some((_, b))) => same_cell(a.cell(), b.cell()),
        _ => false,
    };
    for row in items.clone().skip(1) {
        if live == 0 {
            break;
        }
        if !row.is_object() {
            return None;
        }
        let (mut first, mut first_next) = (proto.members(), 0);
        let (mut members, mut next) = (row.members(), 0);
        let mut bits = live;
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let a = member_value::<V>(&mut first, &mut first_next, j);
            let b = member_value::<V>(&mut members, &mut next, j);
            let same = match (a, b) {
                (Some(a), Some(b)) => same_cell(a.cell(), b.cell()),
                _ => false,
            };
            if !same {
                live &= !(1u64 << j);
            }
        }
    }
    let wide: Vec<usize> = if cols > 64 {
        (64..cols)
            .filter(|&j| items.clone().skip(1).all(|row| same_at(row, j)))
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
    value: Cell<'_>,
    numbers: &mut NumberBuffer,
) -> Result<(), Error> {
    write_key(sink, name)?;
    sink.write_bytes(b"=")?;
    match value {
        Cell::Str(s) if !needs_quote(s) && s.contains('}') => write_quoted(sink, s),
        other => write_cell(sink, other, numbers),
    }
}

/// A row's cells in the `kept` columns, in order (`null` for a kept column
/// the row lacks, which a table that takes the row fast paths never has): an
/// exact-size source of cells for the row assembly, one walk over the row.
pub(super) struct KeptCells<'a, 'k, V: View<'a>> {
    members: V::Members,
    next: usize,
    kept: slice::Iter<'k, usize>,
}

impl<'a, 'k, V: View<'a>> KeptCells<'a, 'k, V> {
    /// The cells of `row`'s members in the (ascending) positions `kept`.
    #[inline]
    pub(super) fn new(row: V, kept: &'k [usize]) -> Self {
        KeptCells {
            members: row.members(),
            next: 0,
            kept: kept.iter(),
        }
    }
}

impl<'a, V: View<'a>> Iterator for KeptCells<'a, '_, V> {
    type Item = Cell<'a>;

    #[inline]
    fn next(&mut self) -> Option<Cell<'a>> {
        let &j = self.kept.next()?;
        let skip = j.checked_sub(self.next);
        self.next = j + 1;
        Some(
            skip.and_then(|skip| self.members.nth(skip))
                .map_or(Cell::Null, |(_, v)| v.cell()),
        )
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.kept.size_hint()
    }
}

impl<'a, V: View<'a>> ExactSizeIterator for KeptCells<'a, '_, V> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generic::{Map, Value};

    #[test]
    fn same_cell_follows_the_written_form() {
        use Cell::*;
        assert!(same_cell(Int(75), Float(75.0)));
        assert!(same_cell(Float(-0.0), Int(0)));
        assert!(same_cell(Float(0.0), Float(-0.0)));
        assert!(!same_cell(Int(1), Float(1.5)));
        assert!(!same_cell(Int(1), Str("1")));
        assert!(!same_cell(Null, Str("-")));
        assert!(!same_cell(Bool(true), Str("true")));
        assert!(!same_cell(Float(f64::NAN), Float(f64::NAN)));
        // 2^53 is written `9.007199254740992e+15`, never as the integer.
        assert!(!same_cell(Int(1 << 53), Float(EXPONENT_FROM)));
        assert!(same_cell(Int((1 << 53) - 1), Float(EXPONENT_FROM - 1.0)));
        assert!(!same_cell(Int(i64::MAX), Float(i64::MAX as f64)));
    }

    #[test]
    fn uniform_constants_keep_one_cell() {
        let row = |a: i64, b: &str| {
            let mut m = Map::new();
            m.insert("a", Value::Int(a));
            m.insert("b", Value::from(b));
            Value::Object(m)
        };
        let constants = |items: &[Value]| {
            let array = Value::Array(items.to_vec());
            uniform_constants((&array).items(), &items[0])
        };
        let all = [row(1, "x"), row(1, "x")];
        assert_eq!(constants(&all), Some(alloc::vec![1]));
        let some = [row(1, "x"), row(2, "x"), row(3, "x")];
        assert_eq!(constants(&some), Some(alloc::vec![0]));
        let none = [row(1, "x"), row(2, "y")];
        assert_eq!(constants(&none), None);
        assert_eq!(constants(&all[..1]), None);
    }

    #[test]
    fn uniform_constants_past_64_columns() {
        // Columns 0..70; every third is constant, the others vary by row.
        let row = |r: i64| {
            let mut m = Map::new();
            for j in 0..70i64 {
                let v = if j % 3 == 0 { j } else { j * 100 + r };
                m.insert(alloc::format!("c{j}").as_str(), Value::Int(v));
            }
            Value::Object(m)
        };
        let array = Value::Array((0..3).map(row).collect());
        let first = &array.as_array().unwrap()[0];
        let kept = uniform_constants((&array).items(), first).unwrap();
        let expected: alloc::vec::Vec<usize> = (0..70).filter(|j| j % 3 != 0).collect();
        assert_eq!(kept, expected);
    }

    #[test]
    fn kept_cells_are_exact_size() {
        let mut row = Map::new();
        for (k, v) in [("a", 1), ("b", 2), ("c", 3)] {
            row.insert(k, Value::Int(v));
        }
        let row = Value::Object(row);
        let kept = [0, 2, 7];
        let it = KeptCells::new(&row, &kept);
        assert_eq!(it.len(), 3);
        let cells: alloc::vec::Vec<Cell<'_>> = it.collect();
        assert_eq!(cells, [Cell::Int(1), Cell::Int(3), Cell::Null]);
    }
}
