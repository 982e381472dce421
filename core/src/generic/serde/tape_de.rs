//! `from_str`'s route: the decoder builds the document into one flat tape
//! (scalars inline, bare strings as places in the input, other text in one
//! arena, each container's children a run of one list, a table's column
//! names kept once per table) through [`Build`], and the caller's type is
//! read from the tape, instead of from a [`Value`] tree with a vector per
//! object and a [`Key`] per member. The values a type reads are the tree's,
//! member for member (the tests hold `from_str` to
//! [`from_value`](super::from_value) of `decode`); a bare string is lent
//! from the input (`&'de str` fields borrow it, as serde_json lends a string
//! without escapes).

use alloc::string::String;
use alloc::vec::Vec;

use ::serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Unexpected,
    VariantAccess, Visitor,
};
use ::serde::forward_to_deserialize_any;

use crate::error::{Error, ErrorKind};

use super::super::{Build, Key, Value};
use super::de::KeyDeserializer;

/// A value as the reader sees it: a scalar, or a run of the tape's lists.
#[derive(Clone, Copy, Debug)]
enum Node {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// Text in the arena.
    Str {
        start: usize,
        len: usize,
    },
    /// Text of the input, lent.
    Lent {
        start: usize,
        len: usize,
    },
    /// Items `start..start + len` of the item list.
    Array {
        start: usize,
        len: usize,
    },
    /// Values `start..start + len` of the item list, named by keys
    /// `names..names + len` (rows of one table share their names).
    Object {
        names: u32,
        start: u32,
        len: u32,
    },
}

/// A built value: a [`Node`] packed into two words (the tag in the top
/// byte of the second).
///
/// Built in the decoder's row loop and copied into the item list, the enum
/// itself (a one-byte tag, fields of their own sizes, 24 bytes returned
/// through memory) was stored piecewise on the stack and reloaded by wider
/// loads that waited for those stores, once per cell; two plain words stay
/// in registers, calls included.
#[derive(Clone, Copy, Debug)]
pub(super) struct Item {
    a: u64,
    b: u64,
}

const NULL: u64 = 0;
const BOOL: u64 = 1;
const INT: u64 = 2;
const FLOAT: u64 = 3;
const STR: u64 = 4;
const LENT: u64 = 5;
const ARRAY: u64 = 6;
const OBJECT: u64 = 7;
const TAG_SHIFT: u32 = 56;
const LOW: u64 = (1 << TAG_SHIFT) - 1;

impl From<Node> for Item {
    #[inline(always)]
    fn from(node: Node) -> Item {
        // A length or place past 2^56 cannot occur: the text and the lists
        // it counts are in memory.
        let (tag, a, b) = match node {
            Node::Null => (NULL, 0, 0),
            Node::Bool(v) => (BOOL, u64::from(v), 0),
            Node::Int(i) => (INT, i as u64, 0),
            Node::Float(f) => (FLOAT, f.to_bits(), 0),
            Node::Str { start, len } => (STR, start as u64, len as u64),
            Node::Lent { start, len } => (LENT, start as u64, len as u64),
            Node::Array { start, len } => (ARRAY, start as u64, len as u64),
            Node::Object { names, start, len } => (
                OBJECT,
                u64::from(names) << 32 | u64::from(start),
                u64::from(len),
            ),
        };
        Item {
            a,
            b: tag << TAG_SHIFT | (b & LOW),
        }
    }
}

impl Item {
    #[inline]
    fn node(self) -> Node {
        let (a, b) = (self.a as usize, (self.b & LOW) as usize);
        match self.b >> TAG_SHIFT {
            BOOL => Node::Bool(self.a != 0),
            INT => Node::Int(self.a as i64),
            FLOAT => Node::Float(f64::from_bits(self.a)),
            STR => Node::Str { start: a, len: b },
            LENT => Node::Lent { start: a, len: b },
            ARRAY => Node::Array { start: a, len: b },
            OBJECT => Node::Object {
                names: (self.a >> 32) as u32,
                start: self.a as u32,
                len: b as u32,
            },
            _ => Node::Null,
        }
    }
}

/// Bytes of input per item the item list is first sized for: a table of
/// records holds a value every 6-8 bytes.
const ITEM_BYTES: usize = 8;

/// The decoded document.
#[derive(Default)]
pub(super) struct Tape<'de> {
    /// The decoded text, which [`Node::Lent`] strings are places in.
    input: &'de str,
    text: String,
    items: Vec<Item>,
    keys: Vec<Key>,
    /// Per table number, where its column names start in `keys`.
    tables: Vec<Option<u32>>,
    /// Set when the items or keys outgrew an object's `u32` places (more
    /// than 4 Gi of them): the decode is refused.
    too_large: bool,
}

impl<'de> Tape<'de> {
    /// An empty tape for the document `input`.
    pub(super) fn new(input: &'de str) -> Tape<'de> {
        Tape {
            input,
            // Sized once from the input: a table cell takes a few bytes of
            // text, and growing the list by doubling copied it a few times
            // (5 % of decoding a table of records).
            items: Vec::with_capacity(input.len() / ITEM_BYTES),
            ..Tape::default()
        }
    }

    fn text(&self, start: usize, len: usize) -> &str {
        self.text.get(start..start + len).unwrap_or_default()
    }

    fn lent(&self, start: usize, len: usize) -> &'de str {
        self.input.get(start..start + len).unwrap_or_default()
    }

    /// A string scalar the decoder made (quoted, a constant): its text
    /// into the arena.
    #[inline(never)]
    fn text_scalar(&mut self, value: Value) -> Item {
        match value {
            Value::String(s) => self.push_text(s.as_str()),
            // Other scalars are answered inline; the decoder hands
            // containers to `array` and `object`.
            _ => Item::from(Node::Null),
        }
    }

    #[inline(never)]
    fn push_text(&mut self, text: &str) -> Item {
        let start = self.text.len();
        self.text.push_str(text);
        Item::from(Node::Str {
            start,
            len: text.len(),
        })
    }

    fn key(&self, at: usize) -> &str {
        self.keys.get(at).map_or("", Key::as_str)
    }

    /// `n` as an object's place, noting when it does not fit.
    fn place(&mut self, n: usize) -> u32 {
        u32::try_from(n).unwrap_or_else(|_| {
            self.too_large = true;
            0
        })
    }

    /// Refuses a tape whose places did not fit (see [`Tape::place`]).
    pub(super) fn check(&self) -> Result<(), Error> {
        if self.too_large {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                "the document holds too many values to deserialize (over 4 Gi)",
            ));
        }
        Ok(())
    }

    /// An object of `len` values pushed from `start` on, named from `names`.
    fn object_at(&mut self, names: usize, start: usize) -> Item {
        let len = self.items.len() - start;
        Item::from(Node::Object {
            names: self.place(names),
            start: self.place(start),
            len: self.place(len),
        })
    }
}

impl Build for Tape<'_> {
    type Value = Item;

    // `scalar` and `string` are inlined into the decoder's row loop: called,
    // they returned the item through memory, and the loop's wider reload
    // of it waited on those stores (a quarter of a borrowed decode's time
    // under `perf`).
    #[inline(always)]
    fn scalar(&mut self, value: Value) -> Item {
        match value {
            Value::Null => Item::from(Node::Null),
            Value::Bool(b) => Item::from(Node::Bool(b)),
            Value::Int(i) => Item::from(Node::Int(i)),
            Value::Float(f) => Item::from(Node::Float(f)),
            other => self.text_scalar(other),
        }
    }

    /// The decoder hands bare strings over as slices of its input: kept as
    /// their place there, the tape copies none of them.
    #[inline(always)]
    fn string(&mut self, text: &str) -> Item {
        let offset = (text.as_ptr() as usize).wrapping_sub(self.input.as_ptr() as usize);
        if offset <= self.input.len() && text.len() <= self.input.len() - offset {
            return Item::from(Node::Lent {
                start: offset,
                len: text.len(),
            });
        }
        self.push_text(text)
    }

    fn repeated(&mut self, value: &Value) -> Item {
        match value {
            Value::String(s) => self.push_text(s.as_str()),
            other => self.scalar(other.clone()),
        }
    }

    fn array(&mut self, items: Vec<Item>) -> Item {
        let start = self.items.len();
        self.items.extend_from_slice(&items);
        Item::from(Node::Array {
            start,
            len: items.len(),
        })
    }

    fn scalar_array(&mut self, items: Vec<Value>) -> Item {
        let built: Vec<Item> = items.into_iter().map(|v| self.scalar(v)).collect();
        self.array(built)
    }

    fn object(&mut self, mut members: Vec<(Key, Item)>) -> Item {
        self.object_from(&mut members)
    }

    fn object_from(&mut self, members: &mut Vec<(Key, Item)>) -> Item {
        let (names, start) = (self.keys.len(), self.items.len());
        for (key, value) in members.drain(..) {
            self.keys.push(key);
            self.items.push(value);
        }
        self.object_at(names, start)
    }

    fn row(&mut self, table: usize, keys: &[Key], values: &mut Vec<Item>) -> Item {
        if self.tables.len() <= table {
            self.tables.resize(table + 1, None);
        }
        let names = match self.tables[table] {
            Some(names) => names as usize,
            None => {
                let names = self.keys.len();
                self.keys.extend_from_slice(keys);
                self.tables[table] = Some(self.place(names));
                names
            }
        };
        let start = self.items.len();
        self.items.append(values);
        self.object_at(names, start)
    }
}

impl Tape<'static> {
    /// The tape of a value tree ([`from_value`](super::from_value)), and
    /// its root: one reader for both routes.
    pub(super) fn of_value(value: Value) -> (Tape<'static>, Item) {
        let mut tape = Tape::default();
        let root = tape.put(value);
        (tape, root)
    }

    fn put(&mut self, value: Value) -> Item {
        match value {
            Value::Array(items) => {
                let built: Vec<Item> = items.into_iter().map(|v| self.put(v)).collect();
                self.array(built)
            }
            Value::Object(map) => {
                let members: Vec<(Key, Item)> = map
                    .into_vec()
                    .into_iter()
                    .map(|(k, v)| (k, self.put(v)))
                    .collect();
                self.object(members)
            }
            scalar => self.scalar(scalar),
        }
    }
}

/// A value of the tape, for a type to read.
pub(super) struct At<'t, 'de> {
    pub(super) tape: &'t Tape<'de>,
    pub(super) item: Item,
}

impl Clone for At<'_, '_> {
    fn clone(&self) -> Self {
        *self
    }
}

impl Copy for At<'_, '_> {}

impl<'t, 'de> At<'t, 'de> {
    /// The text of a string, the arena's or the input's.
    fn text(self) -> Option<&'t str> {
        match self.item.node() {
            Node::Str { start, len } => Some(self.tape.text(start, len)),
            Node::Lent { start, len } => Some(self.tape.lent(start, len)),
            _ => None,
        }
    }

    fn unexpected(self) -> Unexpected<'t> {
        match self.item.node() {
            Node::Null => Unexpected::Unit,
            Node::Bool(b) => Unexpected::Bool(b),
            Node::Int(i) => Unexpected::Signed(i),
            Node::Float(f) => Unexpected::Float(f),
            Node::Str { .. } | Node::Lent { .. } => Unexpected::Str(self.text().unwrap_or("")),
            Node::Array { .. } => Unexpected::Seq,
            Node::Object { .. } => Unexpected::Map,
        }
    }

    fn with(self, item: Item) -> At<'t, 'de> {
        At {
            tape: self.tape,
            item,
        }
    }
}

impl<'de> Deserializer<'de> for At<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.item.node() {
            Node::Null => visitor.visit_unit(),
            Node::Bool(b) => visitor.visit_bool(b),
            Node::Int(i) => visitor.visit_i64(i),
            Node::Float(f) => visitor.visit_f64(f),
            Node::Str { start, len } => visitor.visit_str(self.tape.text(start, len)),
            Node::Lent { start, len } => visitor.visit_borrowed_str(self.tape.lent(start, len)),
            Node::Array { start, len } => {
                let mut seq = Items {
                    at: self,
                    next: start,
                    end: start + len,
                };
                let value = visitor.visit_seq(&mut seq)?;
                if seq.next == seq.end {
                    Ok(value)
                } else {
                    Err(de::Error::invalid_length(
                        len,
                        &"fewer elements in the array",
                    ))
                }
            }
            Node::Object { names, start, len } => {
                let (names, start, len) = (names as usize, start as usize, len as usize);
                let mut map = Members {
                    at: self,
                    names,
                    next: start,
                    end: start + len,
                    value: None,
                };
                let value = visitor.visit_map(&mut map)?;
                if map.next == map.end {
                    Ok(value)
                } else {
                    Err(de::Error::invalid_length(
                        len,
                        &"fewer members in the object",
                    ))
                }
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.item.node() {
            Node::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if let Some(name) = self.text() {
            return visitor.visit_enum(Variant { name, body: None });
        }
        match self.item.node() {
            Node::Object {
                names,
                start,
                len: 1,
            } => {
                let body = self.tape.items[start as usize];
                visitor.visit_enum(Variant {
                    name: self.tape.key(names as usize),
                    body: Some(self.with(body)),
                })
            }
            _ => Err(de::Error::invalid_type(
                self.unexpected(),
                &"a variant name or an object of one member",
            )),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier
    }
}

struct Items<'t, 'de> {
    at: At<'t, 'de>,
    next: usize,
    end: usize,
}

impl<'de> SeqAccess<'de> for Items<'_, 'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if self.next == self.end {
            return Ok(None);
        }
        let item = self.at.tape.items[self.next];
        self.next += 1;
        seed.deserialize(self.at.with(item)).map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.end - self.next)
    }
}

struct Members<'t, 'de> {
    at: At<'t, 'de>,
    /// The next member's name in the key list.
    names: usize,
    next: usize,
    end: usize,
    value: Option<Item>,
}

impl<'de> MapAccess<'de> for Members<'_, 'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.next == self.end {
            return Ok(None);
        }
        let value = self.at.tape.items[self.next];
        let name = self.at.tape.key(self.names);
        self.next += 1;
        self.names += 1;
        self.value = Some(value);
        seed.deserialize(KeyDeserializer(name)).map(Some)
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        let value = self.value.take().ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidInput,
                "a map value was read before its key",
            )
        })?;
        seed.deserialize(self.at.with(value))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.end - self.next)
    }
}

/// An enum's variant: its name, and its body unless it is a unit variant.
pub(super) struct Variant<'t, 'de> {
    pub(super) name: &'t str,
    pub(super) body: Option<At<'t, 'de>>,
}

impl<'de, 't> EnumAccess<'de> for Variant<'t, 'de> {
    type Error = Error;
    type Variant = VariantBody<'t, 'de>;
    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, VariantBody<'t, 'de>), Error> {
        let name = seed.deserialize(KeyDeserializer(self.name))?;
        Ok((name, VariantBody(self.body)))
    }
}

pub(super) struct VariantBody<'t, 'de>(Option<At<'t, 'de>>);

impl<'t, 'de> VariantBody<'t, 'de> {
    fn body(self, expected: &str) -> Result<At<'t, 'de>, Error> {
        self.0
            .ok_or_else(|| de::Error::invalid_type(Unexpected::UnitVariant, &expected))
    }
}

impl<'de> VariantAccess<'de> for VariantBody<'_, 'de> {
    type Error = Error;
    fn unit_variant(self) -> Result<(), Error> {
        match self.0 {
            None => Ok(()),
            Some(at) if matches!(at.item.node(), Node::Null) => Ok(()),
            Some(other) => Err(de::Error::invalid_type(
                other.unexpected(),
                &"a unit variant",
            )),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self.body("a newtype variant")?)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        let body = self.body("a tuple variant")?;
        match body.item.node() {
            Node::Array { .. } => body.deserialize_any(visitor),
            _ => Err(de::Error::invalid_type(
                body.unexpected(),
                &"a tuple variant",
            )),
        }
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let body = self.body("a struct variant")?;
        match body.item.node() {
            Node::Object { .. } => body.deserialize_any(visitor),
            _ => Err(de::Error::invalid_type(
                body.unexpected(),
                &"a struct variant",
            )),
        }
    }
}
