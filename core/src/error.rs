//! The one error type of the crate.
//!
//! Errors are rare and the happy path is hot, so [`Error`] is a single pointer
//! to a boxed detail (the same trade serde_json makes): a `Result<(), Error>`
//! costs one word, and building an error is the only place that allocates.

use alloc::boxed::Box;
use alloc::string::String;
use core::fmt;

macro_rules! error_kinds {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, )*) => {
        /// What went wrong, by the category names of the GCF conformance suite.
        ///
        /// [`ErrorKind::name`] gives the stable snake_case name (for example
        /// `count_mismatch`) that bindings and the CLI print and that callers can
        /// match on across languages. New kinds may be added in minor releases.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorKind {
            $( $(#[$doc])* $variant, )*
        }

        impl ErrorKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [ErrorKind] = &[ $( ErrorKind::$variant, )* ];

            /// The stable snake_case name of this category.
            pub const fn name(self) -> &'static str {
                match self { $( ErrorKind::$variant => $name, )* }
            }

            /// Looks a category up by its snake_case name.
            pub fn from_name(name: &str) -> Option<ErrorKind> {
                match name { $( $name => Some(ErrorKind::$variant), )* _ => None }
            }
        }
    };
}

error_kinds! {
    /// The first line does not begin with `GCF` (spec §16.5, header errors).
    MissingHeader => "missing_header",
    /// The header has no `profile=` field as its first pair.
    MissingProfile => "missing_profile",
    /// `profile` is neither `graph` nor `generic`.
    UnknownProfile => "unknown_profile",
    /// A header pair is missing its `=` or is otherwise malformed.
    MalformedHeaderField => "malformed_header_field",
    /// The same header key appears twice.
    DuplicateHeaderField => "duplicate_header_field",
    /// A quoted string has no closing quote.
    UnterminatedQuote => "unterminated_quote",
    /// An escape sequence outside the JSON set.
    InvalidEscape => "invalid_escape",
    /// Characters follow the closing quote of a quoted scalar.
    TrailingCharacters => "trailing_characters",
    /// `~` outside a tabular row cell.
    InvalidMissing => "invalid_missing",
    /// `^` or `^{...}` outside a tabular row cell, or a malformed inline schema.
    InvalidAttachmentMarker => "invalid_attachment_marker",
    /// A literal or escaped surrogate that is not a well-formed pair.
    InvalidSurrogate => "invalid_surrogate",
    /// The input is not well-formed UTF-8.
    InvalidUtf8 => "invalid_utf8",
    /// The same key twice in one object.
    DuplicateKey => "duplicate_key",
    /// The same name twice in a field declaration.
    DuplicateFieldName => "duplicate_field_name",
    /// A row's cell count differs from its header's field count.
    RowWidthMismatch => "row_width_mismatch",
    /// A declared count (`[N]`, a header count, a trailer count) differs from the data.
    CountMismatch => "count_mismatch",
    /// A count is not `0`, a decimal without leading zeros, or `?`.
    InvalidCount => "invalid_count",
    /// Tab characters in leading indentation.
    TabIndentation => "tab_indentation",
    /// Indentation that jumps by more than one level, or appears where no container opened.
    InvalidIndent => "invalid_indent",
    /// An `@N` id that does not equal its item index.
    InvalidItemId => "invalid_item_id",
    /// A `.field` attachment with no matching `^` cell.
    OrphanAttachment => "orphan_attachment",
    /// A positional inline body with no eligible `^` cell.
    OrphanInlineAttachment => "orphan_inline_attachment",
    /// A `^` cell with no attachment body.
    MissingAttachment => "missing_attachment",
    /// Two attachments for the same field of one row.
    DuplicateAttachment => "duplicate_attachment",
    /// A positional inline body whose width differs from its schema.
    InlineWidthMismatch => "inline_width_mismatch",
    /// A constant-column value (`name=value` in a field declaration, or a
    /// group subheader's value) that is empty, `~`, or an attachment marker
    /// (spec §7.4.7.2; the category of the `gcf` 3.1.0 crate and gcf-python 2.8.0).
    InvalidConstValue => "invalid_const_value",
    /// A field declaration whose every field is constant, leaving rows no cell
    /// (spec §7.4.7.1).
    NoBareColumn => "no_bare_column",
    /// A malformed value-grouped table (spec §7.4.8): a bad `group=` clause,
    /// not exactly one `@` key column, a subheader that is malformed or names
    /// another column, a grouped row with an attachment or without its key.
    InvalidGroupHeader => "invalid_group_header",
    /// Two subheaders of one value-grouped table with the same value (spec §7.4.8.3).
    DuplicateGroup => "duplicate_group",
    /// A graph node line without exactly five fields.
    InvalidNodeLine => "invalid_node_line",
    /// `@` followed by something other than a decimal id, or an id declared twice.
    InvalidSymbolId => "invalid_symbol_id",
    /// A score that does not match `[-]DIGITS.2DIGIT`, or that cannot be encoded.
    InvalidScore => "invalid_score",
    /// An edge line without the `<` separator or with extra fields.
    InvalidEdgeSyntax => "invalid_edge_syntax",
    /// An edge (or location) that names an undeclared symbol id.
    UnknownEdgeReference => "unknown_edge_reference",
    /// A delta payload with an unknown section or a line form invalid for its
    /// section (spec §16.5).
    MalformedDelta => "malformed_delta",
    /// A delta whose operations contradict the snapshot or set it is applied
    /// to (spec §10.4 step 3, §10a.5 step 3: adding what the base holds,
    /// changing or removing what it lacks, naming one thing twice, another
    /// key or schema), as every reference SDK names it.
    DeltaInvalid => "delta_invalid",
    /// A delta applied to a snapshot or set other than its `base_root`
    /// (spec §10.4 step 1, §10a.5 step 1), as every reference SDK names it.
    BaseMismatch => "base_mismatch",
    /// A result whose recomputed pack root is not the delta's `new_root`.
    RootMismatch => "root_mismatch",
    /// An integer outside `int64`, or a non-finite double.
    OutOfRange => "out_of_range",
    /// A line that matches no production of the grammar.
    InvalidSyntax => "invalid_syntax",
    /// A line among an object's members that is none of their forms (no `=`,
    /// no `##` section, no inline array), as the reference SDKs name it
    /// ("unexpected content in object body").
    InvalidLine => "invalid_line",
    /// A configured implementation limit (spec §12) was exceeded.
    LimitExceeded => "limit_exceeded",
    /// A value the encoder cannot represent (for example whitespace in a graph name).
    InvalidInput => "invalid_input",
    /// An API called out of order, such as writing a symbol after the trailer.
    InvalidState => "invalid_state",
    /// The output sink refused a write.
    Sink => "sink",
}

/// A coarse grouping of [`ErrorKind`]s that every surface maps from: the
/// CLI's exit code, the C ABI's status, Go's error values and the coming
/// Node/Python exceptions all branch on the class, and print the kind's
/// [`name`](ErrorKind::name) as the category.
///
/// The core itself only produces the classes its kinds map to; [`Json`](ErrorClass::Json),
/// [`Io`](ErrorClass::Io), [`Usage`](ErrorClass::Usage) and [`Panic`](ErrorClass::Panic)
/// exist for the layers that read host input, touch the operating system or
/// catch panics, so that they share one list instead of inventing their own.
///
/// ```
/// use gcf_core::{ErrorClass, ErrorKind};
/// assert_eq!(ErrorKind::CountMismatch.class(), ErrorClass::Syntax);
/// assert_eq!(ErrorKind::UnknownEdgeReference.class().name(), "reference");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorClass {
    /// GCF text that breaks the grammar or its counts (almost every decode error).
    Syntax,
    /// A spec §12 limit was exceeded.
    Limit,
    /// A reference to a symbol that was never declared.
    Reference,
    /// A delta that cannot be applied: malformed, or verified against the wrong root.
    Delta,
    /// A value the encoder cannot represent, or a number outside its domain.
    Input,
    /// An API called out of order, or on a writer an earlier failure poisoned.
    State,
    /// The output sink refused a write.
    Sink,
    /// Host input that is not valid JSON or not of the expected shape (bindings only).
    Json,
    /// The operating system refused a read or a write (bindings only).
    Io,
    /// A bad argument to the surface itself: a flag, a NULL pointer (bindings only).
    Usage,
    /// A bug caught at a language boundary (bindings only).
    Panic,
}

/// Input text quoted in a message: up to [`EXCERPT_CHARS`] characters, then
/// `...`, so that a hostile megabyte-long line does not become a megabyte
/// long message.
pub(crate) fn excerpt(text: &str) -> Excerpt<'_> {
    Excerpt(text)
}

/// [`excerpt`] as a Rust string literal (`"a\tb"`, escapes shown), for
/// text whose blanks and control characters are the point of the message.
pub(crate) fn excerpt_quoted(text: &str) -> ExcerptQuoted<'_> {
    ExcerptQuoted(text)
}

/// See [`excerpt_quoted`].
pub(crate) struct ExcerptQuoted<'a>(&'a str);

impl fmt::Display for ExcerptQuoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(EXCERPT_CHARS) {
            Some((end, _)) => write!(f, "{:?}...", &self.0[..end]),
            None => write!(f, "{:?}", self.0),
        }
    }
}

/// The most characters of input an [`excerpt`] shows.
pub(crate) const EXCERPT_CHARS: usize = 60;

/// See [`excerpt`].
pub(crate) struct Excerpt<'a>(&'a str);

impl fmt::Display for Excerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(EXCERPT_CHARS) {
            Some((end, _)) => write!(f, "{}...", &self.0[..end]),
            None => f.write_str(self.0),
        }
    }
}

impl ErrorClass {
    /// Every class, in declaration order.
    pub const ALL: &'static [ErrorClass] = &[
        ErrorClass::Syntax,
        ErrorClass::Limit,
        ErrorClass::Reference,
        ErrorClass::Delta,
        ErrorClass::Input,
        ErrorClass::State,
        ErrorClass::Sink,
        ErrorClass::Json,
        ErrorClass::Io,
        ErrorClass::Usage,
        ErrorClass::Panic,
    ];

    /// The stable lowercase name of the class.
    pub const fn name(self) -> &'static str {
        match self {
            ErrorClass::Syntax => "syntax",
            ErrorClass::Limit => "limit",
            ErrorClass::Reference => "reference",
            ErrorClass::Delta => "delta",
            ErrorClass::Input => "input",
            ErrorClass::State => "state",
            ErrorClass::Sink => "sink",
            ErrorClass::Json => "json",
            ErrorClass::Io => "io",
            ErrorClass::Usage => "usage",
            ErrorClass::Panic => "panic",
        }
    }
}

impl fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl ErrorKind {
    /// The class this category belongs to.
    pub const fn class(self) -> ErrorClass {
        match self {
            ErrorKind::LimitExceeded => ErrorClass::Limit,
            ErrorKind::UnknownEdgeReference => ErrorClass::Reference,
            ErrorKind::MalformedDelta
            | ErrorKind::DeltaInvalid
            | ErrorKind::BaseMismatch
            | ErrorKind::RootMismatch => ErrorClass::Delta,
            ErrorKind::InvalidInput | ErrorKind::OutOfRange => ErrorClass::Input,
            ErrorKind::InvalidState => ErrorClass::State,
            ErrorKind::Sink => ErrorClass::Sink,
            _ => ErrorClass::Syntax,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An error from encoding, decoding or applying a delta.
///
/// It knows its [`kind`](Error::kind), a human-readable
/// [`message`](Error::message), and, for errors in GCF input, the 1-based
/// [`line`](Error::line) and [`column`](Error::column) (in characters) where
/// the problem was found.
///
/// ```
/// use gcf_core::{graph, ErrorKind};
///
/// let err = graph::decode("GCF profile=graph\n## targets\n@x fn a.B 0.50 lsp\n").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::InvalidSymbolId);
/// assert_eq!(err.kind().name(), "invalid_symbol_id");
/// assert_eq!(err.line(), Some(3));
/// ```
pub struct Error {
    inner: Box<Inner>,
}

#[derive(Clone)]
struct Inner {
    kind: ErrorKind,
    line: u32,
    column: u32,
    message: String,
}

/// The crate's result type.
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl Error {
    /// An error with no position (encoder input, API misuse, a sink failure).
    #[cold]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            inner: Box::new(Inner {
                kind,
                line: 0,
                column: 0,
                message: message.into(),
            }),
        }
    }

    /// An error at a 1-based line and column of the input.
    #[cold]
    pub fn at(kind: ErrorKind, line: usize, column: usize, message: impl Into<String>) -> Error {
        let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Error {
            inner: Box::new(Inner {
                kind,
                line: clamp(line),
                column: clamp(column),
                message: message.into(),
            }),
        }
    }

    /// The error for a sink that refused a write.
    #[cold]
    pub fn sink() -> Error {
        Error::new(ErrorKind::Sink, "the output sink refused the write")
    }

    /// The error every call on a poisoned streaming writer returns (see
    /// the stream lifecycle in [`graph::StreamWriter`](crate::graph::StreamWriter)
    /// and [`generic::StreamWriter`](crate::generic::StreamWriter)).
    #[cold]
    pub(crate) fn poisoned() -> Error {
        Error::new(
            ErrorKind::InvalidState,
            "an earlier write to the sink failed; the payload is incomplete",
        )
    }

    /// The category.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The explanation, without position.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The 1-based line of the input where the error was found, if it came from input.
    pub fn line(&self) -> Option<usize> {
        (self.inner.line != 0).then_some(self.inner.line as usize)
    }

    /// The 1-based column (in characters) where the error was found, if known.
    pub fn column(&self) -> Option<usize> {
        (self.inner.column != 0).then_some(self.inner.column as usize)
    }

    /// This error at `position` (1-based line and column) in place of the
    /// one it has, when there is one: a check that runs after decoding
    /// (applying a delta) points at the part of the text it judged.
    pub(crate) fn relocated(self, position: Option<(usize, usize)>) -> Error {
        match position {
            Some((line, column)) if line > 0 => {
                let mut error = self;
                error.inner.line = u32::try_from(line).unwrap_or(u32::MAX);
                error.inner.column = u32::try_from(column).unwrap_or(u32::MAX);
                error
            }
            _ => self,
        }
    }

    /// Fills in the line and the column where they are still unknown, keeping
    /// what a lower layer already knew (a string parser knows the column, its
    /// caller the line).
    pub(crate) fn with_position(mut self, line: usize, column: usize) -> Error {
        if self.inner.line == 0 {
            self.inner.line = u32::try_from(line).unwrap_or(u32::MAX);
        }
        if self.inner.column == 0 {
            self.inner.column = u32::try_from(column).unwrap_or(u32::MAX);
        }
        self
    }
}

impl Clone for Error {
    fn clone(&self) -> Self {
        Error {
            inner: self.inner.clone(),
        }
    }
}

impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        self.inner.kind == other.inner.kind
            && self.inner.line == other.inner.line
            && self.inner.column == other.inner.column
            && self.inner.message == other.inner.message
    }
}

impl From<crate::sink::SinkError> for Error {
    #[cold]
    fn from(_: crate::sink::SinkError) -> Error {
        Error::sink()
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.inner.kind)
            .field("line", &self.inner.line)
            .field("column", &self.inner.column)
            .field("message", &self.inner.message)
            .finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.inner.message)?;
        match (self.line(), self.column()) {
            (Some(l), Some(c)) => write!(f, " (line {l}, column {c})"),
            (Some(l), None) => write!(f, " (line {l})"),
            _ => Ok(()),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_bounded() {
        assert_eq!(alloc::format!("{}", excerpt("short")), "short");
        let long = "é".repeat(EXCERPT_CHARS + 5);
        let shown = alloc::format!("{}", excerpt(&long));
        assert_eq!(shown, alloc::format!("{}...", "é".repeat(EXCERPT_CHARS)));
        assert_eq!(alloc::format!("{}", excerpt_quoted("a\tb")), "\"a\\tb\"");
        let shown = alloc::format!("{}", excerpt_quoted(&long));
        assert_eq!(
            shown,
            alloc::format!("\"{}\"...", "é".repeat(EXCERPT_CHARS))
        );
    }

    /// Every message that quotes a name, key or value from the input shows
    /// at most an excerpt of it: a hostile megabyte-long name must not make
    /// a megabyte-long message. Each case fails on a long name.
    #[test]
    fn messages_quote_long_names_short() {
        let name = "n".repeat(100_000);
        let decode_cases = [
            alloc::format!("GCF profile=generic\n{name}=1\n{name}=2\n"),
            alloc::format!("GCF profile=generic\n## [1]{{{name},{name}}}\n1|2\n"),
            alloc::format!("GCF profile=generic\n## {name}\n  a=1\n## {name}\n  a=2\n"),
            alloc::format!("GCF profile=generic\n## [1]{{a,{name}}}\n1|^\n"),
            alloc::format!("GCF profile=generic\n## [1]{{a}}\n1\n.{name} [0]\n"),
            alloc::format!("GCF profile=generic x{name}=1 x{name}=2\n"),
            alloc::format!("GCF profile={name}\n"),
            alloc::format!("GCF profile=graph session={name}\n"),
            alloc::format!("GCF profile=graph symbols={name}\n"),
            alloc::format!("GCF profile=graph\n## targets\n@0 fn {name} 0.9 x\n"),
            alloc::format!(
                "GCF profile=generic\n## [2]{{@k,g}} group=g\ng={name} [1]\n1\ng={name} [1]\n2\n"
            ),
            alloc::format!(
                "GCF profile=generic\n## [2]{{@k,g}} group=g\ng=x [2]\n{name}\n{name}\n"
            ),
        ];
        for text in &decode_cases {
            let e = match text.starts_with("GCF profile=graph") {
                true => crate::graph::decode(text).map(drop).unwrap_err(),
                false => crate::generic::decode(text).map(drop).unwrap_err(),
            };
            assert!(
                e.message().len() < 400,
                "{} bytes: {}",
                e.message().len(),
                &e.message()[..200]
            );
        }
        // Encoders refusing a caller's name.
        let spaced = alloc::format!("{name} x");
        let nan = crate::graph::Symbol::new(name.as_str(), "fn", f64::NAN, "lsp", 0);
        let spaced_symbol = crate::graph::Symbol::new(spaced.as_str(), "fn", 0.5, "lsp", 0);
        for symbol in [nan, spaced_symbol] {
            let p = crate::graph::Payload {
                symbols: alloc::vec![symbol],
                ..Default::default()
            };
            let e = crate::graph::encode(&p).unwrap_err();
            assert!(e.message().len() < 400, "{} bytes", e.message().len());
        }
    }

    #[test]
    fn decode_messages_use_the_reference_wording() {
        // The phrases the reference SDKs' messages (and their tests) use.
        for (text, phrase) in [
            ("INVALID header\n", "invalid header"),
            ("GCF profile=graph symbols=1\n## targets\n@abc fn a.A 0.90 x\n", "invalid symbol id"),
            ("GCF profile=graph symbols=1\n## targets\n@0 fn a.A nan x\n", "invalid score"),
            ("GCF profile=graph symbols=1\n## targets\n@0 fn a.A\n", "at least 5 fields"),
            (
                "GCF profile=graph symbols=2\n## targets\n@0 fn a.A 0.90 x\n@1 fn b.B 0.80 x\n## edges [1]\n@0@1 calls\n",
                "missing '<' separator",
            ),
            (
                "GCF profile=graph symbols=1\n## targets\n@0 fn a.A 0.90 x\n## edges [1]\n@0<@99 calls\n",
                "unknown symbol id",
            ),
        ] {
            let e = crate::graph::decode(text).unwrap_err();
            assert!(e.message().contains(phrase), "{phrase}: {e}");
        }
        let e =
            crate::generic::decode("GCF profile=generic\n## [2]{@id,x}\nu1|1\nu2|2\n").unwrap_err();
        assert!(e.message().contains("invalid field name `@id`"), "{e}");
    }

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = alloc::collections::BTreeSet::new();
        for &k in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_name(k.name()), Some(k));
            assert!(seen.insert(k.name()), "duplicate name {}", k.name());
        }
        assert_eq!(ErrorKind::from_name("nope"), None);
    }

    #[test]
    fn every_kind_has_a_core_class() {
        let core_classes = [
            ErrorClass::Syntax,
            ErrorClass::Limit,
            ErrorClass::Reference,
            ErrorClass::Delta,
            ErrorClass::Input,
            ErrorClass::State,
            ErrorClass::Sink,
        ];
        for &k in ErrorKind::ALL {
            assert!(core_classes.contains(&k.class()), "{k}");
        }
        assert_eq!(ErrorKind::InvalidNodeLine.class(), ErrorClass::Syntax);
        assert_eq!(ErrorKind::RootMismatch.class(), ErrorClass::Delta);
        assert_eq!(ErrorKind::BaseMismatch.class(), ErrorClass::Delta);
        assert_eq!(ErrorKind::DeltaInvalid.class(), ErrorClass::Delta);
        assert_eq!(ErrorKind::OutOfRange.class(), ErrorClass::Input);
        let names: alloc::collections::BTreeSet<_> =
            ErrorClass::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names.len(), ErrorClass::ALL.len());
    }

    #[test]
    fn error_is_one_pointer() {
        assert_eq!(core::mem::size_of::<Error>(), core::mem::size_of::<usize>());
    }

    #[test]
    fn display_includes_position() {
        let e = Error::at(ErrorKind::CountMismatch, 3, 7, "declared 2, found 1");
        assert_eq!(
            alloc::format!("{e}"),
            "declared 2, found 1 (line 3, column 7)"
        );
        assert_eq!(e.line(), Some(3));
        assert_eq!(e.column(), Some(7));
        let e = Error::new(ErrorKind::Sink, "x").with_position(2, 1);
        assert_eq!(e.line(), Some(2));
        let e2 = e.clone().with_position(9, 9);
        assert_eq!((e2.line(), e2.column()), (Some(2), Some(1)));
        let e3 = Error::at(ErrorKind::InvalidEscape, 0, 4, "z").with_position(7, 1);
        assert_eq!((e3.line(), e3.column()), (Some(7), Some(4)));
        assert_eq!(Error::new(ErrorKind::InvalidInput, "y").line(), None);
    }
}
