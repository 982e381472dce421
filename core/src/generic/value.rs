//! The JSON data model (spec §1.2) as the generic profile sees it.

use alloc::string::String;
use alloc::vec::Vec;

use super::Key;

/// A JSON value with integers and doubles kept apart (spec §2.3.2).
///
/// Numbers compare by numeric value, so `Int(1) == Float(1.0)`: the canonical
/// encoder writes an integer-valued double below 2^53 as plain digits, which
/// decode as an integer of the same value (spec §2.3.1).
#[derive(Debug, Clone, Default)]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer in the `int64` domain.
    Int(i64),
    /// A finite IEEE-754 double.
    Float(f64),
    /// A string of Unicode scalar values, held as a [`Key`] is: up to
    /// [`Key::INLINE_CAPACITY`] bytes inside the value, longer text on the
    /// heap. Most strings in real data (names, statuses, ids, emails) are
    /// that short, so building, cloning and dropping a value tree costs no
    /// allocation per string; a `String` per string field was most of the
    /// allocator's work when a binding read JSON into a tree.
    String(Key),
    /// An ordered sequence.
    Array(Vec<Value>),
    /// An object with unique keys in insertion order.
    Object(Map),
}

impl Value {
    /// Whether this is a string, number, boolean or null.
    pub fn is_scalar(&self) -> bool {
        !matches!(self, Value::Array(_) | Value::Object(_))
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        }
    }

    /// Whether `self` and `other` hold the same JSON data (spec §1.1):
    /// objects by membership, whatever order their members come in; arrays
    /// by order; scalars as `==` compares them (numbers by value).
    ///
    /// This is the equality a decode keeps: a table writes every row in its
    /// column order (the union of the rows' keys, in order of first
    /// appearance), so a decoded row can list its members in another order
    /// than the input did. `==` compares member order too.
    ///
    /// Objects whose members come in the same order are compared pairwise;
    /// others by their members sorted by key (`O(n log n)`, not a lookup
    /// per member).
    ///
    /// ```
    /// use gcf_core::generic::{decode, encode, Map, Value};
    ///
    /// let row = |members: &[(&str, i64)]| {
    ///     Value::Object(members.iter().map(|&(k, v)| (k, Value::Int(v))).collect::<Map>())
    /// };
    /// // The second record's keys in another order: one table `{id,n}`.
    /// let input = Value::Array(vec![row(&[("id", 1), ("n", 2)]), row(&[("n", 4), ("id", 3)])]);
    ///
    /// let back = decode(&encode(&input)?)?;
    /// assert!(back.structurally_eq(&input));
    /// assert_ne!(back, input); // `==` sees the second row's `id` come first
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn structurally_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Object(a), Value::Object(b)) => a.same_members(b),
            (Value::Array(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.structurally_eq(y))
            }
            _ => self == other,
        }
    }
}

fn int_eq_float(i: i64, f: f64) -> bool {
    // Exact, and without `f64::fract` (not in `core`): inside [-2^63, 2^63),
    // truncation gives `i`, and `i` converts back to exactly `f`.
    (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f)
        && f as i64 == i
        && i as f64 == f
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) => {
                int_eq_float(*i, *f)
            }
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => a == b,
            (Value::Object(a), Value::Object(b)) => a == b,
            _ => false,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(Key::new(s))
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(Key::from(s))
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}
impl From<f64> for Value {
    fn from(f: f64) -> Value {
        Value::Float(f)
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<Vec<Value>> for Value {
    fn from(a: Vec<Value>) -> Value {
        Value::Array(a)
    }
}
impl From<Map> for Value {
    fn from(m: Map) -> Value {
        Value::Object(m)
    }
}

/// An object: unique string keys in insertion order.
///
/// Lookups are linear, which is the fastest choice for the small objects that
/// dominate real data; decoders check uniqueness with a hash set when an
/// object grows large. Keys are [`Key`]s rather than `String`s because a
/// decoded table gives every row object the same column names: an inline key
/// is a copy, where a `String` was an allocation and a free per member.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Map {
    entries: Vec<(Key, Value)>,
}

impl Map {
    /// An empty object.
    pub fn new() -> Map {
        Map {
            entries: Vec::new(),
        }
    }

    /// An empty object with room for `n` members.
    pub fn with_capacity(n: usize) -> Map {
        Map {
            entries: Vec::with_capacity(n),
        }
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no members.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value of `key` (a scan of the members: callers that look up
    /// many keys of one wide object index it instead).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| {
                // Counted (complexity tests): one lookup per member of a
                // wide object is quadratic.
                crate::ops::tick(1);
                k.as_str() == key
            })
            .map(|(_, v)| v)
    }

    /// Whether `key` is a member.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key` to `value`: replaces in place if present (keeping its
    /// position), appends otherwise. Returns the previous value.
    pub fn insert(&mut self, key: impl Into<Key>, value: Value) -> Option<Value> {
        let key = key.into();
        if let Some(slot) = self.entries.iter_mut().find(|(k, _)| {
            // Counted (complexity tests), as `get` is.
            crate::ops::tick(1);
            *k == key
        }) {
            return Some(core::mem::replace(&mut slot.1, value));
        }
        self.entries.push((key, value));
        None
    }

    /// Appends a member without checking for a duplicate key. The caller
    /// guarantees uniqueness (decoders that already checked, converters from
    /// maps that cannot hold duplicates).
    #[inline]
    pub fn push_unique(&mut self, key: impl Into<Key>, value: Value) {
        self.entries.push((key.into(), value));
    }

    /// The object of `entries`, whose keys the caller guarantees are
    /// distinct (a decoder that checked them).
    #[inline]
    pub(crate) fn from_unique(entries: Vec<(Key, Value)>) -> Map {
        Map { entries }
    }

    /// Members in insertion order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Keys in insertion order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }

    /// Values in insertion order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &Value> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The members as a slice of pairs.
    pub fn as_slice(&self) -> &[(Key, Value)] {
        &self.entries
    }

    /// Takes the members out.
    pub fn into_vec(self) -> Vec<(Key, Value)> {
        self.entries
    }

    /// [`Value::structurally_eq`] of two objects: the same keys, each with
    /// structurally equal values. Members under a repeated key (which only
    /// [`push_unique`](Self::push_unique) can make) pair up in their order.
    fn same_members(&self, other: &Map) -> bool {
        if self.len() != other.len() {
            return false;
        }
        let (mine, theirs) = (&self.entries, &other.entries);
        if mine.iter().zip(theirs).all(|((k, _), (l, _))| k == l) {
            return mine
                .iter()
                .zip(theirs)
                .all(|((_, v), (_, w))| v.structurally_eq(w));
        }
        fn by_key(entries: &[(Key, Value)]) -> Vec<&(Key, Value)> {
            let mut sorted: Vec<&(Key, Value)> = entries.iter().collect();
            // Stable: members under a repeated key keep their order.
            sorted.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
            sorted
        }
        by_key(mine)
            .into_iter()
            .zip(by_key(theirs))
            .all(|((k, v), (l, w))| k == l && v.structurally_eq(w))
    }
}

impl<K: Into<Key>> FromIterator<(K, Value)> for Map {
    /// Collects pairs; a later duplicate key replaces the earlier value in place.
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Map {
        let iter = iter.into_iter();
        let mut m = Map::with_capacity(iter.size_hint().0);
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn object(members: &[(&str, Value)]) -> Value {
        let mut m = Map::new();
        for (k, v) in members {
            m.push_unique(*k, v.clone());
        }
        Value::Object(m)
    }

    #[test]
    fn structural_equality_ignores_member_order_at_every_depth() {
        let a = object(&[
            ("x", Value::Int(1)),
            ("y", object(&[("p", Value::Bool(true)), ("q", Value::Null)])),
        ]);
        let b = object(&[
            ("y", object(&[("q", Value::Null), ("p", Value::Bool(true))])),
            ("x", Value::Float(1.0)),
        ]);
        assert!(a.structurally_eq(&b) && b.structurally_eq(&a));
        assert_ne!(a, b);
        // A different value, a missing or an extra member.
        let c = object(&[
            (
                "y",
                object(&[("q", Value::Null), ("p", Value::Bool(false))]),
            ),
            ("x", Value::Int(1)),
        ]);
        assert!(!a.structurally_eq(&c));
        assert!(!a.structurally_eq(&object(&[("x", Value::Int(1))])));
        let d = object(&[("x", Value::Int(1)), ("y", Value::Null), ("z", Value::Null)]);
        assert!(!a.structurally_eq(&d) && !d.structurally_eq(&a));
        // Same keys in another order, one value differing.
        let e = object(&[("y", Value::Null), ("x", Value::Int(1))]);
        assert!(!a.structurally_eq(&e));
    }

    #[test]
    fn structural_equality_keeps_array_order_and_kinds() {
        let a = Value::Array(vec![Value::Int(1), Value::from("a")]);
        let b = Value::Array(vec![Value::from("a"), Value::Int(1)]);
        assert!(!a.structurally_eq(&b));
        assert!(a.structurally_eq(&a.clone()));
        assert!(!Value::from("1").structurally_eq(&Value::Int(1)));
        assert!(!Value::Array(vec![]).structurally_eq(&object(&[])));
        assert!(Value::Int(3).structurally_eq(&Value::Float(3.0)));
    }

    #[test]
    fn structural_equality_of_wide_objects_in_reverse_order() {
        let n = 5_000;
        let keys: Vec<String> = (0..n).map(|i| alloc::format!("k{i}")).collect();
        let forward: Vec<(&str, Value)> = keys
            .iter()
            .map(|k| (k.as_str(), Value::from(k.as_str())))
            .collect();
        let mut backward = forward.clone();
        backward.reverse();
        let (a, b) = (object(&forward), object(&backward));
        assert!(a.structurally_eq(&b));
        backward[0].1 = Value::Null;
        assert!(!a.structurally_eq(&object(&backward)));
    }

    #[test]
    fn repeated_keys_pair_up_in_their_order() {
        let a = object(&[
            ("k", Value::Int(1)),
            ("j", Value::Null),
            ("k", Value::Int(2)),
        ]);
        let b = object(&[
            ("j", Value::Null),
            ("k", Value::Int(1)),
            ("k", Value::Int(2)),
        ]);
        let c = object(&[
            ("j", Value::Null),
            ("k", Value::Int(2)),
            ("k", Value::Int(1)),
        ]);
        assert!(a.structurally_eq(&b));
        assert!(!a.structurally_eq(&c));
    }

    #[test]
    fn numbers_compare_by_value() {
        assert_eq!(Value::Int(1), Value::Float(1.0));
        assert_ne!(Value::Int(1), Value::Float(1.5));
        assert_eq!(Value::Float(0.0), Value::Float(-0.0));
        assert_ne!(
            Value::Int(i64::MAX),
            Value::Float(9_223_372_036_854_775_808.0)
        );
        assert_eq!(
            Value::Int(i64::MIN),
            Value::Float(-9_223_372_036_854_775_808.0)
        );
        assert_ne!(Value::Int(1), Value::from("1"));
    }

    #[test]
    fn map_keeps_order_and_replaces_in_place() {
        let mut m = Map::new();
        assert!(m.insert("b", Value::Int(1)).is_none());
        m.insert("a", Value::Int(2));
        assert_eq!(m.insert("b", Value::Int(3)), Some(Value::Int(1)));
        assert_eq!(m.keys().collect::<Vec<_>>(), vec!["b", "a"]);
        assert_eq!(m.get("b"), Some(&Value::Int(3)));
        let mut other = Map::new();
        other.insert("a", Value::Int(2));
        other.insert("b", Value::Int(3));
        assert_ne!(m, other, "object equality is order-sensitive");
    }

    #[test]
    fn map_takes_any_key_form() {
        let long = "a key longer than any inline capacity";
        let m: Map = [
            ("a", Value::Int(1)),
            ("b", Value::Int(2)),
            ("a", Value::Int(3)),
            (long, Value::Null),
        ]
        .into_iter()
        .collect();
        assert_eq!(m.keys().collect::<Vec<_>>(), vec!["a", "b", long]);
        assert_eq!(m.get("a"), Some(&Value::Int(3)));
        let mut n = Map::new();
        n.push_unique(String::from("a"), Value::Int(3));
        n.push_unique(Key::from("b"), Value::Int(2));
        n.insert(String::from(long), Value::Null);
        assert_eq!(m, n);
        let pairs = n.into_vec();
        assert!(!pairs[0].0.is_heap_allocated());
        assert!(pairs[2].0.is_heap_allocated());
        assert_eq!(pairs[2].0, long);
    }
}
