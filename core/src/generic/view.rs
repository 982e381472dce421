//! Values the generic encoder reads in place: the [`View`] trait.
//!
//! The encoder never needs to own what it writes. It asks each value what it
//! is, walks arrays and objects in order, and compares member names; a
//! binding that holds its data in host objects (Python dicts and lists, a
//! parsed JSON document) implements [`View`] over them and is encoded without
//! first building a [`Value`] tree. `&Value` is the view the crate's own
//! entry points use.

use core::iter::FusedIterator;
use core::slice;

use super::{Cell, Key, Value};

/// What a viewed value is: a scalar (as the cell it writes), an array or an
/// object.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape<'a> {
    /// A string, number, boolean or null. A view never reports
    /// [`Cell::Missing`], which marks an absent field, not a value.
    Scalar(Cell<'a>),
    /// An array: [`View::items`] walks it.
    Array,
    /// An object: [`View::members`] walks it.
    Object,
}

/// The name of a member of a viewed object.
pub trait Name<'a>: Copy {
    /// The name's text.
    fn as_str(self) -> &'a str;

    /// Whether two names have the same text. The encoder compares each
    /// row's names with the table's columns, so a view whose names can
    /// often be told equal without reading their bytes (the same object, the
    /// same inline representation) says so here.
    #[inline]
    fn same(self, other: Self) -> bool {
        same_str(self.as_str(), other.as_str())
    }
}

impl<'a> Name<'a> for &'a str {
    #[inline]
    fn as_str(self) -> &'a str {
        self
    }

    /// Views whose objects share one slice per key (records of one shape)
    /// are told equal by address.
    #[inline]
    fn same(self, other: Self) -> bool {
        core::ptr::eq(self, other) || same_str(self, other)
    }
}

impl<'a> Name<'a> for &'a Key {
    #[inline]
    fn as_str(self) -> &'a str {
        Key::as_str(self)
    }

    #[inline]
    fn same(self, other: Self) -> bool {
        self.same_text(other)
    }
}

/// A value in the JSON data model (spec §1.2), read in place.
///
/// A view is a cheap handle (`Copy`): a reference, an index, a pointer to a
/// host object. Every answer must stay the same for the duration of one
/// encode: the encoder reads a table's rows more than once (to plan its
/// columns, then to write them) and expects the same members each time.
/// Objects must not repeat a member name; [`Value`]'s `Map` may (its
/// `push_unique` trusts the caller), and the encoder copes with that for
/// `&Value` only where the output depends on it.
///
/// ```
/// use gcf_core::generic::{Encoder, Map, Value};
///
/// let mut m = Map::new();
/// m.insert("id", Value::Int(7));
/// // `&Value` is a view; the owned entry points take it.
/// assert_eq!(Encoder::new().encode_view(&Value::Object(m))?, "GCF profile=generic\nid=7\n");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub trait View<'a>: Copy + 'a {
    /// A member name.
    type Name: Name<'a>;
    /// An array's items, in order.
    type Items: ExactSizeIterator<Item = Self> + Clone;
    /// An object's members, in order.
    type Members: ExactSizeIterator<Item = (Self::Name, Self)> + Clone;

    /// What the value is.
    fn shape(self) -> Shape<'a>;

    /// The items of an array; empty for anything else.
    fn items(self) -> Self::Items;

    /// The members of an object; empty for anything else.
    fn members(self) -> Self::Members;

    /// Whether the value is a scalar; a view may answer without reading it.
    #[inline]
    fn is_scalar(self) -> bool {
        matches!(self.shape(), Shape::Scalar(_))
    }

    /// Whether the value is an object.
    #[inline]
    fn is_object(self) -> bool {
        matches!(self.shape(), Shape::Object)
    }

    /// Whether the value is null.
    #[inline]
    fn is_null(self) -> bool {
        matches!(self.shape(), Shape::Scalar(Cell::Null))
    }

    /// The cell a scalar writes; `null` for a container (never asked).
    #[inline]
    fn cell(self) -> Cell<'a> {
        match self.shape() {
            Shape::Scalar(cell) => cell,
            Shape::Array | Shape::Object => Cell::Null,
        }
    }

    /// A record's shape, when the view knows it without reading the
    /// names: two objects whose shapes are equal (both `Some`) have the same
    /// member names in the same order, and an object whose shape is
    /// `Some((_, true))` holds only scalars. A view that shares one name
    /// list among records of one shape (the JS engine's packed values) lets
    /// the encoder check a table's rows without reading their members;
    /// `None`, the default, makes it read them.
    #[inline]
    fn record_shape(self) -> Option<(u64, bool)> {
        None
    }

    /// The `i`-th member of an object. Views with positional access
    /// (`&Value`) answer in constant time; the default walks the members.
    #[inline]
    fn member_at(self, i: usize) -> Option<(Self::Name, Self)> {
        self.members().nth(i)
    }

    /// The value of the member named `name`, if any.
    #[inline]
    fn member(self, name: &str) -> Option<Self> {
        self.members()
            .find(|(k, _)| same_str(k.as_str(), name))
            .map(|(_, v)| v)
    }
}

use crate::words::same_str;

/// The members of a `&Value` object.
#[derive(Debug, Clone)]
pub struct Members<'a>(slice::Iter<'a, (Key, Value)>);

impl<'a> Iterator for Members<'a> {
    type Item = (&'a Key, &'a Value);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }

    #[inline]
    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        self.0.nth(n).map(|(k, v)| (k, v))
    }
}

impl ExactSizeIterator for Members<'_> {}
impl FusedIterator for Members<'_> {}

impl<'a> View<'a> for &'a Value {
    type Name = &'a Key;
    type Items = slice::Iter<'a, Value>;
    type Members = Members<'a>;

    #[inline]
    fn shape(self) -> Shape<'a> {
        match self {
            Value::Null => Shape::Scalar(Cell::Null),
            Value::Bool(b) => Shape::Scalar(Cell::Bool(*b)),
            Value::Int(i) => Shape::Scalar(Cell::Int(*i)),
            Value::Float(f) => Shape::Scalar(Cell::Float(*f)),
            Value::String(s) => Shape::Scalar(Cell::Str(s.as_str())),
            Value::Array(_) => Shape::Array,
            Value::Object(_) => Shape::Object,
        }
    }

    #[inline]
    fn items(self) -> Self::Items {
        match self {
            Value::Array(items) => items.iter(),
            _ => [].iter(),
        }
    }

    #[inline]
    fn members(self) -> Self::Members {
        match self {
            Value::Object(map) => Members(map.as_slice().iter()),
            _ => Members([].iter()),
        }
    }

    #[inline]
    fn is_scalar(self) -> bool {
        Value::is_scalar(self)
    }

    #[inline]
    fn is_object(self) -> bool {
        matches!(self, Value::Object(_))
    }

    #[inline]
    fn is_null(self) -> bool {
        matches!(self, Value::Null)
    }

    #[inline]
    fn member_at(self, i: usize) -> Option<(Self::Name, Self)> {
        match self {
            Value::Object(map) => map.as_slice().get(i).map(|(k, v)| (k, v)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generic::Map;
    use alloc::string::String;
    use alloc::vec;
    use alloc::vec::Vec;

    #[test]
    fn str_names_compare_by_text_whatever_their_address() {
        let a = String::from("name");
        let b = String::from("name");
        let c = String::from("nama");
        assert!(a.as_str().same(a.as_str()));
        assert!(a.as_str().same(b.as_str()));
        assert!(!a.as_str().same(c.as_str()));
        // The same address with another length is another name.
        assert!(!a.as_str().same(&a[..3]));
    }

    #[test]
    fn value_view_reads_every_kind() {
        let mut m = Map::new();
        m.insert("a", Value::Int(1));
        m.insert("b", Value::from("x"));
        let obj = Value::Object(m);
        let arr = Value::Array(vec![Value::Null, Value::Bool(true), Value::Float(1.5)]);
        assert_eq!(obj.shape(), Shape::Object);
        assert_eq!(arr.shape(), Shape::Array);
        assert_eq!(
            (&arr).items().map(View::cell).collect::<Vec<_>>(),
            [Cell::Null, Cell::Bool(true), Cell::Float(1.5)]
        );
        let names: Vec<&str> = (&obj).members().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(
            (&obj).member_at(1).map(|(_, v)| v.cell()),
            Some(Cell::Str("x"))
        );
        assert_eq!((&obj).member("a").map(View::cell), Some(Cell::Int(1)));
        assert!((&obj).member("c").is_none());
        // Containers have no members or items of the other kind.
        assert_eq!((&obj).items().len(), 0);
        assert_eq!((&arr).members().len(), 0);
        assert!((&Value::Null).is_null() && View::is_scalar(&Value::Null));
    }
}
