//! Graph decode, by gcf-core's strict decoder, with the reference crate's
//! error type.

use std::fmt;

use gcf_core::ErrorKind;

use crate::convert::{edge_out, symbol_out};
use crate::types::Payload;

/// Why a graph payload did not decode: the reference crate's variants, so
/// callers' matches keep compiling.
///
/// gcf-core reports every malformed input with its spec §16.5 category, line
/// and column: the three categories the crate has variants for arrive in
/// them (`InvalidSymbolLine` for `invalid_node_line`, `InvalidEdgeLine` for
/// `invalid_edge_syntax`, `UnknownEdgeId` for `unknown_edge_reference`), any
/// other in `InvalidField` as `category: message`; each message ends with
/// `(line L, column C)` where the input has a position.
#[derive(Debug, Clone, PartialEq)]
pub enum DecodeError {
    EmptyInput,
    InvalidHeader(String),
    InvalidField(String),
    InvalidSymbolLine(String),
    InvalidEdgeLine(String),
    UnknownEdgeId(String),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::EmptyInput => f.write_str("gcf: empty input"),
            DecodeError::InvalidHeader(line) => {
                write!(f, "gcf: invalid header, expected 'GCF ...' got {line:?}")
            }
            DecodeError::InvalidField(message) => write!(f, "gcf: {message}"),
            DecodeError::InvalidSymbolLine(message) => write!(f, "invalid_node_line: {message}"),
            DecodeError::InvalidEdgeLine(message) => write!(f, "invalid_edge_syntax: {message}"),
            DecodeError::UnknownEdgeId(message) => write!(f, "unknown_edge_reference: {message}"),
        }
    }
}

impl std::error::Error for DecodeError {}

impl DecodeError {
    /// The variant for a gcf-core decode error of `input`.
    fn of(e: &gcf_core::Error, input: &str) -> DecodeError {
        match e.kind() {
            ErrorKind::MissingHeader => {
                DecodeError::InvalidHeader(input.split('\n').next().unwrap_or("").to_string())
            }
            ErrorKind::InvalidNodeLine => DecodeError::InvalidSymbolLine(e.to_string()),
            ErrorKind::InvalidEdgeSyntax => DecodeError::InvalidEdgeLine(e.to_string()),
            ErrorKind::UnknownEdgeReference => DecodeError::UnknownEdgeId(e.to_string()),
            _ => DecodeError::InvalidField(crate::error_text(e)),
        }
    }
}

/// Decodes GCF graph text into a payload. Kinds come back in full
/// (`fn` -> `function`); `signature` and `components`, which GCF does not
/// carry, are empty.
///
/// Stricter than the reference crate, whose parser skips lines it does not
/// know: every spec §16.5 error and §12 limit is enforced, so text the crate
/// accepts can be an error here (listed in `bindings-rust/README.md`).
/// A `## loc` section (spec §6b) is read and checked; the crate's `Payload`
/// has no field for it.
pub fn decode(input: &str) -> Result<Payload, DecodeError> {
    if input.is_empty() {
        return Err(DecodeError::EmptyInput);
    }
    // The crate's `Payload` has no place for a bare session reference, and
    // its `decode` refuses one.
    let p = gcf_core::graph::Decoder::new()
        .refuse_references(true)
        .decode(input)
        .map_err(|e| DecodeError::of(&e, input))?;
    Ok(Payload {
        tool: p.tool,
        tokens_used: header_count(p.tokens_used, "tokens")?,
        token_budget: header_count(p.token_budget, "budget")?,
        pack_root: p.pack_root,
        symbols: p.symbols.into_iter().map(symbol_out).collect(),
        edges: p.edges.into_iter().map(edge_out).collect(),
    })
}

/// A header count in the crate's `i64`: past its range the crate refuses the
/// field (`invalid budget "..."`), so this does too rather than saturate.
fn header_count(n: u64, field: &str) -> Result<i64, DecodeError> {
    i64::try_from(n)
        .map_err(|_| DecodeError::InvalidField(format!("invalid {field} {:?}", n.to_string())))
}
