//! The tool's error type and the single line it prints for it.
//!
//! Every failure is a [`gcf_bind::Failure`] (the error shape all bindings
//! share) and prints as exactly one stderr line,
//! `error[<category>]: <message> (line L, column C)`, so scripts can match
//! the category and people can jump to the position. The exit code comes
//! from the failure's class ([`gcf_bind::Failure::exit_code`]).
//!
//! A closed stdout (`gcf decode big.gcf | head -1`) is not an error: it is
//! [`Failure::BrokenPipe`] and the tool exits quietly.

use std::fmt;
use std::io;

/// Why a command stopped.
#[derive(Debug)]
pub enum Failure {
    /// Something to report.
    Report(gcf_bind::Failure),
    /// The reader of stdout went away; stop without a word.
    BrokenPipe,
}

/// The tool's result type.
pub type Result<T, E = Failure> = std::result::Result<T, E>;

impl Failure {
    /// A data error from core in the `invalid_input` category.
    pub fn invalid_input(message: impl Into<String>) -> Failure {
        Failure::Report(gcf_bind::Failure::invalid_input(message))
    }

    /// An I/O error, with what the tool was doing when it happened.
    pub fn io(context: impl fmt::Display, error: io::Error) -> Failure {
        if error.kind() == io::ErrorKind::BrokenPipe {
            return Failure::BrokenPipe;
        }
        Failure::Report(gcf_bind::Failure::io(context, &error))
    }

    fn map(self, f: impl FnOnce(gcf_bind::Failure) -> gcf_bind::Failure) -> Failure {
        match self {
            Failure::Report(r) => Failure::Report(f(r)),
            other => other,
        }
    }

    /// Sets the line (and column, if given) where they are still unknown:
    /// the stream commands know which input line an error came from, the
    /// layer below does not.
    pub fn at_line(self, at: usize, col: Option<usize>) -> Failure {
        self.map(|r| r.at_line(at as u64, col.map(|c| c as u64)))
    }

    /// Puts `context: ` before the message (which file or flag it concerns).
    pub fn context(self, context: &str) -> Failure {
        self.map(|r| r.context(context))
    }

    /// Moves the error to `at`, keeping its column: for a JSON Lines line
    /// parsed on its own, whose parser counts from line 1.
    pub fn on_line(self, at: usize) -> Failure {
        self.map(|r| r.on_line(at as u64))
    }

    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Report(r) => r.exit_code(),
            Failure::BrokenPipe => 0,
        }
    }
}

impl From<gcf_core::Error> for Failure {
    fn from(error: gcf_core::Error) -> Failure {
        Failure::Report(error.into())
    }
}

impl From<gcf_bind::Failure> for Failure {
    fn from(f: gcf_bind::Failure) -> Failure {
        Failure::Report(f)
    }
}

impl fmt::Display for Failure {
    /// The stderr line, without its newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Report(r) => r.fmt(f),
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

    /// Every class the tool can meet and the exit code it ends with.
    #[test]
    fn exit_codes_by_class() {
        let table: Vec<(Failure, &str, u8)> = vec![
            (
                gcf_core::Error::at(ErrorKind::InvalidSymbolId, 1, 1, "x").into(),
                "syntax",
                1,
            ),
            (
                gcf_core::Error::new(ErrorKind::LimitExceeded, "x").into(),
                "limit",
                1,
            ),
            (
                gcf_core::Error::new(ErrorKind::UnknownEdgeReference, "x").into(),
                "reference",
                1,
            ),
            (
                gcf_core::Error::new(ErrorKind::RootMismatch, "x").into(),
                "delta",
                1,
            ),
            (
                gcf_core::Error::new(ErrorKind::OutOfRange, "x").into(),
                "input",
                1,
            ),
            (
                gcf_core::Error::new(ErrorKind::InvalidState, "x").into(),
                "state",
                1,
            ),
            (gcf_core::Error::sink().into(), "sink", 1),
            (
                gcf_bind::value::from_slice(b"{").unwrap_err().into(),
                "json",
                1,
            ),
            (Failure::io("reading", io::Error::other("x")), "io", 1),
            (gcf_bind::Failure::usage("x").into(), "usage", 2),
        ];
        for (failure, class, code) in table {
            let Failure::Report(r) = &failure else {
                panic!()
            };
            assert_eq!(r.class.name(), class, "{failure}");
            assert_eq!(failure.exit_code(), code, "{failure}");
        }
        assert_eq!(Failure::BrokenPipe.exit_code(), 0);
    }

    #[test]
    fn json_errors_move_the_position_out_of_the_message() {
        let e = gcf_bind::value::from_slice(b"{\n  \"a\": ]").unwrap_err();
        assert_eq!(
            Failure::from(e).to_string(),
            "error[json]: a: invalid JSON: expected value (line 2, column 8)"
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
    }

    #[test]
    fn broken_pipe_is_quiet() {
        let f = Failure::io("writing", io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(matches!(f, Failure::BrokenPipe));
    }
}
