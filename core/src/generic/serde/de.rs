//! A member's key as a `serde::Deserializer`, and `Deserialize` for
//! [`Value`].

use alloc::string::String;
use alloc::vec::Vec;

use ::serde::de::{self, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use ::serde::forward_to_deserialize_any;

use crate::error::Error;

use super::super::{Key, Value};
use super::tape_de::Variant;
use super::{MemberList, JSON_NUMBER};

/// A member's key: text to every visitor, and a number, boolean or unit
/// variant to the types that ask for one, read back from the text the
/// serializer wrote them as (serde_json's map keys).
pub(super) struct KeyDeserializer<'k>(pub(super) &'k str);

macro_rules! key_from_text {
    ($($method:ident => $visit:ident: $ty:ty),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.0.parse::<$ty>() {
                Ok(n) => visitor.$visit(n),
                Err(_) => Err(de::Error::invalid_value(
                    Unexpected::Str(self.0),
                    &visitor,
                )),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for KeyDeserializer<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // Lent, not handed over: most keys name a struct's field or an enum's
        // variant, whose visitors only compare the text (a `String` per
        // member was a fifth of reading a table into structs).
        visitor.visit_str(self.0)
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

/// A value tree from any serde format (`serde_json::from_str::<Value>`, a
/// `Value` field of a caller's type): its integers that fit `int64` as
/// [`Value::Int`], other numbers as doubles (past `int64`, an integer is
/// [`ErrorKind::OutOfRange`](crate::ErrorKind::OutOfRange), as [`from_json`](super::super::from_json)
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
