//! The three result forms (owned, borrowed, shared) behind one trait, and
//! the label pools that intern kinds, provenances and edge types.
use alloc::borrow::Cow;
use alloc::string::String;
#[cfg(target_has_atomic = "ptr")]
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::hash::HashMap;

use crate::graph::decode_fast;

/// The string type a decode produces: borrowed from the input (`Cow`) or
/// owned (`String`). Owned decoding builds its strings while it parses
/// instead of building a borrowed payload and converting it afterwards
/// (which wrote, then read back, a second copy of every edge).
pub(crate) trait Text<'a>: AsRef<str> + Default {
    /// What [`Text::label`] keeps between calls (interned labels).
    type Pool: Default;
    /// Edges take their endpoints as [`Text::copy`] of the symbol's own
    /// string (a reference count for shared strings) rather than making a
    /// new string from the input.
    const SHARES: bool = false;
    /// Making an endpoint reads the name's text (copies it, or counts a
    /// reference next to it), so the decoder prefetches it.
    const READS_TEXT: bool = true;
    /// Text of the input.
    fn borrowed(text: &'a str) -> Self;
    /// The name of symbol `index` (its position in `symbols`) as the
    /// input declares it: a symbol's own name, or an edge's or location's
    /// endpoint naming it.
    #[inline]
    fn name(text: &'a str, _index: u32) -> Self {
        Self::borrowed(text)
    }
    /// A kind, provenance, edge type or status (`field`): few distinct
    /// values repeated over the whole payload, which shared strings intern.
    #[inline]
    fn label(_pool: &mut Self::Pool, _field: Label, text: &'a str) -> Self {
        Self::borrowed(text)
    }
    /// The known kind `decode_fast::KNOWN_KINDS[index]`.
    #[inline]
    fn known_kind(_pool: &mut Self::Pool, index: usize) -> Self {
        Self::borrowed(decode_fast::KNOWN_KINDS[index])
    }
    /// A possibly unescaped string.
    fn from_cow(text: Cow<'a, str>) -> Self;
    /// Another string of the payload being built (an edge's endpoint).
    fn copy(&self) -> Self;
}

impl<'a> Text<'a> for Cow<'a, str> {
    type Pool = ();
    const READS_TEXT: bool = false;
    #[inline]
    fn borrowed(text: &'a str) -> Self {
        Cow::Borrowed(text)
    }
    #[inline]
    fn from_cow(text: Cow<'a, str>) -> Self {
        text
    }
    #[inline]
    fn copy(&self) -> Self {
        self.clone()
    }
}

impl<'a> Text<'a> for String {
    type Pool = ();
    #[inline]
    fn borrowed(text: &'a str) -> Self {
        String::from(text)
    }
    #[inline]
    fn from_cow(text: Cow<'a, str>) -> Self {
        text.into_owned()
    }
    #[inline]
    fn copy(&self) -> Self {
        self.clone()
    }
}

/// Shared strings: each name is allocated once and shared by the edges that
/// name it; labels are interned.
#[cfg(target_has_atomic = "ptr")]
impl<'a> Text<'a> for Arc<str> {
    type Pool = LabelPool<'a>;
    const SHARES: bool = true;
    #[inline]
    fn borrowed(text: &'a str) -> Self {
        shared(text)
    }
    #[inline]
    fn label(pool: &mut LabelPool<'a>, field: Label, text: &'a str) -> Self {
        pool.lists[field as usize].get(text, shared)
    }
    #[inline]
    fn known_kind(pool: &mut LabelPool<'a>, index: usize) -> Self {
        Arc::clone(
            pool.kinds[index].get_or_insert_with(|| Arc::from(decode_fast::KNOWN_KINDS[index])),
        )
    }
    #[inline]
    fn from_cow(text: Cow<'a, str>) -> Self {
        shared(text.as_ref())
    }
    #[inline]
    fn copy(&self) -> Self {
        Arc::clone(self)
    }
}

/// `text` as a shared string. The empty string (a payload without a tool or
/// pack root, an edge without a status) is the standard library's one
/// static empty `Arc<str>`, not an allocation of its own.
#[cfg(target_has_atomic = "ptr")]
#[inline]
fn shared(text: &str) -> Arc<str> {
    if text.is_empty() {
        Arc::default()
    } else {
        Arc::from(text)
    }
}

/// Which field of a symbol or edge a label is: each has its own list.
#[derive(Clone, Copy)]
pub(crate) enum Label {
    Kind,
    Provenance,
    EdgeType,
    Status,
}

/// Interned labels for shared decoding: one string per known kind, and a
/// list per field for the rest.
#[cfg(target_has_atomic = "ptr")]
#[derive(Default)]
pub(crate) struct LabelPool<'a> {
    pub(super) kinds: [Option<Arc<str>>; 16],
    pub(super) lists: [SharedLabels<'a, Arc<str>>; 4],
}

/// One field's interned labels, each made once by the caller's `make` (an
/// `Arc<str>` for shared strings, a numbered string for indexed ones). A
/// payload has a handful of distinct provenances, edge types and statuses
/// (and unknown kinds), so the first few are found by a scan of a short
/// list (cheaper than hashing, and most have different lengths, which `==`
/// compares first); any further ones (only a payload with many distinct
/// labels has them) go to a map. Before the scan, a slot chosen by the
/// label's length and first byte remembers which list entry was last found
/// there: usually one compare per lookup.
pub(crate) struct SharedLabels<'a, V> {
    pub(super) recent: Vec<(&'a str, V)>,
    /// 1 + the index in `recent` last found for labels of this hash (0: none).
    pub(super) slots: [u8; 16],
    /// Made on the first label past [`RECENT`](Self::RECENT): most
    /// payloads never need it, and making one costs a hasher's seeding.
    pub(super) more: Option<HashMap<&'a str, V>>,
}

impl<V> Default for SharedLabels<'_, V> {
    fn default() -> Self {
        SharedLabels {
            recent: Vec::new(),
            slots: [0; 16],
            more: None,
        }
    }
}

impl<'a, V: Clone> SharedLabels<'a, V> {
    /// Labels kept in the scanned list.
    pub(super) const RECENT: usize = 16;

    /// The label `text`, made by `make` the first time it is seen.
    #[inline]
    pub(super) fn get(&mut self, text: &'a str, make: impl FnOnce(&'a str) -> V) -> V {
        let first = text.as_bytes().first().copied().unwrap_or(0);
        let slot = (text.len().wrapping_add(usize::from(first))) & 15;
        if let Some((known, value)) = (self.slots[slot] as usize)
            .checked_sub(1)
            .and_then(|i| self.recent.get(i))
        {
            if crate::words::same_str(known, text) {
                return value.clone();
            }
        }
        self.get_slow(text, slot, make)
    }

    #[inline(never)]
    pub(super) fn get_slow(
        &mut self,
        text: &'a str,
        slot: usize,
        make: impl FnOnce(&'a str) -> V,
    ) -> V {
        if let Some(i) = self
            .recent
            .iter()
            .position(|(k, _)| crate::words::same_str(k, text))
        {
            self.slots[slot] = i as u8 + 1;
            return self.recent[i].1.clone();
        }
        if self.recent.len() < Self::RECENT {
            // Room for the whole list at once: growing it 4, 8, 16 cost
            // two reallocations per field on a typical payload.
            if self.recent.capacity() == 0 {
                self.recent.reserve_exact(Self::RECENT);
            }
            let value = make(text);
            self.recent.push((text, value.clone()));
            self.slots[slot] = self.recent.len() as u8;
            return value;
        }
        let more = self.more.get_or_insert_with(HashMap::default);
        more.entry(text).or_insert_with(|| make(text)).clone()
    }
}
