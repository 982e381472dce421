//! The buffered generic encoder (spec §7): one [`Value`] in, canonical GCF out.
//!
//! The encoder walks the value once, writing into a fixed chunk buffer that
//! it hands to the [`Sink`] whenever it fills (so a callback sink sees a few
//! large writes, not one per piece); the only other allocations are one plan
//! per table (its field union and row list, borrowing every name from the
//! value) and one scratch row per table. Rows of scalars are laid out in
//! the buffer with the streaming writer's row assembly.
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
//! - **Constant columns** (on by default, [`Encoder::constant_columns`]): a
//!   table at the root or under a member name, with two or more rows,
//!   declares a plain column that holds the same scalar in every row once as
//!   `name=value` and leaves it out of the rows, as the `gcf` 3.1.0 crate and
//!   gcf-python 2.8.0 do ("§7.4.7" of the fleet's spec v3.6.0; the rules are
//!   in `constant.rs`).
//! - **Rows** take an `@id` prefix only when they carry an attachment; their
//!   attachments follow in header order (inline bodies and `.field` blocks
//!   interleaved), then the `>` fields in union order.
//! - **Indentation**: object sections, expanded items and keyed/tabular
//!   bodies of items indent two spaces; tabular rows sit at their header's
//!   indentation; attachment headers and inline bodies sit at their row's
//!   indentation and attachment bodies four spaces beneath it (§4.1, §7.4.4).
//!
//! # Where this encoder departs from the reference encoder (gcf 3.1.0)
//!
//! The spec wins; `tests/generic_encode.rs` checks that every difference
//! found by its differential run falls in one of these classes:
//!
//! - A path group whose leaves are all `null` in some row (at any level, as
//!   `{"a": {"x": null}}`) is never flattened: §7.4.6.2 rule 5 decodes an
//!   all-`-` leaf group as a null object, so §7.4.6.3's round trip would fail.
//!   The reference checks this only for the top-level object.
//! - A field that is `null` in some row gets no inline schema (§7.4.5.1: "A
//!   present null value makes the field ineligible").
//! - No shared array schema for arrays whose members have nested values or
//!   `>` names: the reference shares one there and writes rows wider than the
//!   schema, which no decoder accepts.
//!
//! Recursion is bounded by [`Limits::max_depth`] (the root container is
//! depth 1); deeper input fails with [`ErrorKind::LimitExceeded`]. Each level
//! costs a few stack frames, so keep the limit in the hundreds.

mod constant;
mod grouped;
mod table;

use alloc::string::String;
use alloc::vec::Vec;

use crate::buffer::{Buffered, DEFAULT_CAPACITY};
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::number::NumberBuffer;
use crate::sink::Sink;
use crate::text::{write_escaped, write_quoted};

use super::row::{assemble_row, Assembled};
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

/// Encodes an array of flat records as a value-grouped table: `key_field`
/// is the records' unique identity and `group_field` the column they are
/// clustered by; the same as `Encoder::new().group_by(key_field,
/// group_field).encode(value)` ([`Encoder::group_by`]).
///
/// The layout, byte-identical with the `gcf` 3.1.0 crate's and
/// gcf-python 2.8.0's `encode_generic_grouped` (the GCF fleet's "§7.4.8"):
///
/// - The field declaration is the records' field union in first-appearance
///   order; the key column is marked `@`, the grouping column is declared
///   plainly, and every other column holding one scalar in every record (of
///   two or more) is a constant column `name=value`. A ` group=<column>`
///   clause follows.
/// - Clusters come in the order their value first appears, each a
///   `<column>=<value> [<count>]` subheader and its records in input order;
///   a row holds the remaining columns (the value, `-` for null, `~` for an
///   absent field).
///
/// Refused with [`ErrorKind::InvalidInput`], in this order (the
/// references'): not an array; an empty array; the same key and group
/// field; an item that is not an object; records without fields; a key or
/// group field no record has; then per record, a nested value (grouped
/// rows carry no attachments), a missing or null key, a key written like an
/// earlier one (`1` and `1.0` are one key, `1` and `"1"` are two). A record
/// without the group field is refused too, where the references file it
/// under a `null` group that decodes to `group: null` (not the input).
///
/// ```
/// use gcf_core::generic::{self, Map, Value};
/// use gcf_core::ErrorKind;
///
/// let file = |path: &str, kind: &str| {
///     let mut m = Map::new();
///     m.insert("path", Value::from(path));
///     m.insert("kind", Value::from(kind));
///     Value::Object(m)
/// };
/// let files = Value::Array(vec![file("a.rs", "src"), file("b.md", "doc"), file("c.rs", "src")]);
/// assert_eq!(
///     generic::encode_grouped(&files, "path", "kind")?,
///     "GCF profile=generic\n## [3]{@path,kind} group=kind\nkind=src [2]\na.rs\nc.rs\nkind=doc [1]\nb.md\n"
/// );
/// let err = generic::encode_grouped(&files, "kind", "path").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::InvalidInput); // "src" twice: not a key
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn encode_grouped(value: &Value, key_field: &str, group_field: &str) -> Result<String, Error> {
    Encoder::new()
        .group_by(key_field, group_field)
        .encode(value)
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
    /// Constant-column factoring turned off (it is on by default).
    unfactored: bool,
    /// Path-column flattening turned off (it is on by default).
    unflattened: bool,
    /// The key and group fields of a value-grouped table, if asked for.
    group_by: Option<(String, String)>,
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

    /// Whether tables declare a column that holds the same scalar in every
    /// row once, as `name=value` in the field declaration, instead of
    /// repeating it in every row (constant-column factoring, "§7.4.7" of the
    /// GCF fleet). On by default, as in the `gcf` 3.1.0 crate and
    /// gcf-python 2.8.0, whose output this matches byte for byte; turn it off
    /// for consumers whose decoders predate it (the output is then exactly
    /// what this encoder wrote before factoring existed).
    ///
    /// Only tables at the root or under an object member's name factor
    /// constants, never keyed maps, attachment tables or expanded items; a
    /// table needs two rows, and the last column stays a per-row column if
    /// every column is constant. The rules are spelled out in the module
    /// docs.
    ///
    /// ```
    /// use gcf_core::generic::{Encoder, Map, Value};
    ///
    /// let row = |id: i64| {
    ///     let mut m = Map::new();
    ///     m.insert("id", Value::Int(id));
    ///     m.insert("type", Value::from("file"));
    ///     Value::Object(m)
    /// };
    /// let rows = Value::Array(vec![row(1), row(2)]);
    /// assert_eq!(Encoder::new().encode(&rows)?, "GCF profile=generic\n## [2]{id,type=file}\n1\n2\n");
    /// assert_eq!(
    ///     Encoder::new().constant_columns(false).encode(&rows)?,
    ///     "GCF profile=generic\n## [2]{id,type}\n1|file\n2|file\n"
    /// );
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn constant_columns(mut self, on: bool) -> Self {
        self.unfactored = !on;
        self
    }

    /// Whether table fields whose values are objects of one fixed shape are
    /// written as `"a>b"` path columns (§7.4.6). On by default; turned off,
    /// such fields take the next form that fits (an inline schema or an
    /// attachment), as the TypeScript package's `noFlatten` option asks.
    ///
    /// ```
    /// use gcf_core::generic::{Encoder, Map, Value};
    ///
    /// let row = |id: i64| {
    ///     let mut inner = Map::new();
    ///     inner.insert("name", Value::from("x"));
    ///     let mut m = Map::new();
    ///     m.insert("id", Value::Int(id));
    ///     m.insert("owner", Value::Object(inner));
    ///     Value::Object(m)
    /// };
    /// let rows = Value::Array(vec![row(1), row(2)]);
    /// assert!(Encoder::new().encode(&rows)?.contains("\"owner>name\""));
    /// assert!(!Encoder::new().flatten(false).encode(&rows)?.contains('>'));
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn flatten(mut self, on: bool) -> Self {
        self.unflattened = !on;
        self
    }

    /// Writes the value, which must be an array of flat records, as a
    /// value-grouped table (the GCF fleet's "§7.4.8"), byte-identical with
    /// the `gcf` 3.1.0 crate's and gcf-python 2.8.0's
    /// `encode_generic_grouped`: `key_field` is the records' unique identity
    /// (marked `@`), and the records are clustered by the value of
    /// `group_field`, written once per cluster. Other constant columns are
    /// factored whatever [`constant_columns`](Self::constant_columns) says,
    /// as in the references.
    ///
    /// Encoding fails with [`ErrorKind::InvalidInput`] when the value is not
    /// a non-empty array of objects, the fields are the same, a field is in
    /// no record, a record holds a nested value, lacks the key or the group
    /// field, or repeats a key: see [`encode_grouped`] for the layout and
    /// the refusals.
    ///
    /// ```
    /// use gcf_core::generic::{Encoder, Map, Value};
    ///
    /// let issue = |id: i64, state: &str| {
    ///     let mut m = Map::new();
    ///     m.insert("id", Value::Int(id));
    ///     m.insert("state", Value::from(state));
    ///     m.insert("repo", Value::from("core"));
    ///     Value::Object(m)
    /// };
    /// let issues = Value::Array(vec![issue(1, "open"), issue(2, "closed"), issue(3, "open")]);
    /// assert_eq!(
    ///     Encoder::new().group_by("id", "state").encode(&issues)?,
    ///     "GCF profile=generic\n## [3]{@id,state,repo=core} group=state\n\
    ///      state=open [2]\n1\n3\nstate=closed [1]\n2\n"
    /// );
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn group_by(mut self, key_field: &str, group_field: &str) -> Self {
        self.group_by = Some((String::from(key_field), String::from(group_field)));
        self
    }

    /// Encodes `value` into a new string.
    pub fn encode(&self, value: &Value) -> Result<String, Error> {
        // Bytes first, validated once at the end: a `String` sink would check
        // every small run it is handed.
        let mut out = Vec::new();
        self.encode_to(value, &mut out)?;
        String::from_utf8(out)
            .map_err(|_| Error::new(ErrorKind::InvalidState, "encoder produced invalid UTF-8"))
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
        // A grouped table is checked whole before anything is written.
        let grouped = match &self.group_by {
            Some((key, group)) => Some(grouped::GroupedPlan::new(value, key, group)?),
            None => None,
        };
        let mut w = Writer {
            sink: Buffered::growing(sink, DEFAULT_CAPACITY),
            numbers: NumberBuffer::new(),
            max_depth: self.limits.max_depth,
            fast_tables: true,
            factor: !self.unfactored,
            flatten: !self.unflattened,
        };
        w.raw("GCF profile=generic")?;
        if let Some(tool) = &self.tool {
            w.raw(" tool=")?;
            w.raw(tool)?;
        }
        w.raw("\n")?;
        match &grouped {
            Some(plan) => w.grouped(plan)?,
            None => w.root(value)?,
        }
        w.sink.flush()
    }
}

const SPACES: &str = "                                                                ";

/// The keyed-table forms of an object (§7.2a): rows that need no plan (see
/// `ArrayForm::Uniform`), or a plan.
enum Keyed<'a> {
    Uniform(&'a Map),
    Plan(TablePlan<'a>),
}

/// The array forms of §7.3.
enum ArrayForm<'a> {
    Empty,
    Inline,
    /// A table whose rows all have row 0's distinct, `>`-free keys in row
    /// 0's order and only scalar values: every field is a plain column and
    /// every row is its values in order, so no [`TablePlan`] is needed.
    /// With its constant columns, if it has any.
    Uniform(&'a Map, Option<Vec<bool>>),
    Table(TablePlan<'a>),
    Expanded,
}

struct Writer<'k, K: Sink + ?Sized> {
    /// The output, gathered into large writes: most pieces are a few bytes,
    /// and scalar rows are laid out in its free tail in one go
    /// ([`Writer::scalar_row`]).
    sink: Buffered<&'k mut K>,
    numbers: NumberBuffer,
    max_depth: usize,
    /// Whether tables may skip planning when their shape allows
    /// (`ArrayForm::Uniform`); off only in tests, to compare against the
    /// general path.
    fast_tables: bool,
    /// Whether tables at the root and under member names factor constant
    /// columns (`constant.rs`).
    factor: bool,
    /// Whether fixed-shape object fields may become path columns.
    flatten: bool,
}

impl<K: Sink + ?Sized> Writer<'_, K> {
    /// Copies `s` into the buffer's free tail when it fits: most pieces are
    /// constants of a few bytes, copied with a store or two once inlined
    /// (a call into the buffer's general write cost as much again as the
    /// piece itself).
    #[inline(always)]
    fn raw(&mut self, s: &str) -> Result<(), Error> {
        if let Some(dst) = self.sink.tail().get_mut(..s.len()) {
            dst.copy_from_slice(s.as_bytes());
            self.sink.commit(s.len());
            return Ok(());
        }
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

    /// A scalar value as [`write_scalar`] writes it, laid out in the
    /// buffer's free tail as a row of one cell whose LF is left
    /// unpublished: the rows' cell code ([`assemble_row`]), which decides a
    /// string's quoting while copying it and formats numbers in place, with
    /// one room check. A container writes nothing, as with `write_scalar`.
    ///
    /// Inlined into its callers in optimised builds, where the row code
    /// costs a nested value's recursion under 1 KiB of stack a level. Not in
    /// unoptimised ones: there every inlined copy keeps its own stack slots,
    /// and the recursion through [`value_tail`](Self::value_tail),
    /// [`array_tail`](Self::array_tail) and [`array_body`](Self::array_body)
    /// overflowed a 2 MiB thread stack before reaching the default depth
    /// limit of 128.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    fn scalar(&mut self, v: &Value) -> Result<(), Error> {
        if v.is_scalar() {
            let assembled = assemble_row(
                self.sink.tail(),
                &mut self.numbers,
                0,
                None,
                core::iter::once(v),
            )?;
            if let Assembled::Row(len) = assembled {
                self.sink.commit(len - 1);
                return Ok(());
            }
        }
        self.scalar_piecewise(v)
    }

    /// [`scalar`](Self::scalar) when the free tail is too short.
    #[cold]
    #[inline(never)]
    fn scalar_piecewise(&mut self, v: &Value) -> Result<(), Error> {
        write_scalar(&mut self.sink, v, &mut self.numbers).map(drop)
    }

    /// A table row of scalar values (after the keyed-map key, if any) at
    /// `indent`, LF included: laid out in the buffer's free tail with the
    /// row assembly shared with the streaming writer ([`assemble_row`]),
    /// which checks room once per cell rather than once per piece and decides
    /// most strings' quoting while copying them.
    ///
    /// Every value of `row` must be a scalar.
    #[inline]
    fn scalar_row(&mut self, indent: usize, key: Option<&str>, row: &Map) -> Result<(), Error> {
        match assemble_row(
            self.sink.tail(),
            &mut self.numbers,
            indent,
            key,
            row.values(),
        )? {
            Assembled::Row(len) => {
                self.sink.commit(len);
                Ok(())
            }
            Assembled::Stopped(..) => self.scalar_row_after_flush(indent, key, row),
        }
    }

    /// [`scalar_row`](Self::scalar_row) once the free tail is too short:
    /// again on an empty buffer, and piece by piece when even that is too
    /// short (a row longer than the buffer). Nothing of the first attempt
    /// was committed, so the bytes are the same either way.
    #[cold]
    #[inline(never)]
    fn scalar_row_after_flush(
        &mut self,
        indent: usize,
        key: Option<&str>,
        row: &Map,
    ) -> Result<(), Error> {
        self.sink.flush()?;
        let assembled = assemble_row(
            self.sink.tail(),
            &mut self.numbers,
            indent,
            key,
            row.values(),
        )?;
        if let Assembled::Row(len) = assembled {
            self.sink.commit(len);
            return Ok(());
        }
        self.indent(indent)?;
        let mut first = true;
        if let Some(key) = key {
            write_string(&mut self.sink, key)?;
            first = false;
        }
        for value in row.values() {
            self.separator(&mut first)?;
            self.scalar(value)?;
        }
        self.raw("\n")
    }

    /// A table row of scalar values at `indent` without its factored columns
    /// (`left` of them remain), as [`scalar_row`](Self::scalar_row) lays
    /// out a whole one.
    fn unfactored_row(
        &mut self,
        indent: usize,
        row: &Map,
        factored: impl Iterator<Item = bool> + Clone,
        left: usize,
    ) -> Result<(), Error> {
        let cells = || constant::Unfactored::new(row.values(), factored.clone(), left);
        if let Assembled::Row(len) =
            assemble_row(self.sink.tail(), &mut self.numbers, indent, None, cells())?
        {
            self.sink.commit(len);
            return Ok(());
        }
        self.sink.flush()?;
        if let Assembled::Row(len) =
            assemble_row(self.sink.tail(), &mut self.numbers, indent, None, cells())?
        {
            self.sink.commit(len);
            return Ok(());
        }
        self.indent(indent)?;
        let mut first = true;
        for value in cells() {
            self.separator(&mut first)?;
            self.scalar(value)?;
        }
        self.raw("\n")
    }

    /// Fails when a container at `depth` (the root is 1) exceeds the limit.
    #[inline]
    fn enter(&self, depth: usize) -> Result<(), Error> {
        if depth > self.max_depth {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                alloc::format!(
                    "value nests deeper than the configured maximum depth {}",
                    self.max_depth
                ),
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
                    Some(keyed) => {
                        self.raw("## ")?;
                        self.keyed_body(keyed, map, 0, 1)
                    }
                    None => self.members(map, 0, 1),
                }
            }
            Value::Array(items) => {
                self.enter(1)?;
                self.raw("## ")?;
                let form = self.array_form(items, 1, self.factor);
                self.array_body(items, form, 0, 1, false)
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
                    write_key(&mut self.sink, key)?;
                    match self.keyed_plan(inner, depth + 1) {
                        Some(keyed) => {
                            self.raw(" ")?;
                            self.keyed_body(keyed, inner, indent, depth + 1)?;
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
                    match self.array_form(items, depth + 1, self.factor) {
                        ArrayForm::Inline => {
                            write_key(&mut self.sink, key)?;
                            self.inline_array(items)?;
                        }
                        form => {
                            self.raw("## ")?;
                            write_key(&mut self.sink, key)?;
                            self.raw(" ")?;
                            self.array_body(items, form, indent, depth + 1, false)?;
                        }
                    }
                }
                scalar => {
                    self.indent(indent)?;
                    write_key(&mut self.sink, key)?;
                    self.raw("=")?;
                    self.scalar(scalar)?;
                    self.raw("\n")?;
                }
            }
        }
        Ok(())
    }

    /// The form of `items` (at `depth`); a table factors its constant
    /// columns when `factor` says so.
    fn array_form<'a>(&self, items: &'a [Value], depth: usize, factor: bool) -> ArrayForm<'a> {
        if items.is_empty() {
            return ArrayForm::Empty;
        }
        if items.iter().all(Value::is_scalar) {
            return ArrayForm::Inline;
        }
        if !items.iter().all(|i| matches!(i, Value::Object(_))) {
            return ArrayForm::Expanded;
        }
        if let Some(proto) = table::uniform_scalar_rows(items.iter()).filter(|_| self.fast_tables) {
            let constants = if factor {
                constant::uniform_constants(items, proto)
            } else {
                None
            };
            return ArrayForm::Uniform(proto, constants);
        }
        let rows = items.iter().filter_map(Value::as_object).collect();
        match TablePlan::new(
            rows,
            Vec::new(),
            self.budget(depth + 1),
            factor,
            self.flatten,
        ) {
            Some(plan) => ArrayForm::Table(plan),
            None => ArrayForm::Expanded,
        }
    }

    /// The keyed-table plan of `map` (at `depth`), if it is one (§7.2a.1).
    fn keyed_plan<'a>(&self, map: &'a Map, depth: usize) -> Option<Keyed<'a>> {
        // Decide on the cheap conditions before allocating anything: most
        // objects hold a scalar somewhere.
        if map.len() < 2 || !map.values().all(|v| matches!(v, Value::Object(_))) {
            return None;
        }
        if self.fast_tables {
            if let Some(proto) = table::uniform_scalar_rows(map.values()) {
                return Some(Keyed::Uniform(proto));
            }
        }
        let rows = map.values().filter_map(Value::as_object).collect();
        let keys = map.keys().collect();
        TablePlan::new(rows, keys, self.budget(depth + 1), false, self.flatten).map(Keyed::Plan)
    }

    /// A keyed table's `[N:]{label,fields}` header and its rows at `indent`
    /// (the map sits at `depth`).
    fn keyed_body(
        &mut self,
        keyed: Keyed<'_>,
        map: &Map,
        indent: usize,
        depth: usize,
    ) -> Result<(), Error> {
        let proto = match keyed {
            Keyed::Plan(plan) => {
                self.keyed_header(&plan)?;
                return self.table_rows(&plan, indent, depth);
            }
            Keyed::Uniform(proto) => proto,
        };
        // As `keyed_header` and `table_rows` write it for a plan of plain
        // columns in `proto`'s order, with every row aligned.
        self.raw("[")?;
        self.count(map.len())?;
        self.raw(":]{")?;
        let mut underscores = 0usize;
        while proto.keys().any(|k| is_label(k, underscores)) {
            underscores += 1;
        }
        for _ in 0..underscores {
            self.raw("_")?;
        }
        self.raw("key")?;
        for key in proto.keys() {
            self.raw(",")?;
            write_key(&mut self.sink, key)?;
        }
        self.raw("}\n")?;
        self.enter(depth + 1)?;
        for (key, row) in map.iter() {
            if let Value::Object(row) = row {
                self.scalar_row(indent, Some(key), row)?;
            }
        }
        Ok(())
    }

    /// An array after its name (`## name ` or `## ` or `@N ` or `.name `):
    /// `[N]...` and the body at `indent`.
    fn array_tail(
        &mut self,
        items: &[Value],
        indent: usize,
        depth: usize,
        omit_fields: bool,
    ) -> Result<(), Error> {
        // Attachment tables and expanded items never factor constants.
        let form = self.array_form(items, depth, false);
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
            ArrayForm::Uniform(proto, None) => {
                self.raw("[")?;
                self.count(items.len())?;
                self.raw("]")?;
                if omit_fields {
                    self.raw("\n")?;
                } else {
                    self.raw("{")?;
                    for (i, key) in proto.keys().enumerate() {
                        if i > 0 {
                            self.raw(",")?;
                        }
                        write_key(&mut self.sink, key)?;
                    }
                    self.raw("}\n")?;
                }
                // The rows sit one level below the array, as in `table_rows`.
                self.enter(depth + 1)?;
                for item in items {
                    if let Value::Object(row) = item {
                        self.scalar_row(indent, None, row)?;
                    }
                }
                Ok(())
            }
            ArrayForm::Uniform(proto, Some(factored)) => {
                self.raw("[")?;
                self.count(items.len())?;
                self.raw("]{")?;
                for (i, ((key, value), &constant)) in
                    proto.as_slice().iter().zip(&factored).enumerate()
                {
                    if i > 0 {
                        self.raw(",")?;
                    }
                    if constant {
                        constant::write_entry(&mut self.sink, key, value, &mut self.numbers)?;
                    } else {
                        write_key(&mut self.sink, key)?;
                    }
                }
                self.raw("}\n")?;
                self.enter(depth + 1)?;
                let left = factored.iter().filter(|&&c| !c).count();
                for item in items {
                    if let Value::Object(row) = item {
                        self.unfactored_row(indent, row, factored.iter().copied(), left)?;
                    }
                }
                Ok(())
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
    fn value_tail(
        &mut self,
        value: &Value,
        indent: usize,
        depth: usize,
        omit_fields: bool,
    ) -> Result<(), Error> {
        match value {
            Value::Object(map) => {
                self.enter(depth)?;
                match self.keyed_plan(map, depth) {
                    Some(keyed) => self.keyed_body(keyed, map, indent, depth),
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
            write_key(&mut self.sink, label)?;
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
                    write_key(&mut self.sink, field.name)?;
                }
                Kind::Constant { value } => {
                    if !first {
                        self.raw(",")?;
                    }
                    first = false;
                    constant::write_entry(&mut self.sink, field.name, value, &mut self.numbers)?;
                }
            }
        }
        self.raw("}\n")
    }

    /// One quoted `"a>b>c"` column per scalar leaf of `obj` under `path`.
    fn path_columns<'a>(
        &mut self,
        obj: &'a Map,
        path: &mut Vec<&'a str>,
        first: &mut bool,
    ) -> Result<(), Error> {
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
                    write_escaped(&mut self.sink, segment)?;
                }
                self.raw("\"")?;
            }
            path.pop();
        }
        Ok(())
    }

    /// The rows of a table (at `depth`) at `indent`, each followed by its
    /// attachments (§7.4, §7.2a.3).
    fn table_rows<'a>(
        &mut self,
        plan: &TablePlan<'a>,
        indent: usize,
        depth: usize,
    ) -> Result<(), Error> {
        // Allocated only when needed: many nested tables (an order's line
        // items) have only plain scalar rows and inline schemas are rare.
        let mut cells: Vec<Option<&'a Value>> = Vec::new();
        let mut declared_inline: Vec<bool> = Vec::new();
        if plan
            .fields
            .iter()
            .any(|f| matches!(f.kind, Kind::Inline { .. }))
        {
            declared_inline.resize(plan.fields.len(), false);
        }
        let row_depth = depth + 1;
        for (r, row) in plan.rows.iter().enumerate() {
            self.enter(row_depth)?;
            if plan.is_plain_scalar_row(r, row) {
                // The common row: its values in field order, nothing attached.
                if plan.factors() {
                    // Only arrays factor, so there is no key.
                    self.unfactored_row(indent, row, plan.factored(), plan.unfactored)?;
                } else {
                    self.scalar_row(indent, plan.keys.get(r).copied(), row)?;
                }
                continue;
            }
            let attached = plan.fill_row(r, row, &mut cells);
            self.indent(indent)?;
            if attached {
                self.raw("@")?;
                self.count(r)?;
                self.raw(" ")?;
            }
            let mut first = true;
            if let Some(key) = plan.keys.get(r) {
                write_string(&mut self.sink, key)?;
                first = false;
            }
            for (f, field) in plan.fields.iter().enumerate() {
                let cell = cells.get(f).copied().flatten();
                match &field.kind {
                    Kind::Excluded | Kind::Constant { .. } => {}
                    Kind::Flatten { leaves, .. } => match cell {
                        Some(Value::Object(obj)) => self.leaf_cells(obj, &mut first)?,
                        Some(_) => self.repeat_cell("-", *leaves, &mut first)?,
                        None => self.repeat_cell("~", *leaves, &mut first)?,
                    },
                    Kind::Inline { .. } => match cell {
                        Some(Value::Object(_)) => {
                            self.separator(&mut first)?;
                            let declared = declared_inline.get_mut(f);
                            if let (Some(flag @ false), Kind::Inline { proto }) =
                                (declared, &field.kind)
                            {
                                *flag = true;
                                self.raw("^{")?;
                                for (i, key) in proto.keys().enumerate() {
                                    if i > 0 {
                                        self.raw(",")?;
                                    }
                                    write_key(&mut self.sink, key)?;
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
                        write_key(&mut self.sink, field.name)?;
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
                if let (Kind::Excluded, Some(value)) =
                    (&field.kind, cells.get(f).copied().flatten())
                {
                    self.indent(indent)?;
                    self.raw(".")?;
                    write_quoted(&mut self.sink, field.name)?;
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
    name.len() == underscores + 3
        && name.ends_with("key")
        && name.bytes().take(underscores).all(|b| b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::{FnSink, SinkError};
    use alloc::vec;

    /// Test input from JSON text, independent of the `serde_json` feature.
    fn json(text: &str) -> Value {
        fn convert(v: serde_json::Value) -> Value {
            match v {
                serde_json::Value::Null => Value::Null,
                serde_json::Value::Bool(b) => Value::Bool(b),
                serde_json::Value::Number(n) => {
                    let text = alloc::format!("{n}");
                    match crate::number::parse_number(&text).unwrap() {
                        crate::number::ParsedNumber::Int(i) => Value::Int(i),
                        crate::number::ParsedNumber::Float(f) => Value::Float(f),
                    }
                }
                serde_json::Value::String(s) => Value::String(s),
                serde_json::Value::Array(a) => Value::Array(a.into_iter().map(convert).collect()),
                serde_json::Value::Object(o) => {
                    let mut m = Map::new();
                    for (k, v) in o {
                        m.push_unique(k, convert(v));
                    }
                    Value::Object(m)
                }
            }
        }
        convert(serde_json::from_str(text).unwrap())
    }

    fn body(text: &str) -> String {
        let out = encode(&json(text)).unwrap();
        String::from(out.strip_prefix("GCF profile=generic\n").unwrap())
    }

    #[test]
    fn roots() {
        assert_eq!(body("null"), "=-\n");
        assert_eq!(body("\"-\""), "=\"-\"\n");
        assert_eq!(body("1.5"), "=1.5\n");
        assert_eq!(body("{}"), "");
        assert_eq!(body("[]"), "## [0]\n");
        assert_eq!(body("[1,\"a,b\",null]"), "## [3]: 1,\"a,b\",-\n");
        assert_eq!(body("[{}]"), "## [1]\n@0 {}\n");
    }

    #[test]
    fn objects_and_sections() {
        assert_eq!(
            body(r#"{"a":1,"b c":{"d":[],"e":{},"f":[true]},"g":"x"}"#),
            "a=1\n## \"b c\"\n  ## d [0]\n  ## e\n  f[1]: true\ng=x\n"
        );
    }

    #[test]
    fn keyed_maps() {
        assert_eq!(
            body(r#"{"a":{"x":1},"b":{"y":2}}"#),
            "## [2:]{key,x,y}\na|1|~\nb|~|2\n"
        );
        assert_eq!(
            body(r#"{"m":{"a":{"key":1,"_key":2},"b":{"key":3}}}"#),
            "## m [2:]{__key,key,_key}\na|1|2\nb|3|~\n"
        );
        // One member, a scalar member, or only `>` fields: sections.
        assert_eq!(body(r#"{"a":{"x":1}}"#), "## a\n  x=1\n");
        assert_eq!(body(r#"{"a":{"x":1},"b":2}"#), "## a\n  x=1\nb=2\n");
        assert_eq!(
            body(r#"{"a":{"x>y":1},"b":{"x>y":2}}"#),
            "## a\n  \"x>y\"=1\n## b\n  \"x>y\"=2\n"
        );
        // In an expanded item.
        assert_eq!(
            body(r#"[1,{"a":{"x":1},"b":{"x":2}}]"#),
            "## [2]\n@0 =1\n@1 [2:]{key,x}\n  a|1\n  b|2\n"
        );
    }

    #[test]
    fn tables_null_missing_and_union() {
        assert_eq!(
            body(r#"[{"id":1,"n":null},{"id":2,"t":"x"},{}]"#),
            "## [3]{id,n,t}\n1|-|~\n2|~|x\n~|~|~\n"
        );
    }

    #[test]
    fn expanded_items() {
        assert_eq!(
            body(r#"{"m":[1,[2,[3]],{"a":{"b":1}},[{"c":1}],[]]}"#),
            "## m [5]\n@0 =1\n@1 [2]\n  @0 =2\n  @1 [1]: 3\n@2 {}\n  ## a\n    b=1\n@3 [1]{c}\n  1\n@4 [0]\n"
        );
    }

    #[test]
    fn traditional_attachments() {
        assert_eq!(
            body(r#"[{"id":1,"o":{"k":[1]},"a":[]},{"id":2,"o":"s","a":[[1],{"z":{}}]}]"#),
            "## [2]{id,o,a}\n@0 1|^|^\n.o {}\n    k[1]: 1\n.a [0]\n@1 2|s|^\n.a [2]\n    @0 [1]: 1\n    @1 {}\n      ## z\n"
        );
    }

    #[test]
    fn flattening() {
        assert_eq!(
            body(r#"[{"c":{"a":{"x":1},"b":2}},{"c":null},{}]"#),
            "## [3]{\"c>a>x\",\"c>b\"}\n1|2\n-|-\n~|~\n"
        );
        // A group whose leaves are all null would decode as a null object.
        assert_eq!(
            body(r#"[{"c":{"a":{"x":null},"b":2}},{"c":{"a":{"x":1},"b":3}}]"#),
            "## [2]{c}\n@0 ^\n.c {}\n    ## a\n      x=-\n    b=2\n@1 ^\n.c {}\n    ## a\n      x=1\n    b=3\n"
        );
        // Different shapes, empty objects and intermediate nulls do not flatten.
        assert!(body(r#"[{"c":{"a":1}},{"c":{"b":1}}]"#).starts_with("## [2]{c}\n@0 ^\n.c {}"));
        assert!(body(r#"[{"c":{"a":{}}},{"c":{"a":{}}}]"#).starts_with("## [2]{c}\n"));
        assert!(body(r#"[{"c":{"a":{"x":1}}},{"c":{"a":null}}]"#).starts_with("## [2]{c}\n"));
    }

    #[test]
    fn inline_schemas() {
        assert_eq!(
            body(r#"[{"c":{"a>":1,"b":"x|y","c":3}},{},{"c":{"a>":4,"b":5,"c":6}}]"#),
            "## [3]{c}\n@0 ^{\"a>\",b,c}\n1|\"x|y\"|3\n~\n@2 ^\n4|5|6\n"
        );
        // A later null row is a `-` cell under the schema (gcf 3.1.0 and the
        // 2.5.2 npm package write the same).
        assert_eq!(
            body(r#"[{"c":{"a>":1,"b":2,"c":3}},{"c":null}]"#),
            "## [2]{c}\n@0 ^{\"a>\",b,c}\n1|2|3\n-\n"
        );
        // A null or missing first row, or fewer than three keys: traditional.
        assert!(body(r#"[{"c":null},{"c":{"a>":1,"b":2,"c":3}}]"#).contains(".c {}"));
        assert!(body(r#"[{},{"c":{"a>":1,"b":2,"c":3}}]"#).contains(".c {}"));
        assert!(body(r#"[{"c":{"a>":1,"b":2}},{"c":{"a>":1,"b":2}}]"#).contains(".c {}"));
    }

    #[test]
    fn shared_array_schemas() {
        assert_eq!(
            body(r#"[{"t":[{"a":1}]},{"t":null},{"t":[{"a":2},{"a":3}]}]"#),
            "## [3]{t}\n@0 ^\n.t [1]{a}\n    1\n-\n@2 ^\n.t [2]\n    2\n    3\n"
        );
        // A different list anywhere, or an array with nested values: no sharing.
        assert!(body(r#"[{"t":[{"a":1}]},{"t":[{"b":2}]},{"t":[{"a":3}]}]"#)
            .ends_with(".t [1]{a}\n    3\n"));
        assert!(body(r#"[{"t":[{"a":[1]}]},{"t":[{"a":[2]}]}]"#).contains("@1 ^\n.t [1]{a}\n"));
    }

    /// Regression (property test): a literal `a>b` member next to an object
    /// `a` with a member `b` must not share the name `a>b` between a path
    /// column and an attachment.
    #[test]
    fn flattening_yields_to_a_literal_path_name() {
        let input = r#"[{"a":{"b":1,"c":2}},{"a":{"b":3,"c":4},"a>b":5}]"#;
        let out = body(input);
        assert_eq!(
            out,
            "## [2]{a}\n@0 ^\n.a {}\n    b=1\n    c=2\n@1 ^\n.a {}\n    b=3\n    c=4\n.\"a>b\" =5\n"
        );
        let text = encode(&json(input)).unwrap();
        let back = crate::generic::decode(&text).unwrap();
        let want = json(input);
        let rows = |v: &Value| v.as_array().unwrap().len();
        assert_eq!(rows(&back), rows(&want));
        assert_eq!(
            back.as_array().unwrap()[1].as_object().unwrap().get("a>b"),
            Some(&Value::Int(5))
        );
        // A `>` name that is no extension of a field's path leaves it flat.
        assert!(body(r#"[{"a":{"b":1},"ab>c":2}]"#).starts_with("## [1]{\"a>b\"}"));
    }

    /// Regression (property test): an expanded array attachment after the
    /// row-0 tabular one for the same field stays expanded on decode.
    #[test]
    fn expanded_attachment_after_a_tabular_one() {
        let input = r#"[{"t":[{"a":1}]},{"t":[1,[2]]},{"t":[{"a":2}]}]"#;
        let text = encode(&json(input)).unwrap();
        assert!(text.contains("@1 ^\n.t [2]\n    @0 =1\n"), "{text}");
        let back = crate::generic::decode(&text).unwrap();
        assert_eq!(back, json(input));
    }

    #[test]
    fn gt_fields_are_attachments() {
        assert_eq!(
            body(r#"[{"id":1,"a>b":"s","o":[1]},{"id":2}]"#),
            "## [2]{id,o}\n@0 1|^\n.o [1]: 1\n.\"a>b\" =s\n2|~\n"
        );
        assert_eq!(body(r#"[{"a>b":1}]"#), "## [1]\n@0 {}\n  \"a>b\"=1\n");
    }

    #[test]
    fn header_tool() {
        let enc = Encoder::new().tool("my_tool");
        assert_eq!(
            enc.encode(&Value::Null).unwrap(),
            "GCF profile=generic tool=my_tool\n=-\n"
        );
        for bad in ["", "a b", "é"] {
            assert_eq!(
                Encoder::new()
                    .tool(bad)
                    .encode(&Value::Null)
                    .unwrap_err()
                    .kind(),
                ErrorKind::InvalidInput
            );
        }
    }

    #[test]
    fn errors() {
        assert_eq!(
            encode(&Value::Float(f64::NAN)).unwrap_err().kind(),
            ErrorKind::OutOfRange
        );
        let limits = Limits {
            max_depth: 2,
            ..Limits::default()
        };
        let enc = Encoder::new().limits(limits);
        assert!(enc.encode(&json(r#"{"a":{"b":1}}"#)).is_ok());
        for deep in [
            r#"{"a":{"b":{}}}"#,
            r#"[[[1]]]"#,
            r#"[{"a":{"b":1}}]"#,
            r#"{"x":[{"a":[1]}]}"#,
        ] {
            assert_eq!(
                enc.encode(&json(deep)).unwrap_err().kind(),
                ErrorKind::LimitExceeded,
                "{deep}"
            );
        }
        let mut refusing = FnSink(|_: &[u8]| Err(SinkError));
        assert_eq!(
            encode_to(&Value::Null, &mut refusing).unwrap_err().kind(),
            ErrorKind::Sink
        );
    }

    /// `value` encoded with every planning shortcut off.
    fn encode_general(value: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        let mut w = Writer {
            sink: Buffered::new(&mut out, DEFAULT_CAPACITY),
            numbers: NumberBuffer::new(),
            max_depth: Limits::default().max_depth,
            fast_tables: false,
            factor: true,
            flatten: true,
        };
        w.root(value).unwrap();
        w.sink.flush().unwrap();
        drop(w);
        out
    }

    /// The `Uniform` table shortcut writes what planning writes, on tables
    /// that take it and on near misses that must not.
    #[test]
    fn uniform_tables_match_the_general_path() {
        let scalars = [
            Value::Null,
            Value::Bool(true),
            Value::Int(-7),
            Value::Float(2.5),
            Value::Float(1e300),
            Value::from(""),
            Value::from("plain"),
            Value::from("a|b,c"),
            Value::from("true"),
            Value::from("12"),
            Value::from("ünïcödé\u{2028}"),
            Value::from("x".repeat(70).as_str()),
            Value::from(" lead"),
        ];
        let keysets: [&[&str]; 6] = [
            &["a"],
            &["sku", "qty", "price"],
            &["", "b c", "é"],
            &["a>b", "c"],
            &["k", "key", "_key"],
            &["x", "y", "z", "w", "v"],
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut checked = 0;
        for round in 0..3000 {
            let keys = keysets[next(keysets.len())];
            let rows = 1 + next(5);
            let mut items = Vec::new();
            for r in 0..rows {
                let mut m = Map::new();
                for k in keys {
                    m.push_unique(String::from(*k), scalars[next(scalars.len())].clone());
                }
                // Near misses: a container, a missing, extra, duplicate or
                // reordered key, a non-object item.
                match (round % 9, r == rows - 1) {
                    (1, true) => m.push_unique(String::from("extra"), Value::Int(1)),
                    (2, true) => m.push_unique(String::from(keys[0]), Value::Int(1)),
                    (3, true) => {
                        let last = keys[keys.len() - 1];
                        m.insert(last, Value::Array(vec![Value::Int(1)]));
                    }
                    (4, true) => {
                        let mut pairs = m.into_vec();
                        pairs.reverse();
                        m = Map::new();
                        for (k, v) in pairs {
                            m.push_unique(k, v);
                        }
                    }
                    (5, true) => {
                        m = Map::new();
                    }
                    _ => {}
                }
                items.push(if round % 9 == 6 && r == rows - 1 {
                    Value::Int(3)
                } else {
                    Value::Object(m)
                });
            }
            // The same rows as a keyed map's members: at the root, as a
            // section and as an expanded item.
            let member_keys = ["a", "b c", "true", "", "é", "12", "key"];
            let mut keyed = Map::new();
            for (k, item) in member_keys.iter().zip(&items) {
                keyed.push_unique(String::from(*k), item.clone());
            }
            let keyed = Value::Object(keyed);
            let mut section = Map::new();
            section.push_unique(String::from("s"), keyed.clone());
            let expanded = Value::Array(vec![Value::Int(0), keyed.clone()]);
            // Alone, as a member, and as a row field (shared schemas).
            let array = Value::Array(items);
            let mut member = Map::new();
            member.push_unique(String::from("t"), array.clone());
            let mut outer_rows = Vec::new();
            for i in 0..2 {
                let mut row = Map::new();
                row.push_unique(String::from("id"), Value::Int(i));
                row.push_unique(String::from("t"), array.clone());
                outer_rows.push(Value::Object(row));
            }
            for v in [
                array,
                Value::Object(member),
                Value::Array(outer_rows),
                keyed,
                Value::Object(section),
                expanded,
            ] {
                let mut fast = Vec::new();
                encode_to(&v, &mut fast).unwrap();
                let general = encode_general(&v);
                assert_eq!(
                    String::from_utf8(fast).unwrap(),
                    String::from_utf8(general)
                        .unwrap()
                        .replacen("", "GCF profile=generic\n", 1),
                    "{v:?}"
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 18000);
        // The depth limit still applies to the rows.
        let rows = json(r#"{"a":[{"x":1}]}"#);
        let enc = Encoder::new().limits(Limits {
            max_depth: 2,
            ..Limits::default()
        });
        assert_eq!(
            enc.encode(&rows).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
        let keyed = json(r#"{"a":{"m":{"x":1},"n":{"x":2}}}"#);
        assert_eq!(
            enc.encode(&keyed).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
        assert!(Encoder::new()
            .limits(Limits {
                max_depth: 3,
                ..Limits::default()
            })
            .encode(&keyed)
            .is_ok());
    }

    /// Scalar rows that meet the end of the buffer's free tail (which is
    /// then flushed) or are longer than the whole buffer (written piece by
    /// piece) come out as any other row, in tables and keyed maps.
    #[test]
    fn scalar_rows_across_and_beyond_the_buffer() {
        let long = "y".repeat(DEFAULT_CAPACITY + 100);
        let cell = |i: usize| match i % 7 {
            3 => long.clone(),
            _ => alloc::format!("row {i}"),
        };
        let mut items = Vec::new();
        let mut keyed = Map::new();
        let mut want_items = String::from("GCF profile=generic\n## [50]{a,b}\n");
        let mut want_keyed = String::from("GCF profile=generic\n## [50:]{key,a,b}\n");
        for i in 0..50 {
            let mut m = Map::new();
            m.push_unique("a", Value::Int(i as i64));
            m.push_unique("b", Value::from(cell(i)));
            items.push(Value::Object(m.clone()));
            keyed.push_unique(alloc::format!("k{i}"), Value::Object(m));
            want_items.push_str(&alloc::format!("{i}|{}\n", cell(i)));
            want_keyed.push_str(&alloc::format!("k{i}|{i}|{}\n", cell(i)));
        }
        assert_eq!(encode(&Value::Array(items)).unwrap(), want_items);
        assert_eq!(encode(&Value::Object(keyed)).unwrap(), want_keyed);
    }

    #[test]
    fn sink_receives_the_same_bytes() {
        let v = json(r#"{"rows":[{"a":1,"b":{"c":[1,2]}},{"a":2}],"m":{"x":{"k":1},"y":{"k":2}}}"#);
        let mut chunks = vec![];
        encode_to(
            &v,
            &mut FnSink(|b: &[u8]| {
                chunks.extend_from_slice(b);
                Ok(())
            }),
        )
        .unwrap();
        assert_eq!(chunks, encode(&v).unwrap().into_bytes());
    }
}
