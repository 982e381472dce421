//! The generic-profile decoder (spec §7), strict mode (spec §16.5).
//!
//! Decoding is one pass over the lines with one line of lookahead: no
//! backtracking, no intermediate tree. Strings, keys and numbers borrow from
//! the input until they become the output: a [`Value`], or a host's own
//! objects, which a [`Build`] makes as each one completes
//! ([`Decoder::decode_into`]). A declared count never
//! sizes an allocation beyond a small cap or, for table rows and keyed
//! members, beyond what the remaining input could hold, and nesting is bounded by
//! [`Limits::max_depth`], so hostile input gets an [`Error`], never a panic,
//! a stack overflow or an outsized allocation.
//!
//! It reads constant columns (`{id,type=user}`, spec §7.4.7) in every field
//! declaration and value-grouped tables (`{@id,dept,...} group=dept` with
//! `dept=Sales [12]` subheaders, spec §7.4.8), as the `gcf` 3.1.0 crate and
//! gcf-python 2.8.0 write them; `parser/grouped.rs` states the grammar.
//!
//! Text written once but decoded into every row (a constant column, a
//! group subheader's value, a field name too long to store inline) is
//! counted row by row against one budget per document,
//! [`Limits::expansion_budget`] of the input's length (a floor plus a fixed
//! multiple of the input), so no input decodes into more than a fixed
//! factor of its size: past it, `limit_exceeded` at the row that crossed it.

mod build;
mod delimiters;
mod keys;
pub(crate) mod lexer;
mod parser;

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, ErrorKind};
use crate::generic::Value;
use crate::header::{read_header, Profile};
use crate::input::{validate_utf8, SourceLines};
use crate::limits::Limits;

pub use build::{Build, ValueBuilder};

/// Decodes a generic-profile payload with the default [`Limits`].
///
/// ```
/// use gcf_core::generic::{decode, Value};
///
/// let v = decode("GCF profile=generic\n## rows [2]{id,name}\n1|Alice\n2|Bob\n")?;
/// let rows = v.as_object().unwrap().get("rows").unwrap().as_array().unwrap();
/// assert_eq!(rows[1].as_object().unwrap().get("name"), Some(&Value::from("Bob")));
///
/// // A constant column (spec §7.4.7) holds its value in every row.
/// let v = decode("GCF profile=generic\n## [2]{id,type=user}\n1\n2\n")?;
/// assert_eq!(v, decode("GCF profile=generic\n## [2]{id,type}\n1|user\n2|user\n")?);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn decode(input: &str) -> Result<Value, Error> {
    Decoder::new().decode(input)
}

/// Decodes a generic-profile payload given as bytes, rejecting malformed
/// UTF-8 (`invalid_utf8`) and UTF-8-encoded surrogates (`invalid_surrogate`)
/// with their line and column first.
///
/// ```
/// use gcf_core::{generic, ErrorKind};
/// let err = generic::decode_bytes(b"GCF profile=generic\nvalue=\xff\n").unwrap_err();
/// assert_eq!((err.kind(), err.line(), err.column()), (ErrorKind::InvalidUtf8, Some(2), Some(7)));
/// ```
pub fn decode_bytes(input: &[u8]) -> Result<Value, Error> {
    Decoder::new().decode_bytes(input)
}

/// Decodes one scalar token as a `key=value` line's value (spec §2.1): a
/// quoted string, `-`, `true`/`false`, a number (`out_of_range` outside the
/// numeric domain, §2.3.2) or a bare string, ASCII space and tab around it
/// trimmed (§4.2). The row-cell markers `~` and `^` are refused
/// (`invalid_missing`, `invalid_attachment_marker`), as outside a row. Errors
/// are placed on line 1, at the token's column.
///
/// For the SDKs' `parse_scalar` helpers; decoding a document reads its tokens
/// in place.
///
/// ```
/// use gcf_core::generic::{parse_scalar, Value};
/// use gcf_core::ErrorKind;
/// assert_eq!(parse_scalar("12")?, Value::Int(12));
/// assert_eq!(parse_scalar("\"12\"")?, Value::from("12"));
/// assert_eq!(parse_scalar(" Bob Smith ")?, Value::from("Bob Smith"));
/// assert_eq!(parse_scalar("~").unwrap_err().kind(), ErrorKind::InvalidMissing);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn parse_scalar(token: &str) -> Result<Value, Error> {
    let line = lexer::Ln {
        number: 1,
        indent: 0,
        raw: token,
    };
    lexer::parse_value_at(&line, 0)
}

/// A token as a table row cell holds it, for the SDKs' `parse_scalar(token,
/// tabular_context)` helpers: see [`parse_cell_token`].
#[derive(Debug, Clone, PartialEq)]
pub enum CellToken<'a> {
    /// A scalar, as [`parse_scalar`] reads it.
    Value(Value),
    /// `~`: the field is absent from its record (§7.4.2).
    Missing,
    /// `^`, or `^{...}` with its declaration (`{...}`, not checked here):
    /// the value is attached beneath the row (§7.4.4, §7.4.5).
    Attachment(Option<&'a str>),
}

/// Reads one token as a table row cell (spec §2.1): after ASCII space and
/// tab are trimmed, `~` is [`CellToken::Missing`], `^` and `^{...}` are
/// [`CellToken::Attachment`], and anything else is [`parse_scalar`]'s value.
///
/// ```
/// use gcf_core::generic::{parse_cell_token, CellToken, Value};
/// assert_eq!(parse_cell_token(" ~ ")?, CellToken::Missing);
/// assert_eq!(parse_cell_token("^{a,b}")?, CellToken::Attachment(Some("{a,b}")));
/// assert_eq!(parse_cell_token("7")?, CellToken::Value(Value::Int(7)));
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn parse_cell_token(token: &str) -> Result<CellToken<'_>, Error> {
    let t = token.trim_matches([' ', '\t']);
    Ok(match t {
        "~" => CellToken::Missing,
        "^" => CellToken::Attachment(None),
        _ if t.len() >= 3 && t.starts_with("^{") && t.ends_with('}') => {
            CellToken::Attachment(Some(&t[1..]))
        }
        _ => CellToken::Value(parse_scalar(token)?),
    })
}

/// A decoded payload with its header, for callers that need more than the value
/// (generic deltas, tools that read `pack_root` or `key`).
#[derive(Debug, Clone, PartialEq)]
pub struct ValueWithHeader {
    /// The header pairs after `profile=generic`, in order.
    pub header: Vec<(String, String)>,
    /// The decoded body.
    pub value: Value,
    /// The name of the first `@`-marked identity field (spec §10a.1), when
    /// [`Decoder::allow_identity_fields`] is on and one was declared.
    pub identity_field: Option<String>,
}

/// A configurable generic decoder.
///
/// ```
/// use gcf_core::generic::{Decoder, Value};
/// use gcf_core::{ErrorKind, Limits};
///
/// let doc = Decoder::new()
///     .allow_identity_fields(true)
///     .decode_with_header("GCF profile=generic key=id\n## added [1]{@id,total}\n7|9.5\n")?;
/// assert_eq!(doc.identity_field.as_deref(), Some("id"));
/// assert_eq!(doc.header, [("key".to_string(), "id".to_string())]);
///
/// let shallow = Decoder::new().limits(Limits { max_depth: 2, ..Limits::default() });
/// let err = shallow.decode("GCF profile=generic\n## a\n  ## b\n    ## c\n      x=1\n").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::LimitExceeded);
/// # Ok::<(), gcf_core::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    limits: Limits,
    allow_identity: bool,
}

impl Decoder {
    /// A strict decoder with the default [`Limits`].
    pub fn new() -> Self {
        Decoder::default()
    }

    /// The most bytes of input this decoder accepts.
    #[cfg(feature = "serde")]
    pub(crate) fn max_input_len(&self) -> usize {
        self.limits.max_input_len
    }

    /// Sets the implementation limits (spec §12).
    ///
    /// The parser recurses once or twice per nesting level, so `max_depth`
    /// also bounds stack use; the default (128) needs well under 1 MiB. Raise
    /// it into the thousands only on a thread with a correspondingly large stack.
    /// Where a thread's stack is smaller than the depth needs (a musl thread
    /// has 128 KiB), the decoder stops with `limit_exceeded` before running
    /// out of it ([`crate::stack`]).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Accepts `@`-prefixed identity fields in tabular and keyed field
    /// declarations (`{@id,total}`, spec §10a.1) even without `key=` in the
    /// header. A payload whose header has `key=` always accepts them (the
    /// marked field must be the one `key=` names); elsewhere such a field name
    /// is a syntax error.
    pub fn allow_identity_fields(mut self, allow: bool) -> Self {
        self.allow_identity = allow;
        self
    }

    /// Decodes a payload to its value.
    pub fn decode(&self, input: &str) -> Result<Value, Error> {
        self.decode_with_header(input).map(|d| d.value)
    }

    /// Decodes a payload given as bytes, validating UTF-8 first.
    pub fn decode_bytes(&self, input: &[u8]) -> Result<Value, Error> {
        self.decode(validate_utf8(input)?)
    }

    /// Decodes a payload to its header, value and identity field.
    pub fn decode_with_header(&self, input: &str) -> Result<ValueWithHeader, Error> {
        self.decode_parts(input, None).map(|(doc, _)| doc)
    }

    /// Decodes a payload into the values `build` makes (see [`Build`]): a
    /// binding's host objects, built straight from the text with no
    /// [`Value`] tree in between. Everything else is as [`Decoder::decode`]:
    /// the same checks, limits and errors, and with [`ValueBuilder`] the
    /// same value.
    ///
    /// ```
    /// use gcf_core::generic::{Decoder, ValueBuilder};
    ///
    /// let text = "GCF profile=generic\n## [2]{id,type=user}\n1\n2\n";
    /// let decoder = Decoder::new();
    /// assert_eq!(decoder.decode_into(text, &mut ValueBuilder)?, decoder.decode(text)?);
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn decode_into<B: Build>(&self, input: &str, build: &mut B) -> Result<B::Value, Error> {
        self.decode_body(input, None, build).map(|body| body.value)
    }

    /// [`Decoder::decode_into`] for a payload given as bytes, validating
    /// UTF-8 first.
    pub fn decode_bytes_into<B: Build>(
        &self,
        input: &[u8],
        build: &mut B,
    ) -> Result<B::Value, Error> {
        self.decode_into(validate_utf8(input)?, build)
    }

    /// Decodes a payload and also returns every top-level member (or the
    /// root array or scalar) in order, with its position and, for a
    /// `## name [N]{fields}` table, its declaration: what generic deltas need
    /// beyond the value (field order and `@` marks survive even when a
    /// section has no rows, and errors can name a member's line and column).
    ///
    /// `unique_identities`: whether a table's `@` identity column must name
    /// each row once (a full payload, §10a.1), or is left to the caller (a
    /// delta, whose sections judge their identities themselves).
    pub(crate) fn decode_sections(
        &self,
        input: &str,
        unique_identities: bool,
    ) -> Result<(ValueWithHeader, Vec<SectionDecl>), Error> {
        self.decode_parts(input, Some(unique_identities))
    }

    /// `sections`: `None` for the value alone, `Some(unique_identities)` to
    /// record the top-level declarations too (see [`Self::decode_sections`]).
    fn decode_parts(
        &self,
        input: &str,
        sections: Option<bool>,
    ) -> Result<(ValueWithHeader, Vec<SectionDecl>), Error> {
        let body = self.decode_body(input, sections, &mut ValueBuilder)?;
        let document = ValueWithHeader {
            header: body.header,
            value: body.value,
            identity_field: body.identity_field,
        };
        Ok((document, body.sections))
    }

    fn decode_body<B: Build>(
        &self,
        input: &str,
        sections: Option<bool>,
        build: &mut B,
    ) -> Result<Body<B::Value>, Error> {
        let record_sections = sections.is_some();
        let mut lines = SourceLines::new(input, &self.limits)?;
        let (first, header) = read_header(&mut lines)?;
        if header.profile == Profile::Graph {
            return Err(Error::at(
                ErrorKind::InvalidInput,
                1,
                1,
                "this is a graph-profile payload, not a generic one",
            ));
        }
        // A delta-participating payload names its identity field in the header
        // (`key=`) and marks it `@` in its declaration (spec §10a.1).
        let key = header.get("key");
        let allow_identity = self.allow_identity || key.is_some();
        let key_column = header.column_of(first.text, "key");
        let header: Vec<(String, String)> = header
            .fields
            .iter()
            .map(|&(k, v)| (String::from(k), String::from(v)))
            .collect();
        let mut parser = parser::Parser::new(
            lexer::Cursor::new(lines),
            build,
            self.limits,
            allow_identity,
            input.len(),
        );
        if record_sections {
            parser.sections = Some(Vec::new());
        }
        parser.unique_identities = allow_identity && sections.unwrap_or(true);
        let value = parser.parse_root()?;
        // (Delta payloads check this themselves, per section, as a malformed delta.)
        let delta = sections == Some(false);
        if let (false, Some(key), Some(field)) = (delta, key, parser.identity_field.as_deref()) {
            if key != field {
                return Err(Error::at(
                    ErrorKind::InvalidSyntax,
                    1,
                    key_column,
                    alloc::format!("the header says key={key} but the declaration marks @{field}"),
                ));
            }
        }
        Ok(Body {
            header,
            value,
            identity_field: parser.identity_field,
            sections: parser.sections.unwrap_or_default(),
        })
    }
}

/// What one decode found, whatever its builder made.
struct Body<V> {
    header: Vec<(String, String)>,
    value: V,
    identity_field: Option<String>,
    sections: Vec<SectionDecl>,
}

/// A top-level member, or the root array or scalar, and for a table its
/// declaration (see [`Decoder::decode_sections`]).
#[derive(Debug, Clone)]
pub(crate) struct SectionDecl {
    /// The line and column where the member (its key) or the root starts.
    pub(crate) line: usize,
    pub(crate) column: usize,
    /// For a `## name [N]{...}` table (not a keyed map), the declared fields
    /// in order, with their `@` identity marks.
    pub(crate) fields: Option<Vec<lexer::Field>>,
    /// For such a table whose identities the caller judges (`decode_sections`
    /// without `unique_identities`: a delta), the line each of its rows
    /// starts on; empty otherwise.
    pub(crate) row_lines: Vec<usize>,
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod constants_tests;
