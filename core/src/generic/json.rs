//! The bridge between [`Value`] and `serde_json::Value` (feature `serde_json`).
//!
//! A number is what serde_json holds: an integer within int64 (spec §2.3.2;
//! one past it, a `u64`, is `out_of_range`) or a double (serde_json reads an
//! integer literal past `u64` as a double, as it does for the caller's own
//! code). When another crate of the build turns on serde_json's
//! `arbitrary_precision` (this one does not: it changes how a program's own
//! types deserialize), a number keeps its literal: an integer literal is
//! classified by its lexeme (no `.`, no exponent) and must fit int64, and a
//! double is the literal's correctly rounded value.
//!
//! Why this exists beside `gcf-bind`'s serde models: those read JSON *text*
//! straight into core types (with the bindings' error model); this walks an
//! in-memory `serde_json::Value` both ways, which the differential tests
//! (`interop`), the benchmarks' workloads, the fuzz targets and the
//! conformance cross-check (`spec-tests/tests/serde_model.rs`, which holds
//! the two against each other) need.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::number::{out_of_range_message, parse_number, NumberError, ParsedNumber};

use super::{Build, Decoder, Key, Map, Value};

/// Converts a `serde_json::Value` into a [`Value`].
///
/// Fails with [`ErrorKind::OutOfRange`] for an integer literal outside `int64`
/// (the message names the value and the remedy: model it as a string) or a
/// number that overflows a double, and with [`ErrorKind::LimitExceeded`] past
/// the default [`Limits::max_depth`].
///
/// ```
/// use gcf_core::generic::{self, Value};
/// use gcf_core::ErrorKind;
///
/// let v: serde_json::Value = serde_json::from_str(r#"{"id": 9223372036854775807, "x": 1.5}"#).unwrap();
/// let value = generic::from_json(&v)?;
/// assert_eq!(value.as_object().unwrap().get("id"), Some(&Value::Int(i64::MAX)));
/// assert_eq!(generic::encode(&value)?, "GCF profile=generic\nid=9223372036854775807\nx=1.5\n");
///
/// let big: serde_json::Value = serde_json::from_str("18446744073709551615").unwrap();
/// assert_eq!(generic::from_json(&big).unwrap_err().kind(), ErrorKind::OutOfRange);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn from_json(v: &serde_json::Value) -> Result<Value, Error> {
    convert(v, Limits::default().max_depth)
}

fn convert(v: &serde_json::Value, depth_left: usize) -> Result<Value, Error> {
    Ok(match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => number(n)?,
        serde_json::Value::String(s) => Value::from(s.as_str()),
        serde_json::Value::Array(items) => {
            let depth_left = descend(depth_left)?;
            Value::Array(
                items
                    .iter()
                    .map(|i| convert(i, depth_left))
                    .collect::<Result<Vec<_>, _>>()?,
            )
        }
        serde_json::Value::Object(members) => {
            let depth_left = descend(depth_left)?;
            let mut map = Map::with_capacity(members.len());
            for (k, v) in members {
                // serde_json's map holds unique keys, so no duplicate check is needed.
                map.push_unique(k.as_str(), convert(v, depth_left)?);
            }
            Value::Object(map)
        }
    })
}

fn descend(depth_left: usize) -> Result<usize, Error> {
    crate::stack::check(Limits::default().max_depth.saturating_sub(depth_left) + 1)?;
    depth_left.checked_sub(1).ok_or_else(|| {
        Error::new(
            ErrorKind::LimitExceeded,
            "JSON value nests deeper than the maximum depth",
        )
    })
}

fn number(n: &serde_json::Number) -> Result<Value, Error> {
    if !literals_kept() {
        // serde_json holds an i64, a u64 or a double: the value the
        // caller's program reads from it.
        return held(n);
    }
    // With `arbitrary_precision` (which another crate of the build turned
    // on) the number is its literal: an integer literal is classified by
    // its lexeme, a double is the literal's correctly rounded value.
    let mut text = LiteralText::default();
    let owned;
    let literal = if core::fmt::write(&mut text, format_args!("{n}")).is_ok() {
        text.as_str()
    } else {
        owned = alloc::string::ToString::to_string(n);
        owned.as_str()
    };
    let integral = !literal.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'));
    match parse_number(literal) {
        Ok(ParsedNumber::Int(i)) => Ok(Value::Int(i)),
        Ok(ParsedNumber::Float(f)) => Ok(Value::Float(f)),
        Err(NumberError::OutOfRange) if integral => Err(Error::new(
            ErrorKind::OutOfRange,
            out_of_range_message(literal),
        )),
        Err(NumberError::OutOfRange) => Err(Error::new(
            ErrorKind::OutOfRange,
            crate::number::double_out_of_range_message(literal),
        )),
        Err(NumberError::NotANumber) => held(n),
    }
}

/// Whether serde_json keeps each number as its literal: its
/// `arbitrary_precision` feature, which this crate does not turn on (a
/// dependency must not change how its user's own serde_json reads numbers:
/// untagged and flattened floats fail to deserialize under it), but which
/// another crate of the build may. Asked once, of serde_json itself.
fn literals_kept() -> bool {
    static KEPT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *KEPT.get_or_init(|| {
        serde_json::from_str::<serde_json::Number>("1.50")
            .is_ok_and(|n| alloc::string::ToString::to_string(&n) == "1.50")
    })
}

/// A literal short enough for the stack (every shortest double's and
/// int64's is).
#[derive(Default)]
struct LiteralText {
    bytes: [u8; 32],
    len: usize,
}

impl LiteralText {
    fn as_str(&self) -> &str {
        // Only whole `str`s are written in.
        core::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl core::fmt::Write for LiteralText {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len + s.len();
        let room = self.bytes.get_mut(self.len..end).ok_or(core::fmt::Error)?;
        room.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// The number serde_json holds: an i64, a u64 (past int64: out of range)
/// or a double.
fn held(n: &serde_json::Number) -> Result<Value, Error> {
    if let Some(i) = n.as_i64() {
        return Ok(Value::Int(i));
    }
    if n.as_u64().is_some() {
        return Err(Error::new(
            ErrorKind::OutOfRange,
            out_of_range_message(&alloc::string::ToString::to_string(n)),
        ));
    }
    match n.as_f64() {
        Some(f) if f.is_finite() => Ok(Value::Float(f)),
        _ => Err(Error::new(
            ErrorKind::OutOfRange,
            alloc::format!(
                "number {} is not a finite double",
                crate::error::excerpt(&alloc::string::ToString::to_string(n))
            ),
        )),
    }
}

/// Builds `serde_json::Value`s straight from the decoder ([`Build`]), as
/// [`to_json`] would convert the decoded tree, without that tree.
#[derive(Debug, Default)]
struct JsonBuilder {
    /// Each table's keys as `String`s, kept while its rows come (`table`
    /// numbers them): one `String` per key per table to copy from, rather
    /// than a `Key`-to-`String` conversion per cell.
    table: Option<usize>,
    keys: Vec<String>,
}

impl Build for JsonBuilder {
    type Value = serde_json::Value;

    #[inline]
    fn scalar(&mut self, value: Value) -> serde_json::Value {
        to_json(&value)
    }

    #[inline]
    fn string(&mut self, text: &str) -> serde_json::Value {
        serde_json::Value::String(String::from(text))
    }

    #[inline]
    fn repeated(&mut self, value: &Value) -> serde_json::Value {
        to_json(value)
    }

    #[inline]
    fn array(&mut self, items: Vec<serde_json::Value>) -> serde_json::Value {
        serde_json::Value::Array(items)
    }

    fn object(&mut self, mut members: Vec<(Key, serde_json::Value)>) -> serde_json::Value {
        self.object_from(&mut members)
    }

    fn object_from(&mut self, members: &mut Vec<(Key, serde_json::Value)>) -> serde_json::Value {
        let mut map = serde_json::Map::with_capacity(members.len());
        for (k, v) in members.drain(..) {
            map.insert(String::from(k.as_str()), v);
        }
        serde_json::Value::Object(map)
    }

    fn row(
        &mut self,
        table: usize,
        keys: &[Key],
        values: &mut Vec<serde_json::Value>,
    ) -> serde_json::Value {
        if self.table != Some(table) || self.keys.len() != keys.len() {
            self.table = Some(table);
            self.keys.clear();
            self.keys
                .extend(keys.iter().map(|k| String::from(k.as_str())));
        }
        let mut map = serde_json::Map::with_capacity(keys.len());
        for (k, v) in self.keys.iter().zip(values.drain(..)) {
            map.insert(k.clone(), v);
        }
        serde_json::Value::Object(map)
    }
}

impl Decoder {
    /// Decodes a generic payload into a `serde_json::Value`: what
    /// [`to_json`] makes of [`decode`](Self::decode)'s value, built straight
    /// from the text, with the same errors.
    ///
    /// ```
    /// use gcf_core::generic::Decoder;
    /// let v = Decoder::new().decode_json("GCF profile=generic\n## rows [2]{id,ok}\n1|true\n2|false\n")?;
    /// assert_eq!(v, serde_json::json!({"rows": [{"id": 1, "ok": true}, {"id": 2, "ok": false}]}));
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn decode_json(&self, input: &str) -> Result<serde_json::Value, Error> {
        self.decode_into(input, &mut JsonBuilder::default())
    }
}

/// Converts a [`Value`] into a `serde_json::Value`.
///
/// Integers stay integers; a double stays a double (serde_json may print an
/// integral double as `1.0`). A non-finite double (which no decoder produces)
/// becomes `null`, as serde_json cannot hold it.
///
/// ```
/// use gcf_core::generic::{self, Value};
/// let json = generic::to_json(&Value::Array(vec![Value::Int(1), Value::from("a")]));
/// assert_eq!(json, serde_json::json!([1, "a"]));
/// ```
pub fn to_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Int(i) => serde_json::Value::Number((*i).into()),
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
        Value::String(s) => serde_json::Value::String(String::from(s.as_str())),
        Value::Array(items) => serde_json::Value::Array(items.iter().map(to_json).collect()),
        Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .map(|(k, v)| (String::from(k), to_json(v)))
                .collect(),
        ),
    }
}

/// A keyed set from `{"name", "key", "fields": [...], "rows": [{...}]}`, the
/// shape of the generic delta fixtures and of the CLI's and C ABI's inputs.
///
/// `key` (the identity field) and `rows` are required. For hand-written input, `name`
/// defaults to `rows` and `fields` to the keys of the first row.
///
/// ```
/// let set = gcf_core::generic::keyed_set_from_json(&serde_json::json!(
///     {"key": "id", "rows": [{"id": 1, "total": 9.5}]}))?;
/// assert_eq!((set.name.as_str(), set.fields.len()), ("rows", 2));
/// assert!(gcf_core::generic::keyed_set_from_json(&serde_json::json!({"rows": []})).is_err());
/// assert!(gcf_core::generic::keyed_set_from_json(&serde_json::json!({"key": "id"})).is_err());
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn keyed_set_from_json(v: &serde_json::Value) -> Result<super::KeyedSet, Error> {
    let o = v
        .as_object()
        .ok_or_else(|| invalid("keyed set", "an object"))?;
    let key = text_field(o, "key")?;
    if key.is_empty() {
        return Err(invalid("key", "the name of the identity field"));
    }
    if !o.get("rows").is_some_and(serde_json::Value::is_array) {
        return Err(invalid("rows", "an array of objects"));
    }
    let rows = rows_field(o, "rows")?;
    let mut fields = strings_field(o, "fields")?;
    if fields.is_empty() {
        fields = rows
            .first()
            .map(|r| r.keys().map(String::from).collect())
            .unwrap_or_default();
    }
    let name = match text_field(o, "name")? {
        n if n.is_empty() => String::from("rows"),
        n => n,
    };
    Ok(super::KeyedSet {
        name,
        key,
        fields,
        rows,
    })
}

/// The JSON form of a keyed set, `{"name", "key", "fields", "rows"}`: the
/// shape [`keyed_set_from_json`] reads, so the two round-trip. Rows keep their
/// member order; integers stay exact.
///
/// ```
/// use gcf_core::generic::{keyed_set_from_json, keyed_set_to_json};
/// let json = serde_json::json!(
///     {"name": "orders", "key": "id", "fields": ["id", "total"], "rows": [{"id": 1, "total": 9.5}]});
/// let set = keyed_set_from_json(&json)?;
/// assert_eq!(keyed_set_to_json(&set), json);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn keyed_set_to_json(set: &super::KeyedSet) -> serde_json::Value {
    let mut o = serde_json::Map::new();
    o.insert("name".into(), serde_json::Value::String(set.name.clone()));
    o.insert("key".into(), serde_json::Value::String(set.key.clone()));
    o.insert(
        "fields".into(),
        serde_json::Value::Array(
            set.fields
                .iter()
                .map(|f| serde_json::Value::String(f.clone()))
                .collect(),
        ),
    );
    o.insert(
        "rows".into(),
        serde_json::Value::Array(
            set.rows
                .iter()
                .map(|row| {
                    serde_json::Value::Object(
                        row.iter()
                            .map(|(k, v)| (String::from(k), to_json(v)))
                            .collect(),
                    )
                })
                .collect(),
        ),
    );
    serde_json::Value::Object(o)
}

/// A generic delta from `{"tool", "key", "fields", "baseRoot", "newRoot",
/// "added", "changed", "removed", "deltaTokens", "fullTokens"}`.
pub fn generic_delta_from_json(v: &serde_json::Value) -> Result<super::GenericDelta, Error> {
    let o = v.as_object().ok_or_else(|| invalid("delta", "an object"))?;
    let removed = match o.get("removed") {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::Array(ids)) => {
            ids.iter().map(from_json).collect::<Result<_, _>>()?
        }
        Some(_) => return Err(invalid("removed", "an array")),
    };
    let count = |key: &str| match o.get(key) {
        None | Some(serde_json::Value::Null) => Ok(0),
        Some(n) => n
            .as_u64()
            .ok_or_else(|| invalid(key, "a non-negative integer")),
    };
    Ok(super::GenericDelta {
        tool: text_field(o, "tool")?,
        key: text_field(o, "key")?,
        fields: strings_field(o, "fields")?,
        base_root: text_field(o, "baseRoot")?,
        new_root: text_field(o, "newRoot")?,
        added: rows_field(o, "added")?,
        changed: rows_field(o, "changed")?,
        removed,
        delta_tokens: count("deltaTokens")?,
        full_tokens: count("fullTokens")?,
    })
}

fn invalid(what: &str, shape: &str) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        alloc::format!("`{what}` must be {shape}"),
    )
}

fn text_field(o: &serde_json::Map<String, serde_json::Value>, key: &str) -> Result<String, Error> {
    match o.get(key) {
        None | Some(serde_json::Value::Null) => Ok(String::new()),
        Some(serde_json::Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(invalid(key, "a string")),
    }
}

fn strings_field(
    o: &serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Result<Vec<String>, Error> {
    match o.get(key) {
        None | Some(serde_json::Value::Null) => Ok(Vec::new()),
        Some(serde_json::Value::Array(a)) => a
            .iter()
            .map(|s| {
                s.as_str()
                    .map(String::from)
                    .ok_or_else(|| invalid(key, "an array of strings"))
            })
            .collect(),
        Some(_) => Err(invalid(key, "an array of strings")),
    }
}

fn rows_field(
    o: &serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Result<Vec<Map>, Error> {
    match o.get(key) {
        None | Some(serde_json::Value::Null) => Ok(Vec::new()),
        Some(serde_json::Value::Array(rows)) => rows
            .iter()
            .map(|r| match from_json(r)? {
                Value::Object(m) => Ok(m),
                _ => Err(invalid(key, "an array of objects")),
            })
            .collect(),
        Some(_) => Err(invalid(key, "an array of objects")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> serde_json::Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn integers_are_exact_and_bounded() {
        assert_eq!(
            from_json(&parse("-9223372036854775808")).unwrap(),
            Value::Int(i64::MIN)
        );
        let err = from_json(&parse("9223372036854775808")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::OutOfRange);
        assert!(err.message().contains("9223372036854775808") && err.message().contains("string"));
        assert!(matches!(from_json(&parse("1.0")).unwrap(), Value::Float(f) if f == 1.0));
        // With each number's literal kept (`arbitrary_precision`, which this
        // crate's tests see when the workspace builds them with gcf-compat's),
        // a literal past a double is ours to refuse; without it serde_json
        // refuses it itself, and an integer past u64 is the double it read.
        if literals_kept() {
            assert!(matches!(
                from_json(&parse("1e400")).unwrap_err().kind(),
                ErrorKind::OutOfRange
            ));
            assert_eq!(
                from_json(&parse("100000000000000000000"))
                    .unwrap_err()
                    .kind(),
                ErrorKind::OutOfRange
            );
        } else {
            assert!(serde_json::from_str::<serde_json::Value>("1e400").is_err());
            assert_eq!(
                from_json(&parse("100000000000000000000")).unwrap(),
                Value::Float(1e20)
            );
        }
    }

    #[test]
    fn order_and_round_trip() {
        let j = parse(r#"{"z":1,"a":[true,null,"x"],"m":{"k":2.5}}"#);
        let v = from_json(&j).unwrap();
        assert_eq!(
            v.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["z", "a", "m"]
        );
        assert_eq!(to_json(&v), j);
    }

    #[test]
    fn keyed_set_round_trips() {
        let j = parse(
            r#"{"name":"orders","key":"id","fields":["id","total","note"],
                "rows":[{"total":59.98,"id":9223372036854775807,"note":null},
                        {"id":"k2","total":[1,{"x":true}]}]}"#,
        );
        let set = keyed_set_from_json(&j).unwrap();
        let back = keyed_set_to_json(&set);
        assert_eq!(back, j);
        assert_eq!(keyed_set_from_json(&back).unwrap(), set);
        // Member order of a row is kept (serde_json here preserves order).
        let first = back["rows"][0].as_object().unwrap();
        assert_eq!(first.keys().collect::<Vec<_>>(), ["total", "id", "note"]);
        // Defaults are made explicit, so the output always carries every member.
        let minimal = keyed_set_from_json(&parse(r#"{"key":"id","rows":[{"id":1}]}"#)).unwrap();
        assert_eq!(
            keyed_set_to_json(&minimal),
            parse(r#"{"name":"rows","key":"id","fields":["id"],"rows":[{"id":1}]}"#)
        );
    }

    #[test]
    fn depth_is_bounded() {
        let mut j = serde_json::Value::Null;
        for _ in 0..200 {
            j = serde_json::Value::Array(alloc::vec![j]);
        }
        assert_eq!(from_json(&j).unwrap_err().kind(), ErrorKind::LimitExceeded);
    }
}
