//! `gcf stream`: JSON Lines in, a streaming payload out, in constant memory.
//!
//! The input is read one line at a time into one reused buffer and each line
//! is handed to a core stream writer as soon as it is parsed, so memory does
//! not grow with the input (only `--index-names` keeps per-symbol state, and
//! a single line is capped at `Limits::max_line_len`).

use std::io::{BufRead, Read};

use gcf_bind::records::graph_record;
use gcf_core::graph::{StreamOptions, StreamWriter, TrailerForm};
use gcf_core::{IoSink, Limits};

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
    /// The length of the line last returned, at the start of `buffer`.
    end: usize,
    number: usize,
    name: String,
}

impl JsonLines {
    /// Opens the source.
    pub fn open(source: &Source) -> Result<JsonLines> {
        Ok(JsonLines {
            reader: source.reader()?,
            buffer: Vec::with_capacity(4096),
            end: 0,
            number: 0,
            name: source.name(),
        })
    }

    /// The 1-based number of the line last returned.
    pub fn line_number(&self) -> usize {
        self.number
    }

    /// The line last returned, without its line end (empty before the
    /// first and at the end): to point an error at a member of it.
    pub fn current(&self) -> &[u8] {
        &self.buffer[..self.end]
    }

    /// The next non-blank line, without its line end, and its 1-based number.
    pub fn next_line(&mut self) -> Result<Option<(usize, &[u8])>> {
        let max = Limits::default().max_line_len;
        loop {
            self.end = 0;
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
                return Err(Failure::from(gcf_core::Error::new(
                    gcf_core::ErrorKind::LimitExceeded,
                    format!("a line is longer than {max} bytes"),
                ))
                .at_line(self.number, Some(1)));
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            self.end = line.len();
            return Ok(Some((self.number, &self.buffer[..self.end])));
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
        ..StreamOptions::default()
    };
    let result = write_graph(&mut lines, stream_options, out.sink());
    // A core error does not say which member of the record it is about:
    // it points at the record.
    result.map_err(|failure| match failure {
        GraphFailure::Core(e) => out.failure(e).at_line(lines.line_number(), Some(1)),
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
    while let Some((at, line)) = lines.next_line()? {
        let record =
            graph_record(line).map_err(|f| Failure::from(f).at_line(at, Some(1)).on_line(at))?;
        record.write_to(&mut writer, index_names)?;
    }
    writer.finish()?;
    Ok(())
}
