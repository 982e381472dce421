//! `from_str`'s route: the decoder builds the document into one flat tape
//! (scalars inline, text in one arena, each container's children a run of
//! one list, a table's column names kept once per table) through [`Build`],
//! and the caller's type is read from the tape, instead of from a
//! [`Value`] tree with a vector per object and a [`Key`] per member. The
//! values a type reads are the tree's, member for member (the tests hold
//! `from_str` to [`from_value`](super::from_value) of `decode`).

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

/// A built value: a scalar, or a run of the tape's lists.
#[derive(Clone, Copy, Debug)]
pub(super) enum Item {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// Text in the arena.
    Str {
        start: usize,
        len: usize,
    },
    /// Items `start..start + len` of the item list.
    Array {
        start: usize,
        len: usize,
    },
    /// Members `start..start + len` of the member list.
    Object {
        start: usize,
        len: usize,
    },
}

/// The decoded document.
#[derive(Default)]
pub(super) struct Tape {
    text: String,
    items: Vec<Item>,
    /// A member's name (an index into `keys`) and value.
    members: Vec<(usize, Item)>,
    keys: Vec<Key>,
    /// Per table number, where its column names start in `keys`.
    tables: Vec<Option<usize>>,
}

impl Tape {
    fn text(&self, start: usize, len: usize) -> &str {
        self.text.get(start..start + len).unwrap_or_default()
    }

    fn push_text(&mut self, text: &str) -> Item {
        let start = self.text.len();
        self.text.push_str(text);
        Item::Str {
            start,
            len: text.len(),
        }
    }

    fn key(&self, at: usize) -> &str {
        self.keys.get(at).map_or("", Key::as_str)
    }
}

impl Build for Tape {
    type Value = Item;

    fn scalar(&mut self, value: Value) -> Item {
        match value {
            Value::Null => Item::Null,
            Value::Bool(b) => Item::Bool(b),
            Value::Int(i) => Item::Int(i),
            Value::Float(f) => Item::Float(f),
            Value::String(s) => self.push_text(s.as_str()),
            // The decoder hands containers to `array` and `object`.
            Value::Array(_) | Value::Object(_) => Item::Null,
        }
    }

    fn string(&mut self, text: &str) -> Item {
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
        Item::Array {
            start,
            len: items.len(),
        }
    }

    fn scalar_array(&mut self, items: Vec<Value>) -> Item {
        let built: Vec<Item> = items.into_iter().map(|v| self.scalar(v)).collect();
        self.array(built)
    }

    fn object(&mut self, members: Vec<(Key, Item)>) -> Item {
        let start = self.members.len();
        let len = members.len();
        for (key, value) in members {
            self.members.push((self.keys.len(), value));
            self.keys.push(key);
        }
        Item::Object { start, len }
    }

    fn object_from(&mut self, members: &mut Vec<(Key, Item)>) -> Item {
        let start = self.members.len();
        let len = members.len();
        for (key, value) in members.drain(..) {
            self.members.push((self.keys.len(), value));
            self.keys.push(key);
        }
        Item::Object { start, len }
    }

    fn row(&mut self, table: usize, keys: &[Key], values: &mut Vec<Item>) -> Item {
        if self.tables.len() <= table {
            self.tables.resize(table + 1, None);
        }
        let first = match self.tables[table] {
            Some(first) => first,
            None => {
                let first = self.keys.len();
                self.keys.extend_from_slice(keys);
                self.tables[table] = Some(first);
                first
            }
        };
        let start = self.members.len();
        let len = values.len();
        self.members
            .extend(values.drain(..).enumerate().map(|(i, v)| (first + i, v)));
        Item::Object { start, len }
    }
}

impl Tape {
    /// The tape of a value tree ([`from_value`](super::from_value)), and
    /// its root: one reader for both routes.
    pub(super) fn of_value(value: Value) -> (Tape, Item) {
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
#[derive(Clone, Copy)]
pub(super) struct At<'t> {
    pub(super) tape: &'t Tape,
    pub(super) item: Item,
}

impl<'t> At<'t> {
    fn unexpected(self) -> Unexpected<'t> {
        match self.item {
            Item::Null => Unexpected::Unit,
            Item::Bool(b) => Unexpected::Bool(b),
            Item::Int(i) => Unexpected::Signed(i),
            Item::Float(f) => Unexpected::Float(f),
            Item::Str { start, len } => Unexpected::Str(self.tape.text(start, len)),
            Item::Array { .. } => Unexpected::Seq,
            Item::Object { .. } => Unexpected::Map,
        }
    }

    fn with(self, item: Item) -> At<'t> {
        At {
            tape: self.tape,
            item,
        }
    }
}

impl<'de> Deserializer<'de> for At<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.item {
            Item::Null => visitor.visit_unit(),
            Item::Bool(b) => visitor.visit_bool(b),
            Item::Int(i) => visitor.visit_i64(i),
            Item::Float(f) => visitor.visit_f64(f),
            Item::Str { start, len } => visitor.visit_str(self.tape.text(start, len)),
            Item::Array { start, len } => {
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
            Item::Object { start, len } => {
                let mut map = Members {
                    at: self,
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
        match self.item {
            Item::Null => visitor.visit_none(),
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
        match self.item {
            Item::Str { start, len } => visitor.visit_enum(Variant {
                name: self.tape.text(start, len),
                body: None,
            }),
            Item::Object { start, len: 1 } => {
                let (key, body) = self.tape.members[start];
                visitor.visit_enum(Variant {
                    name: self.tape.key(key),
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

struct Items<'t> {
    at: At<'t>,
    next: usize,
    end: usize,
}

impl<'de> SeqAccess<'de> for Items<'_> {
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

struct Members<'t> {
    at: At<'t>,
    next: usize,
    end: usize,
    value: Option<Item>,
}

impl<'de> MapAccess<'de> for Members<'_> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.next == self.end {
            return Ok(None);
        }
        let (key, value) = self.at.tape.members[self.next];
        self.next += 1;
        self.value = Some(value);
        seed.deserialize(KeyDeserializer(self.at.tape.key(key)))
            .map(Some)
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
pub(super) struct Variant<'t> {
    pub(super) name: &'t str,
    pub(super) body: Option<At<'t>>,
}

impl<'de, 't> EnumAccess<'de> for Variant<'t> {
    type Error = Error;
    type Variant = VariantBody<'t>;
    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, VariantBody<'t>), Error> {
        let name = seed.deserialize(KeyDeserializer(self.name))?;
        Ok((name, VariantBody(self.body)))
    }
}

pub(super) struct VariantBody<'t>(Option<At<'t>>);

impl<'t> VariantBody<'t> {
    fn body(self, expected: &str) -> Result<At<'t>, Error> {
        self.0
            .ok_or_else(|| de::Error::invalid_type(Unexpected::UnitVariant, &expected))
    }
}

impl<'de> VariantAccess<'de> for VariantBody<'_> {
    type Error = Error;
    fn unit_variant(self) -> Result<(), Error> {
        match self.0 {
            None => Ok(()),
            Some(at) if matches!(at.item, Item::Null) => Ok(()),
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
        match body.item {
            Item::Array { .. } => body.deserialize_any(visitor),
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
        match body.item {
            Item::Object { .. } => body.deserialize_any(visitor),
            _ => Err(de::Error::invalid_type(
                body.unexpected(),
                &"a struct variant",
            )),
        }
    }
}
