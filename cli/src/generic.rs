//! The generic-profile subcommands: any JSON <-> GCF, JSON Lines rows,
//! keyed-set deltas and pack roots. JSON values are converted to core types
//! here; the format lives in `gcf_core::generic`.

use gcf_bind::generic::{keyed_set_from_slice, tool_of};
use gcf_core::detect_profile;
use gcf_core::generic::{self, KeyedSet, Map, Outcome, StreamOptions, StreamWriter, Value};
use gcf_core::{Limits, Profile};

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
        (None, Some(row)) => row.keys().map(String::from).collect(),
        (None, None) => Vec::new(),
    };
    let mut options = StreamOptions::new();
    if !tool.is_empty() {
        options = options.tool(tool);
    }
    let result = write_rows(&mut lines, first, &declared, name, options, out);
    result.map_err(|failure| match failure {
        RowFailure::Core(e, column) => out.failure(e).at_line(lines.line_number(), Some(column)),
        RowFailure::Cli(f) => f,
    })
}

fn next_row(lines: &mut JsonLines) -> Result<Option<Map>> {
    let Some((at, line)) = lines.next_line()? else {
        return Ok(None);
    };
    let on_line = |f: gcf_bind::Failure| Failure::from(f).at_line(at, Some(1)).on_line(at);
    match gcf_bind::value::from_slice(line).map_err(on_line)? {
        Value::Object(row) => Ok(Some(row)),
        _ => Err(Failure::invalid_input("each line must be a JSON object").at_line(at, Some(1))),
    }
}

enum RowFailure {
    /// A core error and the 1-based (byte) column of the line it is about.
    Core(gcf_core::Error, usize),
    Cli(Failure),
}

impl From<gcf_core::Error> for RowFailure {
    fn from(e: gcf_core::Error) -> Self {
        RowFailure::Core(e, 1)
    }
}

impl From<Failure> for RowFailure {
    fn from(f: Failure) -> Self {
        RowFailure::Cli(f)
    }
}

/// The 1-based byte column in `line` of what the stream writer refuses a
/// row for, by its checks in their order: the key of the first member that
/// is no declared field, or the value of the first nested one. Else the
/// record's first column.
fn refused_member(row: &Map, declared: &[String], line: &[u8]) -> usize {
    for (key, value) in row.iter() {
        let undeclared = !declared.iter().any(|f| f == key);
        if undeclared || matches!(value, Value::Array(_) | Value::Object(_)) {
            return gcf_bind::json_path::member_at(line, key).map_or(1, |(key_at, value_at)| {
                1 + if undeclared { key_at } else { value_at }
            });
        }
    }
    1
}

fn write_rows(
    lines: &mut JsonLines,
    first: Option<Map>,
    declared: &[String],
    name: &str,
    options: StreamOptions<'_>,
    out: &mut Output,
) -> std::result::Result<(), RowFailure> {
    // Errors before the first row concern the flags, not a line.
    let setup = |e: gcf_core::Error| RowFailure::Cli(Failure::from(e));
    let mut writer = StreamWriter::new(out.sink(), options).map_err(setup)?;
    let field_names: Vec<&str> = declared.iter().map(String::as_str).collect();
    if !field_names.is_empty() {
        writer
            .begin_table(Some(name), &field_names)
            .map_err(|e| RowFailure::Cli(Failure::from(e).context("table header")))?;
    }
    let mut next = first;
    while let Some(row) = next {
        let at = lines.line_number();
        if field_names.is_empty() {
            return Err(Failure::invalid_input(
                "the first row has no fields; pass --fields or give it some keys",
            )
            .at_line(at, Some(1))
            .into());
        }
        // Core maps members onto the declared columns: an absent field is
        // `~`, an undeclared one is refused with its name (spec 8.3).
        writer
            .row_object(&row)
            .map_err(|e| RowFailure::Core(e, refused_member(&row, declared, lines.current())))?;
        next = next_row(lines)?;
    }
    if !field_names.is_empty() {
        writer.end_table()?;
    }
    writer.finish()?;
    Ok(())
}

/// The optional table forms `gcf encode-generic` writes.
pub struct Forms {
    /// Constant columns declared once (`{id,type=file}`).
    pub constant_columns: bool,
    /// Fixed-shape object fields as `"a>b"` path columns.
    pub flatten: bool,
}

/// `gcf encode-generic`: any JSON -> GCF, in the table forms `forms`
/// allows, or as a value-grouped table (`group_by` = key and group field).
pub fn encode(
    input: &Source,
    forms: Forms,
    group_by: Option<&(String, String)>,
    out: &mut Output,
) -> Result<()> {
    let value = gcf_bind::value::from_slice(&input.read_all()?)?;
    let mut encoder = generic::Encoder::new()
        .constant_columns(forms.constant_columns)
        .flatten(forms.flatten);
    if let Some((key, group)) = group_by {
        encoder = encoder.group_by(key, group);
    }
    out.emit(|sink| encoder.encode_to(&value, sink))
}

/// `gcf decode-generic`: GCF -> JSON.
pub fn decode(input: &Source, pretty: bool, limits: &Limits, out: &mut Output) -> Result<()> {
    let bytes = input.read_within(limits.max_input_len)?;
    let text = gcf_core::validate_utf8(&bytes)?;
    if detect_profile(text)? == Profile::Graph {
        return Err(crate::graph::wrong_profile("graph", "gcf decode"));
    }
    // A keyed full payload (`key=` in the header) decodes with its `@` identity field.
    let value = generic::Decoder::new().limits(*limits).decode(text)?;
    out.write_json(&gcf_bind::value::Json(&value), pretty)
}

/// A keyed set from `{"name", "key", "fields", "rows"}` (core's JSON shape;
/// `name` defaults to `rows`, `fields` to the first row's keys). `what` names
/// the file in errors.
fn keyed_set(json: &[u8], what: &str) -> Result<KeyedSet> {
    keyed_set_from_slice(json).map_err(|e| Failure::from(e).context(what))
}

/// `gcf pack-root --generic`.
pub fn pack_root(input: &Source, out: &mut Output) -> Result<()> {
    let set = keyed_set(&input.read_all()?, &input.name())?;
    let root = generic::pack_root(&set)?;
    out.write_text(&root)?;
    out.write_text("\n")
}

/// `gcf delta --generic`: the spec 10a.4 answer for a consumer that echoed
/// `echoed_root` (default: BASE's root). The producer holds BASE and NEW, so
/// an echoed root is known when it is one of theirs; an unknown or empty
/// root gets the full payload. `tool` comes from NEW's `tool` member.
pub fn delta(base: &Source, new: &Source, echoed: Option<&str>, out: &mut Output) -> Result<()> {
    let base_set = keyed_set(&base.read_all()?, &base.name())?;
    let new_json = new.read_all()?;
    let current = keyed_set(&new_json, &new.name())?;
    let tool = tool_of(&new_json)?;
    let outcome: Outcome = gcf_bind::generic::respond(&base_set, &current, echoed, &tool)?;
    out.write_text(outcome.text())
}
