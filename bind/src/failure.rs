//! The one error shape every surface maps from.
//!
//! A [`Failure`] is `{class, category, message, line, column}`: the class
//! ([`ErrorClass`]) is what a surface branches on (the CLI's exit code, the C
//! status, Go's error type, a Node/Python exception class); the category is
//! the stable snake_case name scripts and tests match (an
//! [`ErrorKind::name`](gcf_core::ErrorKind::name), or `json`, `io`, `usage`,
//! `panic` for failures outside the core).
//!
//! Where each kind of failure comes from:
//! - a core error keeps its kind as the category and `kind.class()` as the class;
//! - JSON that does not parse is class `json`, category `json`;
//! - JSON that parses but has the wrong shape (a string where a number
//!   belongs) is class `json`, category `invalid_input`, its message led by
//!   the path of the value (`symbols[3].score: invalid type: string "high",
//!   expected a number`, see [`crate::json_path`]) and worded in JSON's
//!   terms (a number, an array), not Rust's (`f64`, a sequence);
//! - a string escape of an unpaired surrogate (`"\uD800"`: JSON grammar,
//!   but not text) is class `json`, category `invalid_surrogate`, as the
//!   same escape in GCF text is;
//! - a number outside its domain or a value nested too deeply while reading
//!   JSON keeps the core's category (`out_of_range`, `limit_exceeded`),
//!   because the conformance suite names them so;
//! - an I/O error is class and category `io`.

use std::fmt;

use gcf_core::{Error, ErrorClass, ErrorKind};
use serde::Serialize;

/// A failure of any operation of any binding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// What kind of failure this is, for the surface to branch on.
    #[serde(serialize_with = "class_name")]
    pub class: ErrorClass,
    /// The stable category name (`count_mismatch`, `json`, `io`, ...).
    pub category: &'static str,
    /// What went wrong, without the position.
    pub message: String,
    /// The 1-based line of the input, when known.
    pub line: Option<u64>,
    /// The 1-based column (in characters for GCF, bytes for JSON), when known.
    pub column: Option<u64>,
}

fn class_name<S: serde::Serializer>(c: &ErrorClass, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(c.name())
}

/// Results of this crate.
pub type Result<T, E = Failure> = std::result::Result<T, E>;

/// The prefix a serde visitor puts before a message to carry a core
/// [`ErrorKind`] through serde's string-only errors.
pub(crate) const KIND_TAG: &str = "\u{1}gcf:";

/// A serde error message that [`Failure::from_json`] turns back into `kind`.
pub(crate) fn tagged(kind: ErrorKind, message: impl fmt::Display) -> String {
    format!("{KIND_TAG}{}\u{1}{message}", kind.name())
}

impl Failure {
    /// A failure without a position.
    pub fn new(class: ErrorClass, category: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            class,
            category,
            message: message.into(),
            line: None,
            column: None,
        }
    }

    /// A bad argument to the surface itself (a flag, a NULL pointer, an option value).
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(ErrorClass::Usage, "usage", message)
    }

    /// Host input that parsed as JSON but has the wrong shape (a missing
    /// required member): class `json`, category `invalid_input`.
    pub fn shape(message: impl Into<String>) -> Failure {
        Failure::new(ErrorClass::Json, ErrorKind::InvalidInput.name(), message)
    }

    /// A value the core cannot take, in the `invalid_input` category.
    pub fn invalid_input(message: impl Into<String>) -> Failure {
        Failure::from(Error::new(ErrorKind::InvalidInput, message.into()))
    }

    /// An I/O error, with what was being done when it happened.
    pub fn io(context: impl fmt::Display, error: &std::io::Error) -> Failure {
        Failure::new(ErrorClass::Io, "io", format!("{context}: {error}"))
    }

    /// A failure from reading JSON with serde_json: syntax, shape, or a core
    /// kind a visitor raised (see the module docs).
    pub fn from_json(error: &serde_json::Error) -> Failure {
        let text = error.to_string();
        let (line, column) = (error.line(), error.column());
        let suffix = format!(" at line {line} column {column}");
        let message = text.strip_suffix(&suffix).unwrap_or(&text);
        let (class, category, message) = if let Some(rest) = message.strip_prefix(KIND_TAG) {
            let (name, detail) = rest.split_once('\u{1}').unwrap_or((rest, ""));
            let kind = ErrorKind::from_name(name).unwrap_or(ErrorKind::InvalidInput);
            (kind.class(), kind.name(), detail.to_owned())
        } else if message == "number out of range" {
            let kind = ErrorKind::OutOfRange;
            (
                kind.class(),
                kind.name(),
                "number is outside the range of a double".to_owned(),
            )
        } else if message == "lone leading surrogate in hex escape"
            || message == "unexpected end of hex escape"
        {
            // serde_json's two names for an unpaired surrogate escape: valid
            // JSON grammar (a JS string holding a lone surrogate is written
            // so), but no UTF-8 text can hold it. The spec's category for
            // the same escape in GCF text.
            (
                ErrorClass::Json,
                ErrorKind::InvalidSurrogate.name(),
                "a string holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape), \
                 which UTF-8 cannot carry"
                    .to_owned(),
            )
        } else if message == "recursion limit exceeded" {
            let kind = ErrorKind::LimitExceeded;
            (
                kind.class(),
                kind.name(),
                "JSON value nests deeper than the maximum depth".to_owned(),
            )
        } else {
            match error.classify() {
                serde_json::error::Category::Io => (ErrorClass::Io, "io", message.to_owned()),
                serde_json::error::Category::Data => (
                    ErrorClass::Json,
                    ErrorKind::InvalidInput.name(),
                    plain_types(message),
                ),
                _ => (ErrorClass::Json, "json", format!("invalid JSON: {message}")),
            }
        };
        Failure {
            class,
            category,
            message,
            line: (line > 0).then_some(line as u64),
            column: (column > 0).then_some(column as u64),
        }
    }

    /// [`from_json`](Self::from_json) of an error reading `json`, its
    /// message led by the path of the value where reading stopped
    /// (`symbols[3].score: invalid type: ...`; see [`crate::json_path`]).
    pub fn from_json_in(error: &serde_json::Error, json: &[u8]) -> Failure {
        Failure::from_json(error).with_json_path(json)
    }

    /// Leads the message with the path of the value at the failure's line
    /// and column in `json` (nothing at the top level or without a
    /// position).
    pub fn with_json_path(mut self, json: &[u8]) -> Failure {
        if let (Some(line), Some(column)) = (self.line, self.column) {
            let path = crate::json_path::path_at_line(json, line, column);
            if !path.is_empty() {
                self.message = format!("{path}: {}", self.message);
            }
        }
        self
    }

    /// The CLI's exit code: 2 for a usage error, 1 for everything else.
    pub fn exit_code(&self) -> u8 {
        match self.class {
            ErrorClass::Usage => 2,
            _ => 1,
        }
    }

    /// Puts `context: ` before the message (which file, which argument).
    pub fn context(mut self, context: impl fmt::Display) -> Failure {
        self.message = format!("{context}: {}", self.message);
        self
    }

    /// Sets the line (and column, if given) where they are still unknown.
    pub fn at_line(mut self, line: u64, column: Option<u64>) -> Failure {
        if self.line.is_none() && line > 0 {
            self.line = Some(line);
            if self.column.is_none() {
                self.column = column;
            }
        }
        self
    }

    /// Moves the failure to `line`, keeping its column: for one JSON Lines
    /// line parsed on its own, whose parser counts from line 1.
    pub fn on_line(mut self, line: u64) -> Failure {
        self.line = Some(line);
        self
    }
}

/// serde's message for a value of the wrong type or range, with JSON's
/// names for what it expected and found in place of Rust's (`f64`, `u32`,
/// `map`, `sequence`): the reader of the message wrote JSON, or a host value
/// that became JSON.
fn plain_types(message: &str) -> String {
    const NAMES: [(&str, &str); 9] = [
        ("expected f64", "expected a number"),
        ("expected u32", "expected an integer from 0 to 4294967295"),
        (
            "expected u64",
            "expected an integer from 0 to 18446744073709551615",
        ),
        ("expected i64", "expected an integer"),
        ("expected a sequence", "expected an array"),
        ("expected a map", "expected an object"),
        ("floating point `", "number `"),
        ("invalid type: map", "invalid type: object"),
        ("invalid type: sequence", "invalid type: array"),
    ];
    let mut message = message.to_owned();
    for (rust, json) in NAMES {
        if message.contains(rust) {
            message = message.replace(rust, json);
        }
    }
    message
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::from(&e)
    }
}

impl From<&Error> for Failure {
    fn from(e: &Error) -> Failure {
        Failure {
            class: e.kind().class(),
            category: e.kind().name(),
            message: e.message().to_owned(),
            line: e.line().map(|l| l as u64),
            column: e.column().map(|c| c as u64),
        }
    }
}

impl From<serde_json::Error> for Failure {
    fn from(e: serde_json::Error) -> Failure {
        Failure::from_json(&e)
    }
}

impl fmt::Display for Failure {
    /// `error[<category>]: <message> (line L, column C)`, on one line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: ", self.category)?;
        for (i, part) in self.message.lines().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            f.write_str(part)?;
        }
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, " (line {l}, column {c})"),
            (Some(l), None) => write!(f, " (line {l})"),
            _ => Ok(()),
        }
    }
}

impl std::error::Error for Failure {}

#[cfg(test)]
mod tests {
    use super::*;

    fn json_failure(text: &str) -> Failure {
        crate::graph::payload_from_slice(text.as_bytes()).unwrap_err()
    }

    #[test]
    fn sources_map_to_class_and_category() {
        // (how it failed, class, category, exit code)
        let table: Vec<(Failure, &str, &str, u8)> = vec![
            (
                Error::at(ErrorKind::CountMismatch, 3, 7, "declared 2").into(),
                "syntax",
                "count_mismatch",
                1,
            ),
            (
                Error::new(ErrorKind::LimitExceeded, "deep").into(),
                "limit",
                "limit_exceeded",
                1,
            ),
            (
                Error::new(ErrorKind::UnknownEdgeReference, "x").into(),
                "reference",
                "unknown_edge_reference",
                1,
            ),
            (
                Error::new(ErrorKind::RootMismatch, "x").into(),
                "delta",
                "root_mismatch",
                1,
            ),
            (
                Error::new(ErrorKind::InvalidState, "x").into(),
                "state",
                "invalid_state",
                1,
            ),
            (Error::sink().into(), "sink", "sink", 1),
            (json_failure("{\"symbols\": ]"), "json", "json", 1),
            (
                json_failure("{\"symbols\": [{\"score\": \"high\"}]}"),
                "json",
                "invalid_input",
                1,
            ),
            (
                crate::value::from_slice(b"[18446744073709551616]").unwrap_err(),
                "input",
                "out_of_range",
                1,
            ),
            (
                crate::value::from_slice(&[b'['; 300]).unwrap_err(),
                "limit",
                "limit_exceeded",
                1,
            ),
            (
                Failure::io("reading x", &std::io::Error::other("gone")),
                "io",
                "io",
                1,
            ),
            (Failure::usage("bad flag"), "usage", "usage", 2),
        ];
        for (failure, class, category, exit) in table {
            assert_eq!(failure.class.name(), class, "{failure}");
            assert_eq!(failure.category, category, "{failure}");
            assert_eq!(failure.exit_code(), exit, "{failure}");
        }
    }

    #[test]
    fn display_is_one_line_with_position() {
        let f: Failure = Error::at(ErrorKind::CountMismatch, 3, 7, "declared 2,\nfound 1").into();
        assert_eq!(
            f.to_string(),
            "error[count_mismatch]: declared 2, found 1 (line 3, column 7)"
        );
        let f = json_failure("{\n  \"a\": ]");
        assert_eq!(
            f.to_string(),
            "error[json]: a: invalid JSON: expected value (line 2, column 8)"
        );
        let json = serde_json::to_string(&f).unwrap();
        assert_eq!(
            json,
            r#"{"class":"json","category":"json","message":"a: invalid JSON: expected value","line":2,"column":8}"#
        );
    }

    #[test]
    fn shape_errors_name_the_field_in_json_terms() {
        let f = json_failure(
            r#"{"symbols":[{"qualifiedName":"a.B","kind":"function","score":"0.5","provenance":"x"}]}"#,
        );
        assert_eq!(f.category, "invalid_input");
        assert_eq!(
            f.message,
            r#"symbols[0].score: invalid type: string "0.5", expected a number"#
        );
        let f = json_failure(r#"{"symbols":[{"qualifiedName":"a","distance":1.5}]}"#);
        assert_eq!(
            f.message,
            "symbols[0].distance: invalid type: number `1.5`, expected an integer from 0 to 4294967295"
        );
        let f = json_failure(r#"{"symbols":[{"qualifiedName":"a","distance":-1}]}"#);
        assert_eq!(
            f.message,
            "symbols[0].distance: invalid value: integer `-1`, expected an integer from 0 to 4294967295"
        );
        let f = json_failure(r#"{"tool":"t\ud800x"}"#);
        assert_eq!((f.class.name(), f.category), ("json", "invalid_surrogate"));
        assert_eq!(
            f.message,
            "tool: a string holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape), \
             which UTF-8 cannot carry"
        );
        let f = json_failure(r#"{"edges":{"a":1}}"#);
        assert_eq!(f.message, "edges: invalid type: object, expected an array");
        // Past the last member: the whole payload.
        let f = json_failure(r#"{"symbols":[],"tokenBudget":-3}"#);
        assert!(f.message.starts_with("tokenBudget: "), "{}", f.message);
    }

    #[test]
    fn at_line_fills_only_what_is_unknown() {
        let f = Failure::invalid_input("x").at_line(4, Some(2));
        assert_eq!(f.to_string(), "error[invalid_input]: x (line 4, column 2)");
        assert_eq!(
            Failure::invalid_input("y").at_line(0, Some(3)).to_string(),
            "error[invalid_input]: y"
        );
        let f = f.at_line(9, None).context("in.json");
        assert_eq!(
            f.to_string(),
            "error[invalid_input]: in.json: x (line 4, column 2)"
        );
    }
}
