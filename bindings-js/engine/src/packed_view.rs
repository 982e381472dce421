//! A packed generic value (see [`crate::packed_value`]) indexed in place
//! for the encoder: one flat list of nodes whose strings borrow the packed
//! text, walked through gcf-core's [`View`], instead of a `Value` tree with
//! a `Map` or `Vec` per container. Building and dropping that tree was about
//! two fifths of a WebAssembly generic encode (`bindings-wasm/BENCH.md`).
//!
//! The layout and its [`View`](gcf_core::generic::View) are gcf-core's
//! [`flat`] list (nodes in document order, each container recording where
//! its subtree ends, an object's keys a run of the key list); objects
//! sharing a shape ([`SAME_KEYS`]) share the run.

use gcf_core::generic::flat::{self, Flat};
use gcf_core::generic::{Cell, Value};
use gcf_core::Limits;

use gcf_bind::value::NUMBER_TOKEN;

use crate::packed_value::{
    number_cell, Streams, ARRAY, END, FALSE, NULL, NUMBER, OBJECT, SAME_KEYS, STRING, TRUE,
};

/// One value of the index: containers as gcf-core's flat nodes, whose
/// objects' runs of keys are shared by objects of one shape
/// ([`SAME_KEYS`]), which the encoder is told without reading them.
type Node<'a> = flat::Node<Cell<'a>>;

/// What reading the streams found.
pub(crate) enum Read<'a> {
    /// The value, indexed.
    Indexed(Index<'a>),
    /// A packed value with an object whose keys repeat (a JS `Map` can
    /// give `1` and `"1"`): the tree reader merges them as the JSON route
    /// does.
    RepeatedKeys,
    /// Not exactly a packed value: the JSON route decides.
    NotPacked,
}

/// A packed value's nodes and keys.
pub(crate) struct Index<'a> {
    nodes: Vec<Node<'a>>,
    keys: Vec<&'a str>,
}

impl<'a> Index<'a> {
    /// The index of a value tree (the JSON route's, and packed values with
    /// repeated keys once merged): every encode then goes through this one
    /// view, and the module carries one instance of the encoder, not two.
    pub(crate) fn of_value(value: &'a Value) -> Index<'a> {
        let mut index = Index {
            nodes: Vec::new(),
            keys: Vec::new(),
        };
        index.push(value);
        index
    }

    fn push(&mut self, value: &'a Value) {
        if let Some(cell) = Cell::from_value(value) {
            self.nodes.push(Node::Scalar(cell));
            return;
        }
        match value {
            Value::Array(items) => {
                let at = self.open();
                for item in items {
                    self.push(item);
                }
                let len = u32::try_from(items.len()).unwrap_or(u32::MAX);
                let end = self.len();
                self.close(at, Node::Array { len, end });
            }
            Value::Object(map) => {
                let at = self.open();
                let keys = u32::try_from(self.keys.len()).unwrap_or(u32::MAX);
                // The object's keys as one run, before nested objects add theirs.
                self.keys.extend(map.keys());
                for v in map.values() {
                    self.push(v);
                }
                let len = u32::try_from(map.len()).unwrap_or(u32::MAX);
                let end = self.len();
                let scalars = map
                    .values()
                    .all(|v| !matches!(v, Value::Array(_) | Value::Object(_)));
                self.close(
                    at,
                    Node::Object {
                        len,
                        end,
                        keys,
                        scalars,
                    },
                );
            }
            // Scalars were pushed above.
            _ => {}
        }
    }

    fn open(&mut self) -> usize {
        self.nodes.push(Node::Scalar(Cell::Null));
        self.nodes.len() - 1
    }

    fn len(&self) -> u32 {
        u32::try_from(self.nodes.len()).unwrap_or(u32::MAX)
    }

    fn close(&mut self, at: usize, node: Node<'a>) {
        if let Some(slot) = self.nodes.get_mut(at) {
            *slot = node;
        }
    }
}

impl<'t, 'a: 't> Flat<'t> for Index<'a> {
    type Scalar = Cell<'a>;
    type Key = &'a str;

    #[inline]
    fn nodes(&self) -> &[Node<'a>] {
        &self.nodes
    }

    #[inline]
    fn keys(&self) -> &[&'a str] {
        &self.keys
    }

    #[inline(always)]
    fn cell(&'t self, scalar: Cell<'a>) -> Cell<'t> {
        scalar
    }

    #[inline(always)]
    fn key(&'t self, key: &'a str) -> &'t str {
        key
    }
}

/// Indexes the streams (already checked to be UTF-8 without U+FFFD).
pub(crate) fn read<'a>(ops: &'a [u8], text: &'a str, nums: &'a [f64]) -> Read<'a> {
    let mut reader = Reader {
        streams: Streams::new(ops, text, nums),
        index: Index {
            nodes: Vec::with_capacity(ops.len()),
            keys: Vec::new(),
        },
        shapes: Vec::new(),
        repeated: false,
    };
    let max_depth = Limits::default().max_depth;
    let whole = reader.value(max_depth, 0).is_some()
        && reader.streams.is_done()
        && u32::try_from(reader.index.nodes.len()).is_ok()
        && u32::try_from(reader.index.keys.len()).is_ok();
    match (whole, reader.repeated) {
        (true, false) => Read::Indexed(reader.index),
        (true, true) => Read::RepeatedKeys,
        (false, _) => Read::NotPacked,
    }
}

/// The streams still to read and the index so far.
struct Reader<'a> {
    streams: Streams<'a>,
    index: Index<'a>,
    /// Per depth (the root at 0), the keys of the last object closed there
    /// (their first index and count), which [`SAME_KEYS`] refers to.
    shapes: Vec<Option<(u32, u32)>>,
    /// Whether an object repeated a key.
    repeated: bool,
}

impl<'a> Reader<'a> {
    fn op(&mut self) -> Option<u8> {
        self.streams.op()
    }

    fn field(&mut self) -> Option<&'a str> {
        self.streams.field()
    }

    /// A value whose op is next, at `depth`; `depth_left` containers may
    /// still open, so the recursion is bounded by the depth limit.
    fn value(&mut self, depth_left: usize, depth: usize) -> Option<()> {
        let op = self.op()?;
        self.value_of(op, depth_left, depth)
    }

    fn value_of(&mut self, op: u8, depth_left: usize, depth: usize) -> Option<()> {
        let cell = match op {
            NULL => Cell::Null,
            TRUE => Cell::Bool(true),
            FALSE => Cell::Bool(false),
            STRING => Cell::Str(self.field()?),
            NUMBER => number_cell(self.streams.number()?)?,
            ARRAY | OBJECT | SAME_KEYS => return self.container(op, depth_left, depth),
            _ => return None,
        };
        self.index.nodes.push(Node::Scalar(cell));
        Some(())
    }

    fn container(&mut self, op: u8, depth_left: usize, depth: usize) -> Option<()> {
        let depth_left = crate::packed_value::enter(depth_left)?;
        let at = self.index.nodes.len();
        self.index.nodes.push(Node::Scalar(Cell::Null));
        let mut len = 0u32;
        let mut scalars = true;
        loop {
            let op = self.op()?;
            // Scalars here, without a call: most members are.
            let cell = match op {
                END => break,
                STRING => Cell::Str(self.field()?),
                NUMBER => number_cell(self.streams.number()?)?,
                NULL => Cell::Null,
                TRUE => Cell::Bool(true),
                FALSE => Cell::Bool(false),
                _ => {
                    self.value_of(op, depth_left, depth + 1)?;
                    scalars = false;
                    len = len.checked_add(1)?;
                    continue;
                }
            };
            self.index.nodes.push(Node::Scalar(cell));
            len = len.checked_add(1)?;
        }
        let end = u32::try_from(self.index.nodes.len()).ok()?;
        let node = match op {
            ARRAY => Node::Array { len, end },
            OBJECT => {
                let keys = u32::try_from(self.index.keys.len()).ok()?;
                for _ in 0..len {
                    let key = self.field()?;
                    self.index.keys.push(key);
                }
                let own = self.index.keys.get(keys as usize..)?;
                if own.first() == Some(&NUMBER_TOKEN) {
                    return None;
                }
                self.repeated |= repeats(own);
                *self.shape(depth) = Some((keys, len));
                Node::Object {
                    len,
                    end,
                    keys,
                    scalars,
                }
            }
            _ => {
                // The shape at `depth` is as it was: nested values close deeper.
                let (keys, count) = (*self.shapes.get(depth)?)?;
                if count != len {
                    return None;
                }
                Node::Object {
                    len,
                    end,
                    keys,
                    scalars,
                }
            }
        };
        *self.index.nodes.get_mut(at)? = node;
        Some(())
    }

    /// The shape at `depth`, growing the table to hold it.
    fn shape(&mut self, depth: usize) -> &mut Option<(u32, u32)> {
        if self.shapes.len() <= depth {
            self.shapes.resize(depth + 1, None);
        }
        &mut self.shapes[depth]
    }
}

/// Whether a key repeats: pairwise for the small objects of real data (and
/// only for objects with keys of their own: records share a shape), hashed
/// past a few dozen.
///
/// Pairs are told apart by a [`fingerprint`] first, so the text of two keys
/// is compared only when their lengths and sampled bytes agree: an object's
/// keys often share a length (`key1`, `key2`), and a `memcmp` call per such
/// pair was about a tenth of a 16-member object's engine call.
fn repeats(keys: &[&str]) -> bool {
    const PAIRWISE: usize = 32;
    if keys.len() <= PAIRWISE {
        let mut prints = [0u64; PAIRWISE];
        for (i, k) in keys.iter().enumerate() {
            let print = fingerprint(k);
            if prints[..i].contains(&print) && keys[..i].contains(k) {
                return true;
            }
            prints[i] = print;
        }
        return false;
    }
    let mut seen = std::collections::HashSet::with_capacity_and_hasher(
        keys.len(),
        gcf_core::hash::HashState::new(),
    );
    !keys.iter().all(|k| seen.insert(*k))
}

/// A key's length and its first, middle and last bytes in one word: equal
/// keys have equal fingerprints, and most different keys of one object do
/// not.
fn fingerprint(key: &str) -> u64 {
    let b = key.as_bytes();
    match (b.first(), b.get(b.len() / 2), b.last()) {
        (Some(&first), Some(&middle), Some(&last)) => {
            b.len() as u64
                | u64::from(first) << 40
                | u64::from(middle) << 48
                | u64::from(last) << 56
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::{fingerprint, repeats};
    use crate::packed_value::tests::Rng;

    /// The plain pairwise test `repeats` must agree with.
    fn repeats_plainly(keys: &[&str]) -> bool {
        keys.iter().enumerate().any(|(i, k)| keys[..i].contains(k))
    }

    #[test]
    fn repeats_agrees_with_comparing_every_pair() {
        // Keys that share lengths, first, middle and last bytes (so their
        // fingerprints collide) and keys that are equal, at every position.
        let pool = [
            "", "a", "b", "ab", "ba", "aa", "key1", "key2", "kex1", "k1y1", "key10", "key11", "é",
            "e\u{301}", "x y", "aXb", "aYb", "1", "01",
        ];
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for len in [0, 1, 2, 3, 5, 8, 16, 32, 33, 40] {
            for _ in 0..2_000 {
                let keys: Vec<&str> = (0..len).map(|_| pool[rng.below(pool.len())]).collect();
                assert_eq!(repeats(&keys), repeats_plainly(&keys), "{keys:?}");
            }
        }
        // Distinct keys with one fingerprint: their text decides.
        assert_eq!(fingerprint("aXXb"), fingerprint("aYXb"));
        assert!(!repeats(&["aXXb", "aYXb", "aZXb"]));
        assert!(repeats(&["aXXb", "aYXb", "aXXb"]));
    }

    #[test]
    fn equal_keys_have_equal_fingerprints() {
        for k in ["", "a", "key10", "é", "a\u{0}b"] {
            assert_eq!(fingerprint(k), fingerprint(&String::from(k)));
        }
        assert_ne!(fingerprint("key1"), fingerprint("key2"));
        assert_ne!(fingerprint("ab"), fingerprint("abc"));
    }
}
