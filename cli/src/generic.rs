//! The generic-profile subcommands: any JSON <-> GCF, JSON Lines rows,
//! keyed-set deltas and pack roots. JSON values are converted to core types
//! here; the format lives in `gcf_core::generic`.

use gcf_core::generic::{self, KeyedSet, Outcome, StreamOptions, StreamWriter, Value};
use gcf_core::header::detect_profile;
use gcf_core::Profile;
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
            .at_line(at, None)
            .into());
        }
        // Core maps members onto the declared columns: an absent field is
        // `~`, an undeclared one is refused with its name (spec 8.3).
        let object = generic::from_json(&Json::Object(row))
            .map_err(|e| Failure::from(e).at_line(at, None))?;
        let Value::Object(object) = object else {
            return Err(lines.not_an_object().into());
        };
        writer.row_object(&object)?;
        next = next_row(lines)?;
    }
    if !field_names.is_empty() {
        writer.end_table()?;
    }
    writer.finish()?;
    Ok(())
}

/// `gcf encode-generic`: any JSON -> GCF, with constant columns factored
/// or not, or as a value-grouped table (`group_by` = key and group field).
pub fn encode(
    input: &Source,
    constant_columns: bool,
    group_by: Option<&(String, String)>,
    out: &mut Output,
) -> Result<()> {
    let value = generic::from_json(&input.read_json()?)?;
    let mut encoder = generic::Encoder::new().constant_columns(constant_columns);
    if let Some((key, group)) = group_by {
        encoder = encoder.group_by(key, group);
    }
    out.emit(|sink| encoder.encode_to(&value, sink))
}

/// The generic encoding of a JSON value, for `gcf stats`.
pub fn encode_string(json: &Json) -> Result<String> {
    Ok(generic::encode(&generic::from_json(json)?)?)
}

/// `gcf decode-generic`: GCF -> JSON.
pub fn decode(input: &Source, pretty: bool, out: &mut Output) -> Result<()> {
    let bytes = input.read_all()?;
    let text = gcf_core::input::validate_utf8(&bytes)?;
    if detect_profile(text)? == Profile::Graph {
        return Err(crate::graph::wrong_profile("graph", "gcf decode"));
    }
    // A keyed full payload (`key=` in the header) decodes with its `@` identity field.
    let value = generic::decode(text)?;
    out.write_json(&generic::to_json(&value), pretty)
}

/// A keyed set from `{"name", "key", "fields", "rows"}` (core's JSON shape;
/// `name` defaults to `rows`, `fields` to the first row's keys). `what` names
/// the file in errors.
fn keyed_set(json: &Json, what: &str) -> Result<KeyedSet> {
    generic::keyed_set_from_json(json).map_err(|e| Failure::from(e).context(what))
}

/// `gcf pack-root --generic`.
pub fn pack_root(input: &Source, out: &mut Output) -> Result<()> {
    let set = keyed_set(&input.read_json()?, &input.name())?;
    let root = generic::pack_root(&set)?;
    out.write_text(&root)?;
    out.write_text("\n")
}

/// `gcf delta --generic`: the spec 10a.4 answer for a consumer that echoed
/// `echoed_root` (default: BASE's root). The producer holds BASE and NEW, so
/// an echoed root is known when it is one of theirs; an unknown or empty
/// root gets the full payload. `tool` comes from NEW's `tool` member.
pub fn delta(base: &Source, new: &Source, echoed: Option<&str>, out: &mut Output) -> Result<()> {
    let base_set = keyed_set(&base.read_json()?, &base.name())?;
    let new_json = new.read_json()?;
    let current = keyed_set(&new_json, &new.name())?;
    let tool = match new_json.get("tool") {
        Some(Json::String(t)) => t.as_str(),
        _ => "",
    };
    let base_root = generic::pack_root(&base_set)?;
    let held = match echoed {
        None => Some(&base_set),
        Some(root) if root == base_root => Some(&base_set),
        Some(root) if !root.is_empty() && root == generic::pack_root(&current)? => Some(&current),
        Some(_) => None,
    };
    let outcome: Outcome = generic::respond(held, &current, tool)?;
    out.write_text(outcome.text())
}
