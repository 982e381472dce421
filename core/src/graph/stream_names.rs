//! The names of the symbols a [`StreamWriter`](super::StreamWriter) has
//! written, by id, for `write_edge_by_name` and `write_location_by_name`
//! ([`StreamOptions::index_names`](super::StreamOptions::index_names)).
//!
//! They are kept as text until the first lookup needs them and hashed then:
//! a stream that never looks a name up never hashes one (a map from an owned
//! copy of each name, built as the symbols came, was two thirds of the
//! JavaScript engine's time a streamed symbol: about 0.45 s a million), and
//! one that does hashes each name once.
//!
//! The text is held in blocks that are never reallocated, each name as its
//! length (LEB128) and its bytes. One growing buffer copies everything
//! written so far at each doubling, and each copy lands on freshly mapped
//! pages the kernel has to zero first: at a million symbols that was 30-140
//! ns a symbol, against 47 ns for the rest of a streamed symbol's work in
//! the JavaScript engine (`bindings-node/bench/NOTES.md`). A block is
//! touched once, and a name costs one byte more than its text.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::hash::HashMap;

/// The size of a block of names; a longer name gets a block of its own.
const BLOCK: usize = 256 * 1024;

/// See the module docs.
#[derive(Default)]
pub(crate) struct StreamNames {
    /// Names not yet in `index`, in the order of their ids.
    blocks: Vec<Vec<u8>>,
    /// How many names `blocks` holds.
    count: usize,
    /// The id of the first name in `blocks`.
    first: u64,
    /// Built on the first edge; a later name goes straight in (the last
    /// symbol of a name wins, as in the core's index).
    index: Option<HashMap<Box<str>, u64>>,
}

impl StreamNames {
    /// Records that symbol `id` is named `name`. Ids come in order, one
    /// after another.
    pub(crate) fn push(&mut self, id: u64, name: &str) {
        if let Some(index) = &mut self.index {
            index.insert(Box::from(name), id);
            return;
        }
        if self.count == 0 {
            self.first = id;
        }
        self.count += 1;
        // A length takes at most ten bytes as LEB128.
        let need = name.len() + 10;
        let block = match self.blocks.last_mut() {
            Some(block) if block.capacity() - block.len() >= need => block,
            _ => {
                self.blocks.push(Vec::with_capacity(need.max(BLOCK)));
                let last = self.blocks.len() - 1;
                &mut self.blocks[last]
            }
        };
        let mut len = name.len() as u64;
        while len >= 0x80 {
            block.push((len as u8) | 0x80);
            len >>= 7;
        }
        block.push(len as u8);
        block.extend_from_slice(name.as_bytes());
    }

    fn index(&mut self) -> &HashMap<Box<str>, u64> {
        let blocks = core::mem::take(&mut self.blocks);
        let (count, first) = (core::mem::take(&mut self.count), self.first);
        self.index.get_or_insert_with(|| {
            let mut index = crate::hash::map_with_capacity(count);
            let mut ids = first..;
            for block in &blocks {
                let mut rest = block.as_slice();
                while let Some((name, after)) = next_name(rest) {
                    index.insert(Box::from(name), ids.next().unwrap_or_default());
                    rest = after;
                }
            }
            index
        })
    }

    /// The id of the last symbol named `name`.
    pub(crate) fn get(&mut self, name: &str) -> Option<u64> {
        self.index().get(name).copied()
    }
}

/// The first name of `block` (as [`StreamNames::push`] wrote it) and the rest.
fn next_name(block: &[u8]) -> Option<(&str, &[u8])> {
    let mut len = 0u64;
    let mut shift = 0;
    let mut at = 0;
    loop {
        let byte = *block.get(at)?;
        at += 1;
        len |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            break;
        }
        shift += 7;
        if shift >= 64 {
            return None;
        }
    }
    let end = at.checked_add(usize::try_from(len).ok()?)?;
    // Every name was a `&str`, so this never fails.
    let name = core::str::from_utf8(block.get(at..end)?).ok()?;
    Some((name, block.get(end..)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;

    #[test]
    fn names_across_blocks_resolve_to_their_ids() {
        let mut names = StreamNames::default();
        // About 2.3 MB of names: nine blocks, and one name longer than a
        // block (a block of its own) in the middle, one of 200 bytes (a
        // two-byte length) and an empty one.
        let long = "x".repeat(BLOCK + 5);
        let mut all = Vec::new();
        for i in 0..100_000u64 {
            let name = match i {
                50_000 => long.clone(),
                50_001 => "é".repeat(100),
                50_002 => String::new(),
                _ => format!("pkg/mod{}.Symbol{i}", i % 97),
            };
            names.push(1_000 + i, &name);
            all.push(name);
        }
        assert!(names.blocks.len() >= 9, "{} blocks", names.blocks.len());
        for (i, name) in all.iter().enumerate() {
            assert_eq!(names.get(name), Some(1_000 + i as u64), "{i}");
        }
        assert!(names.get("pkg/mod0.Symbol100000").is_none());
    }

    #[test]
    fn the_last_symbol_of_a_name_wins_before_and_after_indexing() {
        let mut names = StreamNames::default();
        names.push(0, "a");
        names.push(1, "b");
        names.push(2, "a");
        assert_eq!(names.get("a"), Some(2));
        names.push(3, "b");
        assert_eq!(names.get("b"), Some(3));
        assert_eq!(names.get("c"), None);
    }

    #[test]
    fn a_truncated_length_is_no_name() {
        assert_eq!(next_name(&[0x80]), None);
        assert_eq!(next_name(&[3, b'a']), None);
        assert_eq!(next_name(&[0xff; 11]), None);
        assert_eq!(next_name(&[1, b'a', 0]), Some(("a", &[0u8][..])));
    }
}
