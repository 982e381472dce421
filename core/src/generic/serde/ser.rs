//! `serde::Serializer` into the value tree, with serde_json's data model.

use alloc::string::ToString;
use alloc::vec::Vec;

use ::serde::ser::{self, Impossible, Serialize};

use crate::error::{Error, ErrorKind};
use crate::number::{out_of_range_message, parse_number, ParsedNumber};

use super::super::{Cell, Key, Map, Value};
use super::{MemberList, JSON_NUMBER};

/// The struct name and field serde_json gives a `RawValue` (its JSON text);
/// see [`JSON_NUMBER`].
pub(super) const JSON_RAW_VALUE: &str = "$serde_json::private::RawValue";

/// Never reserve more than this from a size hint.
const MAX_PREALLOC: usize = 4096;

/// The scalar methods of a `Serializer` that writes each scalar as a
/// [`Cell`] through its own `cell` method: one mapping of serde's
/// primitives (serde_json's rules) for the tree and the tape.
macro_rules! scalar_methods {
    () => {
        fn serialize_bool(self, v: bool) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Bool(v))
        }
        fn serialize_i8(self, v: i8) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Int(v.into()))
        }
        fn serialize_i16(self, v: i16) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Int(v.into()))
        }
        fn serialize_i32(self, v: i32) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Int(v.into()))
        }
        fn serialize_i64(self, v: i64) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Int(v))
        }
        fn serialize_i128(self, v: i128) -> Result<Self::Ok, Self::Error> {
            self.cell($crate::generic::serde::ser::int_cell(v)?)
        }
        fn serialize_u8(self, v: u8) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Int(v.into()))
        }
        fn serialize_u16(self, v: u16) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Int(v.into()))
        }
        fn serialize_u32(self, v: u32) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Int(v.into()))
        }
        fn serialize_u64(self, v: u64) -> Result<Self::Ok, Self::Error> {
            self.cell($crate::generic::serde::ser::int_cell(v)?)
        }
        fn serialize_u128(self, v: u128) -> Result<Self::Ok, Self::Error> {
            self.cell($crate::generic::serde::ser::int_cell(v)?)
        }
        fn serialize_f32(self, v: f32) -> Result<Self::Ok, Self::Error> {
            self.cell($crate::generic::serde::ser::f32_cell(v)?)
        }
        fn serialize_f64(self, v: f64) -> Result<Self::Ok, Self::Error> {
            self.cell($crate::generic::serde::ser::f64_cell(v))
        }
        fn serialize_char(self, v: char) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Str(v.encode_utf8(&mut [0; 4])))
        }
        fn serialize_str(self, v: &str) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Str(v))
        }
        fn serialize_none(self) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Null)
        }
        fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Self::Ok, Self::Error> {
            value.serialize(self)
        }
        fn serialize_unit(self) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Null)
        }
        fn serialize_unit_struct(self, _name: &'static str) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Null)
        }
        fn serialize_unit_variant(
            self,
            _name: &'static str,
            _index: u32,
            variant: &'static str,
        ) -> Result<Self::Ok, Self::Error> {
            self.cell(Cell::Str(variant))
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _name: &'static str,
            value: &T,
        ) -> Result<Self::Ok, Self::Error> {
            value.serialize(self)
        }
    };
}
pub(super) use scalar_methods;

pub(super) struct ValueSerializer;

impl ValueSerializer {
    fn cell(self, cell: Cell<'_>) -> Result<Value, Error> {
        Ok(match cell {
            Cell::Bool(b) => Value::Bool(b),
            Cell::Int(i) => Value::Int(i),
            Cell::Float(f) => Value::Float(f),
            Cell::Str(s) => Value::String(Key::new(s)),
            Cell::Null | Cell::Missing => Value::Null,
        })
    }
}

/// An integer of a wider type, refused past `int64` (spec §2.3.2).
pub(super) fn int_cell<T: TryInto<i64> + itoa::Integer>(n: T) -> Result<Cell<'static>, Error> {
    match n.try_into() {
        Ok(i) => Ok(Cell::Int(i)),
        Err(_) => Err(Error::new(
            ErrorKind::OutOfRange,
            out_of_range_message(itoa::Buffer::new().format(n)),
        )),
    }
}

/// An `f32`: the double its shortest text reads as (serde_json writes that
/// text: `0.1f32` is 0.1, not 0.10000000149011612); NaN and the
/// infinities are null.
pub(super) fn f32_cell(v: f32) -> Result<Cell<'static>, Error> {
    if !v.is_finite() {
        return Ok(Cell::Null);
    }
    Ok(match number_literal(ryu::Buffer::new().format_finite(v))? {
        Value::Int(i) => Cell::Int(i),
        Value::Float(f) => Cell::Float(f),
        _ => Cell::Null,
    })
}

/// A finite double, or null for NaN and the infinities (serde_json's rule).
pub(super) fn f64_cell(f: f64) -> Cell<'static> {
    if f.is_finite() {
        Cell::Float(f)
    } else {
        Cell::Null
    }
}

/// The value of a JSON number literal (serde_json's `arbitrary_precision`
/// form), as [`from_json`](super::super::from_json) reads it.
pub(super) fn number_literal(literal: &str) -> Result<Value, Error> {
    match parse_number(literal) {
        Ok(ParsedNumber::Int(i)) => Ok(Value::Int(i)),
        Ok(ParsedNumber::Float(f)) => Ok(Value::Float(f)),
        Err(_) if !literal.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) => Err(Error::new(
            ErrorKind::OutOfRange,
            out_of_range_message(literal),
        )),
        Err(_) => Err(Error::new(
            ErrorKind::OutOfRange,
            crate::number::double_out_of_range_message(literal),
        )),
    }
}

pub(super) fn capacity_hint(len: Option<usize>) -> usize {
    len.unwrap_or(0).min(MAX_PREALLOC)
}

impl ser::Serializer for ValueSerializer {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = Items;
    type SerializeTuple = Items;
    type SerializeTupleStruct = Items;
    type SerializeTupleVariant = Variant<Items>;
    type SerializeMap = Members;
    type SerializeStruct = Members;
    type SerializeStructVariant = Variant<Members>;

    scalar_methods!();

    fn serialize_bytes(self, v: &[u8]) -> Result<Value, Error> {
        Ok(Value::Array(
            v.iter().map(|&b| Value::Int(b.into())).collect(),
        ))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value, Error> {
        Ok(self::variant(variant, value.serialize(self)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Items, Error> {
        Ok(Items(Vec::with_capacity(capacity_hint(len))))
    }
    fn serialize_tuple(self, len: usize) -> Result<Items, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Items, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<Items>, Error> {
        Ok(Variant {
            name: variant,
            body: self.serialize_seq(Some(len))?,
        })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Members, Error> {
        Ok(Members::new(capacity_hint(len)))
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Members, Error> {
        let mut members = Members::new(len.min(MAX_PREALLOC));
        if name == JSON_NUMBER || name == JSON_RAW_VALUE {
            members.json = Some(name);
        }
        Ok(members)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<Members>, Error> {
        Ok(Variant {
            name: variant,
            body: Members::new(len.min(MAX_PREALLOC)),
        })
    }
    fn collect_str<T: core::fmt::Display + ?Sized>(self, value: &T) -> Result<Value, Error> {
        Ok(Value::String(Key::from(value.to_string())))
    }
}

/// The items of a sequence, tuple or tuple struct.
pub(super) struct Items(Vec<Value>);

impl ser::SerializeSeq for Items {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.0.push(value.serialize(ValueSerializer)?);
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(Value::Array(self.0))
    }
}

impl ser::SerializeTuple for Items {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Value, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Items {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Value, Error> {
        ser::SerializeSeq::end(self)
    }
}

/// The members of a map or struct, and serde_json's private struct for a
/// number or raw JSON text when that is what is being serialized.
pub(super) struct Members {
    list: MemberList,
    /// The key given by `serialize_key`, waiting for its value.
    pending: Option<Key>,
    json: Option<&'static str>,
}

impl Members {
    fn new(capacity: usize) -> Members {
        Members {
            list: MemberList::with_capacity(capacity),
            pending: None,
            json: None,
        }
    }

    fn insert(&mut self, key: Key, value: Value) {
        self.list.insert(key, value);
    }

    fn finish(self) -> Result<Value, Error> {
        match self.json {
            Some(name) => json_value(name, self.list.into_map()),
            None => Ok(Value::Object(self.list.into_map())),
        }
    }
}

/// The value serde_json's private number or raw-value struct stands for.
fn json_value(name: &str, members: Map) -> Result<Value, Error> {
    let text = match members.as_slice() {
        [(key, Value::String(text))] if key.as_str() == name => text.as_str(),
        _ => {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                alloc::format!("`{name}` is serde_json's, and did not hold its one text"),
            ))
        }
    };
    if name == JSON_NUMBER {
        return number_literal(text);
    }
    raw_json(text)
}

#[cfg(feature = "serde_json")]
fn raw_json(text: &str) -> Result<Value, Error> {
    let json: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Error::new(ErrorKind::InvalidInput, e.to_string()))?;
    super::super::from_json(&json)
}

#[cfg(not(feature = "serde_json"))]
fn raw_json(_text: &str) -> Result<Value, Error> {
    Err(Error::new(
        ErrorKind::InvalidInput,
        "a serde_json `RawValue` needs gcf-core's `serde_json` feature",
    ))
}

impl ser::SerializeMap for Members {
    type Ok = Value;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.pending = Some(key.serialize(KeySerializer)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.pending.take().ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidInput,
                "a map value was serialized before its key",
            )
        })?;
        let value = value.serialize(ValueSerializer)?;
        self.insert(key, value);
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        self.finish()
    }
}

impl ser::SerializeStruct for Members {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        let value = value.serialize(ValueSerializer)?;
        self.insert(Key::new(key), value);
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        self.finish()
    }
}

/// A tuple or struct variant: `{"Variant": body}`.
pub(super) struct Variant<B> {
    name: &'static str,
    body: B,
}

/// `{"Variant": body}`, an enum variant with data (externally tagged).
fn variant(name: &'static str, body: Value) -> Value {
    let mut map = Map::with_capacity(1);
    map.push_unique(name, body);
    Value::Object(map)
}

impl ser::SerializeTupleVariant for Variant<Items> {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(&mut self.body, value)
    }
    fn end(self) -> Result<Value, Error> {
        Ok(variant(self.name, Value::Array(self.body.0)))
    }
}

impl ser::SerializeStructVariant for Variant<Members> {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(&mut self.body, key, value)
    }
    fn end(self) -> Result<Value, Error> {
        Ok(variant(self.name, self.body.finish()?))
    }
}

/// A map key as text: strings and chars as they are; integers, booleans
/// and finite floats written out; a unit variant its name; a newtype its
/// inner key. Anything else is refused, as serde_json refuses it.
pub(super) struct KeySerializer;

fn key_must_be_text() -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        "a map key must be a string, a number, a boolean or a unit variant",
    )
}

/// An integer key is its decimal text.
macro_rules! integer_keys {
    ($($method:ident: $ty:ty),* $(,)?) => {$(
        fn $method(self, v: $ty) -> Result<Key, Error> {
            Ok(Key::new(itoa::Buffer::new().format(v)))
        }
    )*};
}

fn float_key(v: f64, text: &str) -> Result<Key, Error> {
    if v.is_finite() {
        return Ok(Key::new(text));
    }
    Err(Error::new(
        ErrorKind::InvalidInput,
        "a float map key must be finite",
    ))
}

impl ser::Serializer for KeySerializer {
    type Ok = Key;
    type Error = Error;
    type SerializeSeq = Impossible<Key, Error>;
    type SerializeTuple = Impossible<Key, Error>;
    type SerializeTupleStruct = Impossible<Key, Error>;
    type SerializeTupleVariant = Impossible<Key, Error>;
    type SerializeMap = Impossible<Key, Error>;
    type SerializeStruct = Impossible<Key, Error>;
    type SerializeStructVariant = Impossible<Key, Error>;

    fn serialize_bool(self, v: bool) -> Result<Key, Error> {
        Ok(Key::new(if v { "true" } else { "false" }))
    }
    integer_keys! {
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128,
    }
    fn serialize_f32(self, v: f32) -> Result<Key, Error> {
        float_key(v.into(), ryu::Buffer::new().format(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Key, Error> {
        float_key(v, ryu::Buffer::new().format(v))
    }
    fn serialize_char(self, v: char) -> Result<Key, Error> {
        Ok(Key::new(v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_str(self, v: &str) -> Result<Key, Error> {
        Ok(Key::new(v))
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<Key, Error> {
        Err(key_must_be_text())
    }
    fn serialize_none(self) -> Result<Key, Error> {
        Err(key_must_be_text())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<Key, Error> {
        Err(key_must_be_text())
    }
    fn serialize_unit(self) -> Result<Key, Error> {
        Err(key_must_be_text())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Key, Error> {
        Err(key_must_be_text())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Key, Error> {
        Ok(Key::new(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Key, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<Key, Error> {
        Err(key_must_be_text())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_must_be_text())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_must_be_text())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_must_be_text())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_must_be_text())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_must_be_text())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(key_must_be_text())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_must_be_text())
    }
    fn collect_str<T: core::fmt::Display + ?Sized>(self, value: &T) -> Result<Key, Error> {
        Ok(Key::from(value.to_string()))
    }
}

/// A value tree serializes as the JSON value it stands for, so it can sit
/// inside a caller's own types and go to any serde format.
impl Serialize for Value {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Int(i) => serializer.serialize_i64(*i),
            Value::Float(f) => serializer.serialize_f64(*f),
            Value::String(s) => serializer.serialize_str(s.as_str()),
            Value::Array(items) => items.serialize(serializer),
            Value::Object(map) => map.serialize(serializer),
        }
    }
}

impl Serialize for Map {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (key, value) in self.iter() {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_past_int64_are_out_of_range() {
        for e in [
            int_cell(u64::MAX).unwrap_err(),
            int_cell(i128::MIN).unwrap_err(),
        ] {
            assert_eq!(e.kind(), ErrorKind::OutOfRange);
        }
        assert_eq!(int_cell(i64::MAX as u64).unwrap(), Cell::Int(i64::MAX));
    }
}
