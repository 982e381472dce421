//! The generic stream behind 2.5.2's `GenericStreamEncoder`.
//!
//! 2.5.2's encoder is looser than the core's `generic::StreamWriter`: a row
//! with no open table is dropped, a new table or section closes the open
//! table, `writeSection` does not indent what follows, the key column of a
//! keyed map is named by the caller, `close` writes no trailer when no table
//! was written, and a `>` in a field name is reported at `close`. Callers
//! rely on that wire, so this type keeps 2.5.2's sequencing; every cell, key
//! and field name is still written by the core's scalar grammar (spec §2),
//! so the text of each token cannot drift from the encoders'.
//!
//! Stricter than 2.5.2 where its output is what no decoder reads back, as
//! every other stream here is: after a successful `close`, a line or table
//! is refused (`invalid_state`, where 2.5.2 writes it after its trailer) and
//! `close` again writes nothing (2.5.2 writes the trailer twice); rows, as
//! any row with no open table, are dropped. A `key=value` line or inline
//! array after a table, with no section line between them, is refused
//! (`invalid_state`: a decoder reads it as one more row of the table, where
//! 2.5.2 writes it), and so is a keyed map whose key label is also one of
//! its value fields (`invalid_input`: the declaration would name it twice),
//! as the Python and Go streams refuse them. So are a table declaring no
//! field or one field twice, a row whose cell count is not the table's field
//! count (`row_width_mismatch`) and a keyed-map member whose key (cell 0) is
//! null or a boolean (`invalid_input`): every decoder refuses the others
//! (§7.4, §7.2a), and reads such a key as a text of its own (`null`, `None`)
//! or refuses it, as ours do. The core's stream writer refuses them under
//! Python, Go and C (the declaration through the same check,
//! `generic::check_stream_fields`).
//!
//! Output collects here; JS takes it in batches.

use gcf_bind::Failure;
use gcf_core::generic::{self, ScalarWriter, Value};

use crate::nul::NulFields;
use crate::packed_value::{self, FALSE, NULL, NUMBER, STRING, TRUE};
use crate::scalar::write_cell;
use crate::Result;

/// `|`: cells are formatted for a row, as 2.5.2 formats every value here.
const PIPE: u32 = b'|' as u32;

/// A generic stream; see the module docs.
pub struct GenericStream {
    out: Vec<u8>,
    /// Rows per closed table, in order.
    counts: Vec<u64>,
    /// Rows written to the open table.
    open: Option<u64>,
    /// The open table's declared fields (the key column included).
    width: usize,
    /// Whether the open table is a keyed map.
    keyed: bool,
    /// A refused field name, reported by [`close`](Self::close).
    refused: Option<Failure>,
    /// Set by a successful [`close`](Self::close).
    closed: bool,
    /// A table was begun since the last section line: a line now would read
    /// as one of its rows.
    after_table: bool,
    scalars: ScalarWriter,
}

impl Default for GenericStream {
    fn default() -> Self {
        Self::new()
    }
}

fn strings(json: &str) -> Result<Vec<String>> {
    Ok(serde_json::from_str(json)?)
}

/// A JS number as the row's cell: as a packed value's number, and any other
/// double (past 2^53, or not finite, which `write_cell` refuses) as itself.
fn number(x: f64) -> Value {
    packed_value::number(x).unwrap_or(Value::Float(x))
}

/// Refuses, as the core's stream writer does (the same check), a
/// declaration no decoder reads: no field, a field declared twice, more
/// fields (with the key column when `keyed`) than a decoder takes. A field
/// with `>` is left to [`GenericStream::refuse_paths`], which reports it at
/// `close` as 2.5.2 does.
fn check_declaration(fields: &[String], keyed: bool) -> Result<()> {
    if fields.iter().any(|f| f.contains('>')) {
        return Ok(());
    }
    let names: Vec<&str> = fields.iter().map(String::as_str).collect();
    generic::check_stream_fields(&names, keyed, &gcf_core::Limits::default())?;
    Ok(())
}

/// A keyed-map member key that is null or a boolean: the decoders read
/// them as different texts (`null`, `None`, `true`, `True`), or refuse them.
fn key_refused() -> Failure {
    Failure::invalid_input("a keyed-map member key (cell 0) must be a string or a number")
}

/// The op that starts a row in [`GenericStream::write_rows_packed`]; its
/// cells use the ops of packed values.
const ROW: u8 = b'r';

fn cells(json: &str) -> Result<Vec<Value>> {
    match gcf_bind::value::from_str(json)? {
        Value::Array(items) => Ok(items),
        _ => Err(Failure::invalid_input("expected an array of values")),
    }
}

impl GenericStream {
    /// Writes the header.
    pub fn new() -> Self {
        GenericStream {
            out: b"GCF profile=generic\n".to_vec(),
            counts: Vec::new(),
            open: None,
            width: 0,
            keyed: false,
            refused: None,
            closed: false,
            after_table: false,
            scalars: ScalarWriter::new(),
        }
    }

    /// Refuses a line that a decoder would read as a row of the table
    /// before it (see the module docs).
    fn line_after_table(&self, what: &str) -> Result<()> {
        if self.after_table && self.refused.is_none() {
            return Err(gcf_core::Error::new(
                gcf_core::ErrorKind::InvalidState,
                format!(
                    "cannot write a {what} after a streaming table with no section line between: a decoder would read it as one more row; write it before the table or after writeSection"
                ),
            )
            .into());
        }
        Ok(())
    }

    /// Refuses a line or table after [`close`](Self::close).
    fn live(&self) -> Result<()> {
        if self.closed {
            return Err(crate::stream::closed());
        }
        Ok(())
    }

    fn buffered(&self) -> u32 {
        u32::try_from(self.out.len()).unwrap_or(u32::MAX)
    }

    fn end_table(&mut self) {
        if let Some(n) = self.open.take() {
            self.counts.push(n);
        }
    }

    /// Refuses (at `close`, as 2.5.2 does) a field that reads as a
    /// flattened path.
    fn refuse_paths(&mut self, fields: &[String]) -> bool {
        if let Some(f) = fields.iter().find(|f| f.contains('>')) {
            let quoted = serde_json::to_string(f).unwrap_or_default();
            self.refused = Some(Failure::invalid_input(format!(
                "streaming field name {quoted} contains '>' (a flattened path is not representable in a streaming row)"
            )));
            return true;
        }
        false
    }

    /// The open table's field count (the key column included), 0 when no
    /// table is open: rows are then dropped. The layer reads it after
    /// beginning a table, to refuse a row of the wrong width when it is
    /// written rather than when its batch crosses.
    pub fn row_width(&self) -> u32 {
        match self.open {
            Some(_) => u32::try_from(self.width).unwrap_or(u32::MAX),
            None => 0,
        }
    }

    /// Whether the open table is a keyed map (cell 0 of a row is its key).
    pub fn keyed(&self) -> bool {
        self.open.is_some() && self.keyed
    }

    /// Refuses a row of `cells` cells in the open table, or a keyed-map
    /// row whose key is null or a boolean (`key_is_text` false).
    fn check_row(&self, cells: usize, key_is_text: bool) -> Result<()> {
        generic::check_row_width(cells, self.width)?;
        if self.keyed && !key_is_text {
            return Err(key_refused());
        }
        Ok(())
    }

    fn table_header(
        &mut self,
        name: &str,
        marker: &[u8],
        fields: &[String],
        keyed: bool,
    ) -> Result<()> {
        let mut line = Vec::with_capacity(16 + name.len() + 8 * fields.len());
        line.extend_from_slice(b"## ");
        self.scalars.key(&mut line, name)?;
        line.extend_from_slice(marker);
        line.push(b'{');
        for (i, f) in fields.iter().enumerate() {
            if i > 0 {
                line.push(b',');
            }
            self.scalars.key(&mut line, f)?;
        }
        line.extend_from_slice(b"}\n");
        // Committed whole, so a refused name leaves nothing behind.
        self.out.extend_from_slice(&line);
        self.open = Some(0);
        self.width = fields.len();
        self.keyed = keyed;
        self.after_table = true;
        Ok(())
    }

    /// `## name [?]{fields}` (`fields`: a JSON array of strings); returns
    /// the bytes waiting to be taken.
    pub fn begin_array(&mut self, name: &str, fields: &str) -> Result<u32> {
        self.live()?;
        let fields = strings(fields)?;
        check_declaration(&fields, false)?;
        if self.refused.is_none() {
            self.end_table();
            if !self.refuse_paths(&fields) {
                self.table_header(name, b" [?]", &fields, false)?;
            }
        }
        Ok(self.buffered())
    }

    /// `## name [?:]{key_label,value_fields}` (spec §7.2a).
    pub fn begin_keyed_map(
        &mut self,
        name: &str,
        key_label: &str,
        value_fields: &str,
    ) -> Result<u32> {
        self.live()?;
        let value_fields = strings(value_fields)?;
        check_declaration(&value_fields, true)?;
        if value_fields.iter().any(|f| f == key_label) {
            return Err(Failure::invalid_input(format!(
                "the key label {} is also a value field: the declaration would name it twice",
                serde_json::to_string(key_label).unwrap_or_default()
            )));
        }
        if self.refused.is_none() {
            self.end_table();
            if !self.refuse_paths(&value_fields) {
                let mut fields = Vec::with_capacity(value_fields.len() + 1);
                fields.push(String::from(key_label));
                fields.extend(value_fields);
                self.table_header(name, b" [?:]", &fields, true)?;
            }
        }
        Ok(self.buffered())
    }

    fn write_cells(&mut self, values: &[Value], separator: u8) -> Result<()> {
        let start = self.out.len();
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                self.out.push(separator);
            }
            if let Err(e) = write_cell(&mut self.out, v, PIPE, &mut self.scalars) {
                self.out.truncate(start);
                return Err(e);
            }
        }
        Ok(())
    }

    /// One row (`values`: a JSON array of scalars); dropped when no table
    /// is open, as in 2.5.2.
    pub fn write_row(&mut self, values: &str) -> Result<u32> {
        if self.open.is_some() {
            let values = cells(values)?;
            self.put_row(&values)?;
        }
        Ok(self.buffered())
    }

    /// Several rows at once (`rows`: a JSON array of rows), as that many
    /// [`write_row`](Self::write_row) calls: one crossing instead of one per
    /// row. All or nothing: when any row is refused, nothing of the batch
    /// is written (the caller can then send the rows one by one to learn
    /// which).
    pub fn write_rows(&mut self, rows: &str) -> Result<u32> {
        if self.open.is_some() {
            let (start, open) = (self.out.len(), self.open);
            let written = cells(rows).and_then(|rows| {
                rows.iter().try_for_each(|row| match row {
                    Value::Array(values) => self.put_row(values),
                    _ => Err(Failure::invalid_input("expected an array of rows")),
                })
            });
            if let Err(e) = written {
                self.out.truncate(start);
                self.open = open;
                return Err(e);
            }
        }
        Ok(self.buffered())
    }

    /// [`write_rows`](Self::write_rows) of rows in the packed form, which
    /// skips JSON, number text and the value tree, as the layer's other
    /// packed routes do ([`crate::generic_encode_packed`], whose op codes the
    /// cells use): `ops` holds one byte per row start (`r`) and per cell:
    /// `n` null, `t` true, `f` false, `d` a number (the next of `nums`: an integer when it is a
    /// safe one, as JS's `Number.isSafeInteger` says, a double otherwise),
    /// `s` a string (the next NUL-ended field of `text`, holding no NUL:
    /// the caller sends such a row as JSON). All or nothing, as
    /// `write_rows`.
    pub fn write_rows_packed(&mut self, ops: &[u8], text: &[u8], nums: &[f64]) -> Result<u32> {
        if self.open.is_some() {
            let (start, open) = (self.out.len(), self.open);
            if let Err(e) = self.put_packed_rows(ops, text, nums) {
                self.out.truncate(start);
                self.open = open;
                return Err(e);
            }
        }
        Ok(self.buffered())
    }

    fn put_packed_rows(&mut self, ops: &[u8], text: &[u8], nums: &[f64]) -> Result<()> {
        let bad = || Failure::invalid_input("malformed packed rows");
        let text = core::str::from_utf8(text).map_err(|_| bad())?;
        let (mut fields, mut nums) = (NulFields::new(text), nums.iter());
        let mut row_open = false;
        let mut cells = 0;
        for &op in ops {
            if op == ROW {
                if row_open {
                    self.end_packed_row(cells)?;
                }
                row_open = true;
                cells = 0;
                continue;
            }
            if !row_open {
                return Err(bad());
            }
            if cells > 0 {
                self.out.push(b'|');
            } else if self.keyed && matches!(op, NULL | TRUE | FALSE) {
                return Err(key_refused());
            }
            cells += 1;
            let value = match op {
                NULL => Value::Null,
                TRUE => Value::Bool(true),
                FALSE => Value::Bool(false),
                NUMBER => number(*nums.next().ok_or_else(bad)?),
                STRING => {
                    let text = fields.next().ok_or_else(bad)?;
                    // As `write_cell` writes a string in a row.
                    if generic::needs_quote(text) || text.contains('|') {
                        self.scalars.quoted(&mut self.out, text)?;
                    } else {
                        self.out.extend_from_slice(text.as_bytes());
                    }
                    continue;
                }
                _ => return Err(bad()),
            };
            write_cell(&mut self.out, &value, PIPE, &mut self.scalars)?;
        }
        // Every field ends with a NUL, so the last split is empty; a number
        // or field left over is a malformed batch.
        if fields.next() != Some("") || fields.next().is_some() || nums.next().is_some() {
            return Err(bad());
        }
        if row_open {
            self.end_packed_row(cells)?;
        }
        Ok(())
    }

    fn end_packed_row(&mut self, cells: usize) -> Result<()> {
        generic::check_row_width(cells, self.width)?;
        self.out.push(b'\n');
        self.open = self.open.map(|n| n + 1);
        Ok(())
    }

    fn put_row(&mut self, values: &[Value]) -> Result<()> {
        if let Some(n) = self.open {
            let key_is_text = !matches!(values.first(), Some(Value::Null | Value::Bool(_)));
            self.check_row(values.len(), key_is_text)?;
            self.write_cells(values, b'|')?;
            self.out.push(b'\n');
            self.open = Some(n + 1);
        }
        Ok(())
    }

    /// Closes the open table.
    pub fn end_array(&mut self) -> u32 {
        self.end_table();
        self.buffered()
    }

    /// `key=value` (`value`: a scalar as JSON).
    pub fn write_kv(&mut self, key: &str, value: &str) -> Result<u32> {
        self.live()?;
        self.line_after_table("field")?;
        let value = gcf_bind::value::from_str(value)?;
        let start = self.out.len();
        self.scalars.key(&mut self.out, key)?;
        self.out.push(b'=');
        if let Err(e) = self.write_cells(core::slice::from_ref(&value), b'|') {
            self.out.truncate(start);
            return Err(e);
        }
        self.out.push(b'\n');
        Ok(self.buffered())
    }

    /// `## name`, closing the open table.
    pub fn write_section(&mut self, name: &str) -> Result<u32> {
        self.live()?;
        self.end_table();
        self.after_table = false;
        let start = self.out.len();
        self.out.extend_from_slice(b"## ");
        if let Err(e) = self.scalars.key(&mut self.out, name) {
            self.out.truncate(start);
            return Err(e.into());
        }
        self.out.push(b'\n');
        Ok(self.buffered())
    }

    /// `name[N]: a,b,...` (`values`: a JSON array of scalars).
    pub fn write_inline_array(&mut self, name: &str, values: &str) -> Result<u32> {
        self.live()?;
        self.line_after_table("inline array")?;
        let values = cells(values)?;
        let start = self.out.len();
        self.scalars.key(&mut self.out, name)?;
        self.out.push(b'[');
        self.out
            .extend_from_slice(itoa::Buffer::new().format(values.len()).as_bytes());
        self.out.extend_from_slice(b"]: ");
        if let Err(e) = self.write_cells(&values, b',') {
            self.out.truncate(start);
            return Err(e);
        }
        self.out.push(b'\n');
        Ok(self.buffered())
    }

    /// Everything written so far, handed over once.
    pub fn take(&mut self) -> String {
        // Only UTF-8 pieces are written.
        String::from_utf8(core::mem::take(&mut self.out)).unwrap_or_default()
    }

    /// The trailer (none when no table was written) and the rest of the
    /// output; a refused field name is reported here, at every call. Once
    /// closed, nothing more.
    pub fn close(&mut self) -> Result<String> {
        if let Some(f) = &self.refused {
            return Err(f.clone());
        }
        if self.closed {
            return Ok(self.take());
        }
        self.closed = true;
        self.end_table();
        if !self.counts.is_empty() {
            self.out.extend_from_slice(b"##! summary counts=");
            let mut digits = itoa::Buffer::new();
            for (i, n) in self.counts.iter().enumerate() {
                if i > 0 {
                    self.out.push(b',');
                }
                self.out.extend_from_slice(digits.format(*n).as_bytes());
            }
            self.out.push(b'\n');
        }
        Ok(self.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_rows_and_the_trailer() {
        let mut s = GenericStream::new();
        s.write_kv("total", "2").unwrap();
        s.begin_array("employees", r#"["id","name"]"#).unwrap();
        s.write_row(r#"[1,"Alice|B"]"#).unwrap();
        s.write_row(r#"[2,null]"#).unwrap();
        s.begin_keyed_map("m", "k", r#"["v"]"#).unwrap();
        s.write_row(r#"["a",true]"#).unwrap();
        s.write_section("meta").unwrap();
        s.write_inline_array("tags", r#"["x","1"]"#).unwrap();
        assert_eq!(
            s.close().unwrap(),
            "GCF profile=generic\ntotal=2\n## employees [?]{id,name}\n1|\"Alice|B\"\n2|-\n\
             ## m [?:]{k,v}\na|true\n## meta\ntags[2]: x,\"1\"\n##! summary counts=2,1\n"
        );
    }

    #[test]
    fn a_batch_of_rows_is_that_many_rows() {
        let (mut one, mut batch) = (GenericStream::new(), GenericStream::new());
        for s in [&mut one, &mut batch] {
            s.begin_array("t", r#"["a","b"]"#).unwrap();
        }
        one.write_row(r#"[1,"x"]"#).unwrap();
        one.write_row(r#"[2,null]"#).unwrap();
        batch.write_rows(r#"[[1,"x"],[2,null]]"#).unwrap();
        assert!(batch.write_rows(r#"[[3,"y"],[[4]],[5,"z"]]"#).is_err());
        assert_eq!(batch.close().unwrap(), one.close().unwrap());
    }

    #[test]
    fn packed_rows_are_json_rows() {
        let (mut json, mut packed) = (GenericStream::new(), GenericStream::new());
        for s in [&mut json, &mut packed] {
            s.begin_array("t", r#"["a","b","c"]"#).unwrap();
        }
        json.write_rows(r#"[[1,"x|y",null],[true,false,1.5e300],["",-7,"-"],[-0,0.5,"é"]]"#)
            .unwrap();
        packed
            .write_rows_packed(
                b"rdsnrtfdrsdsrdds",
                "x|y\0\0-\0é\0".as_bytes(),
                &[1.0, 1.5e300, -7.0, -0.0, 0.5],
            )
            .unwrap();
        assert_eq!(packed.close().unwrap(), json.close().unwrap());
    }

    #[test]
    fn malformed_packed_rows_write_nothing() {
        let mut s = GenericStream::new();
        s.begin_array("t", r#"["a"]"#).unwrap();
        let bad: [(&[u8], &[u8], &[f64]); 8] = [
            (b"d", b"", &[1.0]),
            (b"rq", b"", &[]),
            (b"rd", b"", &[]),
            (b"rs", b"x", &[]),
            (b"rs", b"x\0y\0", &[]),
            (b"rd", b"", &[1.0, 2.0]),
            (b"rs", b"\xff\0", &[]),
            (b"rdrd", b"", &[f64::NAN, 1.0]),
        ];
        for (ops, text, nums) in bad {
            assert!(
                s.write_rows_packed(ops, text, nums).is_err(),
                "{ops:?} {text:?} {nums:?}"
            );
        }
        assert_eq!(
            s.close().unwrap(),
            "GCF profile=generic\n## t [?]{a}\n##! summary counts=0\n"
        );
    }

    #[test]
    fn rows_no_decoder_reads_are_refused_on_every_route_and_leave_nothing() {
        let mut s = GenericStream::new();
        assert_eq!(s.row_width(), 0);
        s.begin_array("t", r#"["a","b"]"#).unwrap();
        assert_eq!((s.row_width(), s.keyed()), (2, false));
        for (json, packed) in [
            ("[1]", (&b"rd"[..], &[1.0][..])),
            ("[1,2,3]", (&b"rddd"[..], &[1.0, 2.0, 3.0][..])),
        ] {
            let e = s.write_row(json).unwrap_err();
            assert_eq!(e.category, "row_width_mismatch", "{}", e.message);
            assert!(s.write_rows(&format!("[[1,2],{json}]")).is_err());
            // A good row first: the batch is refused whole.
            let ops = [&b"rdd"[..], packed.0].concat();
            let nums = [&[1.0, 2.0][..], packed.1].concat();
            let e = s.write_rows_packed(&ops, b"", &nums).unwrap_err();
            assert_eq!(e.category, "row_width_mismatch", "{}", e.message);
        }
        s.begin_keyed_map("m", "id", r#"["v"]"#).unwrap();
        assert_eq!((s.row_width(), s.keyed()), (2, true));
        for key in ["null", "true", "false"] {
            let e = s.write_row(&format!("[{key},1]")).unwrap_err();
            assert_eq!(e.category, "invalid_input", "{}", e.message);
        }
        for op in [NULL, TRUE, FALSE] {
            let e = s
                .write_rows_packed(&[ROW, op, NUMBER], b"", &[1.0])
                .unwrap_err();
            assert_eq!(e.category, "invalid_input", "{}", e.message);
        }
        // A string or a number key is a key; null is a value like any other.
        s.write_row(r#"["a",null]"#).unwrap();
        s.write_rows_packed(&[ROW, NUMBER, NULL], b"", &[42.0])
            .unwrap();
        s.end_array();
        assert_eq!(s.row_width(), 0);
        let text = s.close().unwrap();
        assert_eq!(
            text,
            "GCF profile=generic\n## t [?]{a,b}\n## m [?:]{id,v}\na|-\n42|-\n##! summary counts=0,2\n"
        );
        assert!(gcf_core::generic::decode(&text).is_ok());
    }

    #[test]
    fn declarations_no_decoder_reads_are_refused_and_the_open_table_stays() {
        let mut s = GenericStream::new();
        s.begin_array("t", r#"["a"]"#).unwrap();
        for (e, category) in [
            (s.begin_array("u", "[]"), "invalid_input"),
            (s.begin_array("u", r#"["a","a"]"#), "duplicate_field_name"),
            (s.begin_keyed_map("m", "k", "[]"), "invalid_input"),
            (
                s.begin_keyed_map("m", "k", r#"["v","v"]"#),
                "duplicate_field_name",
            ),
        ] {
            assert_eq!(e.unwrap_err().category, category);
        }
        s.write_row("[1]").unwrap();
        let text = s.close().unwrap();
        assert_eq!(
            text,
            "GCF profile=generic\n## t [?]{a}\n1\n##! summary counts=1\n"
        );
        // `>` is still reported at close, as 2.5.2 reports it.
        let mut s = GenericStream::new();
        s.begin_array("t", r#"["a>b","a>b"]"#).unwrap();
        assert_eq!(s.close().unwrap_err().category, "invalid_input");
    }

    #[test]
    fn a_row_without_a_table_is_dropped_and_no_table_means_no_trailer() {
        let mut s = GenericStream::new();
        s.write_row("[1]").unwrap();
        assert_eq!(s.close().unwrap(), "GCF profile=generic\n");
    }

    #[test]
    fn a_path_field_is_reported_at_close_and_a_bad_cell_leaves_nothing() {
        let mut s = GenericStream::new();
        s.begin_array("t", r#"["a"]"#).unwrap();
        assert!(s.write_row(r#"[[1]]"#).is_err());
        s.begin_array("u", r#"["a>b"]"#).unwrap();
        s.write_row("[1]").unwrap();
        let e = s.close().unwrap_err();
        assert_eq!(e.category, "invalid_input");
        assert!(e.message.contains("\"a>b\""), "{}", e.message);
    }

    #[test]
    fn after_close_lines_are_refused_rows_dropped_and_close_writes_nothing() {
        let mut s = GenericStream::new();
        s.begin_array("t", r#"["a"]"#).unwrap();
        s.write_row("[1]").unwrap();
        let text = "GCF profile=generic\n## t [?]{a}\n1\n##! summary counts=1\n";
        assert_eq!(s.close().unwrap(), text);
        for e in [
            s.write_kv("k", "1").unwrap_err(),
            s.write_section("s").unwrap_err(),
            s.write_inline_array("a", "[1]").unwrap_err(),
            s.begin_array("u", r#"["a"]"#).unwrap_err(),
            s.begin_keyed_map("m", "k", r#"["v"]"#).unwrap_err(),
        ] {
            assert_eq!(
                (e.category, e.message.as_str()),
                ("invalid_state", "the stream is closed")
            );
        }
        s.write_row("[2]").unwrap();
        assert_eq!(s.close().unwrap(), "");
    }

    #[test]
    fn lines_a_decoder_would_read_as_rows_are_refused() {
        let mut s = GenericStream::new();
        s.begin_array("t", r#"["a"]"#).unwrap();
        s.write_row("[1]").unwrap();
        s.end_array();
        for e in [
            s.write_kv("k", "1").unwrap_err(),
            s.write_inline_array("a", "[1]").unwrap_err(),
        ] {
            assert_eq!(e.category, "invalid_state", "{}", e.message);
        }
        // After a section line they are the object's again.
        s.write_section("meta").unwrap();
        s.write_kv("k", "1").unwrap();
        let e = s.begin_keyed_map("m", "v", r#"["v","w"]"#).unwrap_err();
        assert_eq!(e.category, "invalid_input");
        let text = s.close().unwrap();
        assert_eq!(
            text,
            "GCF profile=generic\n## t [?]{a}\n1\n## meta\nk=1\n##! summary counts=1\n"
        );
        assert!(gcf_core::generic::decode(&text).is_ok());
    }

    #[test]
    fn a_stream_closed_without_a_table_is_closed_too() {
        let mut s = GenericStream::new();
        assert_eq!(s.close().unwrap(), "GCF profile=generic\n");
        assert!(s.write_kv("k", "1").is_err());
        assert_eq!(s.close().unwrap(), "");
    }
}
