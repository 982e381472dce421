//! The indexed result form: every string borrowed from the input (as
//! [`decode_borrowed`](super::decode_borrowed) does) and numbered, so a
//! binding that builds its own values (JS objects, Python objects, a string
//! table) turns each name and label into its value once, by number, without
//! hashing or comparing any text.

use alloc::borrow::Cow;
use core::fmt;
use core::ops::Deref;

use super::forms::{Label, SharedLabels, Text};
use crate::graph::decode_fast;

/// What [`Indexed::index`] holds when a string has no number.
const NONE: u32 = u32::MAX;

/// A string of a payload decoded by [`decode_indexed`](super::decode_indexed):
/// its text (borrowed from the input wherever the input holds it) and a
/// number saying which name or label it is.
///
/// - A symbol's `qualified_name`, an edge's `source` and `target` and a
///   location's `qualified_name` have the index of the symbol they name in
///   `symbols`: an edge's endpoints are found without reading a name.
/// - A symbol's `kind` and `provenance` and an edge's `edge_type` and
///   `status` are numbered labels: within one payload, two labels have the
///   same number exactly when they have the same field and the same text.
///   Numbers count from 0 over all four fields in order of first
///   appearance, so a consumer keeps what it made for each in a `Vec`.
/// - `tool`, `pack_root` and a location's `file` have none (as would a
///   label past the first 2^32 - 1 distinct ones).
///
/// ```
/// use gcf_core::graph::decode_indexed;
/// let p = decode_indexed(
///     "GCF profile=graph symbols=2 edges=1\n## targets\n@0 fn pkg.A 0.50 lsp\n\
///      @1 fn pkg.B 0.40 lsp\n## edges [1]\n@0<@1 calls\n",
/// )?;
/// assert_eq!(p.edges[0].source.as_str(), "pkg.B");
/// assert_eq!(p.edges[0].source.index(), Some(1));
/// assert_eq!(p.symbols[0].kind.as_str(), "function");
/// assert_eq!(p.symbols[0].kind.index(), p.symbols[1].kind.index());
/// assert_eq!(p.tool.index(), None);
/// # Ok::<(), gcf_core::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Indexed<'a> {
    text: Cow<'a, str>,
    index: u32,
}

impl<'a> Indexed<'a> {
    fn new(text: Cow<'a, str>, index: u32) -> Indexed<'a> {
        Indexed { text, index }
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The symbol's index or the label's number (see [`Indexed`]); `None`
    /// for a string that has neither.
    #[inline]
    pub fn index(&self) -> Option<usize> {
        (self.index != NONE).then_some(self.index as usize)
    }

    /// The text, borrowed from the input where it can be.
    pub fn into_cow(self) -> Cow<'a, str> {
        self.text
    }
}

impl Default for Indexed<'_> {
    fn default() -> Self {
        Indexed::new(Cow::Borrowed(""), NONE)
    }
}

/// A string with no number.
impl<'a> From<Cow<'a, str>> for Indexed<'a> {
    fn from(text: Cow<'a, str>) -> Self {
        Indexed::new(text, NONE)
    }
}

impl AsRef<str> for Indexed<'_> {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl Deref for Indexed<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl fmt::Debug for Indexed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index() {
            Some(i) => write!(f, "{:?}#{i}", self.text),
            None => fmt::Debug::fmt(&self.text, f),
        }
    }
}

/// The numbered labels of one decode.
#[derive(Default)]
pub(crate) struct IndexedPool<'a> {
    /// The next label number.
    next: u32,
    lists: [SharedLabels<'a, Indexed<'a>>; 4],
}

impl IndexedPool<'_> {
    /// The next label number, or none once all `u32` numbers are given
    /// out (2^32 - 1 distinct labels, past the default limits): such a
    /// label is a string of its own, which consumers handle, rather than a
    /// number shared with another text.
    fn number(next: &mut u32) -> u32 {
        let n = *next;
        if n != NONE {
            *next += 1;
        }
        n
    }
}

impl<'a> Text<'a> for Indexed<'a> {
    type Pool = IndexedPool<'a>;
    const READS_TEXT: bool = false;

    #[inline]
    fn borrowed(text: &'a str) -> Self {
        Indexed::new(Cow::Borrowed(text), NONE)
    }

    #[inline]
    fn name(text: &'a str, index: u32) -> Self {
        Indexed::new(Cow::Borrowed(text), index)
    }

    #[inline]
    fn label(pool: &mut IndexedPool<'a>, field: Label, text: &'a str) -> Self {
        let IndexedPool { next, lists } = pool;
        lists[field as usize].get(text, |text| {
            Indexed::new(Cow::Borrowed(text), IndexedPool::number(next))
        })
    }

    /// Through the kinds' list, not an array by index as shared strings
    /// do: a kind written in full (`function`) must get the number of the
    /// same kind abbreviated (`fn`).
    #[inline]
    fn known_kind(pool: &mut IndexedPool<'a>, index: usize) -> Self {
        Self::label(pool, Label::Kind, decode_fast::KNOWN_KINDS[index])
    }

    #[inline]
    fn from_cow(text: Cow<'a, str>) -> Self {
        Indexed::new(text, NONE)
    }

    #[inline]
    fn copy(&self) -> Self {
        self.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_numbers_run_out_into_none_never_into_a_shared_number() {
        let mut next = NONE - 2;
        assert_eq!(IndexedPool::number(&mut next), NONE - 2);
        assert_eq!(IndexedPool::number(&mut next), NONE - 1);
        assert_eq!(IndexedPool::number(&mut next), NONE);
        assert_eq!(IndexedPool::number(&mut next), NONE);
        let past = Indexed::new(Cow::Borrowed("x"), IndexedPool::number(&mut next));
        assert_eq!(past.index(), None);
    }
}
