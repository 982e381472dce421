//! Value-grouped tables (the GCF fleet's "§7.4.8"): an opt-in layout for an
//! array of records with a unique key column and a low-cardinality column
//! (a status, a type, an owner). The records are clustered by that column,
//! which is written once per cluster instead of once per row:
//!
//! ```text
//! GCF profile=generic
//! ## [3]{@id,state,title} group=state
//! state=open [2]
//! 1|Fix a
//! 3|Fix c
//! state=closed [1]
//! 2|Fix b
//! ```
//!
//! The layout and the refusals are documented on
//! [`encode_grouped`](super::encode_grouped), the public entry point.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};

use crate::hash::HashMap;

use crate::error::{Error, ErrorKind};
use crate::sink::Sink;

use super::super::scalar::write_key;
use super::super::view::{Name, Shape, View};
use super::super::Cell;
use super::constant::{same_cell, write_entry};
use super::Writer;
use crate::words::same_str;

/// A scalar as a map key, equal to another exactly when they are written
/// alike ([`same_cell`]): the references compare keys and group values by
/// their written form.
#[derive(Clone, Copy)]
struct Written<'a>(Cell<'a>);

impl PartialEq for Written<'_> {
    fn eq(&self, other: &Self) -> bool {
        same_cell(self.0, other.0)
    }
}

impl Eq for Written<'_> {}

impl Hash for Written<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self.0 {
            Cell::Null => state.write_u8(0),
            Cell::Bool(b) => {
                state.write_u8(1);
                b.hash(state);
            }
            // An integral double written as an integer hashes as that integer.
            Cell::Int(i) => {
                state.write_u8(2);
                i.hash(state);
            }
            Cell::Float(f) => {
                if same_cell(Cell::Int(f as i64), self.0) {
                    state.write_u8(2);
                    (f as i64).hash(state);
                } else {
                    state.write_u8(3);
                    f.to_bits().hash(state);
                }
            }
            Cell::Str(s) => {
                state.write_u8(4);
                s.hash(state);
            }
            Cell::Missing => state.write_u8(5),
        }
    }
}

fn refuse(message: alloc::string::String) -> Error {
    Error::new(ErrorKind::InvalidInput, message)
}

/// A column of the grouped table.
#[derive(Clone, Copy, PartialEq)]
enum Role<'a> {
    Key,
    Group,
    Constant(Cell<'a>),
    Cell,
}

/// Everything the grouped layout needs, computed before anything is
/// written (so a refused input writes nothing).
pub(super) struct GroupedPlan<'a, 'f, V> {
    rows: Vec<V>,
    /// The field union in first-appearance order, with each field's role.
    fields: Vec<(&'a str, Role<'a>)>,
    /// Each field's position in `fields`.
    index: HashMap<&'a str, usize>,
    /// Per row, whether its members come in union order (skipping absent
    /// fields): such a row is written in one merge pass over its members,
    /// any other through a per-row slot table (a lookup per field would
    /// make a wide row quadratic).
    in_order: Vec<bool>,
    group_field: &'f str,
    /// Per cluster, in first-appearance order: its value and row count.
    groups: Vec<(Cell<'a>, usize)>,
    /// Row indices, cluster by cluster, input order within each.
    order: Vec<usize>,
}

/// The value of `name` in `row`, trying position `hint` first (rows usually
/// hold the union in order).
#[inline]
fn field_of<'a, V: View<'a>>(row: V, name: &str, hint: usize) -> Option<V> {
    if let Some((k, v)) = row.member_at(hint) {
        if same_str(k.as_str(), name) {
            return Some(v);
        }
    }
    row.member(name)
}

/// The cell of a scalar; `None` for a container.
#[inline]
fn scalar_cell<'a, V: View<'a>>(v: V) -> Option<Cell<'a>> {
    match v.shape() {
        Shape::Scalar(cell) => Some(cell),
        Shape::Array | Shape::Object => None,
    }
}

impl<'a, 'f, V: View<'a>> GroupedPlan<'a, 'f, V> {
    pub(super) fn new(
        value: V,
        key_field: &str,
        group_field: &'f str,
    ) -> Result<GroupedPlan<'a, 'f, V>, Error> {
        if !matches!(value.shape(), Shape::Array) {
            return Err(refuse("value-grouping requires an array of records".into()));
        }
        let items = value.items();
        if items.len() == 0 {
            return Err(refuse("value-grouping requires a non-empty array".into()));
        }
        if key_field == group_field {
            return Err(refuse(
                "value-grouping: the key field and the group field must differ".into(),
            ));
        }
        let mut rows = Vec::with_capacity(items.len());
        for row in items {
            if !row.is_object() {
                return Err(refuse("value-grouping requires an array of objects".into()));
            }
            rows.push(row);
        }
        let mut names: Vec<&'a str> = Vec::new();
        let mut index: HashMap<&'a str, usize> = HashMap::default();
        // Per field, found in this many rows, with the first value (`None`
        // for a container) and whether a later one is written differently:
        // a field found in every row (of two or more) with one written
        // value is a constant.
        let mut seen: Vec<(usize, Option<Cell<'a>>, bool)> = Vec::new();
        let mut in_order = Vec::with_capacity(rows.len());
        for row in &rows {
            let mut last = None;
            let mut ordered = true;
            for (key, value) in row.members() {
                crate::ops::tick(1);
                let key = key.as_str();
                let cell = scalar_cell(value);
                let at = match index.get(key) {
                    Some(&at) => at,
                    None => {
                        index.insert(key, names.len());
                        names.push(key);
                        seen.push((0, cell, false));
                        names.len() - 1
                    }
                };
                ordered &= last.is_none_or(|l| l < at);
                last = Some(at);
                if let Some((found, first, varies)) = seen.get_mut(at) {
                    *found += 1;
                    *varies =
                        *varies || !matches!((*first, cell), (Some(a), Some(b)) if same_cell(a, b));
                }
            }
            in_order.push(ordered);
        }
        if names.is_empty() {
            return Err(refuse(
                "value-grouping requires an array of objects with fields".into(),
            ));
        }
        for (field, what) in [(key_field, "key"), (group_field, "group")] {
            if !index.contains_key(field) {
                return Err(refuse(format!(
                    "value-grouping: {what} field {field:?} is not present in the records"
                )));
            }
        }
        let key_at = index.get(key_field).copied().unwrap_or(0);
        let group_at = index.get(group_field).copied().unwrap_or(0);

        let mut seen_keys: HashMap<Written<'a>, ()> = crate::hash::map_with_capacity(rows.len());
        let mut group_ids: HashMap<Written<'a>, usize> = HashMap::default();
        let mut groups: Vec<(Cell<'a>, usize)> = Vec::new();
        let mut group_of = Vec::with_capacity(rows.len());
        for &row in &rows {
            if !row.members().all(|(_, v)| v.is_scalar()) {
                // Named in union order, as the references do.
                let nested = row
                    .members()
                    .filter(|(_, v)| !v.is_scalar())
                    .filter_map(|(k, _)| index.get(k.as_str()).copied())
                    .min()
                    .and_then(|at| names.get(at));
                return Err(refuse(format!(
                    "value-grouping does not support nested values: field {:?}",
                    nested.copied().unwrap_or_default()
                )));
            }
            let key = match field_of(row, key_field, key_at).map(View::cell) {
                None | Some(Cell::Null) => {
                    return Err(refuse(format!(
                        "value-grouping: key field {key_field:?} is missing in a record"
                    )))
                }
                Some(key) => key,
            };
            if seen_keys.insert(Written(key), ()).is_some() {
                return Err(refuse(format!(
                    "value-grouping: key field {key_field:?} is not unique ({})",
                    written(key)
                )));
            }
            let Some(group) = field_of(row, group_field, group_at).map(View::cell) else {
                return Err(refuse(format!(
                    "value-grouping: group field {group_field:?} is missing in a record"
                )));
            };
            let id = *group_ids.entry(Written(group)).or_insert_with(|| {
                groups.push((group, 0));
                groups.len() - 1
            });
            if let Some((_, count)) = groups.get_mut(id) {
                *count += 1;
            }
            group_of.push(id);
        }

        // Rows cluster by cluster, stable: a counting sort.
        let mut next = vec![0usize; groups.len()];
        let mut at = 0;
        for (slot, (_, count)) in next.iter_mut().zip(&groups) {
            *slot = at;
            at += count;
        }
        let mut order = vec![0usize; rows.len()];
        for (r, &id) in group_of.iter().enumerate() {
            if let Some(slot) = next.get_mut(id) {
                if let Some(place) = order.get_mut(*slot) {
                    *place = r;
                }
                *slot += 1;
            }
        }

        let fields = names
            .iter()
            .zip(&seen)
            .map(|(&name, &(found, first, varies))| {
                let role = if name == key_field {
                    Role::Key
                } else if name == group_field {
                    Role::Group
                } else if let (true, Some(first)) =
                    (rows.len() >= 2 && found == rows.len() && !varies, first)
                {
                    Role::Constant(first)
                } else {
                    Role::Cell
                };
                (name, role)
            })
            .collect();
        Ok(GroupedPlan {
            rows,
            fields,
            index,
            in_order,
            group_field,
            groups,
            order,
        })
    }
}

/// A short rendering of a scalar for messages.
fn written(v: Cell<'_>) -> alloc::string::String {
    match v {
        Cell::Str(s) => format!("{}", crate::error::excerpt_quoted(s)),
        Cell::Int(i) => format!("{i}"),
        Cell::Float(f) => format!("{f}"),
        Cell::Bool(b) => format!("{b}"),
        Cell::Null | Cell::Missing => "-".into(),
    }
}

impl<K: Sink + ?Sized, const COLLECTS: bool> Writer<'_, K, COLLECTS> {
    /// The grouped table of `plan` at the root (after the header line).
    pub(super) fn grouped<'a, V: View<'a>>(
        &mut self,
        plan: &GroupedPlan<'a, '_, V>,
    ) -> Result<(), Error> {
        self.enter(1)?;
        self.check_fields(plan.fields.len())?;
        self.raw("## [")?;
        self.count(plan.rows.len())?;
        self.raw("]{")?;
        for (f, &(name, role)) in plan.fields.iter().enumerate() {
            if f > 0 {
                self.raw(",")?;
            }
            match role {
                Role::Key => {
                    self.raw("@")?;
                    write_key(&mut self.sink, name)?;
                }
                Role::Constant(value) => {
                    write_entry(&mut self.sink, name, value, &mut self.numbers)?
                }
                Role::Group | Role::Cell => write_key(&mut self.sink, name)?,
            }
        }
        self.raw("} group=")?;
        write_key(&mut self.sink, plan.group_field)?;
        self.raw("\n")?;
        self.enter(2)?;
        let mut rows = plan.order.iter();
        // A row's values by field position, for rows out of union order.
        let mut slots: Vec<Option<V>> = Vec::new();
        for &(value, count) in &plan.groups {
            write_key(&mut self.sink, plan.group_field)?;
            self.raw("=")?;
            self.scalar(value)?;
            self.raw(" [")?;
            self.count(count)?;
            self.raw("]\n")?;
            for &r in rows.by_ref().take(count) {
                let Some(&row) = plan.rows.get(r) else {
                    continue;
                };
                if plan.in_order.get(r) == Some(&true) {
                    // One pass: the next member is the field or the field is absent.
                    let mut members = row.members().peekable();
                    let mut first = true;
                    for &(name, role) in &plan.fields {
                        let value = members
                            .next_if(|(k, _)| same_str(k.as_str(), name))
                            .map(|(_, v)| v);
                        if matches!(role, Role::Key | Role::Cell) {
                            self.cell(&mut first, value)?;
                        }
                    }
                } else {
                    slots.clear();
                    slots.resize(plan.fields.len(), None);
                    for (k, v) in row.members() {
                        if let Some(slot) =
                            plan.index.get(k.as_str()).and_then(|&at| slots.get_mut(at))
                        {
                            *slot = Some(v);
                        }
                    }
                    let mut first = true;
                    for (&(_, role), value) in plan.fields.iter().zip(&slots) {
                        if matches!(role, Role::Key | Role::Cell) {
                            self.cell(&mut first, *value)?;
                        }
                    }
                }
                self.raw("\n")?;
            }
        }
        Ok(())
    }

    /// One cell of a grouped row: its value, or `~` for an absent field.
    fn cell<'a, V: View<'a>>(&mut self, first: &mut bool, value: Option<V>) -> Result<(), Error> {
        self.separator(first)?;
        match value {
            None => self.raw("~"),
            Some(value) => self.scalar(value.cell()),
        }
    }
}
