//! The names of the symbols a graph stream has written, by id, for
//! `writeEdge` by name.
//!
//! They are kept as text until the first edge needs them and hashed then: a
//! stream without edges never hashes a name (a million symbols spent about
//! 0.45 s on the core's index, two thirds of the stream's engine time), and
//! one with edges hashes each name once.
//!
//! The text is held in blocks that are never reallocated, each name as its
//! length (LEB128) and its bytes. One growing `String` (and a `Vec` of end
//! offsets beside it) copied everything written so far at each doubling, and
//! each copy landed on freshly mapped pages the kernel had to zero first:
//! at a million symbols that was 30-140 ns a symbol, against 47 ns for the
//! rest of a streamed symbol's engine work (`bench/NOTES.md` in
//! bindings-node). A block is touched once, and a name costs one byte more
//! than its text rather than eight.

use hashbrown::HashMap;

use gcf_core::ErrorKind;

/// The size of a block of names; a longer name gets a block of its own.
const BLOCK: usize = 256 * 1024;

/// See the module docs.
#[derive(Default)]
pub(crate) struct Names {
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

impl Names {
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
            let mut index = HashMap::with_capacity(count);
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
    pub(crate) fn id(&mut self, name: &str) -> Result<u64, gcf_core::Error> {
        self.index().get(name).copied().ok_or_else(|| {
            gcf_core::Error::new(
                ErrorKind::UnknownEdgeReference,
                format!("edge names `{name}`, which was not written"),
            )
        })
    }
}

/// The first name of `block` (as [`Names::push`] wrote it) and the rest.
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

    #[test]
    fn names_across_blocks_resolve_to_their_ids() {
        let mut names = Names::default();
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
            assert_eq!(names.id(name).ok(), Some(1_000 + i as u64), "{i}");
        }
        assert!(names.id("pkg/mod0.Symbol100000").is_err());
    }

    #[test]
    fn the_last_symbol_of_a_name_wins_before_and_after_indexing() {
        let mut names = Names::default();
        names.push(0, "a");
        names.push(1, "b");
        names.push(2, "a");
        assert_eq!(names.id("a").ok(), Some(2));
        names.push(3, "b");
        assert_eq!(names.id("b").ok(), Some(3));
        let e = names.id("c").err().map(|e| e.kind());
        assert_eq!(e, Some(ErrorKind::UnknownEdgeReference));
    }

    #[test]
    fn a_truncated_length_is_no_name() {
        assert_eq!(next_name(&[0x80]), None);
        assert_eq!(next_name(&[3, b'a']), None);
        assert_eq!(next_name(&[0xff; 11]), None);
        assert_eq!(next_name(&[1, b'a', 0]), Some(("a", &[0u8][..])));
    }
}
