//! A value held as one flat list of nodes, read by the encoder through
//! [`View`] with no tree of containers.
//!
//! Nodes are in document order: a container's node comes first and records
//! where its subtree ends, so a walk steps from member to member without
//! looking inside them. An object's member names are a run of a separate
//! key list, and objects that share a shape (the records of one struct, or
//! of one JS object literal) may share their run, which the encoder is told
//! through [`View::record_shape`] and then checks once per table, not once
//! per row.
//!
//! Two builders fill such lists: `to_string`'s serde tape (strings in one
//! text arena, struct field names as `&'static str`) and the JS engine's
//! index of a packed value (strings lent from the packed text). Each keeps
//! its scalars and keys in its own form and implements [`Flat`] to resolve
//! them; the walk and the [`View`] live here once.
//!
//! ```
//! use gcf_core::generic::flat::{Flat, Node};
//! use gcf_core::generic::{Cell, Encoder};
//!
//! /// `[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]`, the two records
//! /// sharing their run of keys.
//! struct Records {
//!     nodes: Vec<Node<Cell<'static>>>,
//!     keys: Vec<&'static str>,
//! }
//!
//! impl<'t> Flat<'t> for Records {
//!     type Scalar = Cell<'static>;
//!     type Key = &'static str;
//!     fn nodes(&self) -> &[Node<Cell<'static>>] {
//!         &self.nodes
//!     }
//!     fn keys(&self) -> &[&'static str] {
//!         &self.keys
//!     }
//!     fn cell(&'t self, scalar: Cell<'static>) -> Cell<'t> {
//!         scalar
//!     }
//!     fn key(&'t self, key: &'static str) -> &'t str {
//!         key
//!     }
//! }
//!
//! let record = |end| Node::Object { len: 2, end, keys: 0, scalars: true };
//! let records = Records {
//!     nodes: vec![
//!         Node::Array { len: 2, end: 7 },
//!         record(4),
//!         Node::Scalar(Cell::Int(1)),
//!         Node::Scalar(Cell::Str("a")),
//!         record(7),
//!         Node::Scalar(Cell::Int(2)),
//!         Node::Scalar(Cell::Str("b")),
//!     ],
//!     keys: vec!["id", "name"],
//! };
//! let text = Encoder::new().encode_view(records.root()?)?;
//! assert_eq!(text, "GCF profile=generic\n## [2]{id,name}\n1|a\n2|b\n");
//! # Ok::<(), gcf_core::Error>(())
//! ```

use core::iter::FusedIterator;

use super::{Cell, Shape, View};
use crate::error::{Error, ErrorKind};

/// One value of a flat list: a scalar as the list stores it (`S`), or a
/// container whose members follow it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Node<S> {
    /// A string, number, boolean or null.
    Scalar(S),
    /// `len` items follow; the subtree ends before node `end`.
    Array {
        /// How many items.
        len: u32,
        /// The index of the first node after the array's subtree.
        end: u32,
    },
    /// `len` members follow, named by keys `keys..keys + len` of the key
    /// list; the subtree ends before node `end`.
    Object {
        /// How many members.
        len: u32,
        /// The index of the first node after the object's subtree.
        end: u32,
        /// Where the object's run of names starts in the key list. Objects
        /// with the same run (and `len`) are reported as one shape.
        keys: u32,
        /// Whether no member is an array or an object.
        scalars: bool,
    },
}

/// A flat list of nodes and the keys they name, with the text they refer
/// to: implement it and [`root`](Flat::root) is a [`View`] the generic
/// encoder reads.
pub trait Flat<'t> {
    /// A scalar as the list stores it (a [`Cell`], or a place in a text).
    type Scalar: Copy;
    /// A member name as the list stores it.
    type Key: Copy;

    /// The nodes, in document order; the root first.
    fn nodes(&self) -> &[Node<Self::Scalar>];

    /// The key list that objects' runs index.
    fn keys(&self) -> &[Self::Key];

    /// The cell a scalar writes.
    fn cell(&'t self, scalar: Self::Scalar) -> Cell<'t>;

    /// The text of a member name.
    fn key(&'t self, key: Self::Key) -> &'t str;

    /// The root value (a null when there are no nodes), once the list's
    /// layout is checked: every container's subtree ends after its own node
    /// and within the list, and has at least `len` nodes besides its own. A
    /// list that breaks it is an `invalid_input` error, so the walk itself
    /// needs no checks: it always steps forward and a `len` never exceeds
    /// the list. A run of keys past the key list reads as empty names. (A
    /// [`NodeView`] can only be made here, so every walk starts checked.)
    fn root(&'t self) -> Result<NodeView<'t, Self>, Error>
    where
        Self: Sized,
    {
        check_layout(self.nodes())?;
        Ok(NodeView { flat: self, at: 0 })
    }
}

/// Up to this many nodes, so that a position past the list (where a walk
/// of a list whose subtrees overlap can step) still fits a `u32`.
const MAX_NODES: usize = (u32::MAX / 2) as usize;

/// See [`Flat::root`]: one pass, with no allocation.
fn check_layout<S>(nodes: &[Node<S>]) -> Result<(), Error> {
    let n = nodes.len();
    if n > MAX_NODES {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            "a flat value has more nodes than positions",
        ));
    }
    for (i, node) in nodes.iter().enumerate() {
        if let Node::Array { len, end } | Node::Object { len, end, .. } = node {
            let end = *end as usize;
            if end <= i || end > n || *len as usize > end - i - 1 {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    "a flat value's container ends before its own node, past the list, or before its members",
                ));
            }
        }
    }
    Ok(())
}

/// A node of a [`Flat`] list, as a [`View`].
pub struct NodeView<'t, F> {
    flat: &'t F,
    at: u32,
}

impl<F> Clone for NodeView<'_, F> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<F> Copy for NodeView<'_, F> {}

impl<'t, F: Flat<'t>> NodeView<'t, F> {
    #[inline(always)]
    fn node(self) -> Option<Node<F::Scalar>> {
        self.flat.nodes().get(self.at as usize).copied()
    }

    /// The children of a container, or none.
    #[inline]
    fn children(self, len: u32) -> Children<'t, F> {
        Children {
            flat: self.flat,
            next: self.at + 1,
            left: len,
        }
    }
}

/// The items of an array, or the values of an object's members, stepping
/// over their subtrees.
pub struct Children<'t, F> {
    flat: &'t F,
    next: u32,
    left: u32,
}

impl<F> Clone for Children<'_, F> {
    #[inline]
    fn clone(&self) -> Self {
        Children {
            flat: self.flat,
            next: self.next,
            left: self.left,
        }
    }
}

impl<'t, F: Flat<'t>> Iterator for Children<'t, F> {
    type Item = NodeView<'t, F>;

    // Always inlined, like the other steps of a walk: an encoder's row loop
    // maps each child to its cell, and called, the step cost 8 % more
    // instructions on a table of structs (`generic_probe to-string`).
    #[inline(always)]
    fn next(&mut self) -> Option<NodeView<'t, F>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let at = self.next;
        // Forward, by the layout `Flat::root` checked: a container's `end`
        // lies past it, and a position stays below twice the list's length
        // (at most `len` steps past a subtree that overlaps its parent's).
        self.next = match self.flat.nodes().get(at as usize) {
            Some(Node::Array { end, .. } | Node::Object { end, .. }) => *end,
            _ => at + 1,
        };
        Some(NodeView {
            flat: self.flat,
            at,
        })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl<'t, F: Flat<'t>> ExactSizeIterator for Children<'t, F> {}
impl<'t, F: Flat<'t>> FusedIterator for Children<'t, F> {}

/// An object's members: its run of keys beside its children.
pub struct Members<'t, F: Flat<'t>> {
    keys: core::slice::Iter<'t, F::Key>,
    values: Children<'t, F>,
}

impl<'t, F: Flat<'t>> Clone for Members<'t, F> {
    #[inline]
    fn clone(&self) -> Self {
        Members {
            keys: self.keys.clone(),
            values: self.values.clone(),
        }
    }
}

impl<'t, F: Flat<'t>> Iterator for Members<'t, F> {
    type Item = (&'t str, NodeView<'t, F>);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let value = self.values.next()?;
        let flat = self.values.flat;
        let key = self.keys.next().map_or("", |&k| flat.key(k));
        Some((key, value))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.values.size_hint()
    }
}

impl<'t, F: Flat<'t>> ExactSizeIterator for Members<'t, F> {}
impl<'t, F: Flat<'t>> FusedIterator for Members<'t, F> {}

impl<'t, F: Flat<'t> + 't> View<'t> for NodeView<'t, F> {
    type Name = &'t str;
    type Items = Children<'t, F>;
    type Members = Members<'t, F>;

    #[inline(always)]
    fn shape(self) -> Shape<'t> {
        match self.node() {
            Some(Node::Scalar(scalar)) => Shape::Scalar(self.flat.cell(scalar)),
            Some(Node::Array { .. }) => Shape::Array,
            Some(Node::Object { .. }) => Shape::Object,
            None => Shape::Scalar(Cell::Null),
        }
    }

    #[inline]
    fn is_scalar(self) -> bool {
        !matches!(self.node(), Some(Node::Array { .. } | Node::Object { .. }))
    }

    #[inline]
    fn is_object(self) -> bool {
        matches!(self.node(), Some(Node::Object { .. }))
    }

    /// The object's run of keys (its start and length) names its shape:
    /// objects that share a run share their names.
    #[inline]
    fn record_shape(self) -> Option<(u64, bool)> {
        match self.node() {
            Some(Node::Object {
                len, keys, scalars, ..
            }) => Some(((u64::from(keys) << 32) | u64::from(len), scalars)),
            _ => None,
        }
    }

    #[inline]
    fn items(self) -> Children<'t, F> {
        match self.node() {
            Some(Node::Array { len, .. }) => self.children(len),
            _ => self.children(0),
        }
    }

    #[inline]
    fn members(self) -> Members<'t, F> {
        let (run, len) = match self.node() {
            Some(Node::Object { len, keys, .. }) => {
                let start = keys as usize;
                let run = self
                    .flat
                    .keys()
                    .get(start..start.saturating_add(len as usize))
                    .unwrap_or_default();
                (run, len)
            }
            _ => (&[][..], 0),
        };
        Members {
            keys: run.iter(),
            values: self.children(len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generic::{Encoder, Map, Value};
    use alloc::string::String;
    use alloc::vec;
    use alloc::vec::Vec;

    /// Scalars and keys as places in one text, as the serde tape keeps them.
    struct InText {
        nodes: Vec<Node<(u32, u32)>>,
        keys: Vec<(u32, u32)>,
        text: String,
    }

    impl<'t> Flat<'t> for InText {
        type Scalar = (u32, u32);
        type Key = (u32, u32);
        fn nodes(&self) -> &[Node<(u32, u32)>] {
            &self.nodes
        }
        fn keys(&self) -> &[(u32, u32)] {
            &self.keys
        }
        fn cell(&'t self, (start, len): (u32, u32)) -> Cell<'t> {
            Cell::Str(&self.text[start as usize..(start + len) as usize])
        }
        fn key(&'t self, (start, len): (u32, u32)) -> &'t str {
            &self.text[start as usize..(start + len) as usize]
        }
    }

    fn encode<'t, F: Flat<'t> + 't>(flat: &'t F) -> String {
        Encoder::new().encode_view(flat.root().unwrap()).unwrap()
    }

    #[test]
    fn nested_values_encode_as_their_tree_does() {
        // {"a": "xy", "list": ["x", {"b": "y"}], "c": "a"}
        let flat = InText {
            nodes: vec![
                Node::Object {
                    len: 3,
                    end: 7,
                    keys: 0,
                    scalars: false,
                },
                Node::Scalar((4, 2)),
                Node::Array { len: 2, end: 6 },
                Node::Scalar((4, 1)),
                Node::Object {
                    len: 1,
                    end: 6,
                    keys: 3,
                    scalars: true,
                },
                Node::Scalar((5, 1)),
                Node::Scalar((0, 1)),
            ],
            keys: vec![(0, 1), (6, 4), (10, 1), (11, 1)],
            text: String::from("a   xylistcb"),
        };
        let text = |s: &str| Value::String(s.into());
        let mut inner = Map::new();
        inner.insert("b", text("y"));
        let mut outer = Map::new();
        outer.insert("a", text("xy"));
        outer.insert("list", Value::Array(vec![text("x"), Value::Object(inner)]));
        outer.insert("c", text("a"));
        let tree = Value::Object(outer);
        assert_eq!(encode(&flat), crate::generic::encode(&tree).unwrap());
    }

    fn in_text(nodes: Vec<Node<(u32, u32)>>) -> InText {
        InText {
            nodes,
            keys: vec![],
            text: String::new(),
        }
    }

    #[test]
    fn broken_layouts_are_refused_before_the_walk() {
        let scalar = || Node::Scalar((0, 0));
        let broken = [
            // An array whose subtree ends at its own node (a walk would
            // step back onto it).
            vec![Node::Array { len: 0, end: 0 }],
            // Ending past the list.
            vec![Node::Array { len: 1, end: 3 }, scalar()],
            // More members than its subtree holds (an encoder sizes its
            // rows by `len`).
            vec![
                Node::Object {
                    len: u32::MAX,
                    end: 2,
                    keys: 0,
                    scalars: true,
                },
                scalar(),
            ],
            // A nested container broken the same way.
            vec![
                Node::Array { len: 1, end: 3 },
                Node::Array { len: 1, end: 1 },
                scalar(),
            ],
        ];
        for nodes in broken {
            let flat = in_text(nodes);
            let e = flat.root().err().expect("refused");
            assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
        }
    }

    #[test]
    fn overlapping_subtrees_and_missing_keys_read_without_panicking() {
        // Within the checked layout, a child's subtree may reach past its
        // parent's, and a run of keys past the key list: such a list
        // reads as nulls and empty names where it does not fit.
        // The array's second item is where the object's subtree ends: past
        // the list.
        let flat = in_text(vec![
            Node::Array { len: 2, end: 3 },
            Node::Object {
                len: 1,
                end: 3,
                keys: 7,
                scalars: true,
            },
            Node::Scalar((0, 0)),
        ]);
        let root = flat.root().unwrap();
        let items: Vec<_> = root.items().collect();
        assert_eq!(items.len(), 2);
        let members: Vec<_> = items[0].members().collect();
        assert_eq!(members.len(), 1);
        assert_eq!(members[0].0, "");
        assert!(items[1].is_null());
        let _ = Encoder::new().encode_view(root);
        let empty = in_text(vec![]);
        assert!(empty.root().unwrap().is_null());
        assert_eq!(empty.root().unwrap().items().len(), 0);
    }
}
