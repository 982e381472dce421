//! The block parser: objects, sections, array blocks, tabular rows with their
//! attachments, expanded items, the summary trailer and deferred counts
//! (spec §7, §8.4-8.6, §13).
//!
//! A recursive descent over significant lines with one line of lookahead.
//! Every nested container passes through [`Parser::check_depth`], so the
//! recursion is bounded by [`Limits::max_depth`] whatever the input.

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, ErrorKind};
use crate::generic::{Key, Value};
use crate::limits::Limits;

use super::build::Build;
use super::keys::{KeyIndex, ObjectBuilder};
use rows::Identities;

mod grouped;
mod rows;
use super::lexer::{
    for_each_token, parse_count, parse_field_decl, parse_key, parse_line_value_at, parse_trailer,
    Cell, Context, Count, Cursor, Field, Identity, LineValue, Ln,
};

/// Never reserve more than this many slots from a declared count.
const MAX_PREALLOC: usize = 1024;

/// The form an array header selects (spec §7.3).
enum Head {
    /// `[N]: a,b,c` (already decoded).
    Inline(Vec<Value>),
    /// `[N]{fields}` or `[N:]{key,fields}`. Reference-counted: a row-0
    /// tabular attachment's list is the shared schema (spec §7.4.5.3) that
    /// every later row's table reuses without copying its names.
    Table(Count, Rc<[Field]>),
    /// `[N]{fields} group=<col>`: a value-grouped table (spec §7.4.8), with
    /// the index of the grouping column in the declaration.
    Grouped(Count, Rc<[Field]>, usize),
    /// `[N]` with no declaration (expanded, or a shared schema for attachments).
    Expanded(Count),
}

/// A `[?]` header waiting for the trailer.
struct Deferred {
    line: usize,
    column: usize,
    actual: u64,
}

pub(crate) struct Parser<'a, 'b, B: Build> {
    cur: Cursor<'a>,
    /// What every finished value is handed to.
    build: &'b mut B,
    limits: Limits,
    allow_identity: bool,
    /// Whether a table's `@` identity column must name each row once
    /// (spec §10a.1: a decoder rejects duplicate identity values); off
    /// for delta payloads, whose decoder judges its sections itself.
    pub(crate) unique_identities: bool,
    pub(crate) identity_field: Option<String>,
    /// When `Some`, collects every top-level member (or the root array or
    /// scalar) with its position, and the declaration of each table.
    pub(crate) sections: Option<Vec<super::SectionDecl>>,
    deferred: Vec<Deferred>,
    /// Set when a counted table stopped at its declared count: a following
    /// line at `.0` indentation that is not an object member is a surplus row
    /// (or a surplus positional body), reported as `.1` rather than as a
    /// syntax error.
    surplus: Option<(usize, ErrorKind)>,
    /// Cleared slot vectors of finished tables, reused by the next table at
    /// any depth: one per nesting level at most, so nested tables (an
    /// order's line items) allocate no row scratch of their own.
    slot_pool: Vec<Vec<Slot<'a, B::Value>>>,
    /// The same for the vectors a row's members or values are gathered in.
    row_pool: Vec<RowScratch<B::Value>>,
    /// Tables begun so far: each table's number for [`Build::row`].
    tables: usize,
    /// The document's expansion budget (see [`Limits::max_expansion`]),
    /// and what is left of it.
    expansion_budget: usize,
    expansion_left: usize,
}

fn cap(count: Count) -> usize {
    count.n.map_or(0, |n| {
        usize::try_from(n).unwrap_or(usize::MAX).min(MAX_PREALLOC)
    })
}

fn is_blank(s: &str) -> bool {
    s.bytes().all(|b| b == b' ' || b == b'\t')
}

/// `"a>b>c"` with every segment non-empty is a flattened path column (spec §7.4.6.2).
/// The `>` test is a byte loop: names are short, and every table (each
/// order's line items under a shared schema) asks it of every field.
fn is_path(name: &str) -> bool {
    name.bytes().any(|b| b == b'>') && name.split('>').all(|s| !s.is_empty())
}

/// How declared columns rebuild a row object when `>` path columns are present.
enum Plan {
    Leaf(usize),
    Object(Members),
}

/// A top-level [`Plan::Leaf`] at or above this index is constant number
/// `index - CONST_LEAF` of its table (spec §7.4.7), not a cell: constants
/// live only at the top, and a third plan variant would cost every leaf of
/// every row a wider match.
const CONST_LEAF: usize = usize::MAX / 2;

#[derive(Default)]
struct Members {
    list: Vec<(Key, Plan)>,
    index: KeyIndex,
}

impl Members {
    fn find(&self, key: &str) -> Option<usize> {
        self.index
            .find(|i| self.list[i].0.as_str(), self.list.len(), key)
    }

    /// The most members of this object and of any object nested in it.
    fn widest(&self) -> usize {
        self.list
            .iter()
            .filter_map(|(_, plan)| match plan {
                Plan::Object(children) => Some(children.widest()),
                Plan::Leaf(_) => None,
            })
            .fold(self.list.len(), usize::max)
    }

    fn push(&mut self, key: Key, plan: Plan) {
        self.list.push((key, plan));
        let list = &self.list;
        self.index.record(|i| list[i].0.as_str(), list.len());
    }

    /// Inserts column `col` at `path`; `Err` on a clash with another column.
    fn insert(&mut self, path: &[&str], col: usize) -> Result<(), ()> {
        let Some((&first, rest)) = path.split_first() else {
            return Err(());
        };
        match (self.find(first), rest.is_empty()) {
            (Some(_), true) => Err(()),
            (None, true) => {
                self.push(Key::new(first), Plan::Leaf(col));
                Ok(())
            }
            (Some(i), false) => match &mut self.list[i].1 {
                Plan::Object(children) => children.insert(rest, col),
                Plan::Leaf(_) => Err(()),
            },
            (None, false) => {
                let mut children = Members::default();
                children.insert(rest, col)?;
                self.push(Key::new(first), Plan::Object(children));
                Ok(())
            }
        }
    }
}

/// One cell of the row being decoded, `V` being what the parser's
/// [`Build`] makes.
enum Slot<'a, V> {
    /// A scalar cell, kept as the lexer read it until the row object is
    /// built: a keyed row's member key and a path column's nulls are read
    /// from it.
    Value(Value),
    /// A bare string cell, borrowed from the line until the row object is
    /// built ([`Build::string`]).
    Str(&'a str),
    /// An integer or a double cell: kept apart from [`Slot::Value`] so a
    /// number moves as one word (a whole `Value` was copied with wide loads
    /// that waited on the narrow stores that wrote it, once per cell).
    Int(i64),
    Float(f64),
    Missing,
    /// An attachment marker not yet matched: its inline schema (declared
    /// here or reused) and whether it was declared by `^{...}` in this cell.
    Marker {
        schema: Option<usize>,
        declared: bool,
        at: usize,
    },
    /// A marker whose attachment body has been decoded.
    Filled(V),
}

impl<V> Slot<'_, V> {
    /// The member a present cell makes, built by `b` (a scalar or a bare
    /// string) or already built (a filled marker), taken out of the slot;
    /// `None` for an absent cell or an unfilled marker.
    #[inline(always)]
    fn take_built<B: Build<Value = V>>(&mut self, b: &mut B) -> Option<V> {
        match core::mem::replace(self, Slot::Missing) {
            Slot::Value(v) => Some(b.scalar(v)),
            Slot::Str(s) => Some(b.string(s)),
            Slot::Int(i) => Some(b.scalar(Value::Int(i))),
            Slot::Float(f) => Some(b.scalar(Value::Float(f))),
            Slot::Filled(v) => Some(v),
            Slot::Missing | Slot::Marker { .. } => None,
        }
    }
}

/// A tabular header and the schema state scoped to its array (spec §7.4.5).
struct Table {
    fields: Rc<[Field]>,
    /// 1 for a keyed map (column 0 is the member key), else 0.
    first_value: usize,
    plan: Option<Members>,
    index: KeyIndex,
    /// Inline object schemas per column (indexes into `schemas`); empty until
    /// a row declares one, as most tables never do.
    inline: Vec<Option<usize>>,
    schemas: Vec<Vec<Field>>,
    /// Shared array schemas per column (spec §7.4.5.3).
    shared: Vec<Option<Rc<[Field]>>>,
    /// Bytes of the constant strings every row receives (0 without
    /// constants): a row counts them toward the line limit as if they were
    /// its cells, so factoring never lets a row decode larger than the same
    /// row written out would be allowed to.
    const_bytes: usize,
    /// The constants' values, in declaration order.
    constants: Vec<Value>,
    /// The expansion every row of this table costs (see
    /// [`Limits::max_expansion`]): its constants and long key names.
    row_cost: usize,
    /// How a row holding all its cells becomes an object member by member,
    /// when no member is nested (no path columns): most tables.
    whole_rows: Option<WholeRows>,
}

/// The vectors a table row is gathered in, reused from row to row (and
/// table to table): its members for [`Build::object_from`], or its values
/// for [`Build::row`].
struct RowScratch<V> {
    members: Vec<(Key, V)>,
    values: Vec<V>,
}

impl<V> Default for RowScratch<V> {
    fn default() -> Self {
        RowScratch {
            members: Vec::new(),
            values: Vec::new(),
        }
    }
}

/// The members of a table's rows when every cell is present and no path
/// column nests them: handed to [`Build::row`] without pairing each value
/// with a copy of its key.
struct WholeRows {
    /// The members' keys, in order.
    keys: Vec<Key>,
    /// Where each member's value comes from: a row column, or (at
    /// [`CONST_LEAF`] and above) a constant.
    leaves: Vec<usize>,
}

/// The bytes a constant adds to every row that receives it.
pub(super) fn const_len(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        _ => 8,
    }
}

/// The expansion a field name costs each row it keys: its bytes when a
/// [`Key`] stores them on the heap (every row then holds its own copy),
/// else nothing, as the row's map entry is paid for by its cell.
pub(super) fn key_cost(name: &str) -> usize {
    if name.len() > Key::INLINE_CAPACITY {
        name.len()
    } else {
        0
    }
}

/// The expansion a value written once costs each row it is repeated into
/// (see [`Limits::max_expansion`]): the row's map entry for it, the
/// value's heap bytes and its key's.
pub(super) fn repeat_cost(name: &str, v: &Value) -> usize {
    const ENTRY: usize = core::mem::size_of::<Key>() + core::mem::size_of::<Value>();
    let heap = match v {
        Value::String(s) => s.len(),
        _ => 0,
    };
    ENTRY.saturating_add(heap).saturating_add(key_cost(name))
}

/// Takes `cost` from the expansion budget `left` (of `budget` in all), or
/// fails at `ln`, the row that would pass it.
pub(super) fn spend(
    left: &mut usize,
    cost: usize,
    budget: usize,
    ln: &Ln<'_>,
) -> Result<(), Error> {
    match left.checked_sub(cost) {
        Some(rest) => {
            *left = rest;
            Ok(())
        }
        None => Err(over_budget(budget, ln)),
    }
}

#[cold]
fn over_budget(budget: usize, ln: &Ln<'_>) -> Error {
    ln.error(
        ErrorKind::LimitExceeded,
        ln.indent,
        alloc::format!(
            "constant columns, group values and long field names repeated into the rows \
             expand past the configured budget of {budget} bytes for this input \
             (Limits::max_expansion and max_expansion_ratio)"
        ),
    )
}

impl Table {
    /// A table from its declaration: the row columns are the declared
    /// fields that are not constant (spec §7.4.7.3). `path_budget` is how
    /// many objects a path column may nest inside a row: the depth limit
    /// less the row's own depth. `max_members` bounds the objects a row
    /// decodes into (the row, and each object its path columns nest).
    fn new(
        decl: Rc<[Field]>,
        keyed: bool,
        path_budget: usize,
        max_members: usize,
    ) -> Result<Table, (ErrorKind, String)> {
        let first_value = usize::from(keyed);
        let has_const = decl.iter().any(|f| f.constant.is_some());
        let fields: Rc<[Field]> = if has_const {
            if keyed && decl.first().is_some_and(|f| f.constant.is_some()) {
                return Err((
                    ErrorKind::InvalidSyntax,
                    String::from(
                        "a keyed map's member key column (its first field) cannot be constant",
                    ),
                ));
            }
            decl.iter()
                .filter(|f| f.constant.is_none())
                .cloned()
                .collect()
        } else {
            Rc::clone(&decl)
        };
        let mut index = KeyIndex::default();
        for i in 0..fields.len() {
            index.record(|j| fields[j].name.as_str(), i + 1);
        }
        let mut const_bytes = 0usize;
        let mut constants = Vec::new();
        let mut row_cost = 0usize;
        for f in decl.iter().skip(first_value) {
            let cost = match &f.constant {
                Some(v) => repeat_cost(&f.name, v),
                None => key_cost(&f.name),
            };
            row_cost = row_cost.saturating_add(cost);
        }
        let plan = if has_const || fields.iter().skip(first_value).any(|f| is_path(&f.name)) {
            let mut top = Members::default();
            // Row columns are numbered in declaration order, constants skipped.
            let mut col = first_value;
            for f in decl.iter().skip(first_value) {
                let clash = || {
                    (
                        ErrorKind::DuplicateKey,
                        alloc::format!(
                            "column `{}` collides with another column's key",
                            crate::error::excerpt(&f.name)
                        ),
                    )
                };
                if let Some(v) = &f.constant {
                    // A constant's name is literal: encoders factor only plain
                    // columns, never flattened paths.
                    if top.find(&f.name).is_some() {
                        return Err(clash());
                    }
                    const_bytes = const_bytes.saturating_add(const_len(v));
                    top.push(f.name.clone(), Plan::Leaf(CONST_LEAF + constants.len()));
                    constants.push(v.clone());
                    continue;
                }
                let segments: Vec<&str> = if is_path(&f.name) {
                    f.name.split('>').collect()
                } else {
                    alloc::vec![f.name.as_str()]
                };
                if segments.len() - 1 > path_budget {
                    return Err((
                        ErrorKind::LimitExceeded,
                        alloc::format!(
                            "path column `{}` nests too deeply",
                            crate::error::excerpt(&f.name)
                        ),
                    ));
                }
                if top.insert(&segments, col).is_err() {
                    return Err(clash());
                }
                col += 1;
            }
            Some(top)
        } else {
            None
        };
        // Declared members only: max_fields bounds the declaration, but a
        // tighter max_container_len must bound the objects it makes too.
        let widest = plan
            .as_ref()
            .map_or(fields.len() - first_value, Members::widest);
        if widest > max_members {
            return Err((
                ErrorKind::LimitExceeded,
                alloc::format!(
                    "the table's rows decode into objects of {widest} members, more than the \
                     configured limit of {max_members} per container"
                ),
            ));
        }
        let whole_rows = match &plan {
            None => Some(WholeRows {
                keys: fields
                    .iter()
                    .skip(first_value)
                    .map(|f| f.name.clone())
                    .collect(),
                leaves: (first_value..fields.len()).collect(),
            }),
            Some(top) => top
                .list
                .iter()
                .map(|(key, plan)| match plan {
                    Plan::Leaf(i) => Some((key.clone(), *i)),
                    Plan::Object(_) => None,
                })
                .collect::<Option<(Vec<Key>, Vec<usize>)>>()
                .map(|(keys, leaves)| WholeRows { keys, leaves }),
        };
        Ok(Table {
            fields,
            first_value,
            plan,
            index,
            inline: Vec::new(),
            schemas: Vec::new(),
            shared: Vec::new(),
            const_bytes,
            constants,
            row_cost,
            whole_rows,
        })
    }

    /// The members a row's object has when every declared one is present.
    fn members(&self) -> usize {
        self.plan
            .as_ref()
            .map_or(self.fields.len() - self.first_value, |top| top.list.len())
    }

    /// How many objects column `col`'s path nests in a row (`a>b>c`: 2).
    fn path_nesting(&self, col: usize) -> usize {
        match self.fields.get(col) {
            Some(f) if self.plan.is_some() && is_path(&f.name) => {
                f.name.bytes().filter(|&b| b == b'>').count()
            }
            _ => 0,
        }
    }

    fn column(&self, name: &str) -> Option<usize> {
        self.index
            .find(|i| self.fields[i].name.as_str(), self.fields.len(), name)
    }

    /// Builds the row object from its cells (markers all filled by now),
    /// gathering its members in `scratch.members` or, when the row holds
    /// every member and no attachment adds any, its values in
    /// `scratch.values` for [`Build::row`]. `id` numbers the table among
    /// the document's.
    fn build<B: Build>(
        &self,
        b: &mut B,
        id: usize,
        slots: &mut [Slot<'_, B::Value>],
        extras: ObjectBuilder<B::Value>,
        scratch: &mut RowScratch<B::Value>,
    ) -> B::Value {
        let RowScratch {
            members: map,
            values,
        } = scratch;
        if let Some(whole) = &self.whole_rows {
            let complete = slots.iter().skip(self.first_value).all(|s| {
                matches!(
                    s,
                    Slot::Value(_) | Slot::Str(_) | Slot::Int(_) | Slot::Float(_) | Slot::Filled(_)
                )
            });
            if complete && extras.len() == 0 {
                values.clear();
                values.reserve(whole.leaves.len());
                for &leaf in &whole.leaves {
                    let v = if leaf >= CONST_LEAF {
                        match self.constants.get(leaf - CONST_LEAF) {
                            Some(c) => b.repeated(c),
                            None => continue,
                        }
                    } else {
                        match slots.get_mut(leaf).and_then(|s| s.take_built(b)) {
                            Some(v) => v,
                            None => continue,
                        }
                    };
                    values.push(v);
                }
                // Every leaf is a present cell or a constant (checked
                // above and when the table was declared), so the values
                // line up with the keys.
                debug_assert_eq!(values.len(), whole.keys.len());
                let row = b.row(id, &whole.keys, values);
                values.clear();
                return row;
            }
        }
        // Empty unless a builder's `object_from` left members behind.
        map.clear();
        match &self.plan {
            None => {
                // A keyed row's first cell is its key, not a member.
                let members = slots.len().saturating_sub(self.first_value);
                map.reserve(members + extras.len());
                for (i, slot) in slots.iter_mut().enumerate().skip(self.first_value) {
                    let Some(v) = slot.take_built(b) else {
                        continue;
                    };
                    map.push((self.fields[i].name.clone(), v));
                }
            }
            Some(top) => {
                map.reserve(top.list.len() + extras.len());
                if self.constants.is_empty() {
                    for (key, plan) in &top.list {
                        if let Some(v) = eval(b, plan, slots).0 {
                            map.push((key.clone(), v));
                        }
                    }
                } else {
                    for (key, plan) in &top.list {
                        let v = match plan {
                            Plan::Leaf(i) if *i >= CONST_LEAF => {
                                self.constants.get(i - CONST_LEAF).map(|c| b.repeated(c))
                            }
                            _ => eval(b, plan, slots).0,
                        };
                        if let Some(v) = v {
                            map.push((key.clone(), v));
                        }
                    }
                }
            }
        }
        if extras.len() != 0 {
            map.extend(extras.finish());
        }
        b.object_from(map)
    }
}

/// Evaluates a plan node: (value, leaves, absent leaves, null leaves).
fn eval<B: Build>(
    b: &mut B,
    plan: &Plan,
    slots: &mut [Slot<'_, B::Value>],
) -> (Option<B::Value>, usize, usize, usize) {
    match plan {
        Plan::Leaf(i) => {
            let Some(slot) = slots.get_mut(*i) else {
                return (None, 1, 1, 0);
            };
            let null = usize::from(matches!(slot, Slot::Value(Value::Null)));
            match slot.take_built(b) {
                Some(v) => (Some(v), 1, 0, null),
                None => (None, 1, 1, 0),
            }
        }
        Plan::Object(members) => {
            let (mut total, mut missing, mut nulls) = (0, 0, 0);
            let mut map = Vec::with_capacity(members.list.len());
            for (key, child) in &members.list {
                let (v, t, m, n) = eval(b, child, slots);
                total += t;
                missing += m;
                nulls += n;
                if let Some(v) = v {
                    map.push((key.clone(), v));
                }
            }
            let value = if missing == total {
                None
            } else if nulls == total {
                Some(b.scalar(Value::Null))
            } else {
                Some(b.object(map))
            };
            (value, total, missing, nulls)
        }
    }
}

/// Parses `@N ` at the start of a line's text; returns N and the offset past the space.
fn parse_item_id(ln: &Ln<'_>) -> Result<(u64, usize), Error> {
    let raw = ln.raw.as_bytes();
    let start = ln.indent + 1;
    let mut end = start;
    while end < raw.len() && raw[end].is_ascii_digit() {
        end += 1;
    }
    let id = crate::header::parse_decimal(&ln.raw[start..end]);
    match (id, raw.get(end)) {
        (Some(id), Some(b' ')) => Ok((id, end + 1)),
        _ => Err(ln.error(
            ErrorKind::InvalidItemId,
            ln.indent,
            "expected an item id `@N ` (a decimal index and a space)",
        )),
    }
}

impl<'a, 'b, B: Build> Parser<'a, 'b, B> {
    /// A parser of `input_len` bytes of input, whose expansion budget
    /// ([`Limits::expansion_budget`]) it sizes, building with `build`.
    pub(crate) fn new(
        cur: Cursor<'a>,
        build: &'b mut B,
        limits: Limits,
        allow_identity: bool,
        input_len: usize,
    ) -> Self {
        Parser {
            build,
            expansion_budget: limits.expansion_budget(input_len),
            expansion_left: limits.expansion_budget(input_len),
            cur,
            limits,
            allow_identity,
            unique_identities: false,
            identity_field: None,
            sections: None,
            deferred: Vec::new(),
            surplus: None,
            slot_pool: Vec::new(),
            row_pool: Vec::new(),
            tables: 0,
        }
    }

    /// A whole-line value (`key=value`, `@N =value`, `=value`) built, a
    /// bare string lent to the builder as a row cell's is.
    fn line_value(&mut self, ln: &Ln<'a>, start: usize) -> Result<B::Value, Error> {
        Ok(match parse_line_value_at(ln, start)? {
            LineValue::Bare(s) => self.build.string(s),
            LineValue::Value(v) => self.build.scalar(v),
        })
    }

    #[inline]
    fn check_depth(&self, depth: usize, ln: &Ln<'_>) -> Result<(), Error> {
        if depth > self.limits.max_depth {
            return Err(ln.error(
                ErrorKind::LimitExceeded,
                ln.indent,
                alloc::format!(
                    "nesting deeper than the configured limit of {}",
                    self.limits.max_depth
                ),
            ));
        }
        if crate::stack::exhausted(depth) {
            return Err(ln.error(
                ErrorKind::LimitExceeded,
                ln.indent,
                crate::stack::message(depth),
            ));
        }
        Ok(())
    }

    #[inline]
    fn check_len(&self, len: usize, ln: &Ln<'_>) -> Result<(), Error> {
        if len > self.limits.max_container_len {
            return Err(ln.error(
                ErrorKind::LimitExceeded,
                ln.indent,
                alloc::format!(
                    "container longer than the configured limit of {}",
                    self.limits.max_container_len
                ),
            ));
        }
        Ok(())
    }

    /// The document body after the header (spec §7.1), the trailer, and the
    /// deferred-count check.
    pub(crate) fn parse_root(&mut self) -> Result<B::Value, Error> {
        // Whether the root is an array of a declared count (a line after it
        // is then one item too many) or a scalar (a line after it is extra),
        // as the references report them.
        let mut counted_root = false;
        let mut scalar_root = false;
        let value = match self.cur.peek()? {
            None => self.build.object(Vec::new()),
            Some(ln) => {
                if ln.indent != 0 {
                    return Err(ln.error(
                        ErrorKind::InvalidIndent,
                        ln.indent,
                        "the root value starts without indentation",
                    ));
                }
                let text = ln.text();
                if text.starts_with('=') {
                    self.cur.bump();
                    scalar_root = true;
                    self.record_top_level(&ln, 0);
                    self.line_value(&ln, 1)?
                } else if text.starts_with("## [") {
                    self.cur.bump();
                    self.record_top_level(&ln, 0);
                    let head = self.parse_head(&ln, 3)?;
                    counted_root = match &head {
                        Head::Inline(_) => true,
                        Head::Table(count, _)
                        | Head::Grouped(count, _, _)
                        | Head::Expanded(count) => count.n.is_some(),
                    };
                    self.array_body(head, &ln, 0, 1, None)?
                } else if text.starts_with("##!") {
                    self.build.object(Vec::new())
                } else {
                    self.parse_object(0, 1, &ln)?
                }
            }
        };
        let mut trailer = None;
        if let Some(ln) = self.cur.peek()? {
            if ln.indent == 0 && ln.text().starts_with("##!") {
                self.cur.bump();
                trailer = Some((ln, parse_trailer(&ln)?));
            }
        }
        if let Some(ln) = self.cur.peek()? {
            if trailer.is_some() {
                return Err(ln.error(
                    ErrorKind::InvalidSyntax,
                    ln.indent,
                    "content after the `##! summary` trailer",
                ));
            }
            if scalar_root {
                return Err(ln.error(
                    ErrorKind::TrailingCharacters,
                    ln.indent,
                    "extra lines after the root scalar",
                ));
            }
            if counted_root && self.surplus.is_none() {
                return Err(ln.error(
                    ErrorKind::CountMismatch,
                    ln.indent,
                    "more items than the root array's declared count",
                ));
            }
            return Err(self.surplus_or(&ln, "content after the end of the root value"));
        }
        if let (Some((ln, counts)), false) = (trailer, self.deferred.is_empty()) {
            self.check_deferred(&ln, counts)?;
        }
        Ok(value)
    }

    fn surplus_or(&mut self, ln: &Ln<'_>, message: &str) -> Error {
        match self.surplus.take() {
            Some((indent, kind)) if indent == ln.indent => {
                let what = if kind == ErrorKind::OrphanInlineAttachment {
                    "a positional inline body with no eligible `^` cell left in its row"
                } else {
                    "more rows than the table's declared count"
                };
                ln.error(kind, ln.indent, what)
            }
            _ => ln.error(ErrorKind::InvalidSyntax, ln.indent, message),
        }
    }

    /// A row with its constants counts toward the line limit (spec §12) as
    /// if the constants were its cells.
    #[cold]
    fn check_expanded_row(&self, ln: &Ln<'_>, const_bytes: usize) -> Result<(), Error> {
        if ln.raw.len().saturating_add(const_bytes) > self.limits.max_line_len {
            return Err(ln.error(
                ErrorKind::LimitExceeded,
                ln.indent,
                alloc::format!(
                    "the row with its constant columns is longer than the configured line limit of {} bytes",
                    self.limits.max_line_len
                ),
            ));
        }
        Ok(())
    }

    /// Takes a row's expansion from the document's budget.
    pub(super) fn spend(&mut self, ln: &Ln<'_>, cost: usize) -> Result<(), Error> {
        spend(&mut self.expansion_left, cost, self.expansion_budget, ln)
    }

    fn check_deferred(&self, ln: &Ln<'_>, counts: Option<Vec<u64>>) -> Result<(), Error> {
        let counts = counts.unwrap_or_default();
        if counts.len() != self.deferred.len() {
            return Err(ln.error(
                ErrorKind::CountMismatch,
                ln.indent,
                alloc::format!(
                    "summary lists {} counts for {} deferred `[?]` sections",
                    counts.len(),
                    self.deferred.len()
                ),
            ));
        }
        for (d, &c) in self.deferred.iter().zip(&counts) {
            if d.actual != c {
                return Err(ln.error(
                    ErrorKind::CountMismatch,
                    ln.indent,
                    alloc::format!(
                        "summary count {c} differs from the {} items of the `[?]` section at line {}, column {}",
                        d.actual,
                        d.line,
                        d.column
                    ),
                ));
            }
        }
        Ok(())
    }

    fn open_deferred(&mut self, hdr: &Ln<'_>, count: Count) -> Option<usize> {
        if count.n.is_some() {
            return None;
        }
        self.deferred.push(Deferred {
            line: hdr.number,
            column: crate::text::column_of(hdr.raw, count.at),
            actual: 0,
        });
        Some(self.deferred.len() - 1)
    }

    fn close_count(
        &mut self,
        hdr: &Ln<'_>,
        count: Count,
        deferred: Option<usize>,
        actual: usize,
        what: &str,
    ) -> Result<(), Error> {
        let actual = actual as u64;
        if let Some(i) = deferred {
            if let Some(d) = self.deferred.get_mut(i) {
                d.actual = actual;
            }
        }
        match count.n {
            Some(n) if n != actual => Err(hdr.error(
                ErrorKind::CountMismatch,
                count.at,
                alloc::format!("declared {n} {what}, found {actual}"),
            )),
            _ => Ok(()),
        }
    }

    /// Object members at exactly `indent` (spec §7.2), until a dedent.
    fn parse_object(
        &mut self,
        indent: usize,
        depth: usize,
        opener: &Ln<'_>,
    ) -> Result<B::Value, Error> {
        self.check_depth(depth, opener)?;
        let mut obj = ObjectBuilder::new();
        while let Some(ln) = self.cur.peek()? {
            if ln.indent < indent {
                break;
            }
            if ln.indent > indent {
                return Err(ln.error(
                    ErrorKind::InvalidIndent,
                    ln.indent,
                    "indentation increases where no container opened",
                ));
            }
            if ln.text().starts_with("##!") {
                if indent == 0 {
                    break;
                }
                return Err(ln.error(
                    ErrorKind::InvalidSyntax,
                    ln.indent,
                    "the summary trailer must not be indented",
                ));
            }
            let surplus = self.surplus.take();
            self.cur.bump();
            if let Err(e) = self.parse_member(&ln, depth, &mut obj) {
                // A line right after a table that stopped at its declared
                // count, which is no object member: a surplus row. Not a
                // section header that fails to parse: no row starts with
                // `##` (a table ends there), so its own error stands.
                let surplus_row =
                    matches!(surplus, Some((i, _)) if i == indent) && !ln.text().starts_with("##");
                if surplus_row
                    && matches!(
                        e.kind(),
                        ErrorKind::InvalidSyntax
                            | ErrorKind::InvalidLine
                            | ErrorKind::OrphanInlineAttachment
                    )
                    && e.line() == Some(ln.number)
                {
                    self.surplus = surplus;
                    return Err(self.surplus_or(&ln, e.message()));
                }
                return Err(e);
            }
            self.check_len(obj.len(), &ln)?;
        }
        Ok(self.build.object(obj.finish()))
    }

    fn parse_member(
        &mut self,
        ln: &Ln<'a>,
        depth: usize,
        obj: &mut ObjectBuilder<B::Value>,
    ) -> Result<(), Error> {
        let text = ln.text();
        let raw = ln.raw.as_bytes();
        let key_at;
        let (key, value) = if text.starts_with("## ") {
            key_at = ln.indent + 3;
            if raw.get(key_at) == Some(&b'[') {
                return Err(ln.error(
                    ErrorKind::InvalidSyntax,
                    key_at,
                    "an anonymous array header is only valid at the root",
                ));
            }
            let (key, end) = parse_key(ln, key_at)?;
            check_duplicate(obj, &key, ln, key_at)?;
            self.record_top_level(ln, key_at);
            let rest = &ln.raw[end..];
            let value = if is_blank(rest) {
                self.parse_object(ln.indent + 2, depth + 1, ln)?
            } else if rest.starts_with(" [") {
                let head = self.parse_head(ln, end + 1)?;
                if let (
                    Some(sections),
                    Head::Table(count, fields) | Head::Grouped(count, fields, _),
                    0,
                ) = (&mut self.sections, &head, ln.indent)
                {
                    if let (false, Some(member)) = (count.keyed, sections.last_mut()) {
                        member.fields = Some(fields.to_vec());
                    }
                }
                self.array_body(head, ln, ln.indent, depth + 1, None)?
            } else {
                return Err(ln.error(
                    ErrorKind::InvalidSyntax,
                    end,
                    "expected the end of the line or ` [count]` after the section name",
                ));
            };
            (key, value)
        } else {
            key_at = ln.indent;
            let (key, end) = parse_key(ln, key_at).map_err(|e| not_a_member(ln, e))?;
            check_duplicate(obj, &key, ln, key_at)?;
            self.record_top_level(ln, key_at);
            let value = match raw.get(end) {
                Some(b'=') => self.line_value(ln, end + 1)?,
                Some(b'[') => match self.parse_head(ln, end).map_err(|e| not_a_member(ln, e))? {
                    // An inline array is a container one level down too.
                    Head::Inline(values) => {
                        self.check_depth(depth + 1, ln)?;
                        self.build.scalar_array(values)
                    }
                    _ => {
                        return Err(not_a_member(
                            ln,
                            ln.error(
                                ErrorKind::InvalidSyntax,
                                end,
                                "a `key[N]` array must be inline (`key[N]: a,b`)",
                            ),
                        ))
                    }
                },
                _ => {
                    return Err(not_a_member(
                        ln,
                        ln.error(
                            ErrorKind::InvalidSyntax,
                            end,
                            "expected `=` or `[count]:` after the key",
                        ),
                    ))
                }
            };
            (key, value)
        };
        obj.push(Key::from(key), value);
        Ok(())
    }

    /// Records a top-level member (or the root array or scalar) when the
    /// caller asked for them ([`Parser::sections`]): where it starts, for
    /// errors about it that only the caller can judge.
    fn record_top_level(&mut self, ln: &Ln<'_>, at: usize) {
        if let (Some(sections), 0) = (&mut self.sections, ln.indent) {
            sections.push(super::SectionDecl {
                line: ln.number,
                column: crate::text::column_of(ln.raw, at),
                fields: None,
                row_lines: Vec::new(),
            });
        }
    }

    /// Parses what follows a name: a count bracket and the rest of the line.
    fn parse_head(&mut self, ln: &Ln<'_>, at: usize) -> Result<Head, Error> {
        let (count, pos) = parse_count(ln, at)?;
        let raw = ln.raw;
        let rest = &raw[pos..];
        if let Some(list) = rest.strip_prefix(':') {
            if count.keyed {
                return Err(ln.error(
                    ErrorKind::InvalidSyntax,
                    pos,
                    "a keyed map `[N:]` cannot be inline",
                ));
            }
            let mut values = Vec::with_capacity(cap(count));
            if !is_blank(list) {
                if !list.starts_with(' ') {
                    return Err(ln.error(
                        ErrorKind::InvalidSyntax,
                        pos + 1,
                        "expected a space after `:`",
                    ));
                }
                let max = self.limits.max_container_len;
                for_each_token(ln, pos + 1, b',', Context::Value, |cell, at| {
                    if values.len() >= max {
                        return Err(ln.error(
                            ErrorKind::LimitExceeded,
                            at,
                            "inline array longer than the configured limit",
                        ));
                    }
                    match cell {
                        Cell::Value(v) => values.push(v),
                        Cell::Str(s) => values.push(Value::String(Key::from(s))),
                        Cell::Missing | Cell::Marker(_) => {}
                    }
                    Ok(())
                })?;
            }
            if let Some(n) = count.n {
                if n != values.len() as u64 {
                    return Err(ln.error(
                        ErrorKind::CountMismatch,
                        at,
                        alloc::format!("declared {n} values, found {}", values.len()),
                    ));
                }
            }
            return Ok(Head::Inline(values));
        }
        if rest.starts_with('{') {
            return self.parse_decl_head(ln, count, pos);
        }
        if !is_blank(rest) {
            return Err(ln.error(
                ErrorKind::InvalidSyntax,
                pos,
                "unexpected characters after the count",
            ));
        }
        if count.keyed {
            return Err(ln.error(
                ErrorKind::InvalidSyntax,
                pos,
                "a keyed map `[N:]` needs a field declaration `{key,...}`",
            ));
        }
        Ok(Head::Expanded(count))
    }

    /// A count followed by a field declaration at `pos`, and possibly a
    /// `group=` clause (spec §7.4.8.2).
    fn parse_decl_head(&mut self, ln: &Ln<'_>, count: Count, pos: usize) -> Result<Head, Error> {
        let raw = ln.raw;
        // Only a line that may end in a `group=` clause reads on past a
        // second `@`: the clause decides what the marks mean.
        let may_group = raw[pos..].contains(" group=");
        let mode = match (may_group, self.allow_identity) {
            (true, _) => Identity::Any,
            (false, true) => Identity::One,
            (false, false) => Identity::Reject,
        };
        let decl = parse_field_decl(ln, pos, mode)?;
        let tail = &raw[decl.end..];
        let mut group = None;
        if !is_blank(tail) {
            let clause = tail.trim_start_matches([' ', '\t']);
            if clause.len() == tail.len() || !clause.starts_with("group=") {
                return Err(ln.error(
                    ErrorKind::InvalidSyntax,
                    decl.end,
                    "unexpected characters after the field declaration",
                ));
            }
            let at = ln.offset_of(clause);
            let key_at = at + "group=".len();
            let (name, end) =
                parse_key(ln, key_at).map_err(|e| regrade(e, ErrorKind::InvalidGroupHeader))?;
            if !is_blank(&raw[end..]) {
                return Err(ln.error(
                    ErrorKind::InvalidGroupHeader,
                    end,
                    "unexpected characters after the `group=` clause",
                ));
            }
            group = Some((name, at, key_at));
        }
        if decl.fields.len() > self.limits.max_fields {
            return Err(ln.error(
                ErrorKind::LimitExceeded,
                pos,
                alloc::format!(
                    "more than the configured limit of {} fields",
                    self.limits.max_fields
                ),
            ));
        }
        let group_col = match group {
            None => {
                // Judge the marks the declaration read on past (see `may_group`).
                match (self.allow_identity, decl.marks) {
                    (true, [_, Some(second)]) => {
                        return Err(ln.error(
                            ErrorKind::InvalidSyntax,
                            second,
                            "at most one `@` identity field per declaration",
                        ))
                    }
                    (false, [Some(first), _]) => {
                        return Err(ln.error(
                            ErrorKind::InvalidSyntax,
                            first,
                            crate::generic::decode::lexer::at_key_outside_group(ln.raw, first),
                        ))
                    }
                    _ => {}
                }
                if decl.constants == decl.fields.len() {
                    return Err(ln.error(
                        ErrorKind::NoBareColumn,
                        pos,
                        "every field is constant: a row must carry at least one column",
                    ));
                }
                None
            }
            Some((name, at, key_at)) => {
                if count.keyed {
                    return Err(ln.error(
                        ErrorKind::InvalidGroupHeader,
                        at,
                        "a keyed map `[N:]` cannot be value-grouped",
                    ));
                }
                match decl.marks {
                    [Some(_), None] => {}
                    [_, Some(second)] => {
                        return Err(ln.error(
                            ErrorKind::InvalidGroupHeader,
                            second,
                            "a grouped table marks exactly one `@` key column",
                        ))
                    }
                    [None, None] => {
                        return Err(ln.error(
                            ErrorKind::InvalidGroupHeader,
                            at,
                            "a grouped table needs exactly one `@` key column",
                        ))
                    }
                }
                let Some(g) = decl.fields.iter().position(|f| f.name == *name) else {
                    return Err(ln.error(
                        ErrorKind::InvalidGroupHeader,
                        key_at,
                        alloc::format!(
                            "group column `{}` is not a declared field",
                            crate::error::excerpt(&name)
                        ),
                    ));
                };
                let problem = if decl.fields[g].identity {
                    Some("is the `@` key column")
                } else if decl.fields[g].constant.is_some() {
                    Some("is a constant column")
                } else {
                    None
                };
                if let Some(problem) = problem {
                    return Err(ln.error(
                        ErrorKind::InvalidGroupHeader,
                        key_at,
                        alloc::format!(
                            "group column `{}` {}",
                            crate::error::excerpt(&name),
                            problem
                        ),
                    ));
                }
                // The group column and the constants carry no cell.
                if decl.constants + 1 == decl.fields.len() {
                    return Err(ln.error(
                        ErrorKind::NoBareColumn,
                        pos,
                        "every field but the group column is constant: a row must carry at least one column",
                    ));
                }
                Some(g)
            }
        };
        if self.identity_field.is_none() {
            if let Some(f) = decl.fields.iter().find(|f| f.identity) {
                self.identity_field = Some(String::from(f.name.as_str()));
            }
        }
        let fields = Rc::from(decl.fields);
        Ok(match group_col {
            Some(g) => Head::Grouped(count, fields, g),
            None => Head::Table(count, fields),
        })
    }

    /// The body an array header selected, its lines at `indent`.
    fn array_body(
        &mut self,
        head: Head,
        hdr: &Ln<'_>,
        indent: usize,
        depth: usize,
        shared: Option<Rc<[Field]>>,
    ) -> Result<B::Value, Error> {
        self.check_depth(depth, hdr)?;
        match head {
            Head::Inline(values) => Ok(self.build.scalar_array(values)),
            Head::Table(count, fields) => self.parse_table(hdr, count, fields, indent, depth),
            Head::Grouped(count, fields, group) => {
                self.parse_grouped(hdr, count, &fields, group, indent, depth)
            }
            Head::Expanded(count) => match shared {
                Some(fields) => self.parse_table(hdr, count, fields, indent, depth),
                None => self.parse_expanded(hdr, count, indent, depth),
            },
        }
    }

    /// `@N` items (spec §7.6).
    fn parse_expanded(
        &mut self,
        hdr: &Ln<'_>,
        count: Count,
        indent: usize,
        depth: usize,
    ) -> Result<B::Value, Error> {
        let deferred = self.open_deferred(hdr, count);
        let mut items = Vec::with_capacity(cap(count));
        while let Some(ln) = self.cur.peek()? {
            if ln.indent < indent || (ln.indent == indent && !ln.text().starts_with('@')) {
                break;
            }
            if ln.indent > indent {
                return Err(ln.error(
                    ErrorKind::InvalidIndent,
                    ln.indent,
                    "indentation increases where no container opened",
                ));
            }
            self.cur.bump();
            let (id, pos) = parse_item_id(&ln)?;
            if id != items.len() as u64 {
                return Err(ln.error(
                    ErrorKind::InvalidItemId,
                    ln.indent,
                    alloc::format!("item id @{id} does not equal its index {}", items.len()),
                ));
            }
            self.check_len(items.len() + 1, &ln)?;
            let rest = &ln.raw[pos..];
            let value = match rest.as_bytes().first() {
                Some(b'=') => self.line_value(&ln, pos + 1)?,
                Some(b'{') if rest.trim_end_matches([' ', '\t']) == "{}" => {
                    self.parse_object(indent + 2, depth + 1, &ln)?
                }
                Some(b'[') => {
                    let head = self.parse_head(&ln, pos)?;
                    self.array_body(head, &ln, indent + 2, depth + 1, None)?
                }
                _ => {
                    return Err(ln.error(
                        ErrorKind::InvalidSyntax,
                        pos,
                        "expected `=value`, `{}` or `[count]` after the item id",
                    ))
                }
            };
            items.push(value);
        }
        self.close_count(hdr, count, deferred, items.len(), "items")?;
        Ok(self.build.array(items))
    }

    /// Tabular rows (spec §7.4) or keyed-map rows (spec §7.2a) at `indent`.
    fn parse_table(
        &mut self,
        hdr: &Ln<'_>,
        count: Count,
        fields: Rc<[Field]>,
        indent: usize,
        depth: usize,
    ) -> Result<B::Value, Error> {
        let keyed = count.keyed;
        if keyed && fields.len() < 2 {
            return Err(hdr.error(
                ErrorKind::InvalidSyntax,
                count.at,
                "a keyed map header must declare at least two fields (the key column and a value field)",
            ));
        }
        self.check_depth(depth + 1, hdr)?;
        // Rows sit at `depth + 1`; each `>` of a path column nests one more
        // object in them, which the encoder counts as depth too.
        let path_budget = self.limits.max_depth.saturating_sub(depth + 1);
        let max_members = self.limits.max_container_len;
        let mut table = Table::new(fields, keyed, path_budget, max_members)
            .map_err(|(k, m)| hdr.error(k, count.at, m))?;
        let deferred = self.open_deferred(hdr, count);
        // Every row takes at least one byte per declared field (its cell
        // delimiters and line terminator; two for a one-field row, whose
        // empty line would be blank), so the rest of the input bounds the
        // rows that can follow whatever the count says: the containers are
        // sized once, exactly for an honest count, and never beyond what
        // the input could fill.
        let bound = self.cur.remaining_len() / table.fields.len().max(2) + 1;
        let expect = count
            .n
            .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX).min(bound));
        let mut rows: Vec<B::Value> = Vec::with_capacity(if keyed { 0 } else { expect });
        let mut members = if keyed {
            ObjectBuilder::with_capacity(expect)
        } else {
            ObjectBuilder::new()
        };
        let mut slots: Vec<Slot<'a, B::Value>> = self.slot_pool.pop().unwrap_or_default();
        let mut row_scratch = self.row_pool.pop().unwrap_or_default();
        let id = self.tables;
        self.tables += 1;
        slots.clear();
        slots.reserve(table.fields.len());
        let mut identities = (self.unique_identities && !keyed)
            .then(|| table.fields.iter().position(|f| f.identity))
            .flatten()
            .map(Identities::new);
        let mut index: usize = 0;
        let mut last_inline = false;
        loop {
            if count.n == Some(index as u64) {
                let kind = if last_inline {
                    ErrorKind::OrphanInlineAttachment
                } else {
                    ErrorKind::CountMismatch
                };
                self.surplus = Some((indent, kind));
                break;
            }
            let Some(ln) = self.cur.peek()? else { break };
            if ln.indent < indent {
                break;
            }
            if ln.indent > indent {
                return Err(ln.error(
                    ErrorKind::InvalidIndent,
                    ln.indent,
                    "indentation increases where no container opened",
                ));
            }
            let text = ln.text();
            if text.starts_with("##") {
                break;
            }
            if text.starts_with('.') {
                return Err(ln.error(
                    ErrorKind::OrphanAttachment,
                    ln.indent,
                    "attachment with no row before it",
                ));
            }
            self.cur.bump();
            self.check_len(index + 1, &ln)?;
            if let (Some(sections), 0, false) = (&mut self.sections, indent, self.unique_identities)
            {
                // A top-level table's rows whose identities the caller
                // judges (a delta's operations): its errors about one of
                // them point at the row's line.
                if let Some(section) = sections.last_mut().filter(|s| s.fields.is_some()) {
                    section.row_lines.push(ln.number);
                }
            }
            if table.const_bytes != 0 {
                self.check_expanded_row(&ln, table.const_bytes)?;
            }
            if table.row_cost != 0 {
                self.spend(&ln, table.row_cost)?;
            }
            let (inline, extras) =
                self.parse_row(&ln, index, &mut table, &mut slots, indent, depth)?;
            last_inline = inline;
            if let Some(identities) = &mut identities {
                identities.check(&ln, &slots, index)?;
            }
            if keyed {
                let key = match core::mem::replace(&mut slots[0], Slot::Missing) {
                    Slot::Value(Value::String(s)) => s,
                    Slot::Str(s) => Key::from(s),
                    // A bare number names the member by its canonical text, as
                    // the references read it: their streaming encoders write
                    // a number key raw (`2.5|...`), and every SDK's decoder
                    // takes it as the key "2.5". Ours write it quoted.
                    Slot::Int(n) => Key::from(itoa::Buffer::new().format(n)),
                    Slot::Float(x) => {
                        let mut numbers = crate::number::NumberBuffer::new();
                        let text = numbers
                            .format_f64(x)
                            .map_err(|e| ln.error(e.kind(), ln.indent, e.message()))?;
                        Key::from(text)
                    }
                    _ => {
                        return Err(ln.error(
                            ErrorKind::InvalidSyntax,
                            ln.indent,
                            "a keyed-map member key (cell 0) must be a string or a number",
                        ))
                    }
                };
                if members.contains(&key) {
                    return Err(ln.error(
                        ErrorKind::DuplicateKey,
                        ln.indent,
                        alloc::format!("duplicate member key `{}`", crate::error::excerpt(&key)),
                    ));
                }
                let value = table.build(self.build, id, &mut slots, extras, &mut row_scratch);
                members.push(key, value);
            } else {
                let value = table.build(self.build, id, &mut slots, extras, &mut row_scratch);
                rows.push(value);
            }
            index += 1;
        }
        self.close_count(hdr, count, deferred, index, "rows")?;
        slots.clear();
        self.slot_pool.push(slots);
        row_scratch.members.clear();
        row_scratch.values.clear();
        self.row_pool.push(row_scratch);
        Ok(if keyed {
            self.build.object(members.finish())
        } else {
            self.build.array(rows)
        })
    }
}

/// `e` with another category, its position and message kept.
pub(super) fn regrade(e: Error, kind: ErrorKind) -> Error {
    Error::at(
        kind,
        e.line().unwrap_or(0),
        e.column().unwrap_or(0),
        String::from(e.message()),
    )
}

fn check_duplicate<V>(
    obj: &ObjectBuilder<V>,
    key: &str,
    ln: &Ln<'_>,
    at: usize,
) -> Result<(), Error> {
    if obj.contains(key) {
        return Err(ln.error(
            ErrorKind::DuplicateKey,
            at,
            alloc::format!("duplicate key `{}`", crate::error::excerpt(key)),
        ));
    }
    Ok(())
}

/// The error for a line among an object's members that is none of their
/// forms, categorized as the reference SDKs categorize it, so that callers
/// matching on their prefixes keep working: a line they would not read as a
/// `key=value` or `key[N]: ...` member (see [`member_shaped`]) is a
/// positional inline body with no row before it when it holds a `|`
/// (`orphan_inline_attachment`), else `invalid_line` ("unexpected content in
/// object body"). A member-shaped line keeps `error`: its key or bracket is
/// what is malformed (the references read any text before `=` as a key;
/// §2a.1 asks for a bare or quoted one).
#[cold]
fn not_a_member(ln: &Ln<'_>, error: Error) -> Error {
    let text = ln.text();
    if error.kind() != ErrorKind::InvalidSyntax || member_shaped(text) {
        return error;
    }
    let shown = crate::error::excerpt(text);
    if text.contains('|') {
        return ln.error(
            ErrorKind::OrphanInlineAttachment,
            ln.indent,
            alloc::format!("positional inline body with no row before it: `{shown}`"),
        );
    }
    ln.error(
        ErrorKind::InvalidLine,
        ln.indent,
        alloc::format!(
            "unexpected content in object body: `{shown}` is not a `key=value` line, a `## section` or an inline array"
        ),
    )
}

/// Whether the references read an object-body line as a member: `key=value`
/// (an `=` right after a quoted key, or past the first byte of a line whose
/// first `[` does not come before it) or an inline array (a `[` right after a
/// quoted key, or anywhere past the first byte, whose `]` is followed by `: `
/// or ends the line after `:`).
fn member_shaped(text: &str) -> bool {
    let b = text.as_bytes();
    let after_quoted_key = (b.first() == Some(&b'"')).then(|| {
        let mut i = 1;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                b'"' => return i + 1,
                _ => i += 1,
            }
        }
        b.len()
    });
    let (equals, bracket) = match after_quoted_key {
        Some(end) => (
            (b.get(end) == Some(&b'=')).then_some(end),
            (b.get(end) == Some(&b'[')).then_some(end),
        ),
        None => {
            let bracket = text.find('[');
            let equals = text
                .find('=')
                .filter(|&e| e > 0 && bracket.is_none_or(|k| e < k));
            (equals, bracket.filter(|&k| k > 0))
        }
    };
    if equals.is_some() {
        return true;
    }
    let Some(open) = bracket else { return false };
    if text.starts_with('@') || text.starts_with("##") {
        return false;
    }
    match text[open..].find(']') {
        Some(close) => {
            let after = &text[open + close + 1..];
            after.starts_with(": ") || after == ":"
        }
        None => false,
    }
}
