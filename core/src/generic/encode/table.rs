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

use crate::hash::HashMap;
use crate::words::same_str;
use alloc::string::String;
use alloc::vec::Vec;

use super::constant::same_cell;
use crate::generic::view::{Name, View};

/// Past this many fields, name lookups go through a hash map.
const LINEAR_LOOKUP_MAX: usize = 16;

/// A table of more cells than this (rows × fields) whose members fill fewer
/// than one cell in [`SPARSE_FILL`] is not planned: such a table writes an
/// absent marker for nearly every cell, and its size grows as rows times
/// distinct keys (64,000 one-key records, 1 MB of JSON, made 8 GB), so the
/// array takes the expanded form (each record as itself) and the object the
/// section form, which grow with the input. Records a program produces are
/// far denser; every reference SDK writes such a table whatever its size.
const SPARSE_MIN_CELLS: usize = 1 << 20;
const SPARSE_FILL: usize = 64;

/// Which fields of a table may become `>` path columns (§7.4.6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flatten {
    /// None: nested objects take an inline schema or an attachment.
    Off,
    /// Every field whose present values are objects of one flattenable shape.
    On,
    /// As `On`, except fields whose objects hold a member named `__proto__`,
    /// `constructor` or `prototype` at any depth (see
    /// `Encoder::prototype_name_paths`).
    OnButPrototypeNames,
}

/// The member names the TypeScript package 2.5.2 never flattens through:
/// written into a plain JS object as a path segment, each could reach an
/// object's prototype, so its decoder drops such path columns.
fn is_prototype_name(name: &str) -> bool {
    matches!(name, "__proto__" | "constructor" | "prototype")
}

/// How one field of the union is written in each row.
pub(super) enum Kind<V> {
    /// A cell per row: the scalar, `-`, `~`, or `^` with a traditional attachment.
    Plain {
        /// Later rows omit the `{fields}` of this field's array attachments.
        shared: bool,
    },
    /// `>` path columns, one per scalar leaf of `proto` in its key order.
    Flatten {
        /// The first present object; every other one has its exact shape.
        proto: V,
        /// Number of scalar leaves (columns).
        leaves: usize,
    },
    /// `^{keys}` on the first row, `^` after, with a positional body line.
    Inline {
        /// Row 0's object: its keys are the schema.
        proto: V,
    },
    /// A `>` name: not a column, written as an attachment.
    Excluded,
    /// A constant column (see `constant.rs`): declared `name=value` and
    /// absent from the rows. Every row holds `value`'s written form.
    Constant {
        /// Row 0's value.
        value: V,
    },
}

/// One field of the union and its form.
pub(super) struct Field<'a, V> {
    pub(super) name: &'a str,
    pub(super) kind: Kind<V>,
}

/// Everything the writer needs to emit a table.
pub(super) struct TablePlan<'a, V: View<'a>> {
    /// The row objects, in order.
    pub(super) rows: Vec<V>,
    /// Member keys of a keyed map (empty for an array).
    pub(super) keys: Vec<&'a str>,
    /// The ordered field union with each field's form.
    pub(super) fields: Vec<Field<'a, V>>,
    /// Rows whose `i`-th member is field `i` for every `i`: the common case,
    /// filled without comparing a single name.
    aligned: Vec<bool>,
    /// Field positions by name, once the union outgrows a linear scan.
    hashed: Option<HashMap<&'a str, usize>>,
    /// The fields that are not [`Kind::Constant`], by position, when some
    /// field is (empty otherwise): the cells of a row on the fast path.
    pub(super) kept: Vec<usize>,
    /// Whether every field is a plain or constant column, so that a row
    /// can be written as its values (rows are not even looked at otherwise).
    plain_only: bool,
}

/// The position of `name` among `names`, trying `hint` (its position in the
/// row object, which is its union position for uniform rows) first, with
/// [`Name::same`]: the hint almost always holds, and then the names are
/// often told equal without reading them.
#[inline]
fn find<'a, N: Name<'a>>(
    names: &[N],
    hashed: Option<&HashMap<&'a str, usize>>,
    name: N,
    hint: usize,
) -> Option<usize> {
    if names.get(hint).is_some_and(|n| n.same(name)) {
        return Some(hint);
    }
    match hashed {
        Some(map) => map.get(name.as_str()).copied(),
        None => names
            .iter()
            .position(|n| same_str(n.as_str(), name.as_str())),
    }
}

/// The value at position `at` of a walk over an object's members that has
/// already passed positions below `*next`; positions asked ascend, so a row
/// costs one walk (constant time per step for views with positional access).
#[inline]
pub(super) fn member_value<'a, V: View<'a>>(
    members: &mut V::Members,
    next: &mut usize,
    at: usize,
) -> Option<V> {
    let skip = at.checked_sub(*next)?;
    *next = at + 1;
    members.nth(skip).map(|(_, v)| v)
}

impl<'a, V: View<'a>> TablePlan<'a, V> {
    /// Plans a table over `rows` in one pass: the ordered field union
    /// (§7.4.3) and what each field's values allow. `None` when no field can
    /// be a column (an empty union, or every name containing `>`), which
    /// sends the caller to the expanded (array) or section (object) form.
    ///
    /// `budget` is how many more nesting levels the field values may use;
    /// shape checks never recurse past it.
    ///
    /// With `factor`, plain columns holding one scalar in every row (of two
    /// or more) are marked constant (see `constant.rs`); `flatten` says which
    /// fields may become path columns.
    pub(super) fn new(
        rows: Vec<V>,
        keys: Vec<&'a str>,
        budget: usize,
        factor: bool,
        flatten: Flatten,
    ) -> Option<TablePlan<'a, V>> {
        let mut names: Vec<V::Name> = Vec::new();
        let mut stats: Vec<Stats<'a, V>> = Vec::new();
        let mut hashed: Option<HashMap<&'a str, usize>> = None;
        let mut aligned = Vec::with_capacity(rows.len());
        let mut scratch: Vec<V::Name> = Vec::new();
        let mut present = 0usize;
        for (r, row) in rows.iter().enumerate() {
            let mut in_order = true;
            for (j, (key, value)) in row.members().enumerate() {
                present += 1;
                let f = match find(&names, hashed.as_ref(), key, j) {
                    Some(f) => f,
                    None => {
                        names.push(key);
                        stats.push(Stats::new(key.as_str(), flatten));
                        let f = names.len() - 1;
                        if let Some(map) = &mut hashed {
                            map.insert(key.as_str(), f);
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
        let cells = rows.len().saturating_mul(names.len());
        if cells > SPARSE_MIN_CELLS && cells / SPARSE_FILL > present {
            return None;
        }
        keep_paths_apart(&mut stats);
        let fields: Vec<Field<'a, V>> = stats.into_iter().map(Stats::finish).collect();
        let mut plan = TablePlan {
            rows,
            keys,
            fields,
            aligned,
            hashed,
            kept: Vec::new(),
            plain_only: false,
        };
        if factor && plan.rows.len() >= 2 {
            plan.factor_constants();
        }
        plan.plain_only = plan
            .fields
            .iter()
            .all(|f| matches!(f.kind, Kind::Plain { .. } | Kind::Constant { .. }));
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
        let mut live: Vec<(usize, V)> = Vec::new();
        {
            let mut members = first_row.members();
            let mut next = 0;
            for (f, field) in self.fields.iter().enumerate() {
                if !matches!(field.kind, Kind::Plain { .. }) {
                    continue;
                }
                match member_value::<V>(&mut members, &mut next, f) {
                    Some(v) if v.is_scalar() => live.push((f, v)),
                    Some(_) => {}
                    None => break,
                }
            }
        }
        // A row whose keys are out of union order is spread into `cells`
        // once (one hashed lookup per key), so a wide table costs linear
        // time whatever its rows' key orders.
        let mut cells: Vec<Option<V>> = Vec::new();
        for (r, &row) in self.rows.iter().enumerate().skip(1) {
            if live.is_empty() {
                return;
            }
            let same = |cell: Option<V>, first: V| {
                cell.is_some_and(|v| v.is_scalar() && same_cell(first.cell(), v.cell()))
            };
            if self.aligned.get(r).copied().unwrap_or(false) {
                let mut members = row.members();
                let mut next = 0;
                live.retain(|&(f, first)| {
                    same(member_value::<V>(&mut members, &mut next, f), first)
                });
            } else {
                cells.clear();
                cells.resize(self.fields.len(), None);
                for (j, (key, value)) in row.members().enumerate() {
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
    pub(super) fn is_plain_scalar_row(&self, r: usize, row: V) -> bool {
        if !self.plain_only || !self.aligned.get(r).copied().unwrap_or(false) {
            return false;
        }
        let members = row.members();
        members.len() == self.fields.len() && members.into_iter().all(|(_, v)| v.is_scalar())
    }

    /// Fills `cells` (one slot per field) with row `r`'s values and reports
    /// whether the row carries any attachment (and so an `@id` prefix).
    pub(super) fn fill_row(&self, r: usize, row: V, cells: &mut Vec<Option<V>>) -> bool {
        cells.clear();
        cells.resize(self.fields.len(), None);
        let aligned = self.aligned.get(r).copied().unwrap_or(false);
        let mut attached = false;
        for (j, (key, value)) in row.members().enumerate() {
            let f = if aligned {
                j
            } else {
                self.find(key.as_str(), j).unwrap_or(usize::MAX)
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
pub(super) fn uniform_scalar_rows<'a, V: View<'a>>(
    mut items: impl Iterator<Item = V>,
) -> Option<V> {
    let proto = items.next().filter(|p| p.is_object())?;
    let keys = proto.members();
    if keys.len() == 0 {
        return None;
    }
    for (key, value) in keys.clone() {
        if !value.is_scalar() || is_path_name(key.as_str()) {
            return None;
        }
    }
    if has_duplicate_key(proto) {
        return None;
    }
    // Rows the view knows to share row 0's names need only their values
    // known scalar.
    let shape = proto.record_shape().map(|(names, _)| names);
    for item in items {
        if !item.is_object() {
            return None;
        }
        if let Some((names, scalars)) = item.record_shape() {
            if Some(names) == shape {
                if scalars {
                    continue;
                }
                return None;
            }
        }
        let row = item.members();
        if row.len() != keys.len() {
            return None;
        }
        for ((pk, _), (k, v)) in keys.clone().zip(row) {
            if !v.is_scalar() || !pk.same(k) {
                return None;
            }
        }
    }
    Some(proto)
}

/// Whether two members share a key (a `Map` built with `push_unique` may
/// hold duplicates). Pairwise for the small objects of real data, hashed past
/// [`LINEAR_LOOKUP_MAX`] so one wide record costs linear time, not quadratic.
fn has_duplicate_key<'a, V: View<'a>>(obj: V) -> bool {
    let keys = obj.members();
    if keys.len() <= LINEAR_LOOKUP_MAX {
        return keys.clone().enumerate().any(|(i, (key, _))| {
            keys.clone()
                .take(i)
                .any(|(k, _)| same_str(k.as_str(), key.as_str()))
        });
    }
    let mut seen = crate::hash::set_with_capacity(keys.len());
    !keys.into_iter().all(|(k, _)| seen.insert(k.as_str()))
}

/// Unflattens a field `f` when the union also holds a literal `>` name equal
/// to one of `f`'s path columns (`f>a` for a leaf `a`): its `."f>a"`
/// attachment would name that column, and a decoder matches an attachment to
/// a column of its name first (§7.4.6.1 rules 3-4 keep `>` names and path
/// columns apart only when they cannot coincide). A literal `f>...` that
/// names no leaf (`f>y>z` beside leaves `f>a`, `f>b`) is no clash: it stays
/// a literal attachment beside the path columns, as the `gcf` 3.1.0 crate
/// writes it.
fn keep_paths_apart<'a, V: View<'a>>(stats: &mut [Stats<'a, V>]) {
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
fn is_leaf_path<'a, V: View<'a>>(proto: V, path: &str) -> bool {
    let (head, rest) = match path.split_once('>') {
        Some((head, rest)) => (head, Some(rest)),
        None => (path, None),
    };
    match (proto.member(head), rest) {
        (Some(inner), Some(rest)) if inner.is_object() => is_leaf_path(inner, rest),
        (Some(inner), None) => !inner.is_object(),
        (Some(_), Some(_)) | (None, _) => false,
    }
}

/// What one pass over the rows learns about a field.
struct Stats<'a, V: View<'a>> {
    name: &'a str,
    /// The name contains `>` (computed once: it is asked several times).
    path_name: bool,
    /// Still flattenable; `flat_proto` is the first present object.
    flat_ok: bool,
    flat_proto: Option<V>,
    /// Whether a path may run through a member named like a prototype
    /// property ([`Flatten::OnButPrototypeNames`] says no).
    prototype_names: bool,
    /// Still eligible for an inline schema; the prototype comes from row 0.
    inline_ok: bool,
    inline_proto: Option<V>,
    /// Still eligible for a shared array schema; the union comes from row 0.
    shared_ok: bool,
    shared_union: Option<Vec<V::Name>>,
    /// Some container form (flatten, inline, shared) is still possible.
    open: bool,
    /// Whether any present value is a container (the array analysis only
    /// matters then).
    any_container: bool,
}

impl<'a, V: View<'a>> Stats<'a, V> {
    fn new(name: &'a str, flatten: Flatten) -> Stats<'a, V> {
        let path_name = is_path_name(name);
        let usable = !path_name;
        Stats {
            name,
            path_name,
            open: usable,
            flat_ok: flatten != Flatten::Off && usable && !name.is_empty(),
            flat_proto: None,
            prototype_names: flatten != Flatten::OnButPrototypeNames,
            inline_ok: usable,
            inline_proto: None,
            shared_ok: usable,
            shared_union: None,
            any_container: false,
        }
    }

    #[inline]
    fn observe(&mut self, row: usize, value: V, budget: usize, scratch: &mut Vec<V::Name>) {
        // A scalar changes nothing once every container form is ruled out:
        // the common case of a scalar column, settled by its first value.
        let scalar = value.is_scalar();
        if !self.open && scalar {
            return;
        }
        if value.is_object() {
            self.any_container = true;
            self.shared_ok = false;
            if self.flat_ok {
                self.flat_ok = flat_shape(value, self.flat_proto, budget, self.prototype_names);
                if self.flat_proto.is_none() {
                    self.flat_proto = Some(value);
                }
            }
            if self.inline_ok {
                self.inline_ok = match self.inline_proto {
                    None => {
                        let members = value.members();
                        row == 0
                            && members.len() >= 3
                            && members.into_iter().all(|(_, v)| v.is_scalar())
                    }
                    Some(proto) => same_scalar_keys(proto, value),
                };
                if row == 0 {
                    self.inline_proto = Some(value);
                }
            }
        } else if !scalar {
            self.any_container = true;
            self.flat_ok = false;
            self.inline_ok = false;
            if self.shared_ok {
                self.shared_ok = flat_table_union::<V>(value.items(), scratch)
                    && match &self.shared_union {
                        None => row == 0,
                        Some(union) => {
                            union.len() == scratch.len()
                                && union.iter().zip(scratch.iter()).all(|(a, b)| a.same(*b))
                        }
                    };
                if self.shared_ok && self.shared_union.is_none() {
                    self.shared_union = Some(scratch.clone());
                }
            }
        } else if !value.is_null() {
            // A null row writes `-` in an inline field's cell and reads
            // back as null, so it leaves the schema standing, as in the gcf
            // 3.1.0 crate and the 2.5.2 npm package (which skip null rows
            // when they look for one); row 0 must still hold the object.
            self.flat_ok = false;
            self.inline_ok = false;
            self.shared_ok = false;
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

    fn finish(self) -> Field<'a, V> {
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
/// carry them (rule 3). Without `prototype_names`, no key may be
/// [`is_prototype_name`].
fn flat_shape<'a, V: View<'a>>(
    obj: V,
    proto: Option<V>,
    budget: usize,
    prototype_names: bool,
) -> bool {
    let members = obj.members();
    if budget == 0
        || members.len() == 0
        || proto.is_some_and(|p| p.members().len() != members.len())
    {
        return false;
    }
    let mut expected_members = proto.map(View::members);
    let mut has_value = false;
    for (key, value) in members {
        let expected = match &mut expected_members {
            Some(p) => match p.next() {
                Some((pk, pv)) if pk.same(key) => Some(pv),
                _ => return false,
            },
            None if key.as_str().is_empty()
                || is_path_name(key.as_str())
                || (!prototype_names && is_prototype_name(key.as_str())) =>
            {
                return false
            }
            None => None,
        };
        if value.is_object() {
            let inner_proto = match expected {
                Some(p) if p.is_object() => Some(p),
                Some(_) => return false,
                None => None,
            };
            if !flat_shape(value, inner_proto, budget - 1, prototype_names) {
                return false;
            }
            has_value = true;
        } else if !value.is_scalar() {
            return false;
        } else {
            if expected.is_some_and(View::is_object) {
                return false;
            }
            has_value |= !value.is_null();
        }
    }
    has_value
}

/// Number of scalar leaves of an object that passed [`flat_shape`].
fn leaf_count<'a, V: View<'a>>(obj: V) -> usize {
    obj.members()
        .map(|(_, v)| if v.is_object() { leaf_count(v) } else { 1 })
        .sum()
}

/// Whether `obj` has exactly `proto`'s keys in order and only scalar values.
fn same_scalar_keys<'a, V: View<'a>>(proto: V, obj: V) -> bool {
    let (p, o) = (proto.members(), obj.members());
    p.len() == o.len()
        && p.zip(o)
            .all(|((pk, _), (k, v))| pk.same(k) && v.is_scalar())
}

/// Whether `items` is a non-empty array of objects with only scalar, `>`-free
/// members (a table with no attachments and no path columns), leaving its
/// field union in `union`.
fn flat_table_union<'a, V: View<'a>>(items: V::Items, union: &mut Vec<V::Name>) -> bool {
    union.clear();
    if items.len() == 0 {
        return false;
    }
    // Past a few names, membership is hashed: a linear scan per member is
    // quadratic in a wide array attachment.
    let mut hashed: Option<crate::hash::HashSet<&'a str>> = None;
    for item in items {
        if !item.is_object() {
            return false;
        }
        for (j, (key, value)) in item.members().enumerate() {
            if !value.is_scalar() {
                return false;
            }
            // A name already in the union was checked for `>` when it joined.
            let known = union.get(j).is_some_and(|n| n.same(key))
                || match &hashed {
                    Some(set) => set.contains(key.as_str()),
                    None => union.iter().any(|n| n.same(key)),
                };
            if known {
                continue;
            }
            if is_path_name(key.as_str()) {
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
