//! The generic streaming writer (spec §8.2-§8.4, §8.8): sections whose row
//! count is not known up front are declared `[?]`, rows are written the moment
//! they arrive, and a `##! summary counts=...` trailer reconciles the counts.
//!
//! The writer keeps O(1) state per open section and allocates nothing per row:
//! cells are borrowed ([`Cell`]), numbers are formatted on the stack, and
//! output collects in one fixed buffer (allocated once, at construction) that
//! is handed to the [`Sink`] when it fills, on [`StreamWriter::flush`] and on
//! [`StreamWriter::finish`]. A callback sink therefore sees a few large writes
//! instead of one call per cell.
//!
//! # No constant columns
//!
//! A streamed table writes its field declaration before its first row, so it
//! cannot know which columns will turn out constant, and it never factors
//! them (`name=value`, the fleet's "§7.4.7", which the buffered
//! [`encode`](super::encode()) applies by default): every row carries every
//! cell. The reference stream encoders do the same (the `gcf` 3.1.0 crate's
//! and gcf-python 2.8.0's `GenericStreamEncoder` write the plain declaration
//! and every cell), so streamed output stays byte-identical with theirs, and
//! decoders read both forms.
//!
//! # Lifecycle after an error
//!
//! The same rule as the graph writer's
//! ([`graph::StreamWriter`](crate::graph::StreamWriter)):
//! - a call refused for its input or its order (a bad value, a row of the
//!   wrong width, a table not open) writes nothing and leaves the writer as
//!   it was: skip the row or fix the call and go on;
//! - a call whose sink write fails returns [`ErrorKind::Sink`] and poisons
//!   the writer, since part of a line may have reached the sink: every later
//!   call, `flush` and `finish` included, returns [`ErrorKind::InvalidState`];
//! - the host's own error behind a failed write stays with its sink
//!   ([`get_ref`](StreamWriter::get_ref), [`HostSink`](crate::HostSink)).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::buffer::Buffered;
use crate::error::{Error, ErrorKind, Result};
use crate::header::check_header_value;
use crate::limits::Limits;
use crate::number::NumberBuffer;
use crate::sink::Sink;

use super::cell::Cell;
use super::row::{assemble_row, check_cell, Assembled, RowCell};
use super::scalar::{write_key, write_string};
use super::{Map, Value};

/// The default size of the writer's output buffer.
pub const DEFAULT_STREAM_BUFFER: usize = 8 * 1024;

/// Header fields and choices for a [`StreamWriter`], in the shape of the
/// graph profile's [`graph::StreamOptions`](crate::graph::StreamOptions):
/// public fields, a [`Default`], and a builder method per field.
///
/// ```
/// use gcf_core::generic::StreamOptions;
/// let options = StreamOptions::new().tool("export_users").buffer_capacity(64 * 1024);
/// assert_eq!(options.tool, "export_users");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamOptions<'a> {
    /// The producing tool, written as ` tool=<name>` in the header (spec §3.3);
    /// omitted when empty. It must be printable, non-whitespace ASCII.
    pub tool: &'a str,
    /// Bytes collected before they are handed to the sink; `0` hands every
    /// piece over as soon as it is written.
    pub buffer_capacity: usize,
}

impl Default for StreamOptions<'_> {
    fn default() -> Self {
        StreamOptions {
            tool: "",
            buffer_capacity: DEFAULT_STREAM_BUFFER,
        }
    }
}

impl<'a> StreamOptions<'a> {
    /// No tool, an 8 KiB buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Names the producing tool.
    pub fn tool(mut self, tool: &'a str) -> Self {
        self.tool = tool;
        self
    }

    /// Sets the output buffer size (`0` for none).
    pub fn buffer_capacity(mut self, bytes: usize) -> Self {
        self.buffer_capacity = bytes;
        self
    }
}

/// What kind of `[?]` section is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TableKind {
    Array,
    KeyedMap,
}

/// The open `[?]` section: its declared fields. Its count is the last of
/// `StreamWriter::counts` (no section opens while it is open).
struct OpenTable {
    kind: TableKind,
    /// Declared value fields (without a keyed map's key column).
    fields: Vec<String>,
    /// Field name -> column, for wide tables (built once per table): a scan
    /// of the fields per member of a row object is quadratic in its width.
    index: Option<crate::hash::HashMap<String, usize>>,
}

/// Tables wider than this look row-object members up by hash.
const WIDE_TABLE: usize = 16;

impl OpenTable {
    /// The column of field `name`.
    fn column(&self, name: &str) -> Option<usize> {
        match &self.index {
            Some(index) => {
                crate::ops::tick(1);
                index.get(name).copied()
            }
            None => self.fields.iter().position(|f| {
                crate::ops::tick(1);
                f == name
            }),
        }
    }
}

/// No cell slice is this long (a [`Cell`] is larger than a byte), so as a
/// [`StreamWriter::row_width`] entry it refuses every row.
const NO_ROWS: usize = usize::MAX;

/// The body shape decided by the first thing written (spec §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    /// Nothing written yet.
    Empty,
    /// A root object: `key=value` lines and named sections.
    Object,
    /// An anonymous root table or keyed map, which is the whole body.
    Anonymous,
}

/// Writes a generic-profile payload incrementally (spec §8).
///
/// Each `[?]` section (a table or a keyed map) must know its complete field
/// list before its first row (§8.3); rows then stream with no per-row
/// allocation, and [`finish`](StreamWriter::finish) writes the
/// `##! summary counts=...` trailer with one count per `[?]` section in the
/// order they were opened (§8.4).
///
/// ```
/// use gcf_core::generic::{Cell, StreamOptions, StreamWriter};
///
/// let mut w = StreamWriter::new(String::new(), StreamOptions::new())?;
/// w.begin_table(Some("employees"), &["id", "name", "department", "salary"])?;
/// w.row(&[Cell::Int(1), Cell::Str("Alice Smith"), Cell::Str("Engineering"), Cell::Int(95000)])?;
/// w.row(&[Cell::Int(2), Cell::Str("Bob Jones"), Cell::Str("Sales"), Cell::Int(72000)])?;
/// w.row(&[Cell::Int(3), Cell::Str("Carol Wu"), Cell::Str("Marketing"), Cell::Int(85000)])?;
/// w.end_table()?;
/// let text = w.finish()?;
/// let expected = concat!(
///     "GCF profile=generic\n",
///     "## employees [?]{id,name,department,salary}\n",
///     "1|Alice Smith|Engineering|95000\n",
///     "2|Bob Jones|Sales|72000\n",
///     "3|Carol Wu|Marketing|85000\n",
///     "##! summary counts=3\n",
/// );
/// assert_eq!(text, expected);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub struct StreamWriter<K: Sink> {
    out: Buffered<K>,
    numbers: NumberBuffer,
    /// Rows written per `[?]` section, in encounter order.
    counts: Vec<u64>,
    table: Option<OpenTable>,
    /// For each open `## name` section (outermost first): whether a table has
    /// been closed directly inside it. Index 0 is the root object.
    scopes: Vec<bool>,
    /// Members written so far in each open object (parallel to `scopes`),
    /// held to `max_container_len` as a decoder holds them.
    members: Vec<u64>,
    /// For a row object out of declared order: the member in each column
    /// (reused, so rows allocate nothing once it has grown).
    column_member: Vec<usize>,
    root: Root,
    /// Set when a sink write failed part-way through a line.
    poisoned: bool,
    /// The number of cells `row` (index 0) and `keyed_row` (index 1) take
    /// right now: the open section's width for its kind, [`NO_ROWS`] when
    /// the call would be refused (no such section, or poisoned). A row then
    /// passes with one compare; a refusal takes [`check_row`](Self::check_row)
    /// for its message.
    row_width: [usize; 2],
    /// Indentation of the open section's rows (sections cannot open or close
    /// while it is open).
    row_indent: usize,
    /// The limits the decoder enforces, so that the writer never writes a
    /// payload its own decoder refuses (issue 21): nesting depth, fields per
    /// header, rows per section and elements per inline array.
    limits: Limits,
}

/// Spaces for indentation, written in slices of this size.
const SPACES: &[u8; 64] = b"                                                                ";

impl<K: Sink> StreamWriter<K> {
    /// Starts a payload: writes `GCF profile=generic` and, when set, ` tool=<name>`.
    pub fn new(sink: K, options: StreamOptions<'_>) -> Result<Self> {
        let tool = options.tool;
        if !tool.is_empty() {
            check_header_value("tool", tool)?;
        }
        let mut w = StreamWriter {
            out: Buffered::new(sink, options.buffer_capacity),
            numbers: NumberBuffer::new(),
            counts: Vec::new(),
            table: None,
            scopes: vec![false],
            members: vec![0],
            column_member: Vec::new(),
            root: Root::Empty,
            poisoned: false,
            row_width: [NO_ROWS; 2],
            row_indent: 0,
            limits: Limits::default(),
        };
        w.guard(|w| {
            w.out.write_str("GCF profile=generic")?;
            if !tool.is_empty() {
                w.out.write_str(" tool=")?;
                w.out.write_str(tool)?;
            }
            w.out.write_bytes(b"\n")?;
            Ok(())
        })?;
        Ok(w)
    }

    /// Sets the limits to enforce (by default [`Limits::default`], what
    /// [`decode`](crate::generic::decode) enforces): a section nested deeper
    /// than `max_depth` (the root object is depth 1, a table's rows sit two
    /// below its object), a header with more than `max_fields` fields, and a
    /// section or inline array longer than `max_container_len`, or a table
    /// whose rows would have more members, are refused with
    /// [`ErrorKind::LimitExceeded`] before anything is written.
    ///
    /// ```
    /// use gcf_core::generic::{StreamOptions, StreamWriter};
    /// use gcf_core::{ErrorKind, Limits};
    ///
    /// let limits = Limits { max_depth: 2, ..Limits::default() };
    /// let mut w = StreamWriter::new(String::new(), StreamOptions::new())?.limits(limits);
    /// w.begin_section("a")?;
    /// assert_eq!(w.begin_section("b").unwrap_err().kind(), ErrorKind::LimitExceeded);
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Refuses a container at `depth` (the root object is 1) past the limit.
    fn check_depth(&self, depth: usize, what: &str) -> Result<()> {
        if depth > self.limits.max_depth {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "{what} would nest {depth} levels deep, past the limit of {} a decoder enforces",
                    self.limits.max_depth
                ),
            ));
        }
        Ok(())
    }

    /// Counts one more member of the current object, refusing it past
    /// `max_container_len`. Called after every other check of the call, so
    /// a refused call counts nothing.
    fn add_member(&mut self) -> Result<()> {
        let n = self.members.last().copied().unwrap_or(0) + 1;
        self.check_len(n, "an object")?;
        if let Some(last) = self.members.last_mut() {
            *last = n;
        }
        Ok(())
    }

    /// Refuses a section or inline array of more than `max_container_len` items.
    fn check_len(&self, len: u64, what: &str) -> Result<()> {
        if len > self.limits.max_container_len as u64 {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "{what} would hold more than the limit of {} items a decoder enforces",
                    self.limits.max_container_len
                ),
            ));
        }
        Ok(())
    }

    /// Writes a `key=value` line in the current object; `value` must be a scalar.
    ///
    /// A streaming table has no end marker, so once a table has closed in an
    /// object, a later `key=value` line there would read as one more row; it is
    /// refused with [`ErrorKind::InvalidState`] until a section's `##` line
    /// has ended the table. Write such fields before the table, inside a
    /// section, or after one.
    ///
    /// ```
    /// use gcf_core::generic::{Cell, StreamOptions, StreamWriter};
    /// let mut w = StreamWriter::new(String::new(), StreamOptions::new())?;
    /// w.field("name", Cell::Str("a|b"))?;
    /// w.field("n", Cell::Int(3))?;
    /// assert_eq!(w.finish()?, "GCF profile=generic\nname=\"a|b\"\nn=3\n");
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn field(&mut self, key: &str, cell: Cell<'_>) -> Result<()> {
        self.check_object_line("field")?;
        if cell == Cell::Missing {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "a field cannot be Cell::Missing: `~` marks an absent cell of a row; leave the field out instead",
            ));
        }
        check_cell(cell)?;
        self.add_member()?;
        self.root = Root::Object;
        self.guard(|w| {
            w.indent()?;
            write_key(&mut w.out, key)?;
            w.out.write_bytes(b"=")?;
            w.write_cell(cell)?;
            w.out.write_bytes(b"\n")?;
            Ok(())
        })
    }

    /// [`field`](Self::field) for a scalar [`Value`], as [`row_values`](Self::row_values)
    /// is [`row`](Self::row) for values.
    pub fn field_value(&mut self, key: &str, value: &Value) -> Result<()> {
        self.field(key, scalar_cell(value, "field")?)
    }

    /// Writes a primitive array `name[N]: a,b,...` (spec §7.5), or `## name [0]`
    /// when it is empty (§7.7). Every element must be a scalar.
    pub fn inline_array(&mut self, name: &str, values: &[Value]) -> Result<()> {
        self.check_object_line("inline array")?;
        self.check_depth(self.scopes.len() + 1, "an inline array")?;
        self.check_len(values.len() as u64, "an inline array")?;
        for v in values {
            check_cell(scalar_cell(v, "inline array element")?)?;
        }
        self.add_member()?;
        self.root = Root::Object;
        self.guard(|w| {
            w.indent()?;
            if values.is_empty() {
                w.out.write_bytes(b"## ")?;
                write_key(&mut w.out, name)?;
                w.out.write_bytes(b" [0]\n")?;
                return Ok(());
            }
            write_key(&mut w.out, name)?;
            w.out.write_bytes(b"[")?;
            w.out.write_str(itoa::Buffer::new().format(values.len()))?;
            w.out.write_bytes(b"]: ")?;
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    w.out.write_bytes(b",")?;
                }
                if let Some(cell) = Cell::from_value(v) {
                    w.write_cell(cell)?;
                }
            }
            w.out.write_bytes(b"\n")?;
            Ok(())
        })
    }

    /// Opens a nested object `## name`; its members are indented two spaces
    /// per level until [`end_section`](Self::end_section).
    pub fn begin_section(&mut self, name: &str) -> Result<()> {
        self.check_header("section")?;
        self.check_depth(self.scopes.len() + 1, "a section")?;
        self.add_member()?;
        self.root = Root::Object;
        self.guard(|w| {
            w.indent()?;
            w.out.write_bytes(b"## ")?;
            write_key(&mut w.out, name)?;
            w.out.write_bytes(b"\n")?;
            Ok(())
        })?;
        // The `##` line ends a table closed before it here, for a decoder as
        // for this writer: a `key=value` line after the section is read as a
        // member of this object again, not as one more row.
        if let Some(closed_here) = self.scopes.last_mut() {
            *closed_here = false;
        }
        self.scopes.push(false);
        self.members.push(0);
        Ok(())
    }

    /// Closes the innermost section opened by [`begin_section`](Self::begin_section).
    pub fn end_section(&mut self) -> Result<()> {
        self.check_usable()?;
        if self.table.is_some() {
            return Err(state_error(
                "end_section called while a table is open; call end_table first",
            ));
        }
        if self.scopes.len() <= 1 {
            return Err(state_error("end_section called with no open section"));
        }
        self.scopes.pop();
        self.members.pop();
        Ok(())
    }

    /// Opens a `## name [?]{fields}` table (spec §8.2), or the anonymous root
    /// table `## [?]{fields}` when `name` is `None`, which is allowed only as
    /// the whole body.
    ///
    /// Field names are quoted like a buffered header (§8.3); a name containing
    /// `>` (which would read as a flattened path), a duplicate name, or an
    /// empty list is refused with [`ErrorKind::InvalidInput`].
    pub fn begin_table(&mut self, name: Option<&str>, fields: &[&str]) -> Result<()> {
        self.open_table(TableKind::Array, name, fields, None)
    }

    /// Opens a keyed map `## name [?:]{key,fields}` (spec §7.2a, §8.2): each
    /// row is one member, its key in cell 0. The key column is labelled `key`,
    /// or `_key`, `__key`, ... when a value field is already called that.
    ///
    /// Member keys are not checked for duplicates (that would need memory per
    /// row); the caller must not repeat one (§2a.2).
    pub fn begin_keyed_map(&mut self, name: Option<&str>, value_fields: &[&str]) -> Result<()> {
        let label = key_label(value_fields);
        self.open_table(TableKind::KeyedMap, name, value_fields, Some(&label))
    }

    /// [`begin_keyed_map`](Self::begin_keyed_map) with the key column
    /// labelled `key_label`, as the SDKs' streaming encoders take it from
    /// their caller (`begin_keyed_map(name, key_label, value_fields)`). A
    /// label that is also a value field is refused with
    /// [`ErrorKind::InvalidInput`]: the declaration would name one field
    /// twice, which a decoder refuses (§2a.2).
    ///
    /// ```
    /// use gcf_core::generic::{Cell, StreamOptions, StreamWriter};
    /// let mut w = StreamWriter::new(String::new(), StreamOptions::new())?;
    /// w.begin_keyed_map_labeled(Some("users"), "id", &["name"])?;
    /// w.keyed_row("u1", &[Cell::Str("Ada")])?;
    /// assert_eq!(w.finish()?, "GCF profile=generic\n## users [?:]{id,name}\nu1|Ada\n##! summary counts=1\n");
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn begin_keyed_map_labeled(
        &mut self,
        name: Option<&str>,
        key_label: &str,
        value_fields: &[&str],
    ) -> Result<()> {
        if value_fields.contains(&key_label) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "the key label {} is also a value field: the declaration would name it twice (spec §2a.2)",
                    crate::error::excerpt(key_label)
                ),
            ));
        }
        self.open_table(TableKind::KeyedMap, name, value_fields, Some(key_label))
    }

    /// Writes one table row; `cells` must have one entry per declared field.
    pub fn row(&mut self, cells: &[Cell<'_>]) -> Result<()> {
        if cells.len() != self.row_width[TableKind::Array as usize] {
            self.check_row(TableKind::Array, cells.len())?;
        }
        self.write_cells_row(None, cells)
    }

    /// Writes one table row from scalar values (arrays and objects are refused).
    pub fn row_values(&mut self, values: &[Value]) -> Result<()> {
        if values.len() != self.row_width[TableKind::Array as usize] {
            self.check_row(TableKind::Array, values.len())?;
        }
        // Refused in cell order before anything is written, as a row of
        // cells is by its assembly.
        for v in values {
            check_cell(scalar_cell(v, "streaming row cell")?)?;
        }
        self.write_cells_row(None, values)
    }

    /// Writes one table row from an object, mapping its members onto the
    /// declared columns: an absent member writes `~`. A member that is not a
    /// declared column is refused with [`ErrorKind::InvalidInput`] rather than
    /// dropped (§8.3), and so is a nested value.
    pub fn row_object(&mut self, object: &Map) -> Result<()> {
        self.check_object_row(TableKind::Array, object)?;
        self.write_row(None, |w| w.write_object_cells(object))
    }

    /// Writes one keyed-map member: `key` in cell 0, then one cell per value field.
    pub fn keyed_row(&mut self, key: &str, cells: &[Cell<'_>]) -> Result<()> {
        if cells.len() != self.row_width[TableKind::KeyedMap as usize] {
            self.check_row(TableKind::KeyedMap, cells.len())?;
        }
        self.write_cells_row(Some(key), cells)
    }

    /// [`keyed_row`](Self::keyed_row) whose key is a host value: a string is
    /// written as `keyed_row` writes it, a number bare in its canonical form
    /// (spec §2.3.1), as the SDKs' streaming encoders write a number key,
    /// and decoders read it as that text (`1`, `1.5`; an integral double `1`
    /// as well). Null, a boolean or [`Cell::Missing`] is refused with
    /// [`ErrorKind::InvalidInput`]: decoders refuse such a key (§7.2a.3), or
    /// read it as a text of their own.
    ///
    /// ```
    /// use gcf_core::generic::{Cell, StreamOptions, StreamWriter};
    /// let mut w = StreamWriter::new(String::new(), StreamOptions::new())?;
    /// w.begin_keyed_map_labeled(Some("users"), "id", &["name"])?;
    /// w.keyed_row_cell(Cell::Int(7), &[Cell::Str("Ada")])?;
    /// w.keyed_row_cell(Cell::Str("7"), &[Cell::Str("Bob")])?;
    /// assert!(w.keyed_row_cell(Cell::Null, &[Cell::Str("Eve")]).is_err());
    /// assert_eq!(w.finish()?, "GCF profile=generic\n## users [?:]{id,name}\n7|Ada\n\"7\"|Bob\n##! summary counts=2\n");
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn keyed_row_cell(&mut self, key: Cell<'_>, cells: &[Cell<'_>]) -> Result<()> {
        if let Cell::Str(key) = key {
            return self.keyed_row(key, cells);
        }
        self.check_row(TableKind::KeyedMap, cells.len())?;
        if matches!(key, Cell::Null | Cell::Bool(_) | Cell::Missing) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "a keyed-map member key (cell 0) must be a string or a number",
            ));
        }
        // Refused in cell order before anything is written.
        check_cell(key)?;
        for &cell in cells {
            check_cell(cell)?;
        }
        self.write_row(None, |w| {
            w.write_cell(key)?;
            for &cell in cells {
                w.out.write_bytes(b"|")?;
                w.write_cell(cell)?;
            }
            Ok(())
        })
    }

    /// Writes one keyed-map member from an object, with the rules of
    /// [`row_object`](Self::row_object).
    pub fn keyed_row_object(&mut self, key: &str, object: &Map) -> Result<()> {
        self.check_object_row(TableKind::KeyedMap, object)?;
        self.write_row(Some(key), |w| {
            w.out.write_bytes(b"|")?;
            w.write_object_cells(object)
        })
    }

    /// Closes the open table or keyed map.
    pub fn end_table(&mut self) -> Result<()> {
        self.check_usable()?;
        if self.table.take().is_none() {
            return Err(state_error("end_table called with no open table"));
        }
        self.row_width = [NO_ROWS; 2];
        if let Some(closed_here) = self.scopes.last_mut() {
            *closed_here = true;
        }
        Ok(())
    }

    /// Hands everything buffered so far to the sink.
    pub fn flush(&mut self) -> Result<()> {
        self.check_usable()?;
        self.guard(|w| w.out.flush())
    }

    /// The sink (bytes still in the writer's buffer are not in it yet); for
    /// example to read the error a callback sink kept.
    pub fn get_ref(&self) -> &K {
        self.out.get_ref()
    }

    /// The number of rows written to each `[?]` section so far, in encounter order.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Closes whatever is still open, writes the `##! summary` trailer (§8.4),
    /// flushes, and returns the sink.
    ///
    /// With no `[?]` section there are no counts to reconcile and no trailer
    /// is written, as the streaming encoders of the `gcf` crate, gcf-python
    /// 2.8.0 and the npm package end such a stream (a `counts=` with no
    /// entries is not a valid header pair, §4, and a bare `##! summary`
    /// says nothing).
    pub fn finish(mut self) -> Result<K> {
        self.check_usable()?;
        self.table = None;
        self.guard(|w| {
            if !w.counts.is_empty() {
                w.out.write_bytes(b"##! summary counts=")?;
                let mut digits = itoa::Buffer::new();
                for (i, &n) in w.counts.iter().enumerate() {
                    if i > 0 {
                        w.out.write_bytes(b",")?;
                    }
                    w.out.write_str(digits.format(n))?;
                }
                w.out.write_bytes(b"\n")?;
            }
            w.out.flush()?;
            Ok(())
        })?;
        self.out.into_inner()
    }

    // --- validation -------------------------------------------------------

    fn check_usable(&self) -> Result<()> {
        if self.poisoned {
            return Err(Error::poisoned());
        }
        Ok(())
    }

    /// A `##` header may open here: no table is open and the body is not an
    /// anonymous root.
    fn check_header(&self, what: &str) -> Result<()> {
        self.check_usable()?;
        if self.table.is_some() {
            return Err(state_error(format!(
                "cannot open a {what} while a table is open; call end_table first"
            )));
        }
        if self.root == Root::Anonymous {
            return Err(state_error(format!(
                "cannot write a {what} after an anonymous root table: it is the whole body"
            )));
        }
        Ok(())
    }

    /// A `key=value` or inline-array line may be written here.
    fn check_object_line(&self, what: &str) -> Result<()> {
        self.check_header(what)?;
        if self.scopes.last().copied().unwrap_or(false) {
            return Err(state_error(format!(
                "cannot write a {what} after a streaming table in the same object: a decoder would read it as \
                 one more row; write it before the table or inside a section"
            )));
        }
        Ok(())
    }

    fn check_row(&self, kind: TableKind, width: usize) -> Result<()> {
        self.check_usable()?;
        let Some(table) = &self.table else {
            return Err(state_error(
                "row written with no open table; call begin_table first",
            ));
        };
        if table.kind != kind {
            return Err(state_error(match kind {
                TableKind::Array => "row written to a keyed map; use keyed_row",
                TableKind::KeyedMap => "keyed_row written to a table; use row",
            }));
        }
        check_row_width(width, table.fields.len())?;
        self.check_len(self.counts.last().map_or(0, |&n| n + 1), "a section")
    }

    fn check_object_row(&self, kind: TableKind, object: &Map) -> Result<()> {
        self.check_row(kind, self.table.as_ref().map_or(0, |t| t.fields.len()))?;
        let Some(table) = &self.table else {
            return Ok(());
        };
        for (key, value) in object.iter() {
            if table.column(key).is_none() {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    format!(
                        "field `{}` is not declared by the streaming section; a streaming encoder must not \
                         drop it (spec §8.3): declare every field before the first row",
                        crate::error::excerpt(key)
                    ),
                ));
            }
            check_cell(scalar_cell(value, "streaming row cell")?)?;
        }
        Ok(())
    }

    // --- writing ----------------------------------------------------------

    /// `label`: the key column's, for a keyed map.
    fn open_table(
        &mut self,
        kind: TableKind,
        name: Option<&str>,
        fields: &[&str],
        label: Option<&str>,
    ) -> Result<()> {
        self.check_header("table")?;
        if name.is_none() && self.root != Root::Empty {
            return Err(state_error(
                "an anonymous root table must be the first and only thing in the body",
            ));
        }
        check_stream_fields(fields, kind == TableKind::KeyedMap, &self.limits)?;
        // The table (or map) sits one level below its object, its rows two;
        // an anonymous root table is the root container itself.
        let rows_depth = if name.is_none() {
            2
        } else {
            self.scopes.len() + 2
        };
        self.check_depth(rows_depth, "a table's rows")?;
        if name.is_some() {
            self.add_member()?;
        }
        let mut owned = Vec::with_capacity(fields.len());
        owned.extend(fields.iter().map(|f| String::from(*f)));
        self.guard(|w| {
            w.indent()?;
            w.out.write_bytes(b"## ")?;
            if let Some(name) = name {
                write_key(&mut w.out, name)?;
                w.out.write_bytes(b" ")?;
            }
            w.out.write_bytes(if kind == TableKind::KeyedMap {
                b"[?:]{"
            } else {
                b"[?]{"
            })?;
            if let Some(label) = label {
                write_key(&mut w.out, label)?;
                w.out.write_bytes(b",")?;
            }
            for (i, field) in fields.iter().enumerate() {
                if i > 0 {
                    w.out.write_bytes(b",")?;
                }
                write_key(&mut w.out, field)?;
            }
            w.out.write_bytes(b"}\n")?;
            Ok(())
        })?;
        self.root = if name.is_none() {
            Root::Anonymous
        } else {
            Root::Object
        };
        self.counts.push(0);
        self.row_width = [NO_ROWS; 2];
        self.row_width[kind as usize] = fields.len();
        self.row_indent = 2 * (self.scopes.len() - 1);
        // Room for the member map of out-of-order row objects, so that rows
        // allocate nothing.
        self.column_member.clear();
        self.column_member.reserve(owned.len());
        let index = (owned.len() > WIDE_TABLE).then(|| {
            owned
                .iter()
                .enumerate()
                .map(|(i, f)| (f.clone(), i))
                .collect()
        });
        self.table = Some(OpenTable {
            kind,
            fields: owned,
            index,
        });
        Ok(())
    }

    /// Writes indentation, the optional keyed-map key, the body and the LF,
    /// then counts the row.
    fn write_row(
        &mut self,
        key: Option<&str>,
        body: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<()> {
        self.guard(|w| {
            w.indent()?;
            if let Some(key) = key {
                write_string(&mut w.out, key)?;
            }
            body(w)?;
            w.out.write_bytes(b"\n")?;
            Ok(())
        })?;
        self.count_row();
        Ok(())
    }

    /// Writes a row of borrowed cells (after an optional keyed-map key) and
    /// counts it; a non-finite float refuses the row before anything is
    /// written, as [`check_cell`] did up front.
    ///
    /// The row is assembled straight into the output buffer's free tail
    /// ([`assemble_row`], which checks room per cell and validates as it
    /// goes, so there is no separate pass over the cells) and published with
    /// one commit. If the tail runs out, the pending bytes are flushed and
    /// the row is assembled again at the start of the empty buffer; what
    /// still does not fit (a row longer than the buffer) is written
    /// piecewise by the general path from where the assembly stopped, so the
    /// bytes are the same either way and no partial cell is ever published.
    #[inline(always)]
    fn write_cells_row<'c, C>(&mut self, key: Option<&str>, cells: &'c [C]) -> Result<()>
    where
        &'c C: RowCell<'c>,
    {
        match assemble_row(
            self.out.tail(),
            &mut self.numbers,
            self.row_indent,
            key,
            cells.iter(),
        )? {
            Assembled::Row(len) => {
                self.out.commit(len);
                self.count_row();
                Ok(())
            }
            Assembled::Stopped(len, left) => {
                self.write_stopped_row(key, cells, len, Assembled::stopped_piece(cells.len(), left))
            }
        }
    }

    /// [`write_cells_row`](Self::write_cells_row) once the tail has run out:
    /// out of line, so that the row's fast path keeps its registers.
    #[cold]
    #[inline(never)]
    fn write_stopped_row<'c, C>(
        &mut self,
        key: Option<&str>,
        cells: &'c [C],
        mut len: usize,
        mut piece: usize,
    ) -> Result<()>
    where
        &'c C: RowCell<'c>,
    {
        let mut flushed = false;
        loop {
            // Cells before `piece` were checked by the assembly.
            for cell in &cells[piece.saturating_sub(1)..] {
                check_cell(cell.cell())?;
            }
            if flushed || self.out.pending() == 0 {
                break;
            }
            flushed = true;
            self.guard(|w| w.out.flush())?;
            match assemble_row(
                self.out.tail(),
                &mut self.numbers,
                self.row_indent,
                key,
                cells.iter(),
            )? {
                Assembled::Row(len) => {
                    self.out.commit(len);
                    self.count_row();
                    return Ok(());
                }
                Assembled::Stopped(at, left) => {
                    (len, piece) = (at, Assembled::stopped_piece(cells.len(), left));
                }
            }
        }
        self.guard(|w| {
            w.out.commit(len);
            // Where the general path takes over, and whether its first cell
            // needs a separator before it.
            let (from, separate_first) = match piece {
                0 => {
                    w.indent()?;
                    if let Some(key) = key {
                        write_string(&mut w.out, key)?;
                    }
                    (0, key.is_some())
                }
                piece => (piece - 1, false),
            };
            for (i, cell) in cells[from..].iter().enumerate() {
                if i > 0 || separate_first {
                    w.out.write_bytes(b"|")?;
                }
                w.write_cell(cell.cell())?;
            }
            w.out.write_bytes(b"\n")?;
            Ok(())
        })?;
        self.count_row();
        Ok(())
    }

    /// Adds one row to the open section's count.
    #[inline]
    fn count_row(&mut self) {
        if let Some(count) = self.counts.last_mut() {
            *count += 1;
            // At the limit, the next row takes `check_row`, which refuses it.
            if *count >= self.limits.max_container_len as u64 {
                self.row_width = [NO_ROWS; 2];
            }
        }
    }

    fn write_object_cells(&mut self, object: &Map) -> Result<()> {
        let members = object.as_slice();
        let Some(table) = self.table.as_ref() else {
            return Ok(());
        };
        let width = table.fields.len();
        // Members in declared order are read in place; any other order maps
        // each member to its column once (hashed for a wide table), never a
        // scan of the object per column. The map is reused across rows.
        let aligned = members.len() == width
            && members
                .iter()
                .zip(&table.fields)
                .all(|((k, _), f)| k.as_str() == f);
        let mut column_member = core::mem::take(&mut self.column_member);
        if !aligned {
            column_member.clear();
            column_member.resize(width, usize::MAX);
            for (m, (key, _)) in members.iter().enumerate() {
                if let Some(c) = table.column(key) {
                    column_member[c] = m;
                }
            }
        }
        let mut result: Result<()> = Ok(());
        for i in 0..width {
            let value = if aligned {
                members.get(i)
            } else {
                column_member.get(i).and_then(|&m| members.get(m))
            };
            let cell = match value {
                Some((_, v)) => Cell::from_value(v).unwrap_or(Cell::Null),
                None => Cell::Missing,
            };
            if i > 0 {
                if let Err(e) = self.out.write_bytes(b"|") {
                    result = Err(e.into());
                    break;
                }
            }
            if let Err(e) = self.write_cell(cell) {
                result = Err(e);
                break;
            }
        }
        self.column_member = column_member;
        result
    }

    #[inline]
    fn write_cell(&mut self, cell: Cell<'_>) -> Result<()> {
        match cell {
            Cell::Null => self.out.write_bytes(b"-")?,
            Cell::Missing => self.out.write_bytes(b"~")?,
            Cell::Bool(true) => self.out.write_bytes(b"true")?,
            Cell::Bool(false) => self.out.write_bytes(b"false")?,
            Cell::Int(i) => self.out.write_str(itoa::Buffer::new().format(i))?,
            Cell::Float(f) => self.out.write_bytes(self.numbers.format_f64_bytes(f)?)?,
            Cell::Str(s) => write_string(&mut self.out, s)?,
        }
        Ok(())
    }

    fn indent(&mut self) -> Result<()> {
        let mut n = 2 * (self.scopes.len() - 1);
        while n > 0 {
            let chunk = n.min(SPACES.len());
            self.out.write_bytes(&SPACES[..chunk])?;
            n -= chunk;
        }
        Ok(())
    }

    /// Runs a write; a failure part-way leaves a torn line, so the writer
    /// refuses further use.
    fn guard(&mut self, f: impl FnOnce(&mut Self) -> Result<()>) -> Result<()> {
        let result = f(self);
        if result.is_err() {
            self.poisoned = true;
            self.row_width = [NO_ROWS; 2];
        }
        result
    }
}

#[cold]
fn state_error(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidState, message)
}

/// The cell for a scalar value, or the error for a container.
fn scalar_cell<'a>(value: &'a Value, context: &str) -> Result<Cell<'a>> {
    Cell::from_value(value).ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidInput,
            format!("{context} must be a scalar: a streaming payload has no attachments for nested values"),
        )
    })
}

/// Checks that a streamed row of `cells` cells fits a table declaring
/// `fields` fields ([`ErrorKind::RowWidthMismatch`] when not): what
/// [`StreamWriter::row`] and [`StreamWriter::keyed_row`] check, for a
/// binding that sequences a stream itself.
///
/// ```
/// use gcf_core::{generic::check_row_width, ErrorKind};
/// assert!(check_row_width(2, 2).is_ok());
/// assert_eq!(check_row_width(3, 2).unwrap_err().kind(), ErrorKind::RowWidthMismatch);
/// ```
pub fn check_row_width(cells: usize, fields: usize) -> Result<()> {
    if cells == fields {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::RowWidthMismatch,
        format!("row has {cells} cells but the section declares {fields} fields"),
    ))
}

/// Checks the declared fields of a streaming table (a keyed map's value
/// fields, `keyed` adding its key column to the count): at least one, none
/// declared twice ([`ErrorKind::DuplicateFieldName`]), none containing `>`,
/// which reads as a flattened path a streamed row cannot carry (spec §8.3),
/// no more than `limits.max_fields` in all, and no more value fields than
/// `limits.max_container_len` (each row is an object of them)
/// ([`ErrorKind::LimitExceeded`]: a decoder with those limits would refuse
/// the declaration). What
/// [`StreamWriter::begin_table`] and [`StreamWriter::begin_keyed_map`]
/// check, for a binding that sequences a stream itself.
///
/// ```
/// use gcf_core::{generic::check_stream_fields, ErrorKind, Limits};
/// let limits = Limits::default();
/// assert!(check_stream_fields(&["id", "name"], false, &limits).is_ok());
/// let refused = |f: &[&str]| check_stream_fields(f, false, &limits).unwrap_err().kind();
/// assert_eq!(refused(&[]), ErrorKind::InvalidInput);
/// assert_eq!(refused(&["a", "a"]), ErrorKind::DuplicateFieldName);
/// let tight = Limits { max_fields: 2, ..Limits::default() };
/// let err = check_stream_fields(&["a", "b"], true, &tight).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::LimitExceeded);
/// let short = Limits { max_container_len: 1, ..Limits::default() };
/// let err = check_stream_fields(&["a", "b"], false, &short).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::LimitExceeded);
/// ```
pub fn check_stream_fields(fields: &[&str], keyed: bool, limits: &Limits) -> Result<()> {
    if fields.is_empty() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "a streaming section must declare at least one field",
        ));
    }
    let repeat = crate::repeats::first_repeat(fields);
    for (i, field) in fields.iter().enumerate() {
        if field.contains('>') {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "field `{}` contains `>`, which reads as a flattened path column; a streaming section \
                     cannot carry it (spec §8.3)",
                    crate::error::excerpt(field)
                ),
            ));
        }
        if repeat == Some(i) {
            return Err(Error::new(
                ErrorKind::DuplicateFieldName,
                format!("field `{}` is declared twice", crate::error::excerpt(field)),
            ));
        }
    }
    let declared = fields.len() + usize::from(keyed);
    if declared > limits.max_fields {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "{declared} fields are more than the limit of {} a decoder enforces",
                limits.max_fields
            ),
        ));
    }
    if fields.len() > limits.max_container_len {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "rows of {} members are more than the limit of {} per container a decoder enforces",
                fields.len(),
                limits.max_container_len
            ),
        ));
    }
    Ok(())
}

/// The keyed-map key column label: `key`, with `_` prepended until it differs
/// from every value field (spec §7.2a.2).
fn key_label(value_fields: &[&str]) -> String {
    let mut label = String::from("key");
    while value_fields.contains(&label.as_str()) {
        label.insert(0, '_');
    }
    label
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generic::row::tests::{reference_line, sample_strings, Rng};
    use alloc::string::ToString;

    fn writer() -> StreamWriter<String> {
        StreamWriter::new(String::new(), StreamOptions::new()).unwrap()
    }

    /// A section's `##` line ends the table before it: the object's fields
    /// may follow the section (a decoder reads them as members again), as
    /// they may not follow the table directly.
    #[test]
    fn a_section_ends_the_table_before_it() {
        let mut w = writer();
        w.begin_table(Some("items"), &["id"]).unwrap();
        w.row(&[Cell::Int(1)]).unwrap();
        w.end_table().unwrap();
        assert_eq!(
            w.field("n", Cell::Int(1)).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        w.begin_section("meta").unwrap();
        w.end_section().unwrap();
        w.field("count", Cell::Int(1)).unwrap();
        let text = w.finish().unwrap();
        assert_eq!(
            text,
            "GCF profile=generic\n## items [?]{id}\n1\n## meta\ncount=1\n##! summary counts=1\n"
        );
        let value = crate::generic::decode(&text).unwrap();
        assert_eq!(
            value.as_object().unwrap().get("count"),
            Some(&Value::Int(1))
        );
    }

    #[test]
    fn header_with_tool_and_no_trailer_without_tables() {
        let w = StreamWriter::new(String::new(), StreamOptions::new().tool("t1")).unwrap();
        assert_eq!(w.finish().unwrap(), "GCF profile=generic tool=t1\n");
        let w = StreamWriter::new(String::new(), StreamOptions::new().tool("")).unwrap();
        assert_eq!(w.finish().unwrap(), "GCF profile=generic\n");
        for bad in ["a b", "é", "t\u{7f}"] {
            let e = StreamWriter::new(String::new(), StreamOptions::new().tool(bad))
                .err()
                .unwrap();
            assert_eq!(e.kind(), ErrorKind::InvalidInput, "{bad:?}");
        }
    }

    #[test]
    fn key_labels() {
        assert_eq!(key_label(&["a"]), "key");
        assert_eq!(key_label(&["key", "_key"]), "__key");
    }

    #[test]
    fn objects_sections_and_arrays() {
        let mut w = writer();
        w.field("name", Cell::Str("a|b")).unwrap();
        w.inline_array("tags", &[Value::from("x"), Value::from("y,z"), Value::Null])
            .unwrap();
        w.inline_array("none", &[]).unwrap();
        w.begin_section("meta data").unwrap();
        w.field("active", Cell::Bool(true)).unwrap();
        w.begin_section("inner").unwrap();
        w.field("n", Cell::Float(2.5)).unwrap();
        w.end_section().unwrap();
        w.begin_table(Some("rows"), &["a"]).unwrap();
        w.row(&[Cell::Int(1)]).unwrap();
        w.end_table().unwrap();
        w.end_section().unwrap();
        w.field("after", Cell::Int(0)).unwrap();
        assert_eq!(
            w.finish().unwrap(),
            "GCF profile=generic\nname=\"a|b\"\ntags[3]: x,\"y,z\",-\n## none [0]\n## \"meta data\"\n  active=true\n  \
             ## inner\n    n=2.5\n  ## rows [?]{a}\n  1\nafter=0\n##! summary counts=1\n"
        );
    }

    #[test]
    fn field_value_writes_what_field_writes_and_refuses_containers() {
        let mut by_cell = writer();
        let mut by_value = writer();
        let values = [
            Value::Null,
            Value::Bool(false),
            Value::Int(-7),
            Value::Float(0.25),
            Value::from("12"),
        ];
        for (i, v) in values.iter().enumerate() {
            let key = alloc::format!("k{i}");
            by_cell.field(&key, Cell::from_value(v).unwrap()).unwrap();
            by_value.field_value(&key, v).unwrap();
        }
        assert_eq!(by_cell.finish().unwrap(), by_value.finish().unwrap());
        let mut w = writer();
        assert_eq!(
            w.field_value("a", &Value::Array(vec![]))
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidInput
        );
        assert_eq!(
            w.field("a", Cell::Missing).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        assert_eq!(
            w.field("a", Cell::Float(f64::NAN)).unwrap_err().kind(),
            ErrorKind::OutOfRange
        );
    }

    #[test]
    fn misuse_is_invalid_state() {
        let mut w = writer();
        assert_eq!(
            w.row(&[Cell::Null]).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        assert_eq!(w.end_table().unwrap_err().kind(), ErrorKind::InvalidState);
        assert_eq!(w.end_section().unwrap_err().kind(), ErrorKind::InvalidState);
        w.begin_table(Some("t"), &["a", "b"]).unwrap();
        assert_eq!(
            w.begin_section("x").unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        assert_eq!(
            w.field("x", Cell::Null).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        assert_eq!(
            w.keyed_row("k", &[Cell::Null, Cell::Null])
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidState
        );
        assert_eq!(
            w.row(&[Cell::Null]).unwrap_err().kind(),
            ErrorKind::RowWidthMismatch
        );
        w.end_table().unwrap();
        // A key=value line after a table in the same object would read as a row.
        assert_eq!(
            w.field("x", Cell::Null).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        assert_eq!(
            w.begin_table(None, &["a"]).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        // The writer is still usable after refused calls.
        w.begin_table(Some("u"), &["a"]).unwrap();
        w.row(&[Cell::Missing]).unwrap();
        assert_eq!(
            w.finish().unwrap(),
            "GCF profile=generic\n## t [?]{a,b}\n## u [?]{a}\n~\n##! summary counts=0,1\n"
        );
    }

    #[test]
    fn rows_outside_their_section_are_refused() {
        let mut w = writer();
        w.begin_keyed_map(Some("m"), &["v"]).unwrap();
        // The right width for the other kind of section.
        assert_eq!(
            w.row(&[Cell::Null, Cell::Null]).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        assert_eq!(
            w.row(&[Cell::Null]).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        w.keyed_row("k", &[Cell::Int(-7)]).unwrap();
        w.end_table().unwrap();
        assert_eq!(
            w.keyed_row("k", &[Cell::Null]).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        w.begin_section("s").unwrap();
        w.begin_table(Some("t"), &["a"]).unwrap();
        assert_eq!(
            w.keyed_row("k", &[Cell::Null]).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        w.row(&[Cell::Bool(false)]).unwrap();
        w.end_table().unwrap();
        assert_eq!(
            w.row(&[Cell::Null]).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        assert_eq!(
            w.finish().unwrap(),
            "GCF profile=generic\n## m [?:]{key,v}\nk|-7\n## s\n  ## t [?]{a}\n  false\n##! summary counts=1,1\n"
        );
    }

    #[test]
    fn anonymous_root_is_the_whole_body() {
        let mut w = writer();
        w.begin_keyed_map(None, &["key", "v"]).unwrap();
        w.keyed_row("true", &[Cell::Str("k"), Cell::Float(0.5)])
            .unwrap();
        w.end_table().unwrap();
        assert_eq!(
            w.field("x", Cell::Null).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        assert_eq!(
            w.begin_section("x").unwrap_err().kind(),
            ErrorKind::InvalidState
        );
        assert_eq!(
            w.finish().unwrap(),
            "GCF profile=generic\n## [?:]{_key,key,v}\n\"true\"|k|0.5\n##! summary counts=1\n"
        );
    }

    #[test]
    fn bad_fields_and_cells() {
        let mut w = writer();
        assert_eq!(
            w.begin_table(Some("t"), &[]).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        assert_eq!(
            w.begin_table(Some("t"), &["a>b"]).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        assert_eq!(
            w.begin_keyed_map(Some("t"), &["a", "a"])
                .unwrap_err()
                .kind(),
            ErrorKind::DuplicateFieldName
        );
        w.begin_table(Some("t"), &["a", "b"]).unwrap();
        assert_eq!(
            w.row(&[Cell::Float(f64::NAN), Cell::Null])
                .unwrap_err()
                .kind(),
            ErrorKind::OutOfRange
        );
        let nested = [Value::Array(Vec::new()), Value::Null];
        assert_eq!(
            w.row_values(&nested).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        let mut extra = Map::new();
        extra.insert("c", Value::Int(1));
        assert_eq!(
            w.row_object(&extra).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        let mut ok = Map::new();
        ok.insert("b", Value::from("-"));
        w.row_object(&ok).unwrap();
        w.row_values(&[Value::Int(-3), Value::from("")]).unwrap();
        assert_eq!(
            w.finish().unwrap(),
            "GCF profile=generic\n## t [?]{a,b}\n~|\"-\"\n-3|\"\"\n##! summary counts=2\n"
        );
    }

    #[test]
    fn buffer_flushes_in_large_pieces() {
        let mut writes = Vec::new();
        {
            let sink = crate::sink::FnSink(|b: &[u8]| {
                writes.push(b.len());
                Ok(())
            });
            let mut w = StreamWriter::new(sink, StreamOptions::new().buffer_capacity(32)).unwrap();
            w.begin_table(Some("t"), &["a"]).unwrap();
            for _ in 0..10 {
                w.row(&[Cell::Str("0123456789")]).unwrap();
            }
            w.row(&[Cell::Str("a string that is longer than the whole buffer")])
                .unwrap();
            w.finish().unwrap();
        }
        assert!(writes.iter().all(|&n| n <= 47), "{writes:?}");
        assert!(writes.len() < 20, "{writes:?}");
    }

    #[test]
    fn sink_failure_poisons() {
        let sink = crate::sink::FnSink(|_: &[u8]| Err(crate::sink::SinkError));
        let mut w = StreamWriter::new(sink, StreamOptions::new()).unwrap();
        assert_eq!(w.flush().unwrap_err().kind(), ErrorKind::Sink);
        assert_eq!(
            w.field("a", Cell::Null).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
    }

    #[test]
    fn rows_match_the_general_path_at_every_buffer_size() {
        let mut rng = Rng(0x5151_7272_9393_a4a4);
        let strings = sample_strings(&mut rng);
        for capacity in [0, 1, 16, 64, 200, 8192] {
            let mut w =
                StreamWriter::new(Vec::new(), StreamOptions::new().buffer_capacity(capacity))
                    .unwrap();
            let mut expected = String::from("GCF profile=generic\n");
            w.begin_section("s").unwrap();
            expected.push_str("## s\n");
            w.begin_keyed_map(Some("m"), &["a", "b", "c"]).unwrap();
            expected.push_str("  ## m [?:]{key,a,b,c}\n");
            for (i, s) in strings.iter().enumerate() {
                let n = rng.next();
                let cells = [
                    Cell::Str(s),
                    Cell::Int(n as i64),
                    Cell::Float((n % 1000) as f64 / 8.0),
                ];
                let key = strings[(i * 7) % strings.len()].as_str();
                w.keyed_row(key, &cells).unwrap();
                expected.push_str(&reference_line(2, Some(key), &cells));
            }
            w.end_table().unwrap();
            w.end_section().unwrap();
            let n = strings.len();
            expected.push_str(&format!("##! summary counts={n}\n"));
            let out = w.finish().unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                expected,
                "capacity {capacity}"
            );
        }
    }

    #[test]
    fn value_rows_match_cell_rows_at_every_buffer_size() {
        let mut rng = Rng(0x0b0b_1c1c_2d2d_3e3e);
        let strings = sample_strings(&mut rng);
        for capacity in [0, 1, 16, 64, 200, 8192] {
            let options = || StreamOptions::new().buffer_capacity(capacity);
            let mut by_cell = StreamWriter::new(Vec::new(), options()).unwrap();
            let mut by_value = StreamWriter::new(Vec::new(), options()).unwrap();
            for w in [&mut by_cell, &mut by_value] {
                w.begin_section("s").unwrap();
                w.begin_table(Some("t"), &["a", "b", "c", "d"]).unwrap();
            }
            for s in &strings {
                let n = rng.next();
                let values = [
                    Value::from(s.as_str()),
                    Value::Int(n as i64),
                    Value::Float((n % 1000) as f64 / 8.0),
                    [Value::Null, Value::Bool(n % 3 == 0)][(n % 2) as usize].clone(),
                ];
                let cells: Vec<Cell<'_>> = values
                    .iter()
                    .map(|v| Cell::from_value(v).unwrap())
                    .collect();
                by_cell.row(&cells).unwrap();
                by_value.row_values(&values).unwrap();
            }
            assert_eq!(
                by_value.finish().unwrap(),
                by_cell.finish().unwrap(),
                "capacity {capacity}"
            );
        }
        // A bad row is refused at its first bad cell, with nothing written.
        let mut w = writer();
        w.begin_table(None, &["a", "b"]).unwrap();
        let e = w
            .row_values(&[Value::Float(f64::NAN), Value::Array(Vec::new())])
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutOfRange);
        let e = w
            .row_values(&[Value::Object(Map::new()), Value::Float(f64::NAN)])
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        let e = w.row_values(&[Value::Null]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::RowWidthMismatch);
        w.row_values(&[Value::Null, Value::from("x")]).unwrap();
        assert_eq!(
            w.finish().unwrap(),
            "GCF profile=generic\n## [?]{a,b}\n-|x\n##! summary counts=1\n"
        );
    }

    #[test]
    fn bad_float_refuses_the_row_without_poisoning() {
        let mut w = writer();
        w.begin_table(None, &["a", "b", "c"]).unwrap();
        let e = w
            .row(&[
                Cell::Str("x"),
                Cell::Float(f64::INFINITY),
                Cell::Float(f64::NAN),
            ])
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutOfRange);
        assert!(e.to_string().contains("inf"), "{e}");
        w.row(&[Cell::Str("x"), Cell::Int(1), Cell::Null]).unwrap();
        assert_eq!(
            w.finish().unwrap(),
            "GCF profile=generic\n## [?]{a,b,c}\nx|1|-\n##! summary counts=1\n"
        );
    }

    #[test]
    fn bad_float_is_refused_before_a_flush() {
        // The sink refuses everything: a flush would poison the writer.
        let sink = crate::sink::FnSink(|_: &[u8]| Err(crate::sink::SinkError));
        let mut w = StreamWriter::new(sink, StreamOptions::new().buffer_capacity(100)).unwrap();
        w.begin_table(Some("t"), &["a", "b"]).unwrap();
        let long = "x".repeat(70);
        let e = w
            .row(&[Cell::Str(&long), Cell::Float(f64::NAN)])
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutOfRange);
        // Nothing reached the sink, so the writer is not poisoned and a
        // row that fits is accepted.
        w.row(&[Cell::Str("y"), Cell::Float(0.5)]).unwrap();
        assert_eq!(w.counts(), &[1]);
        // A row that needs a flush now fails on the sink and poisons.
        assert_eq!(
            w.row(&[Cell::Str(&long), Cell::Null]).unwrap_err().kind(),
            ErrorKind::Sink
        );
        assert_eq!(
            w.row(&[Cell::Str("y"), Cell::Null]).unwrap_err().kind(),
            ErrorKind::InvalidState
        );
    }
}
