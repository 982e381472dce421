//! Tabular analysis: the one pass over an array of objects (or the values of a
//! keyed map) that fixes its field union and, per field, the cell form.
//!
//! The plan is computed once per table and borrows every name from the value
//! being encoded; writing rows then needs no lookup beyond one scratch slot
//! per field.
//!
//! Per field, the first applicable form wins (the canonical choices the
//! conformance fixtures pin down, see the module docs of `encode`):
//!
//! 1. [`Kind::Excluded`]: the name contains `>`; never a column (§7.4.6.1 rule 4),
//!    written as a `.name` attachment after the row's other attachments.
//! 2. [`Kind::Flatten`]: every present value is `null` or an object of one
//!    flattenable shape (§7.4.6.1): `>` path columns.
//! 3. [`Kind::Inline`]: row 0 holds an object of at least three scalar
//!    members and every present value is an object with exactly those keys in
//!    that order (§7.4.5.1): `^{keys}` then positional bodies.
//! 4. [`Kind::Plain`]: scalars in the cell, containers as `^` plus a
//!    traditional attachment; `shared` when row 0 and every later non-null
//!    value are flat tabular arrays with one field list (§7.4.5.3).

use alloc::string::String;
use alloc::vec::Vec;
use hashbrown::HashMap;

use super::constant::same_cell;
use crate::generic::{Key, Map, Value};

/// Past this many fields, name lookups go through a hash map.
const LINEAR_LOOKUP_MAX: usize = 16;

/// How one field of the union is written in each row.
#[derive(Debug)]
pub(super) enum Kind<'a> {
    /// A cell per row: the scalar, `-`, `~`, or `^` with a traditional attachment.
    Plain {
        /// Later rows omit the `{fields}` of this field's array attachments.
        shared: bool,
    },
    /// `>` path columns, one per scalar leaf of `proto` in its key order.
    Flatten {
        /// The first present object; every other one has its exact shape.
        proto: &'a Map,
        /// Number of scalar leaves (columns).
        leaves: usize,
    },
    /// `^{keys}` on the first row, `^` after, with a positional body line.
    Inline {
        /// Row 0's object: its keys are the schema.
        proto: &'a Map,
    },
    /// A `>` name: not a column, written as an attachment.
    Excluded,
    /// A constant column (see `constant.rs`): declared `name=value` and
    /// absent from the rows. Every row holds `value`'s written form.
    Constant {
        /// Row 0's value.
        value: &'a Value,
    },
}

/// One field of the union and its form.
#[derive(Debug)]
pub(super) struct Field<'a> {
    pub(super) name: &'a str,
    pub(super) kind: Kind<'a>,
}

/// Everything the writer needs to emit a table.
pub(super) struct TablePlan<'a> {
    /// The row objects, in order.
    pub(super) rows: Vec<&'a Map>,
    /// Member keys of a keyed map (empty for an array).
    pub(super) keys: Vec<&'a str>,
    /// The ordered field union with each field's form.
    pub(super) fields: Vec<Field<'a>>,
    /// Rows whose `i`-th member is field `i` for every `i`: the common case,
    /// filled without comparing a single name.
    aligned: Vec<bool>,
    /// Field positions by name, once the union outgrows a linear scan.
    hashed: Option<HashMap<&'a str, usize>>,
    /// The fields that are not [`Kind::Constant`], by position, when some
    /// field is (empty otherwise): the cells of a row on the fast path.
    pub(super) kept: Vec<usize>,
}

/// String equality without a `memcmp` call for the short names that
/// dominate real data (one call per cell is the hottest cost of planning):
/// up to 16 bytes are compared as two overlapping words (or three bytes),
/// which together cover every byte.
#[inline]
pub(super) fn same_str(a: &str, b: &str) -> bool {
    crate::ops::tick(1);
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let n = a.len();
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        _ => a == b,
    }
}

/// The `N` bytes of `bytes` from `at`, or zeros past its end (callers stay inside).
#[inline(always)]
fn word<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut w = [0u8; N];
    if let Some(src) = bytes.get(at..at + N) {
        w.copy_from_slice(src);
    }
    w
}

/// The position of `name` among `names`, trying `hint` (its position in the
/// row object, which is its union position for uniform rows) first, with
/// [`Key::same_text`]: the hint almost always holds, and then its key has
/// the very representation of `name`.
#[inline]
fn find(
    names: &[&Key],
    hashed: Option<&HashMap<&str, usize>>,
    name: &Key,
    hint: usize,
) -> Option<usize> {
    if names.get(hint).is_some_and(|n| n.same_text(name)) {
        return Some(hint);
    }
    match hashed {
        Some(map) => map.get(name.as_str()).copied(),
        None => names.iter().position(|n| same_str(n, name)),
    }
}

impl<'a> TablePlan<'a> {
    /// Plans a table over `rows` in one pass: the ordered field union
    /// (§7.4.3) and what each field's values allow. `None` when no field can
    /// be a column (an empty union, or every name containing `>`), which
    /// sends the caller to the expanded (array) or section (object) form.
    ///
    /// `budget` is how many more nesting levels the field values may use;
    /// shape checks never recurse past it.
    ///
    /// With `factor`, plain columns holding one scalar in every row (of two
    /// or more) are marked constant (see `constant.rs`); without `flatten`,
    /// no field becomes path columns.
    pub(super) fn new(
        rows: Vec<&'a Map>,
        keys: Vec<&'a str>,
        budget: usize,
        factor: bool,
        flatten: bool,
    ) -> Option<TablePlan<'a>> {
        let mut names: Vec<&'a Key> = Vec::new();
        let mut stats: Vec<Stats<'a>> = Vec::new();
        let mut hashed: Option<HashMap<&'a str, usize>> = None;
        let mut aligned = Vec::with_capacity(rows.len());
        let mut scratch: Vec<&'a Key> = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            let mut in_order = true;
            for (j, (key, value)) in row.as_slice().iter().enumerate() {
                let f = match find(&names, hashed.as_ref(), key, j) {
                    Some(f) => f,
                    None => {
                        names.push(key);
                        stats.push(Stats::new(key, flatten));
                        let f = names.len() - 1;
                        if let Some(map) = &mut hashed {
                            map.insert(key, f);
                        } else if names.len() > LINEAR_LOOKUP_MAX {
                            hashed = Some(
                                names
                                    .iter()
                                    .enumerate()
                                    .map(|(i, n)| (n.as_str(), i))
                                    .collect(),
                            );
                        }
                        f
                    }
                };
                in_order &= f == j;
                if let Some(s) = stats.get_mut(f) {
                    s.observe(r, value, budget, &mut scratch);
                }
            }
            aligned.push(in_order);
        }
        if stats.iter().all(|s| s.path_name) {
            return None;
        }
        keep_paths_apart(&mut stats);
        let fields: Vec<Field<'a>> = stats.into_iter().map(Stats::finish).collect();
        let mut plan = TablePlan {
            rows,
            keys,
            fields,
            aligned,
            hashed,
            kept: Vec::new(),
        };
        if factor && plan.rows.len() >= 2 {
            plan.factor_constants();
        }
        Some(plan)
    }

    /// Turns the plain columns that hold one scalar in every row into
    /// [`Kind::Constant`], keeping at least one column per row. Rows are
    /// compared in order, all candidates at once, so a table whose columns
    /// all vary is settled at its second row; planning itself stays
    /// unchanged.
    fn factor_constants(&mut self) {
        // Row 0 is always aligned: the field union starts with its keys.
        let Some(&first_row) = self.rows.first() else {
            return;
        };
        let mut live: Vec<(usize, &'a Value)> = self
            .fields
            .iter()
            .enumerate()
            .filter(|(_, field)| matches!(field.kind, Kind::Plain { .. }))
            .filter_map(|(f, _)| {
                first_row
                    .as_slice()
                    .get(f)
                    .map(|(_, v)| v)
                    .filter(|v| v.is_scalar())
                    .map(|v| (f, v))
            })
            .collect();
        // A row whose keys are out of union order is spread into `cells`
        // once (one hashed lookup per key), so a wide table costs linear
        // time whatever its rows' key orders.
        let mut cells: Vec<Option<&'a Value>> = Vec::new();
        for (r, &row) in self.rows.iter().enumerate().skip(1) {
            if live.is_empty() {
                return;
            }
            let same = |cell: Option<&Value>, first: &Value| {
                cell.is_some_and(|v| v.is_scalar() && same_cell(first, v))
            };
            if self.aligned.get(r).copied().unwrap_or(false) {
                live.retain(|&(f, first)| same(row.as_slice().get(f).map(|(_, v)| v), first));
            } else {
                cells.clear();
                cells.resize(self.fields.len(), None);
                for (j, (key, value)) in row.as_slice().iter().enumerate() {
                    if let Some(slot) = self.find(key.as_str(), j).and_then(|f| cells.get_mut(f)) {
                        *slot = Some(value);
                    }
                }
                live.retain(|&(f, first)| same(cells.get(f).copied().flatten(), first));
            }
        }
        if live.is_empty() {
            return;
        }
        // A row keeps at least one cell: the last column, if need be.
        let columns = self
            .fields
            .iter()
            .filter(|f| !matches!(f.kind, Kind::Excluded))
            .count();
        if live.len() == columns {
            live.pop();
        }
        for &(f, value) in &live {
            if let Some(field) = self.fields.get_mut(f) {
                field.kind = Kind::Constant { value };
            }
        }
        self.kept = self
            .fields
            .iter()
            .enumerate()
            .filter(|(_, field)| !matches!(field.kind, Kind::Constant { .. }))
            .map(|(f, _)| f)
            .collect();
    }

    /// Whether row `r` holds every field, each at its union position, and
    /// every field is a plain column holding a scalar: the row is then its
    /// values in order, with no attachment, and needs no cell slots.
    #[inline]
    pub(super) fn is_plain_scalar_row(&self, r: usize, row: &Map) -> bool {
        self.aligned.get(r).copied().unwrap_or(false)
            && row.len() == self.fields.len()
            && self.fields.iter().zip(row.values()).all(|(f, v)| {
                matches!(f.kind, Kind::Plain { .. } | Kind::Constant { .. }) && v.is_scalar()
            })
    }

    /// Fills `cells` (one slot per field) with row `r`'s values and reports
    /// whether the row carries any attachment (and so an `@id` prefix).
    pub(super) fn fill_row(
        &self,
        r: usize,
        row: &'a Map,
        cells: &mut Vec<Option<&'a Value>>,
    ) -> bool {
        cells.clear();
        cells.resize(self.fields.len(), None);
        let aligned = self.aligned.get(r).copied().unwrap_or(false);
        let mut attached = false;
        for (j, (key, value)) in row.iter().enumerate() {
            let f = if aligned {
                j
            } else {
                self.find(key, j).unwrap_or(usize::MAX)
            };
            let Some(slot) = cells.get_mut(f) else {
                continue;
            };
            *slot = Some(value);
            attached |= match self.fields.get(f).map(|x| &x.kind) {
                Some(Kind::Plain { .. }) => !value.is_scalar(),
                // A null in an inline field is a plain `-` cell.
                Some(Kind::Inline { .. }) => !value.is_scalar(),
                Some(Kind::Excluded) => true,
                _ => false,
            };
        }
        attached
    }

    fn find(&self, key: &str, hint: usize) -> Option<usize> {
        if self.fields.get(hint).is_some_and(|f| same_str(f.name, key)) {
            return Some(hint);
        }
        match &self.hashed {
            Some(map) => map.get(key).copied(),
            None => self.fields.iter().position(|f| same_str(f.name, key)),
        }
    }
}

/// Row 0's object when `items` (an array's items or a keyed map's member
/// values) is a table that planning would make all plain
/// scalar columns with every row aligned: every item an object with row 0's
/// keys in row 0's order and only scalar values, row 0 non-empty with
/// distinct `>`-free keys. [`TablePlan::new`] gives each such field
/// [`Kind::Plain`] without sharing (no value is a container), so the table is
/// written straight from the rows. Nested tables of this shape (an order's
/// line items) are common, and this check allocates nothing.
pub(super) fn uniform_scalar_rows<'a>(
    mut items: impl Iterator<Item = &'a Value>,
) -> Option<&'a Map> {
    let Some(Value::Object(proto)) = items.next() else {
        return None;
    };
    let keys = proto.as_slice();
    if keys.is_empty() {
        return None;
    }
    for (key, value) in keys {
        if !value.is_scalar() || is_path_name(key) {
            return None;
        }
    }
    if has_duplicate_key(keys) {
        return None;
    }
    for item in items {
        let Value::Object(row) = item else {
            return None;
        };
        let row = row.as_slice();
        if row.len() != keys.len() {
            return None;
        }
        for ((pk, _), (k, v)) in keys.iter().zip(row) {
            if !v.is_scalar() || !pk.same_text(k) {
                return None;
            }
        }
    }
    Some(proto)
}

/// Whether two members share a key (a [`Map`] built with `push_unique` may
/// hold duplicates). Pairwise for the small objects of real data, hashed past
/// [`LINEAR_LOOKUP_MAX`] so one wide record costs linear time, not quadratic.
fn has_duplicate_key(keys: &[(Key, Value)]) -> bool {
    if keys.len() <= LINEAR_LOOKUP_MAX {
        return keys
            .iter()
            .enumerate()
            .any(|(i, (key, _))| keys[..i].iter().any(|(k, _)| same_str(k, key)));
    }
    let mut seen = hashbrown::HashSet::with_capacity(keys.len());
    !keys.iter().all(|(k, _)| seen.insert(k.as_str()))
}

/// Unflattens a field `f` when the union also holds a literal `>` name equal
/// to one of `f`'s path columns (`f>a` for a leaf `a`): its `."f>a"`
/// attachment would name that column, and a decoder matches an attachment to
/// a column of its name first (§7.4.6.1 rules 3-4 keep `>` names and path
/// columns apart only when they cannot coincide). A literal `f>...` that
/// names no leaf (`f>y>z` beside leaves `f>a`, `f>b`) is no clash: it stays
/// a literal attachment beside the path columns, as the `gcf` 3.1.0 crate
/// writes it.
fn keep_paths_apart(stats: &mut [Stats<'_>]) {
    if !stats.iter().any(|s| s.path_name) {
        return;
    }
    // The names sorted once: those starting with `f>` follow `f>` itself
    // in byte order, so one binary search per field finds the candidates (a
    // scan over every name per field was quadratic in a wide record).
    let mut sorted: Vec<&str> = stats.iter().map(|s| s.name).collect();
    sorted.sort_unstable();
    let mut probe = String::new();
    for stat in stats.iter_mut().filter(|s| s.flat_ok) {
        let Some(proto) = stat.flat_proto else {
            continue;
        };
        probe.clear();
        probe.push_str(stat.name);
        probe.push('>');
        let at = sorted.partition_point(|n| *n < probe.as_str());
        let clash = sorted[at..]
            .iter()
            .take_while(|n| n.starts_with(probe.as_str()))
            .any(|n| is_leaf_path(proto, &n[probe.len()..]));
        if clash {
            stat.flat_ok = false;
        }
    }
}

/// Whether `path` (`a>b>c`) names a scalar leaf of `proto`, an object that
/// passed [`flat_shape`] (whose keys hold no `>`).
fn is_leaf_path(proto: &Map, path: &str) -> bool {
    let (head, rest) = match path.split_once('>') {
        Some((head, rest)) => (head, Some(rest)),
        None => (path, None),
    };
    match (proto.get(head), rest) {
        (Some(Value::Object(inner)), Some(rest)) => is_leaf_path(inner, rest),
        (Some(Value::Object(_)), None) | (None, _) | (Some(_), Some(_)) => false,
        (Some(_), None) => true,
    }
}

/// What one pass over the rows learns about a field.
struct Stats<'a> {
    name: &'a str,
    /// The name contains `>` (computed once: it is asked several times).
    path_name: bool,
    /// Still flattenable; `flat_proto` is the first present object.
    flat_ok: bool,
    flat_proto: Option<&'a Map>,
    /// Still eligible for an inline schema; the prototype comes from row 0.
    inline_ok: bool,
    inline_proto: Option<&'a Map>,
    /// Still eligible for a shared array schema; the union comes from row 0.
    shared_ok: bool,
    shared_union: Option<Vec<&'a Key>>,
    /// Some container form (flatten, inline, shared) is still possible.
    open: bool,
    /// Whether any present value is a container (the array analysis only
    /// matters then).
    any_container: bool,
}

impl<'a> Stats<'a> {
    fn new(name: &'a str, flatten: bool) -> Stats<'a> {
        let path_name = is_path_name(name);
        let usable = !path_name;
        Stats {
            name,
            path_name,
            open: usable,
            flat_ok: flatten && usable && !name.is_empty(),
            flat_proto: None,
            inline_ok: usable,
            inline_proto: None,
            shared_ok: usable,
            shared_union: None,
            any_container: false,
        }
    }

    #[inline]
    fn observe(&mut self, row: usize, value: &'a Value, budget: usize, scratch: &mut Vec<&'a Key>) {
        // A scalar changes nothing once every container form is ruled out:
        // the common case of a scalar column, settled by its first value.
        if !self.open && value.is_scalar() {
            return;
        }
        match value {
            Value::Object(obj) => {
                self.any_container = true;
                self.shared_ok = false;
                if self.flat_ok {
                    self.flat_ok = flat_shape(obj, self.flat_proto, budget);
                    if self.flat_proto.is_none() {
                        self.flat_proto = Some(obj);
                    }
                }
                if self.inline_ok {
                    self.inline_ok = match self.inline_proto {
                        None => row == 0 && obj.len() >= 3 && obj.values().all(Value::is_scalar),
                        Some(proto) => same_scalar_keys(proto, obj),
                    };
                    if row == 0 {
                        self.inline_proto = Some(obj);
                    }
                }
            }
            Value::Array(items) => {
                self.any_container = true;
                self.flat_ok = false;
                self.inline_ok = false;
                if self.shared_ok {
                    self.shared_ok = flat_table_union(items, scratch)
                        && match &self.shared_union {
                            None => row == 0,
                            Some(union) => {
                                union.len() == scratch.len()
                                    && union
                                        .iter()
                                        .zip(scratch.iter())
                                        .all(|(a, b)| a.same_text(b))
                            }
                        };
                    if self.shared_ok && self.shared_union.is_none() {
                        self.shared_union = Some(scratch.clone());
                    }
                }
            }
            // A null row writes `-` in an inline field's cell and reads
            // back as null, so it leaves the schema standing, as in the gcf
            // 3.1.0 crate and the 2.5.2 npm package (which skip null rows
            // when they look for one); row 0 must still hold the object.
            Value::Null => {}
            _ => {
                self.flat_ok = false;
                self.inline_ok = false;
                self.shared_ok = false;
            }
        }
        // A field absent from row 0 cannot declare an inline schema there.
        if row > 0 && self.inline_proto.is_none() {
            self.inline_ok = false;
        }
        if row > 0 && self.shared_union.is_none() {
            self.shared_ok = false;
        }
        self.open = self.flat_ok || self.inline_ok || self.shared_ok;
    }

    fn finish(self) -> Field<'a> {
        let kind = if self.path_name {
            Kind::Excluded
        } else if let (true, Some(proto)) = (self.flat_ok, self.flat_proto) {
            Kind::Flatten {
                proto,
                leaves: leaf_count(proto),
            }
        } else if let (true, Some(proto)) = (self.inline_ok, self.inline_proto) {
            Kind::Inline { proto }
        } else {
            Kind::Plain {
                shared: self.any_container && self.shared_ok && self.shared_union.is_some(),
            }
        };
        Field {
            name: self.name,
            kind,
        }
    }
}

/// Whether a name contains `>`. A plain byte loop: names are short, and a
/// `memchr` call costs more than scanning them.
#[inline]
fn is_path_name(name: &str) -> bool {
    name.bytes().any(|b| b == b'>')
}

/// Whether `obj` can be flattened into path columns (§7.4.6.1) and, given a
/// prototype, has exactly its shape: the same keys in the same order at every
/// level, scalars where the prototype has scalars, objects where it has objects.
///
/// Beyond the spec's listed conditions, every object node must hold at least
/// one non-null leaf: a decoder reads a group of leaf columns that are all `-`
/// as a null object (§7.4.6.2 rule 5), so flattening `{"a": null}` would not
/// round-trip (§7.4.6.3). Empty objects and empty keys have no column to
/// carry them (rule 3).
fn flat_shape(obj: &Map, proto: Option<&Map>, budget: usize) -> bool {
    if budget == 0 || obj.is_empty() || proto.is_some_and(|p| p.len() != obj.len()) {
        return false;
    }
    let mut has_value = false;
    for (i, (key, value)) in obj.as_slice().iter().enumerate() {
        let expected = match proto {
            Some(p) => match p.as_slice().get(i) {
                Some((pk, pv)) if pk.same_text(key) => Some(pv),
                _ => return false,
            },
            None if key.is_empty() || is_path_name(key) => return false,
            None => None,
        };
        match value {
            Value::Object(inner) => {
                let inner_proto = match expected {
                    Some(Value::Object(p)) => Some(p),
                    Some(_) => return false,
                    None => None,
                };
                if !flat_shape(inner, inner_proto, budget - 1) {
                    return false;
                }
                has_value = true;
            }
            Value::Array(_) => return false,
            scalar => {
                if matches!(expected, Some(Value::Object(_))) {
                    return false;
                }
                has_value |= !matches!(scalar, Value::Null);
            }
        }
    }
    has_value
}

/// Number of scalar leaves of an object that passed [`flat_shape`].
fn leaf_count(obj: &Map) -> usize {
    obj.values()
        .map(|v| match v {
            Value::Object(inner) => leaf_count(inner),
            _ => 1,
        })
        .sum()
}

/// Whether `obj` has exactly `proto`'s keys in order and only scalar values.
fn same_scalar_keys(proto: &Map, obj: &Map) -> bool {
    proto.len() == obj.len()
        && proto
            .as_slice()
            .iter()
            .zip(obj.as_slice())
            .all(|((pk, _), (k, v))| pk.same_text(k) && v.is_scalar())
}

/// Whether `items` is a non-empty array of objects with only scalar, `>`-free
/// members (a table with no attachments and no path columns), leaving its
/// field union in `union`.
fn flat_table_union<'a>(items: &'a [Value], union: &mut Vec<&'a Key>) -> bool {
    union.clear();
    if items.is_empty() {
        return false;
    }
    // Past a few names, membership is hashed: a linear scan per member is
    // quadratic in a wide array attachment.
    let mut hashed: Option<hashbrown::HashSet<&'a str>> = None;
    for item in items {
        let Value::Object(obj) = item else {
            return false;
        };
        for (j, (key, value)) in obj.as_slice().iter().enumerate() {
            if !value.is_scalar() {
                return false;
            }
            // A name already in the union was checked for `>` when it joined.
            let known = union.get(j).is_some_and(|n| n.same_text(key))
                || match &hashed {
                    Some(set) => set.contains(key.as_str()),
                    None => union.iter().any(|n| n.same_text(key)),
                };
            if known {
                continue;
            }
            if is_path_name(key) {
                return false;
            }
            union.push(key);
            if let Some(set) = &mut hashed {
                set.insert(key.as_str());
            } else if union.len() > LINEAR_LOOKUP_MAX {
                hashed = Some(union.iter().map(|n| n.as_str()).collect());
            }
        }
    }
    !union.is_empty()
}

#[cfg(test)]
mod tests {
    use super::same_str;
    use alloc::string::String;

    #[test]
    fn same_str_agrees_with_equality() {
        // Every length up to 20, a difference at every position.
        for len in 0..=20usize {
            let a: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            assert!(same_str(&a, &a.clone()));
            for pos in 0..len {
                let mut b = a.clone().into_bytes();
                b[pos] = b'Z';
                let b = String::from_utf8(b).unwrap_or_default();
                assert!(!same_str(&a, &b), "{a:?} vs {b:?}");
                assert!(!same_str(&b, &a), "{b:?} vs {a:?}");
            }
            let longer = alloc::format!("{a}x");
            assert!(!same_str(&a, &longer));
        }
    }
}
