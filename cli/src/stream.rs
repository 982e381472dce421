//! `gcf stream`: JSON Lines in, a streaming payload out, in constant memory.
//!
//! The input is read one line at a time into one reused buffer and each line
//! is handed to a core stream writer as soon as it is parsed, so memory does
//! not grow with the input (only `--index-names` keeps per-symbol state, and
//! a single line is capped at `Limits::max_line_len`).

use std::io::{BufRead, Read};

use gcf_core::graph::{self, StreamOptions, StreamWriter, TrailerForm};
use gcf_core::{IoSink, Limits};
use serde_json::{Map as JsonMap, Value as Json};

use crate::args::Trailer;
use crate::failure::{Failure, Result};
use crate::io::{Output, Source};

/// Options of the graph stream.
pub struct GraphStream<'a> {
    /// `tool=`.
    pub tool: &'a str,
    /// `budget=`.
    pub budget: u64,
    /// `tokens=`.
    pub tokens: u64,
    /// Trailer form.
    pub trailer: Trailer,
    /// Allow edges and locations to name symbols (memory per symbol).
    pub index_names: bool,
}

/// Reads JSON Lines one at a time, skipping blank lines.
pub struct JsonLines {
    reader: Box<dyn BufRead>,
    buffer: Vec<u8>,
    number: usize,
    name: String,
}

impl JsonLines {
    /// Opens the source.
    pub fn open(source: &Source) -> Result<JsonLines> {
        Ok(JsonLines {
            reader: source.reader()?,
            buffer: Vec::with_capacity(4096),
            number: 0,
            name: source.name(),
        })
    }

    /// The error for a line that is not a JSON object.
    pub fn not_an_object(&self) -> Failure {
        Failure::invalid_input("each line must be a JSON object").at_line(self.number, Some(1))
    }

    /// The 1-based number of the line last returned.
    pub fn line_number(&self) -> usize {
        self.number
    }

    /// The next non-blank line as a JSON value.
    pub fn next_value(&mut self) -> Result<Option<Json>> {
        let max = Limits::default().max_line_len;
        loop {
            self.buffer.clear();
            if self.buffer.capacity() > 1 << 20 {
                // One long line must not pin its memory for the rest of the run.
                self.buffer.shrink_to(4096);
            }
            let read = (&mut self.reader)
                .take(max as u64 + 1)
                .read_until(b'\n', &mut self.buffer)
                .map_err(|e| Failure::io(format!("reading {}", self.name), e))?;
            if read == 0 {
                return Ok(None);
            }
            self.number += 1;
            let mut line = self.buffer.as_slice();
            if let Some(rest) = line.strip_suffix(b"\n") {
                line = rest.strip_suffix(b"\r").unwrap_or(rest);
            } else if line.len() > max {
                return Err(Failure::new(
                    gcf_core::ErrorKind::LimitExceeded.name(),
                    format!("a line is longer than {max} bytes"),
                )
                .at_line(self.number, None));
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return serde_json::from_slice(line)
                .map(Some)
                .map_err(|e| Failure::json(&e).on_line(self.number));
        }
    }
}

/// `gcf stream --profile graph`.
pub fn graph(input: &Source, options: &GraphStream<'_>, out: &mut Output) -> Result<()> {
    let mut lines = JsonLines::open(input)?;
    let trailer = match options.trailer {
        Trailer::Positional => TrailerForm::Positional,
        Trailer::Labeled => TrailerForm::Labeled,
        Trailer::Legacy => TrailerForm::Legacy,
    };
    let stream_options = StreamOptions {
        tool: options.tool,
        token_budget: options.budget,
        tokens_used: options.tokens,
        trailer,
        index_names: options.index_names,
    };
    let result = write_graph(&mut lines, stream_options, out.sink());
    result.map_err(|failure| match failure {
        GraphFailure::Core(e) => out.failure(e).at_line(lines.line_number(), None),
        GraphFailure::Cli(f) => f,
    })
}

enum GraphFailure {
    Core(gcf_core::Error),
    Cli(Failure),
}

impl From<gcf_core::Error> for GraphFailure {
    fn from(e: gcf_core::Error) -> Self {
        GraphFailure::Core(e)
    }
}

impl From<Failure> for GraphFailure {
    fn from(f: Failure) -> Self {
        GraphFailure::Cli(f)
    }
}

fn write_graph(
    lines: &mut JsonLines,
    options: StreamOptions<'_>,
    sink: IoSink<&mut Output>,
) -> std::result::Result<(), GraphFailure> {
    let index_names = options.index_names;
    let mut writer = StreamWriter::new(sink, options)?;
    while let Some(object) = lines.next_value()? {
        let at = lines.line_number();
        let Json::Object(fields) = &object else {
            return Err(lines.not_an_object().into());
        };
        if fields.contains_key("file") {
            let location = graph::location_from_json(&object)?;
            let id = symbol_id(fields, "symbolId", at)?.ok_or_else(|| {
                Failure::invalid_input(
                    "a location line needs a numeric `symbolId` (the 0-based order of the symbol lines)",
                )
                .at_line(at, None)
            })?;
            writer.write_location(
                id,
                &location.file,
                location.line,
                location.column,
                location.end,
            )?;
        } else if fields.contains_key("qualifiedName") {
            writer.write_symbol(&graph::symbol_from_json(&object)?)?;
        } else if ["source", "target", "sourceId", "targetId"]
            .iter()
            .any(|k| fields.contains_key(*k))
        {
            let edge = graph::edge_from_json(&object)?;
            let ids = (
                symbol_id(fields, "sourceId", at)?,
                symbol_id(fields, "targetId", at)?,
            );
            match ids {
                (Some(source), Some(target)) => {
                    writer.write_edge(source, target, &edge.edge_type, &edge.status)?
                }
                (None, None) if index_names => writer.write_edge_by_name(
                    &edge.source,
                    &edge.target,
                    &edge.edge_type,
                    &edge.status,
                )?,
                (None, None) => {
                    return Err(Failure::invalid_input(
                        "this edge names its symbols; give numeric `sourceId`/`targetId` \
                         or pass --index-names (keeps every qualified name in memory)",
                    )
                    .at_line(at, None)
                    .into())
                }
                _ => {
                    return Err(Failure::invalid_input(
                        "an edge needs both `sourceId` and `targetId`, or neither",
                    )
                    .at_line(at, None)
                    .into())
                }
            }
        } else {
            return Err(Failure::invalid_input(
                "a line must be a symbol (`qualifiedName`), an edge (`source`/`target` or \
                 `sourceId`/`targetId`) or a location (`file` and `symbolId`)",
            )
            .at_line(at, None)
            .into());
        }
    }
    writer.finish()?;
    Ok(())
}

/// A numeric id field, if present.
fn symbol_id(fields: &JsonMap<String, Json>, key: &str, at: usize) -> Result<Option<u64>> {
    match fields.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64()),
        Some(_) => Err(
            Failure::invalid_input(format!("`{key}` must be a non-negative integer"))
                .at_line(at, None),
        ),
    }
}
