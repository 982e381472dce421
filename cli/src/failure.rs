//! The one error type of the tool and the single line it prints for it.
//!
//! Every failure becomes exactly one stderr line,
//! `error[<category>]: <message> (line L, column C)`, so scripts can match
//! the category and people can jump to the position:
//!
//! - data errors from `gcf-core` use [`gcf_core::ErrorKind::name`]
//!   (`count_mismatch`, `invalid_symbol_id`, ...);
//! - malformed JSON input is `json`;
//! - anything the operating system refused is `io`.
//!
//! A closed stdout (`gcf decode big.gcf | head -1`) is not an error: it is
//! [`Failure::BrokenPipe`] and the tool exits quietly.

use std::fmt;
use std::io;

/// Why a command stopped.
#[derive(Debug)]
pub enum Failure {
    /// Something to report: a category, a message and an optional position.
    Report {
        /// `ErrorKind::name()`, `json`, `io`.
        category: &'static str,
        /// What went wrong, without the position.
        message: String,
        /// 1-based line of the input, when known.
        line: Option<usize>,
        /// 1-based column (in characters) of the input, when known.
        column: Option<usize>,
    },
    /// The reader of stdout went away; stop without a word.
    BrokenPipe,
}

/// The tool's result type.
pub type Result<T, E = Failure> = std::result::Result<T, E>;

impl Failure {
    /// A failure without a position.
    pub fn new(category: &'static str, message: impl Into<String>) -> Failure {
        Failure::Report {
            category,
            message: message.into(),
            line: None,
            column: None,
        }
    }

    /// A data error from core in the `invalid_input` category.
    pub fn invalid_input(message: impl Into<String>) -> Failure {
        Failure::new(gcf_core::ErrorKind::InvalidInput.name(), message)
    }

    /// An I/O error, with what the tool was doing when it happened.
    pub fn io(context: impl fmt::Display, error: io::Error) -> Failure {
        if error.kind() == io::ErrorKind::BrokenPipe {
            return Failure::BrokenPipe;
        }
        Failure::new("io", format!("{context}: {error}"))
    }

    /// A JSON syntax error. serde_json's own message ends with
    /// ` at line L column C`; that goes into the position instead so the
    /// line keeps the tool's one format.
    pub fn json(error: &serde_json::Error) -> Failure {
        if let Some(kind) = error.io_error_kind() {
            return Failure::io("reading JSON", io::Error::from(kind));
        }
        let text = error.to_string();
        let suffix = format!(" at line {} column {}", error.line(), error.column());
        let message = text.strip_suffix(&suffix).unwrap_or(&text);
        Failure::Report {
            category: "json",
            message: format!("invalid JSON: {message}"),
            line: (error.line() > 0).then_some(error.line()),
            column: (error.column() > 0).then_some(error.column()),
        }
    }

    /// Sets the line (and column, if given) where they are still unknown:
    /// the stream commands know which input line an error came from, the
    /// layer below does not.
    pub fn at_line(mut self, at: usize, col: Option<usize>) -> Failure {
        if let Failure::Report { line, column, .. } = &mut self {
            if line.is_none() && at > 0 {
                *line = Some(at);
                if column.is_none() {
                    *column = col;
                }
            }
        }
        self
    }

    /// Puts `context: ` before the message (which file or flag it concerns).
    pub fn context(mut self, context: &str) -> Failure {
        if let Failure::Report { message, .. } = &mut self {
            *message = format!("{context}: {message}");
        }
        self
    }

    /// Moves the error to `at`, keeping its column: for a JSON Lines line
    /// parsed on its own, whose parser counts from line 1.
    pub fn on_line(mut self, at: usize) -> Failure {
        if let Failure::Report { line, .. } = &mut self {
            *line = Some(at);
        }
        self
    }
}

impl From<gcf_core::Error> for Failure {
    fn from(error: gcf_core::Error) -> Failure {
        Failure::Report {
            category: error.kind().name(),
            message: error.message().to_owned(),
            line: error.line(),
            column: error.column(),
        }
    }
}

impl fmt::Display for Failure {
    /// The stderr line, without its newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Report {
                category,
                message,
                line,
                column,
            } => {
                write!(f, "error[{category}]: ")?;
                // One line, whatever the message holds.
                for (i, part) in message.lines().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    f.write_str(part)?;
                }
                match (line, column) {
                    (Some(l), Some(c)) => write!(f, " (line {l}, column {c})"),
                    (Some(l), None) => write!(f, " (line {l})"),
                    _ => Ok(()),
                }
            }
            Failure::BrokenPipe => f.write_str("error[io]: broken pipe"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcf_core::ErrorKind;

    #[test]
    fn core_errors_keep_category_and_position() {
        let e = gcf_core::Error::at(ErrorKind::CountMismatch, 3, 7, "declared 2, found 1");
        assert_eq!(
            Failure::from(e).to_string(),
            "error[count_mismatch]: declared 2, found 1 (line 3, column 7)"
        );
        let e = gcf_core::Error::new(ErrorKind::InvalidInput, "bad\nname");
        assert_eq!(
            Failure::from(e).to_string(),
            "error[invalid_input]: bad name"
        );
    }

    #[test]
    fn json_errors_move_the_position_out_of_the_message() {
        let e = serde_json::from_str::<serde_json::Value>("{\n  \"a\": ]").unwrap_err();
        assert_eq!(
            Failure::json(&e).to_string(),
            "error[json]: invalid JSON: expected value (line 2, column 8)"
        );
    }

    #[test]
    fn at_line_fills_only_what_is_unknown() {
        let f = Failure::invalid_input("x").at_line(4, Some(2));
        assert_eq!(f.to_string(), "error[invalid_input]: x (line 4, column 2)");
        assert_eq!(
            Failure::invalid_input("y").at_line(0, Some(3)).to_string(),
            "error[invalid_input]: y",
            "line 0 means no line was read yet"
        );
        let f = f.at_line(9, None).context("in.json");
        assert_eq!(
            f.to_string(),
            "error[invalid_input]: in.json: x (line 4, column 2)"
        );
        let f = f.at_line(9, None);
        assert_eq!(
            f.to_string(),
            "error[invalid_input]: in.json: x (line 4, column 2)"
        );
    }

    #[test]
    fn broken_pipe_is_quiet() {
        let f = Failure::io("writing", io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(matches!(f, Failure::BrokenPipe));
    }
}
