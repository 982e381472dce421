//! The per-encoder cache of checked kinds and provenances.
use alloc::vec::Vec;

use super::*;
use crate::error::{Error, ErrorKind};
use crate::graph::line::Token;
use crate::graph::token::check_token;

/// Padded tokens for the kinds (abbreviated) or provenances of a payload's
/// symbols, found by the string's text: a payload has a handful of distinct
/// kinds and provenances, but an owned payload holds a separate copy for
/// every symbol. Texts of up to 16 bytes (every kind and provenance in
/// practice) become an exact [`ShortKey`] looked up in a small memo, so a
/// lookup reads the string once and compares three words; each distinct
/// text is checked once. Longer texts, and texts the memo has no room for,
/// go through [`TokenCache::find_slow`].
pub(super) struct TokenCache<'a> {
    pub(super) entries: Vec<TokenEntry<'a>>,
    /// Entries by their text's [`ShortKey`].
    pub(super) by_key: TextMemo,
    /// Entries by the address their text was last seen at: a borrowed
    /// payload's kinds are usually one `&'static str` each, found here
    /// without reading their text.
    pub(super) by_address: TextMemo,
    /// Lookups found by text after missing by address.
    pub(super) copies: u32,
    /// Every text, once there are more than [`LINEAR_LIMIT`]: made only
    /// then, since a map's hash keys cost more to make (per table, see
    /// [`HashState::new`](crate::hash::HashState::new)) than the rest of a
    /// one-symbol payload's cache.
    pub(super) by_text: Option<crate::hash::HashMap<&'a str, u32>>,
    /// What the field is called in an error.
    pub(super) what: &'static str,
    /// What is written for a string: the kind abbreviation, or the string.
    pub(super) written: fn(&'a str) -> &'a str,
}

/// A distinct kind or provenance: what is written, and how it is found.
#[derive(Clone, Copy)]
pub(crate) struct TokenEntry<'a> {
    pub(super) token: Token<'a>,
    /// The text the token was made from.
    pub(super) text: &'a str,
    /// `text`'s key ([`ShortKey::NONE`] past 16 bytes).
    pub(super) key: ShortKey,
    /// `(address, length)` of the string it was last seen in.
    pub(super) address: (usize, usize),
}

/// The kinds or provenances a reused [`Encoder`] saw in earlier calls, as
/// their exact keys and the tokens written for them: a later call starts
/// its [`TokenCache`] with them, so a payload of the same kinds and
/// provenances finds each in the memo at first sight instead of checking,
/// abbreviating and padding it again (nine such first sights were about a
/// twentieth of encoding a 10-symbol payload).
///
/// Only texts of up to 16 bytes (whose key is the text) are kept, up to
/// [`Seeds::LIMIT`] of them; a payload past that keeps the earlier seeds.
#[derive(Default)]
pub(crate) struct Seeds {
    entries: Vec<(ShortKey, Token<'static>)>,
    /// `entries` by key, as a fresh cache's `by_key` after inserting them.
    memo: TextMemo,
}

impl Seeds {
    /// The most texts kept (a memo of 64 slots stays sparse).
    pub(crate) const LIMIT: usize = 24;

    /// Keeps `entries` (a call's, which began with the current seeds) when
    /// they added texts and all of them can be kept.
    pub(super) fn keep(&mut self, entries: &[TokenEntry<'_>]) {
        let added = entries.len() > self.entries.len();
        let all_short = entries
            .iter()
            .all(|e| e.key != ShortKey::NONE && e.token.owned().is_some());
        if !added || entries.len() > Seeds::LIMIT || !all_short {
            return;
        }
        self.entries.clear();
        self.entries.extend(
            entries
                .iter()
                .filter_map(|e| Some((e.key, e.token.owned()?))),
        );
        self.memo = TextMemo::default();
        for (i, (key, _)) in self.entries.iter().enumerate() {
            self.memo.insert(memo_home(key.mixed()), i as u32);
        }
    }
}

impl<'a> TokenCache<'a> {
    /// A cache filling `entries` (empty; a buffer to reuse), starting with
    /// `seeds`.
    pub(super) fn new(
        what: &'static str,
        written: fn(&'a str) -> &'a str,
        mut entries: Vec<TokenEntry<'a>>,
        seeds: &Seeds,
    ) -> TokenCache<'a> {
        // A payload's kinds are rarely more, its provenances far fewer.
        entries.reserve(8.max(seeds.entries.len()));
        // A seed's text is not at hand, only its key: it is found by key
        // (see `find_slow`), and its address matches no string.
        entries.extend(seeds.entries.iter().map(|&(key, token)| TokenEntry {
            token,
            text: "",
            key,
            address: (0, 0),
        }));
        TokenCache {
            entries,
            by_key: TextMemo {
                slots: seeds.memo.slots,
            },
            by_address: TextMemo::default(),
            copies: 0,
            by_text: None,
            what,
            written,
        }
    }

    /// The index of `text`'s token, checking the text the first time it
    /// is seen ([`check_token`]).
    #[inline(always)]
    pub(super) fn index(&mut self, text: &'a str) -> Result<u32, Error> {
        let address = (text.as_ptr() as usize, text.len());
        let address_home = memo_home(address.0 ^ address.1.rotate_left(32));
        let entries = &self.entries;
        if self.copies < COPIES_LIMIT {
            if let Some(index) = self.by_address.get(address_home, |i| {
                entries.get(i).is_some_and(|e| e.address == address)
            }) {
                return Ok(index);
            }
        }
        match ShortKey::of(text) {
            Some(key) => {
                let home = memo_home(key.mixed());
                match self
                    .by_key
                    .get(home, |i| entries.get(i).is_some_and(|e| e.key == key))
                {
                    Some(index) => {
                        self.copies += 1;
                        if self.copies < COPIES_LIMIT {
                            self.entries[index as usize].address = address;
                            self.by_address.insert(address_home, index);
                        }
                        Ok(index)
                    }
                    None => self.miss(text, key, home, address, address_home),
                }
            }
            None => self.miss(text, ShortKey::NONE, 0, address, address_home),
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn miss(
        &mut self,
        text: &'a str,
        key: ShortKey,
        home: usize,
        address: (usize, usize),
        address_home: usize,
    ) -> Result<u32, Error> {
        let index = match self.find_slow(text, key) {
            Some(index) => index,
            None => {
                check_token(self.what, text)?;
                let index = u32::try_from(self.entries.len()).map_err(|_| {
                    Error::new(
                        ErrorKind::LimitExceeded,
                        alloc::format!("too many distinct {}s", self.what),
                    )
                })?;
                self.entries.push(TokenEntry {
                    token: Token::new((self.written)(text)),
                    text,
                    key,
                    address,
                });
                if self.entries.len() > LINEAR_LIMIT {
                    // A seed has no text (its placeholder is the empty
                    // string, which no checked token is): indexing it would
                    // let an empty kind or provenance find a seed's token
                    // and skip its check.
                    let all = self
                        .entries
                        .iter()
                        .map(|e| (!e.text.is_empty()).then_some(e.text));
                    index_by_text(&mut self.by_text, all, text, index);
                }
                index
            }
        };
        if key != ShortKey::NONE {
            self.by_key.insert(home, index);
        }
        if let Some(entry) = self.entries.get_mut(index as usize) {
            entry.address = address;
            self.by_address.insert(address_home, index);
        }
        Ok(index)
    }

    /// The token made from `text`, whose key is `key`, without the memo.
    /// A text of up to 16 bytes is compared by its key (seeds have no
    /// text); a longer one by its text.
    pub(super) fn find_slow(&self, text: &str, key: ShortKey) -> Option<u32> {
        if self.entries.len() > LINEAR_LIMIT {
            // Past the linear limit a seed's text may be found as a new
            // entry instead: the same token twice, which only costs a slot.
            return self.by_text.as_ref()?.get(text).copied();
        }
        self.entries
            .iter()
            .position(|e| {
                if key == ShortKey::NONE {
                    e.text == text
                } else {
                    e.key == key
                }
            })
            .map(|k| k as u32)
    }
}
