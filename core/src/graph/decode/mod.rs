//! The strict graph decoder (spec §4, §5, §6, §6a, §6b, §8.4-8.6, §13, §16.3, §16.5).
//!
//! This module holds the entry points and the [`Decoder`]; the work is split
//! by concern: `state` (the line-by-line state machine and its fast paths),
//! `ids` (declared ids), `forms` (the owned, borrowed and shared result
//! forms and their label pools) and `fields` (single-line parsers the delta
//! decoder shares).

use alloc::borrow::Cow;
use alloc::string::String;
#[cfg(target_has_atomic = "ptr")]
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::hash::HashMap;

use super::types::{Payload, Symbol};
use crate::error::{Error, ErrorKind};
use crate::header::{read_header, Profile};
use crate::input::{validate_utf8, SourceLines};
use crate::limits::Limits;

mod fields;
mod forms;
mod ids;
mod indexed;
mod state;
#[cfg(test)]
mod tests;

pub(crate) use fields::*;
pub(crate) use forms::*;
pub(crate) use ids::*;
pub use indexed::Indexed;
use state::*;

/// Decodes a graph payload into owned data with default [`Limits`].
///
/// This is the reference crate's form, and the slowest one: every string of
/// the result is its own allocation (both endpoint names of every edge, every
/// kind and edge type), and allocating, filling and later freeing those
/// strings alone takes most of the time (see `benches/REPORT.md`,
/// `floor-owned`). The fast paths return the same payload without them:
/// [`decode_borrowed`] (strings borrowed from the input, three to four times
/// faster) when the input outlives the result, and [`decode_shared`]
/// (`Arc<str>`: one allocation per name, shared by the edges naming it)
/// when it does not.
///
/// ```
/// use gcf_core::graph::decode;
/// let p = decode("GCF profile=graph symbols=1\n## related\n@0 iface pkg.Handler 0.90 lsp\n")?;
/// assert_eq!(p.symbols[0].kind, "interface");
/// assert_eq!(p.symbols[0].distance, 1);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn decode(input: &str) -> Result<Payload, Error> {
    Decoder::new().decode(input)
}

/// Decodes raw bytes, rejecting malformed UTF-8 with its line and column.
///
/// ```
/// use gcf_core::{graph::decode_bytes, ErrorKind};
/// let err = decode_bytes(b"GCF profile=graph\n## targets\n@0 fn a\xff 0.50 x\n").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::InvalidUtf8);
/// assert_eq!(err.line(), Some(3));
/// ```
pub fn decode_bytes(input: &[u8]) -> Result<Payload, Error> {
    Decoder::new().decode_bytes(input)
}

/// Decodes without copying: strings borrow from `input` (known kinds are
/// expanded to `'static` names; only quoted location paths with escapes are
/// owned).
///
/// ```
/// use gcf_core::graph::decode_borrowed;
/// let text = String::from("GCF profile=graph symbols=1\n## targets\n@0 fn pkg.A 0.50 lsp\n");
/// let p = decode_borrowed(&text)?;
/// assert_eq!(p.symbols[0].qualified_name, "pkg.A");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn decode_borrowed(input: &str) -> Result<Payload<Cow<'_, str>>, Error> {
    Decoder::new().decode_borrowed(input)
}

/// Decodes into owned strings that are shared: each symbol's name is
/// allocated once and every edge naming that symbol holds another reference
/// to it, and the few distinct kinds, provenances, edge types and statuses
/// are allocated once each.
///
/// For a consumer that cannot keep `input` alive (so cannot use
/// [`decode_borrowed`]) this is the cheap owned form: [`decode`] makes a
/// separate `String` for both ends of every edge, about a dozen allocations
/// per symbol on a typical code graph, where this makes about one. The
/// payload compares equal to [`decode`]'s (`Arc<str>` derefs to the same
/// text), and errors are the same. Available in `no_std` builds on every
/// target with pointer-sized atomics (what `alloc::sync::Arc` needs).
///
/// ```
/// use std::sync::Arc;
/// use gcf_core::graph::decode_shared;
/// let p = decode_shared(
///     "GCF profile=graph symbols=2 edges=1\n## targets\n@0 fn pkg.A 0.50 lsp\n\
///      @1 fn pkg.B 0.40 lsp\n## edges [1]\n@0<@1 calls\n",
/// )?;
/// assert_eq!(&*p.edges[0].source, "pkg.B");
/// // The edge's endpoint is the symbol's own string, not a copy.
/// assert!(Arc::ptr_eq(&p.edges[0].source, &p.symbols[1].qualified_name));
/// assert!(Arc::ptr_eq(&p.symbols[0].kind, &p.symbols[1].kind));
/// # Ok::<(), gcf_core::Error>(())
/// ```
#[cfg(target_has_atomic = "ptr")]
pub fn decode_shared(input: &str) -> Result<Payload<Arc<str>>, Error> {
    Decoder::new().decode_shared(input)
}

/// Decodes into [`Indexed`] strings: borrowed from the input as
/// [`decode_borrowed`] does, and numbered, so that each edge endpoint is
/// its symbol's index and each kind, provenance, edge type and status a
/// label number. For bindings that build their own values: each name and
/// label becomes a host value once, and edges find theirs by index.
///
/// ```
/// use gcf_core::graph::decode_indexed;
/// let text = "GCF profile=graph\n## targets\n@0 fn a.A 0.50 lsp\n\
///             @1 type a.B 0.10 lsp\n## edges\n@1<@0 calls\n";
/// let p = decode_indexed(text)?;
/// let made: Vec<String> = p.symbols.iter().map(|s| s.qualified_name.to_uppercase()).collect();
/// let edge = &p.edges[0];
/// assert_eq!(made[edge.source.index().unwrap()], "A.A");
/// assert_eq!(made[edge.target.index().unwrap()], "A.B");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn decode_indexed(input: &str) -> Result<Payload<Indexed<'_>>, Error> {
    Decoder::new().decode_indexed(input)
}

/// A configurable graph decoder.
///
/// ```
/// use gcf_core::{graph::Decoder, ErrorKind, Limits};
/// let d = Decoder::new().limits(Limits { max_container_len: 1, ..Limits::default() });
/// let err = d.decode("GCF profile=graph\n## targets\n@0 fn a 0.50 x\n@1 fn b 0.50 x\n").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::LimitExceeded);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    limits: Limits,
    /// Refuse a bare session reference (`@7  # previously transmitted`)
    /// instead of returning it in [`Payload::references`].
    refuse_references: bool,
    /// Tests only: decode every line through the general path, to compare
    /// the fast line parsers against it on whole payloads.
    #[cfg(test)]
    general_only: bool,
}

impl Decoder {
    /// A decoder with default limits.
    pub fn new() -> Decoder {
        Decoder {
            limits: Limits::default(),
            refuse_references: false,
            #[cfg(test)]
            general_only: false,
        }
    }

    /// Replaces the limits.
    pub fn limits(mut self, limits: Limits) -> Decoder {
        self.limits = limits;
        self
    }

    /// Refuses a bare session reference (`@7  # previously transmitted`,
    /// spec §9) with [`ErrorKind::InvalidNodeLine`] at its line, instead of
    /// returning it in [`Payload::references`].
    ///
    /// For callers whose result has no place for references (the payload
    /// types of the reference SDKs, which refuse such a line): without this
    /// they would drop the line and lose the symbol silently. A session's
    /// payloads decode whole through a [`super::SessionDecoder`], which
    /// resolves each reference to the symbol an earlier payload delivered.
    ///
    /// ```
    /// use gcf_core::{graph::Decoder, ErrorKind};
    /// let text = "GCF profile=graph session=true symbols=2\n## targets\n@0  # previously transmitted\n@1 fn b 0.50 x\n";
    /// assert_eq!(Decoder::new().decode(text)?.references.len(), 1);
    /// let err = Decoder::new().refuse_references(true).decode(text).unwrap_err();
    /// assert_eq!((err.kind(), err.line(), err.column()), (ErrorKind::InvalidNodeLine, Some(3), Some(1)));
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn refuse_references(mut self, refuse: bool) -> Decoder {
        self.refuse_references = refuse;
        self
    }

    /// Decodes into owned data.
    pub fn decode(&self, input: &str) -> Result<Payload, Error> {
        // Built owned in the one pass: no borrowed payload to convert after.
        self.decode_into::<String>(input, None).map(|(p, _)| p)
    }

    /// Validates UTF-8, then decodes into owned data.
    pub fn decode_bytes(&self, input: &[u8]) -> Result<Payload, Error> {
        self.decode(validate_utf8(input)?)
    }

    /// Decodes into shared strings (see [`decode_shared`]).
    #[cfg(target_has_atomic = "ptr")]
    pub fn decode_shared(&self, input: &str) -> Result<Payload<Arc<str>>, Error> {
        self.decode_into::<Arc<str>>(input, None).map(|(p, _)| p)
    }

    /// Decodes, borrowing strings from `input`.
    pub fn decode_borrowed<'a>(&self, input: &'a str) -> Result<Payload<Cow<'a, str>>, Error> {
        self.decode_with_known(input, None).map(|(p, _)| p)
    }

    /// Decodes into numbered strings (see [`decode_indexed`]).
    pub fn decode_indexed<'a>(&self, input: &'a str) -> Result<Payload<Indexed<'a>>, Error> {
        self.decode_into(input, None).map(|(p, _)| p)
    }

    /// Decodes, resolving bare references through `known` (session ids to
    /// symbols delivered earlier) when given. Returns the id of every symbol.
    pub(crate) fn decode_with_known<'a>(
        &self,
        input: &'a str,
        known: Option<&'a HashMap<u64, Symbol>>,
    ) -> Result<(Payload<Cow<'a, str>>, Vec<u64>), Error> {
        self.decode_into(input, known)
    }

    /// [`Decoder::decode_with_known`] into numbered strings: a symbol
    /// resolved from `known` is numbered as one of the input's.
    pub(crate) fn decode_indexed_with_known<'a>(
        &self,
        input: &'a str,
        known: &'a HashMap<u64, Symbol>,
    ) -> Result<(Payload<Indexed<'a>>, Vec<u64>), Error> {
        self.decode_into(input, Some(known))
    }

    /// [`Decoder::decode_with_known`] producing strings of type `T`.
    fn decode_into<'a, T: Text<'a>>(
        &self,
        input: &'a str,
        known: Option<&'a HashMap<u64, Symbol>>,
    ) -> Result<(Payload<T>, Vec<u64>), Error> {
        let mut lines = SourceLines::new(input, &self.limits)?;
        let (header_line, header) = read_header(&mut lines)?;
        if header.profile != Profile::Graph {
            return Err(header_line.error_at(
                ErrorKind::InvalidInput,
                4,
                "this is a generic-profile payload, not a graph one",
            ));
        }
        if header.get("delta") == Some("true") {
            return Err(header_line.error_at(
                ErrorKind::InvalidInput,
                4,
                "this is a graph delta payload: apply it to the snapshot it was made from",
            ));
        }
        let mut state = State::new(&header_line, &header, &self.limits)?;
        state.known = known;
        state.refuse_references = self.refuse_references && known.is_none();
        state.presize(input.len());
        #[cfg(test)]
        let fast = !self.general_only;
        #[cfg(not(test))]
        let fast = true;
        loop {
            // Plain node and edge lines are parsed in place; the first line
            // the fast parsers decline (a section header, a comment, an
            // unusual or malformed line) goes through the general path.
            match state.section {
                Section::Group(distance) if fast => state.fast_nodes(&mut lines, distance),
                Section::Edges if fast => state.fast_edges(&mut lines),
                _ => {}
            }
            let Some(line) = lines.next() else { break };
            state.line(line?)?;
        }
        let ids = core::mem::take(&mut state.symbol_ids);
        state.finish(&header_line).map(|p| (p, ids))
    }
}
