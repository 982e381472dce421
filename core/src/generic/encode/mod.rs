//! The buffered generic encoder (spec §7): one [`Value`] in, canonical GCF out.
//!
//! The encoder walks the value once, writing straight into a [`Sink`]; the
//! only allocations are one plan per table (its field union and row list,
//! borrowing every name from the value) and one scratch row per table.
//!
//! # Canonical choices
//!
//! Where §7 leaves a choice (a MAY), this encoder makes the one the
//! conformance fixtures pin, deterministically:
//!
//! - **Objects** (§7.2, §7.2a): an object with at least two members, all of
//!   them objects, whose value-field union has at least one name without `>`
//!   is a keyed table `[N:]{key,...}`; the key-column label is `key` with `_`
//!   prepended until it is not in the value-field union (§7.2a.2). Any other
//!   object is `key=value` lines and `## key` sections.
//! - **Arrays** (§7.3): empty → `[0]`; all scalars → inline `[N]: a,b`; all
//!   objects with at least one `>`-free field → tabular; otherwise expanded.
//! - **Table fields**, per field over all rows (see `table.rs`):
//!   a `>` name is never a column and is written as a `."a>b"` attachment
//!   after the row's other attachments (§7.4.6.1 rule 4); a field whose
//!   present values are all `null` or objects of one flattenable shape is
//!   flattened into `"a>b"` path columns (§7.4.6), which the fixtures prefer
//!   over inline schemas whatever the member count; failing that, a field
//!   whose row-0 value is an object of three or more scalars, with every
//!   present value an object with exactly those keys, uses an inline schema
//!   `^{...}` (§7.4.5.1); otherwise scalars go in the cell and containers are
//!   `^` with a traditional attachment. An array field whose row-0 value and
//!   every later non-null value are non-empty tables of scalar cells with one
//!   field list declares it on row 0 only (shared schema, §7.4.5.3).
//! - **Rows** take an `@id` prefix only when they carry an attachment; their
//!   attachments follow in header order (inline bodies and `.field` blocks
//!   interleaved), then the `>` fields in union order.
//! - **Indentation**: object sections, expanded items and keyed/tabular
//!   bodies of items indent two spaces; tabular rows sit at their header's
//!   indentation; attachment headers and inline bodies sit at their row's
//!   indentation and attachment bodies four spaces beneath it (§4.1, §7.4.4).
//!
//! One deliberate difference from the reference encoders: a path group whose
//! leaves are all `null` in some row is never flattened (§7.4.6.3 requires a
//! round trip, and §7.4.6.2 rule 5 would decode it as a null object).

mod table;

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::number::NumberBuffer;
use crate::sink::Sink;
use crate::text::{write_escaped, write_quoted};

use super::scalar::{write_key, write_scalar, write_string};
use super::{Map, Value};
use table::{Kind, TablePlan};

/// Encodes `value` as a generic-profile payload with default [`Limits`].
///
/// ```
/// use gcf_core::generic::{self, Map, Value};
///
/// let mut row = |id: i64, name: &str| {
///     let mut m = Map::new();
///     m.insert("id", Value::Int(id));
///     m.insert("name", Value::from(name));
///     Value::Object(m)
/// };
/// let text = generic::encode(&Value::Array(vec![row(1, "Alice"), row(2, "Bob")]))?;
/// assert_eq!(text, "GCF profile=generic\n## [2]{id,name}\n1|Alice\n2|Bob\n");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn encode(value: &Value) -> Result<String, Error> {
    Encoder::new().encode(value)
}

/// Encodes `value` into `sink` with default [`Limits`].
///
/// ```
/// use gcf_core::generic::{self, Value};
///
/// let mut out: Vec<u8> = Vec::new();
/// generic::encode_to(&Value::from("true"), &mut out)?;
/// assert_eq!(out, b"GCF profile=generic\n=\"true\"\n");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn encode_to<K: Sink + ?Sized>(value: &Value, sink: &mut K) -> Result<(), Error> {
    Encoder::new().encode_to(value, sink)
}

/// A configured generic encoder.
///
/// ```
/// use gcf_core::generic::{Encoder, Map, Value};
/// use gcf_core::{ErrorKind, Limits};
///
/// let mut m = Map::new();
/// m.insert("tags", Value::Array(vec![Value::from("a"), Value::from("b,c")]));
/// let enc = Encoder::new().tool("search");
/// assert_eq!(enc.encode(&Value::Object(m.clone()))?, "GCF profile=generic tool=search\ntags[2]: a,\"b,c\"\n");
///
/// let shallow = Encoder::new().limits(Limits { max_depth: 1, ..Limits::default() });
/// assert_eq!(shallow.encode(&Value::Object(m)).unwrap_err().kind(), ErrorKind::LimitExceeded);
/// # Ok::<(), gcf_core::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    limits: Limits,
    tool: Option<String>,
}

impl Encoder {
    /// An encoder with default limits and no `tool=` header field.
    pub fn new() -> Self {
        Encoder::default()
    }

    /// Sets the limits; only `max_depth` constrains encoding.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Names the producing tool in the header (`tool=NAME`, §3.3). The name
    /// must be printable non-whitespace ASCII; encoding fails with
    /// [`ErrorKind::InvalidInput`] otherwise.
    pub fn tool(mut self, name: &str) -> Self {
        self.tool = Some(String::from(name));
        self
    }

    /// Encodes `value` into a new string.
    pub fn encode(&self, value: &Value) -> Result<String, Error> {
        let mut out = String::new();
        self.encode_to(value, &mut out)?;
        Ok(out)
    }

    /// Encodes `value` into `sink`.
    ///
    /// On error, the sink may already hold part of the payload.
    pub fn encode_to<K: Sink + ?Sized>(&self, value: &Value, sink: &mut K) -> Result<(), Error> {
        if let Some(tool) = &self.tool {
            if tool.is_empty() || !tool.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    "a header tool name must be non-empty printable ASCII without whitespace",
                ));
            }
        }
        let mut w = Writer { sink, numbers: NumberBuffer::new(), max_depth: self.limits.max_depth };
        w.raw("GCF profile=generic")?;
        if let Some(tool) = &self.tool {
            w.raw(" tool=")?;
            w.raw(tool)?;
        }
        w.raw("\n")?;
        w.root(value)
    }
}

const SPACES: &str = "                                                                ";

/// The array forms of §7.3.
enum ArrayForm<'a> {
    Empty,
    Inline,
    Table(TablePlan<'a>),
    Expanded,
}

struct Writer<'k, K: Sink + ?Sized> {
    sink: &'k mut K,
    numbers: NumberBuffer,
    max_depth: usize,
}

impl<K: Sink + ?Sized> Writer<'_, K> {
    #[inline]
    fn raw(&mut self, s: &str) -> Result<(), Error> {
        self.sink.write_str(s).map_err(Into::into)
    }

    #[inline]
    fn indent(&mut self, mut n: usize) -> Result<(), Error> {
        while n > 0 {
            let take = n.min(SPACES.len());
            self.raw(&SPACES[..take])?;
            n -= take;
        }
        Ok(())
    }

    #[inline]
    fn count(&mut self, n: usize) -> Result<(), Error> {
        self.raw(itoa::Buffer::new().format(n))
    }

    #[inline]
    fn scalar(&mut self, v: &Value) -> Result<(), Error> {
        write_scalar(self.sink, v, &mut self.numbers).map(drop)
    }

    /// Fails when a container at `depth` (the root is 1) exceeds the limit.
    #[inline]
    fn enter(&self, depth: usize) -> Result<(), Error> {
        if depth > self.max_depth {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                alloc::format!("value nests deeper than the configured maximum depth {}", self.max_depth),
            ));
        }
        Ok(())
    }

    /// How many levels a table's field values may still nest: used to bound
    /// the shape analysis, which must never recurse further than encoding.
    fn budget(&self, depth: usize) -> usize {
        self.max_depth.saturating_sub(depth)
    }

    fn root(&mut self, value: &Value) -> Result<(), Error> {
        match value {
            Value::Object(map) => {
                self.enter(1)?;
                match self.keyed_plan(map, 1) {
                    Some(plan) => {
                        self.raw("## ")?;
                        self.keyed_header(&plan)?;
                        self.table_rows(&plan, 0, 1)
                    }
                    None => self.members(map, 0, 1),
                }
            }
            Value::Array(items) => {
                self.enter(1)?;
                self.raw("## ")?;
                self.array_tail(items, 0, 1, false)
            }
            scalar => {
                self.raw("=")?;
                self.scalar(scalar)?;
                self.raw("\n")
            }
        }
    }

    /// The members of `map` (at `depth`) as lines at `indent` (§7.2).
    fn members(&mut self, map: &Map, indent: usize, depth: usize) -> Result<(), Error> {
        for (key, value) in map.iter() {
            match value {
                Value::Object(inner) => {
                    self.enter(depth + 1)?;
                    self.indent(indent)?;
                    self.raw("## ")?;
                    write_key(self.sink, key)?;
                    match self.keyed_plan(inner, depth + 1) {
                        Some(plan) => {
                            self.raw(" ")?;
                            self.keyed_header(&plan)?;
                            self.table_rows(&plan, indent, depth + 1)?;
                        }
                        None => {
                            self.raw("\n")?;
                            self.members(inner, indent + 2, depth + 1)?;
                        }
                    }
                }
                Value::Array(items) => {
                    self.enter(depth + 1)?;
                    self.indent(indent)?;
                    match self.array_form(items, depth + 1) {
                        ArrayForm::Inline => {
                            write_key(self.sink, key)?;
                            self.inline_array(items)?;
                        }
                        form => {
                            self.raw("## ")?;
                            write_key(self.sink, key)?;
                            self.raw(" ")?;
                            self.array_body(items, form, indent, depth + 1, false)?;
                        }
                    }
                }
                scalar => {
                    self.indent(indent)?;
                    write_key(self.sink, key)?;
                    self.raw("=")?;
                    self.scalar(scalar)?;
                    self.raw("\n")?;
                }
            }
        }
        Ok(())
    }

    fn array_form<'a>(&self, items: &'a [Value], depth: usize) -> ArrayForm<'a> {
        if items.is_empty() {
            return ArrayForm::Empty;
        }
        if items.iter().all(Value::is_scalar) {
            return ArrayForm::Inline;
        }
        let mut rows = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Value::Object(m) => rows.push(m),
                _ => return ArrayForm::Expanded,
            }
        }
        match TablePlan::new(rows, Vec::new(), self.budget(depth + 1)) {
            Some(plan) => ArrayForm::Table(plan),
            None => ArrayForm::Expanded,
        }
    }

    /// The keyed-table plan of `map` (at `depth`), if it is one (§7.2a.1).
    fn keyed_plan<'a>(&self, map: &'a Map, depth: usize) -> Option<TablePlan<'a>> {
        if map.len() < 2 {
            return None;
        }
        let mut rows = Vec::with_capacity(map.len());
        let mut keys = Vec::with_capacity(map.len());
        for (key, value) in map.iter() {
            let Value::Object(m) = value else { return None };
            rows.push(m);
            keys.push(key);
        }
        TablePlan::new(rows, keys, self.budget(depth + 1))
    }

    /// An array after its name (`## name ` or `## ` or `@N ` or `.name `):
    /// `[N]...` and the body at `indent`.
    fn array_tail(&mut self, items: &[Value], indent: usize, depth: usize, omit_fields: bool) -> Result<(), Error> {
        let form = self.array_form(items, depth);
        self.array_body(items, form, indent, depth, omit_fields)
    }

    fn array_body(
        &mut self,
        items: &[Value],
        form: ArrayForm<'_>,
        indent: usize,
        depth: usize,
        omit_fields: bool,
    ) -> Result<(), Error> {
        match form {
            ArrayForm::Empty => self.raw("[0]\n"),
            ArrayForm::Inline => self.inline_array(items),
            ArrayForm::Table(plan) => {
                self.raw("[")?;
                self.count(items.len())?;
                self.raw("]")?;
                if omit_fields {
                    self.raw("\n")?;
                } else {
                    self.field_decl(&plan, None)?;
                }
                self.table_rows(&plan, indent, depth)
            }
            ArrayForm::Expanded => {
                self.raw("[")?;
                self.count(items.len())?;
                self.raw("]\n")?;
                for (i, item) in items.iter().enumerate() {
                    self.indent(indent)?;
                    self.raw("@")?;
                    self.count(i)?;
                    self.raw(" ")?;
                    self.value_tail(item, indent + 2, depth + 1, false)?;
                }
                Ok(())
            }
        }
    }

    /// `[N]: a,b,c` (§7.5).
    fn inline_array(&mut self, items: &[Value]) -> Result<(), Error> {
        self.raw("[")?;
        self.count(items.len())?;
        self.raw("]:")?;
        for (i, item) in items.iter().enumerate() {
            self.raw(if i == 0 { " " } else { "," })?;
            self.scalar(item)?;
        }
        self.raw("\n")
    }

    /// Any value after an item or attachment prefix (`@N ` / `.name `):
    /// `=scalar`, `{}` with members, a keyed table, or an array, with the body
    /// at `indent`. `value` sits at `depth`.
    fn value_tail(&mut self, value: &Value, indent: usize, depth: usize, omit_fields: bool) -> Result<(), Error> {
        match value {
            Value::Object(map) => {
                self.enter(depth)?;
                match self.keyed_plan(map, depth) {
                    Some(plan) => {
                        self.keyed_header(&plan)?;
                        self.table_rows(&plan, indent, depth)
                    }
                    None => {
                        self.raw("{}\n")?;
                        self.members(map, indent, depth)
                    }
                }
            }
            Value::Array(items) => {
                self.enter(depth)?;
                self.array_tail(items, indent, depth, omit_fields)
            }
            scalar => {
                self.raw("=")?;
                self.scalar(scalar)?;
                self.raw("\n")
            }
        }
    }

    /// `[N:]{label,fields}` and a line feed.
    fn keyed_header(&mut self, plan: &TablePlan<'_>) -> Result<(), Error> {
        self.raw("[")?;
        self.count(plan.rows.len())?;
        self.raw(":]")?;
        // `key`, with `_` prepended while it names a value field (§7.2a.2).
        let mut underscores = 0usize;
        while plan.fields.iter().any(|f| is_label(f.name, underscores)) {
            underscores += 1;
        }
        let mut label = String::with_capacity(underscores + 3);
        label.extend(core::iter::repeat_n('_', underscores));
        label.push_str("key");
        self.field_decl(plan, Some(&label))
    }

    /// `{fields}` (with a leading key-column label for keyed maps) and a line feed.
    fn field_decl(&mut self, plan: &TablePlan<'_>, label: Option<&str>) -> Result<(), Error> {
        self.raw("{")?;
        let mut first = true;
        if let Some(label) = label {
            write_key(self.sink, label)?;
            first = false;
        }
        let mut path: Vec<&str> = Vec::new();
        for field in &plan.fields {
            match &field.kind {
                Kind::Excluded => {}
                Kind::Flatten { proto, .. } => {
                    path.clear();
                    path.push(field.name);
                    self.path_columns(proto, &mut path, &mut first)?;
                }
                Kind::Plain { .. } | Kind::Inline { .. } => {
                    if !first {
                        self.raw(",")?;
                    }
                    first = false;
                    write_key(self.sink, field.name)?;
                }
            }
        }
        self.raw("}\n")
    }

    /// One quoted `"a>b>c"` column per scalar leaf of `obj` under `path`.
    fn path_columns<'a>(&mut self, obj: &'a Map, path: &mut Vec<&'a str>, first: &mut bool) -> Result<(), Error> {
        for (key, value) in obj.iter() {
            path.push(key);
            if let Value::Object(inner) = value {
                self.path_columns(inner, path, first)?;
            } else {
                if !*first {
                    self.raw(",")?;
                }
                *first = false;
                self.raw("\"")?;
                for (i, segment) in path.iter().enumerate() {
                    if i > 0 {
                        self.raw(">")?;
                    }
                    write_escaped(self.sink, segment)?;
                }
                self.raw("\"")?;
            }
            path.pop();
        }
        Ok(())
    }

    /// The rows of a table (at `depth`) at `indent`, each followed by its
    /// attachments (§7.4, §7.2a.3).
    fn table_rows<'a>(&mut self, plan: &TablePlan<'a>, indent: usize, depth: usize) -> Result<(), Error> {
        let mut cells: Vec<Option<&'a Value>> = Vec::with_capacity(plan.fields.len());
        let mut declared_inline: Vec<bool> = alloc::vec![false; plan.fields.len()];
        let row_depth = depth + 1;
        for (r, row) in plan.rows.iter().enumerate() {
            self.enter(row_depth)?;
            let attached = plan.fill_row(row, &mut cells);
            self.indent(indent)?;
            if attached {
                self.raw("@")?;
                self.count(r)?;
                self.raw(" ")?;
            }
            let mut first = true;
            if let Some(key) = plan.keys.get(r) {
                write_string(self.sink, key)?;
                first = false;
            }
            for (f, field) in plan.fields.iter().enumerate() {
                let cell = cells.get(f).copied().flatten();
                match &field.kind {
                    Kind::Excluded => {}
                    Kind::Flatten { leaves, .. } => match cell {
                        Some(Value::Object(obj)) => self.leaf_cells(obj, &mut first)?,
                        Some(_) => self.repeat_cell("-", *leaves, &mut first)?,
                        None => self.repeat_cell("~", *leaves, &mut first)?,
                    },
                    Kind::Inline { .. } => match cell {
                        Some(Value::Object(_)) => {
                            self.separator(&mut first)?;
                            let declared = declared_inline.get_mut(f);
                            if let (Some(flag @ false), Kind::Inline { proto }) = (declared, &field.kind) {
                                *flag = true;
                                self.raw("^{")?;
                                for (i, key) in proto.keys().enumerate() {
                                    if i > 0 {
                                        self.raw(",")?;
                                    }
                                    write_key(self.sink, key)?;
                                }
                                self.raw("}")?;
                            } else {
                                self.raw("^")?;
                            }
                        }
                        Some(v) => {
                            self.separator(&mut first)?;
                            self.scalar(v)?;
                        }
                        None => self.repeat_cell("~", 1, &mut first)?,
                    },
                    Kind::Plain { .. } => {
                        self.separator(&mut first)?;
                        match cell {
                            None => self.raw("~")?,
                            Some(v) if v.is_scalar() => self.scalar(v)?,
                            Some(_) => self.raw("^")?,
                        }
                    }
                }
            }
            self.raw("\n")?;
            if !attached {
                continue;
            }
            for (f, field) in plan.fields.iter().enumerate() {
                let Some(value) = cells.get(f).copied().flatten() else {
                    continue;
                };
                match &field.kind {
                    Kind::Plain { shared } if !value.is_scalar() => {
                        self.indent(indent)?;
                        self.raw(".")?;
                        write_key(self.sink, field.name)?;
                        self.raw(" ")?;
                        self.value_tail(value, indent + 4, row_depth + 1, *shared && r > 0)?;
                    }
                    Kind::Inline { .. } => {
                        if let Value::Object(obj) = value {
                            self.enter(row_depth + 1)?;
                            self.indent(indent)?;
                            for (i, v) in obj.values().enumerate() {
                                if i > 0 {
                                    self.raw("|")?;
                                }
                                self.scalar(v)?;
                            }
                            self.raw("\n")?;
                        }
                    }
                    _ => {}
                }
            }
            for (f, field) in plan.fields.iter().enumerate() {
                if let (Kind::Excluded, Some(value)) = (&field.kind, cells.get(f).copied().flatten()) {
                    self.indent(indent)?;
                    self.raw(".")?;
                    write_quoted(self.sink, field.name)?;
                    self.raw(" ")?;
                    self.value_tail(value, indent + 4, row_depth + 1, false)?;
                }
            }
        }
        Ok(())
    }

    #[inline]
    fn separator(&mut self, first: &mut bool) -> Result<(), Error> {
        if !*first {
            self.raw("|")?;
        }
        *first = false;
        Ok(())
    }

    fn repeat_cell(&mut self, token: &str, n: usize, first: &mut bool) -> Result<(), Error> {
        for _ in 0..n {
            self.separator(first)?;
            self.raw(token)?;
        }
        Ok(())
    }

    /// The scalar leaves of a flattened object, in key order.
    fn leaf_cells(&mut self, obj: &Map, first: &mut bool) -> Result<(), Error> {
        for value in obj.values() {
            if let Value::Object(inner) = value {
                self.leaf_cells(inner, first)?;
            } else {
                self.separator(first)?;
                self.scalar(value)?;
            }
        }
        Ok(())
    }
}

/// Whether `name` is `key` preceded by exactly `underscores` underscores.
fn is_label(name: &str, underscores: usize) -> bool {
    name.len() == underscores + 3 && name.ends_with("key") && name.bytes().take(underscores).all(|b| b == b'_')
}
