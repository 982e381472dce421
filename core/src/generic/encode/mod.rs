//! The buffered generic encoder (spec §7): one value in (a [`Value`], or
//! any [`View`] of one: a binding's host objects, a parsed document),
//! canonical GCF out.
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

use crate::buffer::{Buffered, Collected, DEFAULT_CAPACITY};
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::number::NumberBuffer;
use crate::sink::Sink;
use crate::text::{write_escaped, write_quoted};

use super::row::{assemble_row, Assembled, RowCell};
use super::scalar::{write_cell, write_key, write_string};
use super::view::{Name, Shape, View};
use super::{Cell, Value};
use crate::header::check_header_value;
use constant::KeptCells;
use table::{Flatten, Kind, TablePlan};

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
    /// No path column through a member named `__proto__`, `constructor` or
    /// `prototype` (such paths are allowed by default).
    no_prototype_name_paths: bool,
    /// The key and group fields of a value-grouped table, if asked for.
    group_by: Option<(String, String)>,
}

impl Encoder {
    /// An encoder with default limits and no `tool=` header field.
    pub fn new() -> Self {
        Encoder::default()
    }

    /// Sets the limits. Two constrain encoding, so that what an encoder
    /// writes a decoder with the same limits reads: `max_depth` (nesting)
    /// and `max_fields` (the entries of one field declaration); past
    /// either, encoding fails with [`ErrorKind::LimitExceeded`].
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

    /// Whether an object holding a member named `__proto__`, `constructor`
    /// or `prototype` (at any depth) may still be flattened into path
    /// columns. On by default, as the `gcf` 3.1.0 crate and gcf-python 2.8.0
    /// write it; the Node and WebAssembly packages turn it off, as the
    /// TypeScript package 2.5.2 never flattens such an object: its decoder
    /// drops a path column through one of these names (in JS such a path
    /// could reach an object's prototype), so the object goes as an
    /// attachment, which it reads whole. A field so named is flattened either
    /// way (2.5.2 does too).
    ///
    /// ```
    /// use gcf_core::generic::{Encoder, Map, Value};
    ///
    /// let row = |id: i64| {
    ///     let mut team = Map::new();
    ///     team.insert("name", Value::from("x"));
    ///     team.insert("constructor", Value::from("y"));
    ///     let mut m = Map::new();
    ///     m.insert("id", Value::Int(id));
    ///     m.insert("team", Value::Object(team));
    ///     Value::Object(m)
    /// };
    /// let rows = Value::Array(vec![row(1), row(2)]);
    /// assert!(Encoder::new().encode(&rows)?.contains("\"team>constructor\""));
    /// let js = Encoder::new().prototype_name_paths(false).encode(&rows)?;
    /// assert!(js.contains(".team {}\n    name=x\n    constructor=y\n"));
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn prototype_name_paths(mut self, on: bool) -> Self {
        self.no_prototype_name_paths = !on;
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
        self.encode_view(value)
    }

    /// Encodes `value` into `sink`.
    ///
    /// On error, the sink may already hold part of the payload.
    pub fn encode_to<K: Sink + ?Sized>(&self, value: &Value, sink: &mut K) -> Result<(), Error> {
        self.encode_view_to(value, sink)
    }

    /// Encodes a value read in place through a [`View`] into a new string:
    /// the bytes [`encode`](Self::encode) writes for the same data.
    pub fn encode_view<'a, V: View<'a>>(&self, value: V) -> Result<String, Error> {
        // Bytes first, validated once at the end: a `String` sink would check
        // every small run it is handed. The writer's buffer is the output.
        let mut unused = Collected;
        let out = self
            .write_view(value, Buffered::collecting(&mut unused))?
            .into_collected();
        String::from_utf8(out)
            .map_err(|_| Error::new(ErrorKind::InvalidState, "encoder produced invalid UTF-8"))
    }

    /// Encodes a value read in place through a [`View`] into `sink`.
    ///
    /// On error, the sink may already hold part of the payload.
    pub fn encode_view_to<'a, V: View<'a>, K: Sink + ?Sized>(
        &self,
        value: V,
        sink: &mut K,
    ) -> Result<(), Error> {
        self.write_view(value, Buffered::growing(sink, DEFAULT_CAPACITY))?
            .flush()
    }

    /// Writes `value` through `out`, returning it with the end of the
    /// payload still buffered.
    fn write_view<'a, 'k, V: View<'a>, K: Sink + ?Sized, const COLLECTS: bool>(
        &self,
        value: V,
        out: Buffered<&'k mut K, COLLECTS>,
    ) -> Result<Buffered<&'k mut K, COLLECTS>, Error> {
        if let Some(tool) = &self.tool {
            check_header_value("tool", tool)?;
        }
        // A grouped table is checked whole before anything is written.
        let grouped = match &self.group_by {
            Some((key, group)) => Some(grouped::GroupedPlan::new(value, key, group)?),
            None => None,
        };
        let mut w = Writer {
            sink: out,
            numbers: NumberBuffer::new(),
            max_depth: self.limits.max_depth,
            max_fields: self.limits.max_fields,
            fast_tables: true,
            factor: !self.unfactored,
            flatten: match (self.unflattened, self.no_prototype_name_paths) {
                (true, _) => Flatten::Off,
                (false, false) => Flatten::On,
                (false, true) => Flatten::OnButPrototypeNames,
            },
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
        Ok(w.sink)
    }
}

const SPACES: &str = "                                                                ";

/// The keyed-table forms of an object (§7.2a): rows that need no plan (see
/// `ArrayForm::Uniform`), or a plan.
enum Keyed<'a, V: View<'a>> {
    Uniform(V),
    Plan(TablePlan<'a, V>),
}

/// The array forms of §7.3.
enum ArrayForm<'a, V: View<'a>> {
    Empty,
    Inline,
    /// A table whose rows all have row 0's distinct, `>`-free keys in row
    /// 0's order and only scalar values: every field is a plain column and
    /// every row is its values in order, so no [`TablePlan`] is needed.
    /// With the columns its rows keep when some are constant.
    Uniform(V, Option<Vec<usize>>),
    Table(TablePlan<'a, V>),
    Expanded,
}

struct Writer<'k, K: Sink + ?Sized, const COLLECTS: bool = false> {
    /// The output, gathered into large writes: most pieces are a few bytes,
    /// and scalar rows are laid out in its free tail in one go
    /// ([`Writer::scalar_row`]).
    sink: Buffered<&'k mut K, COLLECTS>,
    numbers: NumberBuffer,
    max_depth: usize,
    /// The most entries a field declaration may have ([`Limits::max_fields`]).
    max_fields: usize,
    /// Whether tables may skip planning when their shape allows
    /// (`ArrayForm::Uniform`); off only in tests, to compare against the
    /// general path.
    fast_tables: bool,
    /// Whether tables at the root and under member names factor constant
    /// columns (`constant.rs`).
    factor: bool,
    /// Which fixed-shape object fields may become path columns.
    flatten: Flatten,
}

/// A scalar's cell, read when the row assembly asks for it (after its
/// room check), not before.
#[derive(Clone, Copy)]
struct Lazy<V>(V);

impl<'a, V: View<'a>> RowCell<'a> for Lazy<V> {
    #[inline(always)]
    fn cell(self) -> Cell<'a> {
        self.0.cell()
    }
}

/// A row's cells: its members' values, in order.
#[inline(always)]
fn row_cells<'a, V: View<'a>>(row: V) -> impl ExactSizeIterator<Item = Cell<'a>> {
    row.members().map(|(_, v)| v.cell())
}

impl<K: Sink + ?Sized, const COLLECTS: bool> Writer<'_, K, COLLECTS> {
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

    /// A scalar's cell as [`write_cell`] writes it, laid out in the
    /// buffer's free tail as a row of one cell whose LF is left
    /// unpublished: the rows' cell code ([`assemble_row`]), which decides a
    /// string's quoting while copying it and formats numbers in place, with
    /// one room check.
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
    fn scalar<'c>(&mut self, cell: impl RowCell<'c> + Copy) -> Result<(), Error> {
        let assembled = assemble_row(
            self.sink.tail(),
            &mut self.numbers,
            0,
            None,
            core::iter::once(cell),
        )?;
        if let Assembled::Row(len) = assembled {
            self.sink.commit(len - 1);
            return Ok(());
        }
        self.scalar_piecewise(cell.cell())
    }

    /// [`scalar`](Self::scalar) when the free tail is too short.
    #[cold]
    #[inline(never)]
    fn scalar_piecewise(&mut self, cell: Cell<'_>) -> Result<(), Error> {
        write_cell(&mut self.sink, cell, &mut self.numbers)
    }

    /// A table row of scalar values (after the keyed-map key, if any) at
    /// `indent`, LF included: laid out in the buffer's free tail with the
    /// row assembly shared with the streaming writer ([`assemble_row`]),
    /// which checks room once per cell rather than once per piece and decides
    /// most strings' quoting while copying them.
    ///
    /// Every value of `row` must be a scalar.
    #[inline]
    fn scalar_row<'a, V: View<'a>>(
        &mut self,
        indent: usize,
        key: Option<&str>,
        row: V,
    ) -> Result<(), Error> {
        match assemble_row(
            self.sink.tail(),
            &mut self.numbers,
            indent,
            key,
            row_cells(row),
        )? {
            Assembled::Row(len) => {
                self.sink.commit(len);
                Ok(())
            }
            Assembled::Stopped(..) => self.cells_row_after_flush(indent, key, || row_cells(row)),
        }
    }

    /// A table row of scalar values at `indent` without its factored columns
    /// (`kept` lists the columns that remain), as
    /// [`scalar_row`](Self::scalar_row) lays out a whole one.
    fn unfactored_row<'a, V: View<'a>>(
        &mut self,
        indent: usize,
        row: V,
        kept: &[usize],
    ) -> Result<(), Error> {
        let cells = || KeptCells::new(row, kept);
        if let Assembled::Row(len) =
            assemble_row(self.sink.tail(), &mut self.numbers, indent, None, cells())?
        {
            self.sink.commit(len);
            return Ok(());
        }
        self.cells_row_after_flush(indent, None, cells)
    }

    /// A row of cells once the free tail was too short for it: again on an
    /// empty buffer, and piece by piece when even that is too short (a row
    /// longer than the buffer). Nothing of the first attempt was committed,
    /// so the bytes are the same either way.
    #[cold]
    #[inline(never)]
    fn cells_row_after_flush<'c, I: ExactSizeIterator<Item = Cell<'c>>>(
        &mut self,
        indent: usize,
        key: Option<&str>,
        cells: impl Fn() -> I,
    ) -> Result<(), Error> {
        self.sink.make_room()?;
        let assembled = assemble_row(self.sink.tail(), &mut self.numbers, indent, key, cells())?;
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
        for cell in cells() {
            self.separator(&mut first)?;
            self.scalar(cell)?;
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
        crate::stack::check(depth)
    }

    /// Fails when a field declaration of `declared` entries (key column and
    /// constants included, as a decoder counts them) exceeds the limit: a
    /// decoder with the same limits would refuse the table. Sparse records
    /// reach it (every distinct key of an array's objects is a column).
    #[inline]
    fn check_fields(&self, declared: usize) -> Result<(), Error> {
        if declared > self.max_fields {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                alloc::format!(
                    "a table of {declared} fields: more than the configured limit of {} fields, which a \
                     decoder with the same limits refuses",
                    self.max_fields
                ),
            ));
        }
        Ok(())
    }

    /// [`Writer::check_fields`] for a declaration of `proto`'s keys and
    /// `extra` more. Out of line: the walks that call it recurse, and its
    /// temporaries would otherwise widen every level's frame (debug builds
    /// keep them all).
    #[inline(never)]
    fn check_members<'a, V: View<'a>>(&self, proto: V, extra: usize) -> Result<(), Error> {
        self.check_fields(extra + proto.members().len())
    }

    /// How many levels a table's field values may still nest: used to bound
    /// the shape analysis, which must never recurse further than encoding.
    fn budget(&self, depth: usize) -> usize {
        self.max_depth.saturating_sub(depth)
    }

    fn root<'a, V: View<'a>>(&mut self, value: V) -> Result<(), Error> {
        match value.shape() {
            Shape::Object => {
                self.enter(1)?;
                match self.keyed_plan(value, 1) {
                    Some(keyed) => {
                        self.raw("## ")?;
                        self.keyed_body(keyed, value, 0, 1)
                    }
                    None => self.members(value, 0, 1),
                }
            }
            Shape::Array => {
                self.enter(1)?;
                self.raw("## ")?;
                let form = self.array_form(value, 1, self.factor);
                self.array_body(value, form, 0, 1, false)
            }
            Shape::Scalar(cell) => {
                self.raw("=")?;
                self.scalar(cell)?;
                self.raw("\n")
            }
        }
    }

    /// The members of `map` (at `depth`) as lines at `indent` (§7.2).
    fn members<'a, V: View<'a>>(
        &mut self,
        map: V,
        indent: usize,
        depth: usize,
    ) -> Result<(), Error> {
        for (key, value) in map.members() {
            let key = key.as_str();
            match value.shape() {
                Shape::Object => {
                    self.enter(depth + 1)?;
                    self.indent(indent)?;
                    self.raw("## ")?;
                    write_key(&mut self.sink, key)?;
                    match self.keyed_plan(value, depth + 1) {
                        Some(keyed) => {
                            self.raw(" ")?;
                            self.keyed_body(keyed, value, indent, depth + 1)?;
                        }
                        None => {
                            self.raw("\n")?;
                            self.members(value, indent + 2, depth + 1)?;
                        }
                    }
                }
                Shape::Array => {
                    self.enter(depth + 1)?;
                    self.indent(indent)?;
                    match self.array_form(value, depth + 1, self.factor) {
                        ArrayForm::Inline => {
                            write_key(&mut self.sink, key)?;
                            self.inline_array(value)?;
                        }
                        form => {
                            self.raw("## ")?;
                            write_key(&mut self.sink, key)?;
                            self.raw(" ")?;
                            self.array_body(value, form, indent, depth + 1, false)?;
                        }
                    }
                }
                Shape::Scalar(cell) => {
                    self.indent(indent)?;
                    write_key(&mut self.sink, key)?;
                    self.raw("=")?;
                    self.scalar(cell)?;
                    self.raw("\n")?;
                }
            }
        }
        Ok(())
    }

    /// The form of the array `items` (at `depth`); a table factors its
    /// constant columns when `factor` says so.
    fn array_form<'a, V: View<'a>>(
        &self,
        array: V,
        depth: usize,
        factor: bool,
    ) -> ArrayForm<'a, V> {
        let items = array.items();
        if items.len() == 0 {
            return ArrayForm::Empty;
        }
        if items.clone().all(View::is_scalar) {
            return ArrayForm::Inline;
        }
        if !items.clone().all(View::is_object) {
            return ArrayForm::Expanded;
        }
        if let Some(proto) = table::uniform_scalar_rows(items.clone()).filter(|_| self.fast_tables)
        {
            let constants = if factor {
                constant::uniform_constants(items, proto)
            } else {
                None
            };
            return ArrayForm::Uniform(proto, constants);
        }
        match TablePlan::new(
            items.collect(),
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
    fn keyed_plan<'a, V: View<'a>>(&self, map: V, depth: usize) -> Option<Keyed<'a, V>> {
        // Decide on the cheap conditions before allocating anything: most
        // objects hold a scalar somewhere.
        let members = map.members();
        if members.len() < 2 || !members.clone().all(|(_, v)| v.is_object()) {
            return None;
        }
        if self.fast_tables {
            if let Some(proto) = table::uniform_scalar_rows(members.clone().map(|(_, v)| v)) {
                return Some(Keyed::Uniform(proto));
            }
        }
        let rows = members.clone().map(|(_, v)| v).collect();
        let keys = members.map(|(k, _)| k.as_str()).collect();
        TablePlan::new(rows, keys, self.budget(depth + 1), false, self.flatten).map(Keyed::Plan)
    }

    /// A keyed table's `[N:]{label,fields}` header and its rows at `indent`
    /// (the map sits at `depth`).
    fn keyed_body<'a, V: View<'a>>(
        &mut self,
        keyed: Keyed<'a, V>,
        map: V,
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
        let members = map.members();
        self.check_members(proto, 1)?;
        self.raw("[")?;
        self.count(members.len())?;
        self.raw(":]{")?;
        let mut underscores = 0usize;
        while proto
            .members()
            .any(|(k, _)| is_label(k.as_str(), underscores))
        {
            underscores += 1;
        }
        for _ in 0..underscores {
            self.raw("_")?;
        }
        self.raw("key")?;
        for (key, _) in proto.members() {
            self.raw(",")?;
            write_key(&mut self.sink, key.as_str())?;
        }
        self.raw("}\n")?;
        self.enter(depth + 1)?;
        for (key, row) in members {
            if row.is_object() {
                self.scalar_row(indent, Some(key.as_str()), row)?;
            }
        }
        Ok(())
    }

    /// An array after its name (`## name ` or `## ` or `@N ` or `.name `):
    /// `[N]...` and the body at `indent`.
    fn array_tail<'a, V: View<'a>>(
        &mut self,
        array: V,
        indent: usize,
        depth: usize,
        omit_fields: bool,
    ) -> Result<(), Error> {
        // Attachment tables and expanded items never factor constants.
        let form = self.array_form(array, depth, false);
        self.array_body(array, form, indent, depth, omit_fields)
    }

    fn array_body<'a, V: View<'a>>(
        &mut self,
        array: V,
        form: ArrayForm<'a, V>,
        indent: usize,
        depth: usize,
        omit_fields: bool,
    ) -> Result<(), Error> {
        let items = array.items();
        match form {
            ArrayForm::Empty => self.raw("[0]\n"),
            ArrayForm::Inline => self.inline_array(array),
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
                self.check_members(proto, 0)?;
                self.raw("[")?;
                self.count(items.len())?;
                self.raw("]")?;
                if omit_fields {
                    self.raw("\n")?;
                } else {
                    self.raw("{")?;
                    self.key_list(proto)?;
                    self.raw("}\n")?;
                }
                // The rows sit one level below the array, as in `table_rows`.
                self.enter(depth + 1)?;
                for row in items {
                    if row.is_object() {
                        self.scalar_row(indent, None, row)?;
                    }
                }
                Ok(())
            }
            ArrayForm::Uniform(proto, Some(kept)) => {
                self.check_members(proto, 0)?;
                self.raw("[")?;
                self.count(items.len())?;
                self.raw("]{")?;
                let mut next_kept = kept.iter().peekable();
                for (i, (key, value)) in proto.members().enumerate() {
                    if i > 0 {
                        self.raw(",")?;
                    }
                    if next_kept.next_if_eq(&&i).is_some() {
                        write_key(&mut self.sink, key.as_str())?;
                    } else {
                        constant::write_entry(
                            &mut self.sink,
                            key.as_str(),
                            value.cell(),
                            &mut self.numbers,
                        )?;
                    }
                }
                self.raw("}\n")?;
                self.enter(depth + 1)?;
                for row in items {
                    if row.is_object() {
                        self.unfactored_row(indent, row, &kept)?;
                    }
                }
                Ok(())
            }
            ArrayForm::Expanded => {
                self.raw("[")?;
                self.count(items.len())?;
                self.raw("]\n")?;
                for (i, item) in items.enumerate() {
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

    /// The member names of `obj`, comma-separated: a table's plain field
    /// declaration or an inline schema.
    fn key_list<'a, V: View<'a>>(&mut self, obj: V) -> Result<(), Error> {
        for (i, (key, _)) in obj.members().enumerate() {
            if i > 0 {
                self.raw(",")?;
            }
            write_key(&mut self.sink, key.as_str())?;
        }
        Ok(())
    }

    /// `[N]: a,b,c` (§7.5).
    fn inline_array<'a, V: View<'a>>(&mut self, array: V) -> Result<(), Error> {
        let items = array.items();
        self.raw("[")?;
        self.count(items.len())?;
        self.raw("]:")?;
        for (i, item) in items.enumerate() {
            self.raw(if i == 0 { " " } else { "," })?;
            self.scalar(Lazy(item))?;
        }
        self.raw("\n")
    }

    /// Any value after an item or attachment prefix (`@N ` / `.name `):
    /// `=scalar`, `{}` with members, a keyed table, or an array, with the body
    /// at `indent`. `value` sits at `depth`.
    fn value_tail<'a, V: View<'a>>(
        &mut self,
        value: V,
        indent: usize,
        depth: usize,
        omit_fields: bool,
    ) -> Result<(), Error> {
        match value.shape() {
            Shape::Object => {
                self.enter(depth)?;
                match self.keyed_plan(value, depth) {
                    Some(keyed) => self.keyed_body(keyed, value, indent, depth),
                    None => {
                        self.raw("{}\n")?;
                        self.members(value, indent, depth)
                    }
                }
            }
            Shape::Array => {
                self.enter(depth)?;
                self.array_tail(value, indent, depth, omit_fields)
            }
            Shape::Scalar(cell) => {
                self.raw("=")?;
                self.scalar(cell)?;
                self.raw("\n")
            }
        }
    }

    /// `[N:]{label,fields}` and a line feed.
    fn keyed_header<'a, V: View<'a>>(&mut self, plan: &TablePlan<'a, V>) -> Result<(), Error> {
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
    fn field_decl<'a, V: View<'a>>(
        &mut self,
        plan: &TablePlan<'a, V>,
        label: Option<&str>,
    ) -> Result<(), Error> {
        let columns = |f: &table::Field<'a, V>| match f.kind {
            Kind::Excluded => 0,
            Kind::Flatten { leaves, .. } => leaves,
            _ => 1,
        };
        self.check_fields(
            usize::from(label.is_some()) + plan.fields.iter().map(columns).sum::<usize>(),
        )?;
        self.raw("{")?;
        let mut first = true;
        if let Some(label) = label {
            write_key(&mut self.sink, label)?;
            first = false;
        }
        let mut path: Vec<&'a str> = Vec::new();
        for field in &plan.fields {
            match &field.kind {
                Kind::Excluded => {}
                Kind::Flatten { proto, .. } => {
                    path.clear();
                    path.push(field.name);
                    self.path_columns(*proto, &mut path, &mut first)?;
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
                    constant::write_entry(
                        &mut self.sink,
                        field.name,
                        value.cell(),
                        &mut self.numbers,
                    )?;
                }
            }
        }
        self.raw("}\n")
    }

    /// One quoted `"a>b>c"` column per scalar leaf of `obj` under `path`.
    fn path_columns<'a, V: View<'a>>(
        &mut self,
        obj: V,
        path: &mut Vec<&'a str>,
        first: &mut bool,
    ) -> Result<(), Error> {
        for (key, value) in obj.members() {
            path.push(key.as_str());
            if value.is_object() {
                self.path_columns(value, path, first)?;
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
    fn table_rows<'a, V: View<'a>>(
        &mut self,
        plan: &TablePlan<'a, V>,
        indent: usize,
        depth: usize,
    ) -> Result<(), Error> {
        // Allocated only when needed: many nested tables (an order's line
        // items) have only plain scalar rows and inline schemas are rare.
        let mut cells: Vec<Option<V>> = Vec::new();
        let mut declared_inline: Vec<bool> = Vec::new();
        if plan
            .fields
            .iter()
            .any(|f| matches!(f.kind, Kind::Inline { .. }))
        {
            declared_inline.resize(plan.fields.len(), false);
        }
        let row_depth = depth + 1;
        for (r, &row) in plan.rows.iter().enumerate() {
            self.enter(row_depth)?;
            if plan.is_plain_scalar_row(r, row) {
                // The common row: its values in field order, nothing attached.
                if !plan.kept.is_empty() {
                    // Only arrays factor, so there is no key.
                    self.unfactored_row(indent, row, &plan.kept)?;
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
                        Some(obj) if obj.is_object() => self.leaf_cells(obj, &mut first)?,
                        Some(_) => self.repeat_cell("-", *leaves, &mut first)?,
                        None => self.repeat_cell("~", *leaves, &mut first)?,
                    },
                    Kind::Inline { proto } => match cell {
                        Some(obj) if obj.is_object() => {
                            self.separator(&mut first)?;
                            match declared_inline.get_mut(f) {
                                Some(flag @ false) => {
                                    *flag = true;
                                    self.raw("^{")?;
                                    self.key_list(*proto)?;
                                    self.raw("}")?;
                                }
                                _ => self.raw("^")?,
                            }
                        }
                        Some(v) => {
                            self.separator(&mut first)?;
                            self.scalar(v.cell())?;
                        }
                        None => self.repeat_cell("~", 1, &mut first)?,
                    },
                    Kind::Plain { .. } => {
                        self.separator(&mut first)?;
                        match cell {
                            None => self.raw("~")?,
                            Some(v) if v.is_scalar() => self.scalar(Lazy(v))?,
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
                    Kind::Inline { .. } if value.is_object() => {
                        self.enter(row_depth + 1)?;
                        self.indent(indent)?;
                        for (i, (_, v)) in value.members().enumerate() {
                            if i > 0 {
                                self.raw("|")?;
                            }
                            self.scalar(Lazy(v))?;
                        }
                        self.raw("\n")?;
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
    fn leaf_cells<'a, V: View<'a>>(&mut self, obj: V, first: &mut bool) -> Result<(), Error> {
        for (_, value) in obj.members() {
            if value.is_object() {
                self.leaf_cells(value, first)?;
            } else {
                // A flattened object holds no arrays (`flat_shape`).
                self.separator(first)?;
                self.scalar(Lazy(value))?;
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
mod tests;
