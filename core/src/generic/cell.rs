//! One cell of a streaming row: the vocabulary shared by the streaming
//! writer (which takes rows of cells) and the row assembler (which lays
//! them out), kept apart so neither module depends on the other.

use super::Value;

/// One cell of a streaming row, borrowed from the caller.
///
/// [`Cell::Missing`] writes `~`: the field is absent from this record, which
/// is distinct from [`Cell::Null`] (`-`, spec §7.4.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'a> {
    /// `null`, written `-`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer, written in canonical decimal.
    Int(i64),
    /// A finite double, written canonically (spec §2.3.1).
    Float(f64),
    /// A string, quoted only when its bare form would be misread (spec §2.4).
    Str(&'a str),
    /// The field is absent from this record, written `~`.
    Missing,
}

impl<'a> Cell<'a> {
    /// The cell for a scalar [`Value`]; `None` for arrays and objects, which a
    /// streaming row cannot carry.
    pub fn from_value(value: &'a Value) -> Option<Cell<'a>> {
        Some(match value {
            Value::Null => Cell::Null,
            Value::Bool(b) => Cell::Bool(*b),
            Value::Int(i) => Cell::Int(*i),
            Value::Float(f) => Cell::Float(*f),
            Value::String(s) => Cell::Str(s),
            Value::Array(_) | Value::Object(_) => return None,
        })
    }
}

impl From<bool> for Cell<'_> {
    fn from(b: bool) -> Self {
        Cell::Bool(b)
    }
}
impl From<i64> for Cell<'_> {
    fn from(i: i64) -> Self {
        Cell::Int(i)
    }
}
impl From<f64> for Cell<'_> {
    fn from(f: f64) -> Self {
        Cell::Float(f)
    }
}
impl<'a> From<&'a str> for Cell<'a> {
    fn from(s: &'a str) -> Self {
        Cell::Str(s)
    }
}
