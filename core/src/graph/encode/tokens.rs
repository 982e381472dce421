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
    /// Every text, once there are more than [`LINEAR_LIMIT`].
    pub(super) by_text: hashbrown::HashMap<&'a str, u32>,
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

impl<'a> TokenCache<'a> {
    /// A cache filling `entries` (empty; a buffer to reuse).
    pub(super) fn new(
        what: &'static str,
        written: fn(&'a str) -> &'a str,
        mut entries: Vec<TokenEntry<'a>>,
    ) -> TokenCache<'a> {
        // A payload's kinds are rarely more, its provenances far fewer.
        entries.reserve(8);
        TokenCache {
            entries,
            by_key: TextMemo::default(),
            by_address: TextMemo::default(),
            copies: 0,
            by_text: hashbrown::HashMap::new(),
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
        let index = match self.find_slow(text) {
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
                    if self.by_text.is_empty() {
                        for (k, e) in self.entries.iter().enumerate() {
                            self.by_text.insert(e.text, k as u32);
                        }
                    } else {
                        self.by_text.insert(text, index);
                    }
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

    /// The token made from `text`, without the memo.
    pub(super) fn find_slow(&self, text: &str) -> Option<u32> {
        if self.entries.len() > LINEAR_LIMIT {
            return self.by_text.get(text).copied();
        }
        self.entries
            .iter()
            .position(|e| e.text == text)
            .map(|k| k as u32)
    }
}
