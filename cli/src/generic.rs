//! The generic-profile subcommands: any JSON <-> GCF, JSON Lines rows,
//! keyed-set deltas and pack roots. JSON values are converted to core types
//! here; the format lives in `gcf_core::generic`.

use gcf_core::generic::{Cell, StreamOptions, StreamWriter};
use gcf_core::number::{parse_number, NumberError, ParsedNumber};
use gcf_core::ErrorKind;
use serde_json::{Map as JsonMap, Value as Json};

use crate::failure::{Failure, Result};
use crate::io::{Output, Source};
use crate::stream::JsonLines;

/// `gcf stream --profile generic`: each line one row of a `[?]` table.
pub fn stream(
    input: &Source,
    tool: &str,
    name: &str,
    fields: Option<&[String]>,
    out: &mut Output,
) -> Result<()> {
    let mut lines = JsonLines::open(input)?;
    let first = next_row(&mut lines)?;
    let declared: Vec<String> = match (fields, &first) {
        (Some(f), _) => f.to_vec(),
        (None, Some(row)) => row.keys().cloned().collect(),
        (None, None) => Vec::new(),
    };
    let mut options = StreamOptions::new();
    if !tool.is_empty() {
        options = options.tool(tool);
    }
    let result = write_rows(&mut lines, first, &declared, name, options, out);
    result.map_err(|failure| match failure {
        RowFailure::Core(e) => out.failure(e).at_line(lines.line_number(), None),
        RowFailure::Cli(f) => f,
    })
}

fn next_row(lines: &mut JsonLines) -> Result<Option<JsonMap<String, Json>>> {
    match lines.next_value()? {
        None => Ok(None),
        Some(Json::Object(row)) => Ok(Some(row)),
        Some(_) => Err(lines.not_an_object()),
    }
}

enum RowFailure {
    Core(gcf_core::Error),
    Cli(Failure),
}

impl From<gcf_core::Error> for RowFailure {
    fn from(e: gcf_core::Error) -> Self {
        RowFailure::Core(e)
    }
}

impl From<Failure> for RowFailure {
    fn from(f: Failure) -> Self {
        RowFailure::Cli(f)
    }
}

fn write_rows(
    lines: &mut JsonLines,
    first: Option<JsonMap<String, Json>>,
    declared: &[String],
    name: &str,
    options: StreamOptions,
    out: &mut Output,
) -> std::result::Result<(), RowFailure> {
    let mut writer = StreamWriter::new(out.sink(), options)?;
    let field_names: Vec<&str> = declared.iter().map(String::as_str).collect();
    if !field_names.is_empty() {
        writer.begin_table(Some(name), &field_names)?;
    }
    let mut next = first;
    while let Some(row) = next {
        let at = lines.line_number();
        if field_names.is_empty() {
            return Err(Failure::invalid_input(
                "the first row has no fields; pass --fields or give it some keys",
            )
            .at_line(at, None)
            .into());
        }
        if let Some(unknown) = row.keys().find(|k| !declared.contains(k)) {
            return Err(Failure::invalid_input(format!(
                "field `{unknown}` is not one of the table's fields ({})",
                declared.join(",")
            ))
            .at_line(at, None)
            .into());
        }
        let cells = declared
            .iter()
            .map(|field| match row.get(field) {
                None => Ok(Cell::Missing),
                Some(value) => cell(value, field),
            })
            .collect::<Result<Vec<Cell<'_>>>>()
            .map_err(|f| f.at_line(at, None))?;
        writer.row(&cells)?;
        next = next_row(lines)?;
    }
    if !field_names.is_empty() {
        writer.end_table()?;
    }
    writer.finish()?;
    Ok(())
}

/// One JSON scalar as a streaming cell; numbers go through core's parser so
/// the int64 / double split is the format's, not serde's.
fn cell<'a>(value: &'a Json, field: &str) -> Result<Cell<'a>> {
    Ok(match value {
        Json::Null => Cell::Null,
        Json::Bool(b) => Cell::Bool(*b),
        Json::String(s) => Cell::Str(s),
        Json::Number(n) => match parse_number(n.as_str()) {
            Ok(ParsedNumber::Int(i)) => Cell::Int(i),
            Ok(ParsedNumber::Float(f)) => Cell::Float(f),
            Err(NumberError::OutOfRange) => {
                return Err(Failure::new(
                    ErrorKind::OutOfRange.name(),
                    gcf_core::number::out_of_range_message(n.as_str()),
                ))
            }
            Err(NumberError::NotANumber) => {
                return Err(Failure::invalid_input(format!(
                    "field `{field}`: `{n}` is not a number"
                )))
            }
        },
        Json::Array(_) | Json::Object(_) => {
            return Err(Failure::invalid_input(format!(
                "field `{field}` holds an array or object; a streaming row takes only scalars"
            )))
        }
    })
}

/// The failure of a generic command whose core half has not been merged.
fn unavailable(what: &str) -> Failure {
    Failure::new(
        ErrorKind::InvalidState.name(),
        format!("{what} needs the generic encoder/decoder, which this build of gcf-core lacks"),
    )
}

/// `gcf encode-generic`.
pub fn encode(_input: &Source, _out: &mut Output) -> Result<()> {
    Err(unavailable("encode-generic"))
}

/// `gcf decode-generic`.
pub fn decode(_input: &Source, _pretty: bool, _out: &mut Output) -> Result<()> {
    Err(unavailable("decode-generic"))
}

/// `gcf delta --generic`.
pub fn delta(
    _base: &Source,
    _new: &Source,
    _echoed: Option<&str>,
    _out: &mut Output,
) -> Result<()> {
    Err(unavailable("delta --generic"))
}

/// `gcf pack-root --generic`.
pub fn pack_root(_input: &Source, _out: &mut Output) -> Result<()> {
    Err(unavailable("pack-root --generic"))
}

/// `gcf validate` of a generic payload.
pub fn validate(_text: &str) -> Result<String> {
    Err(unavailable("validating a generic payload"))
}

/// The generic encoding of a JSON value, for `gcf stats`.
pub fn encode_string(_json: &Json) -> Result<String> {
    Err(unavailable("stats for generic JSON"))
}
