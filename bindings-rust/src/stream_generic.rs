//! The generic streaming encoder (spec §8.2-§8.4) on gcf-core's
//! [`generic::StreamWriter`](gcf_core::generic::StreamWriter): tables whose
//! length is not known up front are declared `[?]`, their rows written as
//! they come, and a `##! summary counts=...` trailer gives the lengths.
//!
//! Only [`close`](GenericStreamEncoder::close) returns a result, as in the
//! reference crate, so a call gcf-core refuses stops the stream (it and
//! every later call write nothing) and `close` returns that first error
//! without writing the trailer.

use std::io::{self, Write};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use gcf_core::generic::{self as core, check_row_width, Cell, Value};
use gcf_core::{Error, ErrorKind};

use crate::stream::WriterSink;

/// A scalar cell of a streamed row, a `key=value` line or an inline array.
#[derive(Clone, Debug)]
pub enum GcfValue {
    /// Written `-`.
    Null,
    /// Written `true` or `false`.
    Bool(bool),
    /// Written in decimal.
    Int(i64),
    /// Written in canonical form (spec §2.3.1); NaN and the infinities have
    /// none and are written as null, as JSON encoders write them (and the
    /// crate does).
    Float(f64),
    /// Written bare, or quoted where the bare text would read as something
    /// else (a number, `true`, `-`, a delimiter...).
    Str(String),
}

impl GcfValue {
    fn cell(&self) -> Cell<'_> {
        match self {
            GcfValue::Null => Cell::Null,
            GcfValue::Bool(b) => Cell::Bool(*b),
            GcfValue::Int(n) => Cell::Int(*n),
            GcfValue::Float(f) if f.is_finite() => Cell::Float(*f),
            GcfValue::Float(_) => Cell::Null,
            GcfValue::Str(s) => Cell::Str(s),
        }
    }

    fn value(&self) -> Value {
        match self.cell() {
            Cell::Bool(b) => Value::Bool(b),
            Cell::Int(n) => Value::Int(n),
            Cell::Float(f) => Value::Float(f),
            Cell::Str(s) => Value::from(s),
            Cell::Null | Cell::Missing => Value::Null,
        }
    }
}

impl From<i32> for GcfValue {
    fn from(v: i32) -> Self {
        GcfValue::Int(i64::from(v))
    }
}

impl From<i64> for GcfValue {
    fn from(v: i64) -> Self {
        GcfValue::Int(v)
    }
}

impl From<f64> for GcfValue {
    fn from(v: f64) -> Self {
        GcfValue::Float(v)
    }
}

impl From<bool> for GcfValue {
    fn from(v: bool) -> Self {
        GcfValue::Bool(v)
    }
}

impl From<&str> for GcfValue {
    fn from(v: &str) -> Self {
        GcfValue::Str(v.to_string())
    }
}

impl From<String> for GcfValue {
    fn from(v: String) -> Self {
        GcfValue::Str(v)
    }
}

/// Writes a generic-profile payload incrementally: `GCF profile=generic` at
/// construction, then tables (`## name [?]{fields}`), keyed maps
/// (`## name [?:]{key,fields}`), `key=value` lines, section lines and inline
/// arrays as their methods are called, and on [`close`](Self::close) a
/// `##! summary counts=...` trailer with one row count per table or keyed
/// map, in order (none when there was no table).
///
/// ```
/// use gcf_compat::stream_generic::GcfValue;
/// use gcf_compat::GenericStreamEncoder;
///
/// let mut out = Vec::new();
/// let enc = GenericStreamEncoder::new(&mut out);
/// enc.begin_array("users", &["id", "name"]);
/// enc.write_row(&[1.into(), "Ada".into()]);
/// enc.write_row(&[2.into(), GcfValue::Null]);
/// enc.close().unwrap();
/// drop(enc);
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "GCF profile=generic\n## users [?]{id,name}\n1|Ada\n2|-\n##! summary counts=2\n"
/// );
/// ```
///
/// Every line is handed to `W` before its method returns; `close` hands over
/// the trailer and leaves nothing behind (`W` itself is not flushed, as in
/// the crate). Starting a table, a keyed map or a section ends the open
/// table; a row with no table open is ignored, as in the crate.
///
/// # Where the output differs from the reference crate's
///
/// The crate writes whatever it is given; some of it is not GCF. Here these
/// calls are refused, which stops the stream and makes `close` return the
/// error (`invalid_input` and the like; the message starts with gcf-core's
/// category):
/// - a table with no field, a field named twice, a field containing `>`
///   (which the crate refuses too), a keyed map's key label that is also one
///   of its value fields, or a keyed map with no value field;
/// - a row whose width is not the declaration's; a keyed map's row whose key
///   (its first value) is null, a boolean or not finite;
/// - a `key=value` line or inline array while a table is open, or after one
///   in the same object with no section line between (a reader would take
///   it for one more row).
///
/// A `key=value` key, section name or inline array name that is not a bare
/// key is quoted (spec §2.4), where the crate writes it raw; an empty inline
/// array is written `## name [0]` (spec §7.7) where the crate writes
/// `name[0]: ` with a trailing space. A write error from `W` is returned by
/// `close` (the crate panics, except in `close`). After `close`, every call
/// writes nothing and a second `close` returns `Ok(())` (the crate writes
/// lines after its trailer, and the trailer again).
///
/// The methods take `&self` and lock internally, so an encoder can be shared
/// between threads (when `W: Send`), as the crate's can.
pub struct GenericStreamEncoder<W: Write> {
    inner: Mutex<Inner<W>>,
}

struct Inner<W: Write> {
    stage: Stage<W>,
    /// The table or keyed map open in the core writer, if any.
    table: Option<Table>,
    /// The first refusal or write error, for `close`.
    failure: Option<io::Error>,
    /// Where the sink leaves the writer's own error.
    sink_failure: Arc<Mutex<Option<io::Error>>>,
}

enum Stage<W: Write> {
    /// Boxed, so the encoder stays small to move.
    Open(Box<Writer<W>>),
    /// Stopped by an error, or closed. The writer is held (when it was not
    /// lost with a failed core writer) so that it is dropped with the
    /// encoder, as the crate's is.
    Stopped(Option<Box<Writer<W>>>),
    Closed(Option<W>),
}

#[derive(Clone, Copy)]
enum Table {
    Array,
    /// A keyed map: a row is its key, then one cell per value field.
    Keyed {
        width: usize,
    },
}

type Writer<W> = core::StreamWriter<WriterSink<W>>;

impl<W: Write> GenericStreamEncoder<W> {
    /// Starts a generic stream on `w` and writes its header line.
    pub fn new(w: W) -> Self {
        let sink = WriterSink::new(w);
        let sink_failure = sink.failure();
        let mut inner = Inner {
            stage: Stage::Stopped(None),
            table: None,
            failure: None,
            sink_failure,
        };
        match core::StreamWriter::new(sink, core::StreamOptions::new()) {
            Ok(writer) => {
                inner.stage = Stage::Open(Box::new(writer));
                // The header reaches `w` now, as the crate writes it in `new`.
                inner.run(|_, _| Ok(()));
            }
            Err(e) => inner.fail(e),
        }
        GenericStreamEncoder {
            inner: Mutex::new(inner),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner<W>> {
        // Nothing panics while the lock is held but `W` itself; the state is
        // consistent even then, so a poisoned lock is taken over.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts a table `## name [?]{fields}`, ending the open one first. Names
    /// are quoted where they are not bare keys.
    pub fn begin_array(&self, name: &str, fields: &[&str]) {
        self.lock().run(|w, table| {
            end_table(w, table)?;
            w.begin_table(Some(name), fields)?;
            *table = Some(Table::Array);
            Ok(())
        });
    }

    /// Starts a keyed map `## name [?:]{key_label,value_fields}` (spec
    /// §7.2a), ending the open table first. Each row is then the member's
    /// key (a string or a number) followed by its values.
    pub fn begin_keyed_map(&self, name: &str, key_label: &str, value_fields: &[&str]) {
        self.lock().run(|w, table| {
            end_table(w, table)?;
            w.begin_keyed_map_labeled(Some(name), key_label, value_fields)?;
            *table = Some(Table::Keyed {
                width: value_fields.len() + 1,
            });
            Ok(())
        });
    }

    /// Writes a row of the open table (`a|b|c`); without one it does nothing.
    pub fn write_row(&self, values: &[GcfValue]) {
        self.lock().run(|w, table| match *table {
            None => Ok(()),
            Some(Table::Array) => {
                let cells: Vec<Cell<'_>> = values.iter().map(GcfValue::cell).collect();
                w.row(&cells)
            }
            Some(Table::Keyed { width }) => {
                let Some((key, rest)) = values.split_first() else {
                    // The member's key is missing altogether.
                    return check_row_width(0, width);
                };
                let cells: Vec<Cell<'_>> = rest.iter().map(GcfValue::cell).collect();
                w.keyed_row_cell(key.cell(), &cells)
            }
        });
    }

    /// Ends the open table, if any (its count is then final).
    pub fn end_array(&self) {
        self.lock().run(end_table);
    }

    /// Writes a `key=value` line.
    pub fn write_kv(&self, key: &str, value: &GcfValue) {
        self.lock().run(|w, table| {
            end_table(w, table)?;
            w.field(key, value.cell())
        });
    }

    /// Writes a `## name` line, ending the open table first. What follows is
    /// not nested under it: a reader sees an empty object `name`, and the
    /// lines after it as members of the enclosing object, as the crate's
    /// output reads.
    pub fn write_section(&self, name: &str) {
        self.lock().run(|w, table| {
            end_table(w, table)?;
            w.begin_section(name)?;
            w.end_section()
        });
    }

    /// Writes a primitive array on one line, `name[N]: a,b,c` (spec §7.5).
    pub fn write_inline_array(&self, name: &str, values: &[GcfValue]) {
        self.lock().run(|w, table| {
            end_table(w, table)?;
            let values: Vec<Value> = values.iter().map(GcfValue::value).collect();
            w.inline_array(name, &values)
        });
    }

    /// Ends the open table, writes the `##! summary counts=...` trailer (when
    /// a table was written) and hands it to the writer.
    ///
    /// Returns the first error of the stream instead, without a trailer: a
    /// call gcf-core refused (`ErrorKind::InvalidInput`, the message led by
    /// gcf-core's category, e.g. `invalid_input: ...`), or the writer's own
    /// error. Once closed, a second call returns `Ok(())`.
    pub fn close(&self) -> io::Result<()> {
        let mut inner = self.lock();
        let result = match std::mem::replace(&mut inner.stage, Stage::Closed(None)) {
            Stage::Open(w) => match w.finish() {
                Ok(sink) => {
                    inner.stage = Stage::Closed(Some(sink.into_inner()));
                    return Ok(());
                }
                Err(e) => {
                    inner.fail(e);
                    Err(())
                }
            },
            Stage::Stopped(w) => {
                // Keeps the writer alive until the encoder goes.
                inner.stage = Stage::Stopped(w);
                Err(())
            }
            Stage::Closed(w) => {
                inner.stage = Stage::Closed(w);
                Ok(())
            }
        };
        // The error is handed over once, as the crate hands over its own.
        result.or_else(|()| inner.failure.take().map_or(Ok(()), Err))
    }
}

/// Ends the open table in the core writer, if any.
fn end_table<K: gcf_core::Sink>(
    w: &mut core::StreamWriter<K>,
    table: &mut Option<Table>,
) -> Result<(), Error> {
    if table.take().is_some() {
        w.end_table()?;
    }
    Ok(())
}

impl<W: Write> Inner<W> {
    /// Runs one call on an open stream and hands its lines to the writer;
    /// an error stops the stream.
    fn run(&mut self, call: impl FnOnce(&mut Writer<W>, &mut Option<Table>) -> Result<(), Error>) {
        let Stage::Open(w) = &mut self.stage else {
            return;
        };
        // A refused call wrote nothing (the core's rule), so what was handed
        // over before it is a clean prefix of a stream.
        if let Err(e) = call(w, &mut self.table).and_then(|()| w.flush()) {
            self.fail(e);
        }
    }

    /// Records `e` as the stream's error (the writer's own for a failed
    /// write) and stops the stream.
    fn fail(&mut self, e: Error) {
        let stage = std::mem::replace(&mut self.stage, Stage::Stopped(None));
        self.stage = match stage {
            Stage::Open(w) => Stage::Stopped(Some(w)),
            other => other,
        };
        if self.failure.is_some() {
            return;
        }
        let written = match e.kind() {
            ErrorKind::Sink => self
                .sink_failure
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
            _ => None,
        };
        self.failure =
            Some(written.unwrap_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidInput, crate::error_text(&e))
            }));
    }
}
