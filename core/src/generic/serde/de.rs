//! `serde::Deserializer` over an owned value tree, with serde_json's data
//! model (see the module above), and `Deserialize` for [`Value`].

use alloc::string::String;
use alloc::vec::{self, Vec};

use ::serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Unexpected,
    VariantAccess, Visitor,
};
use ::serde::forward_to_deserialize_any;

use crate::error::{Error, ErrorKind};

use super::super::{Key, Map, Value};
use super::{MemberList, JSON_NUMBER};

pub(super) struct ValueDeserializer(pub(super) Value);

impl Value {
    fn unexpected(&self) -> Unexpected<'_> {
        match self {
            Value::Null => Unexpected::Unit,
            Value::Bool(b) => Unexpected::Bool(*b),
            Value::Int(i) => Unexpected::Signed(*i),
            Value::Float(f) => Unexpected::Float(*f),
            Value::String(s) => Unexpected::Str(s.as_str()),
            Value::Array(_) => Unexpected::Seq,
            Value::Object(_) => Unexpected::Map,
        }
    }
}

fn string(key: Key) -> String {
    key.into_string()
}

impl<'de> Deserializer<'de> for ValueDeserializer {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Int(i) => visitor.visit_i64(i),
            Value::Float(f) => visitor.visit_f64(f),
            Value::String(s) => visitor.visit_string(string(s)),
            Value::Array(items) => visit_items(items, visitor),
            Value::Object(map) => visit_members(map, visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            value => visitor.visit_some(ValueDeserializer(value)),
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
        match self.0 {
            Value::String(name) => visitor.visit_enum(Variant { name, body: None }),
            Value::Object(map) if map.len() == 1 => {
                let (name, body) = map.into_vec().pop().expect("one member");
                visitor.visit_enum(Variant {
                    name,
                    body: Some(body),
                })
            }
            other => Err(de::Error::invalid_type(
                other.unexpected(),
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

fn visit_items<'de, V: Visitor<'de>>(items: Vec<Value>, visitor: V) -> Result<V::Value, Error> {
    let len = items.len();
    let mut seq = Items(items.into_iter());
    let value = visitor.visit_seq(&mut seq)?;
    if seq.0.len() == 0 {
        Ok(value)
    } else {
        Err(de::Error::invalid_length(
            len,
            &"fewer elements in the array",
        ))
    }
}

fn visit_members<'de, V: Visitor<'de>>(map: Map, visitor: V) -> Result<V::Value, Error> {
    let len = map.len();
    let mut members = Members {
        entries: map.into_vec().into_iter(),
        value: None,
    };
    let value = visitor.visit_map(&mut members)?;
    if members.entries.len() == 0 {
        Ok(value)
    } else {
        Err(de::Error::invalid_length(
            len,
            &"fewer members in the object",
        ))
    }
}

struct Items(vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Items {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0
            .next()
            .map(|v| seed.deserialize(ValueDeserializer(v)))
            .transpose()
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Members {
    entries: vec::IntoIter<(Key, Value)>,
    value: Option<Value>,
}

impl<'de> MapAccess<'de> for Members {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(KeyDeserializer(key)).map(Some)
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        let value = self.value.take().ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidInput,
                "a map value was read before its key",
            )
        })?;
        seed.deserialize(ValueDeserializer(value))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// A member's key: text to every visitor, and a number, boolean or unit
/// variant to the types that ask for one, read back from the text the
/// serializer wrote them as (serde_json's map keys).
struct KeyDeserializer(Key);

macro_rules! key_from_text {
    ($($method:ident => $visit:ident: $ty:ty),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.0.as_str().parse::<$ty>() {
                Ok(n) => visitor.$visit(n),
                Err(_) => Err(de::Error::invalid_value(
                    Unexpected::Str(self.0.as_str()),
                    &visitor,
                )),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for KeyDeserializer {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // Lent, not handed over: most keys name a struct's field or an enum's
        // variant, whose visitors only compare the text (a `String` per
        // member was a fifth of reading a table into structs).
        visitor.visit_str(self.0.as_str())
    }

    key_from_text! {
        deserialize_bool => visit_bool: bool,
        deserialize_i8 => visit_i8: i8,
        deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32,
        deserialize_i64 => visit_i64: i64,
        deserialize_i128 => visit_i128: i128,
        deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16,
        deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64,
        deserialize_u128 => visit_u128: u128,
        deserialize_f32 => visit_f32: f32,
        deserialize_f64 => visit_f64: f64,
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
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
        visitor.visit_enum(Variant {
            name: self.0,
            body: None,
        })
    }

    forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct
        map struct identifier ignored_any
    }
}

/// An enum's variant: its name, and its body unless it is a unit variant.
struct Variant {
    name: Key,
    body: Option<Value>,
}

impl<'de> EnumAccess<'de> for Variant {
    type Error = Error;
    type Variant = VariantBody;
    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, VariantBody), Error> {
        let name = seed.deserialize(KeyDeserializer(self.name))?;
        Ok((name, VariantBody(self.body)))
    }
}

struct VariantBody(Option<Value>);

impl VariantBody {
    fn body(self, expected: &str) -> Result<Value, Error> {
        self.0
            .ok_or_else(|| de::Error::invalid_type(Unexpected::UnitVariant, &expected))
    }
}

impl<'de> VariantAccess<'de> for VariantBody {
    type Error = Error;
    fn unit_variant(self) -> Result<(), Error> {
        match self.0 {
            None | Some(Value::Null) => Ok(()),
            Some(other) => Err(de::Error::invalid_type(
                other.unexpected(),
                &"a unit variant",
            )),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(ValueDeserializer(self.body("a newtype variant")?))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.body("a tuple variant")? {
            Value::Array(items) => visit_items(items, visitor),
            other => Err(de::Error::invalid_type(
                other.unexpected(),
                &"a tuple variant",
            )),
        }
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.body("a struct variant")? {
            Value::Object(map) => visit_members(map, visitor),
            other => Err(de::Error::invalid_type(
                other.unexpected(),
                &"a struct variant",
            )),
        }
    }
}

/// A value tree from any serde format (`serde_json::from_str::<Value>`, a
/// `Value` field of a caller's type): its integers that fit `int64` as
/// [`Value::Int`], other numbers as doubles (past `int64`, an integer is
/// [`ErrorKind::OutOfRange`], as [`from_json`](super::super::from_json)
/// refuses it).
impl<'de> de::Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

/// An integer of a wider type, refused past `int64` (spec §2.3.2).
fn int64<E: de::Error, T: TryInto<i64> + itoa::Integer>(v: T) -> Result<Value, E> {
    match v.try_into() {
        Ok(i) => Ok(Value::Int(i)),
        Err(_) => Err(E::custom(crate::number::out_of_range_message(
            itoa::Buffer::new().format(v),
        ))),
    }
}

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        de::Deserialize::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        int64(v)
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        int64(v)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        int64(v)
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(if v.is_finite() {
            Value::Float(v)
        } else {
            Value::Null
        })
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(Key::new(v)))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(Key::from(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut members = MemberList::with_capacity(access.size_hint().unwrap_or(0).min(4096));
        let mut first = true;
        while let Some(key) = access.next_key::<String>()? {
            if first && key == JSON_NUMBER {
                // serde_json's number under `arbitrary_precision`: its literal.
                let literal: String = access.next_value()?;
                return super::ser::number_literal(&literal).map_err(de::Error::custom);
            }
            first = false;
            members.insert(Key::from(key), access.next_value()?);
        }
        Ok(Value::Object(members.into_map()))
    }
}
