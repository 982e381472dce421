//! The generic profile's [`Value`] through serde: a visitor that keeps key
//! order, reads integers exactly and bounds depth, and a serializer.
//!
//! Integers: the spec's numeric domain (§2.3.2) is `int64` for a literal
//! without fraction or exponent, a double otherwise, and a bare integer
//! beyond `int64` must fail with `out_of_range` rather than turn into a
//! double. serde hands a visitor `i64`, `u64` or `f64` without the literal,
//! so the visitor decides what it can (`u64` above `i64::MAX` is out of
//! range) and notes the one case it cannot: a double of magnitude `>= 2^63`
//! may have been a bare integer literal too large for `u64`, or a genuine
//! `1e20`. Only then does [`from_slice`] look at the text again
//! ([`big_integer_literal`]) to tell them apart, so the common path costs
//! nothing and `arbitrary_precision` is not needed. When another crate of
//! the same build does turn that feature on, serde_json hands numbers over
//! as their literal (a one-member map with a private key), which the
//! visitor parses exactly as well.
//!
//! Hosts that are not JSON text (a JavaScript object, a Python dict) hand
//! their numbers over typed, so for them the visitor's rules are the whole
//! story.

use std::cell::Cell;
use std::fmt;

use gcf_core::generic::{Key, Map, Value};
use gcf_core::{
    int64_out_of_range_message as out_of_range_message, parse_number, NumberError, ParsedNumber,
};
use gcf_core::{ErrorKind, Limits};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::failure::{tagged, Failure};

/// serde_json's key for a number under `arbitrary_precision`. The readers
/// here take an object whose first key is this as a number (whether or not
/// the build turned the feature on), so a host reader of its own that wants
/// their answer leaves such an object to them.
pub const NUMBER_TOKEN: &str = "$serde_json::private::Number";

thread_local! {
    /// Set by the visitor when a double could have been a bare integer
    /// literal beyond `u64`; read and cleared by [`read`].
    static AMBIGUOUS: Cell<bool> = const { Cell::new(false) };
}

/// Parses JSON text into `T` (any type of this crate's models, or a plain
/// serde type), with the exact-integer check of the module docs.
pub fn read<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, Failure> {
    // One validation pass over the whole text is several times cheaper
    // than serde_json's check of every string on its own (a tenth of a
    // generic encode). Invalid text keeps the byte reader, so its error and
    // position are serde_json's as before.
    match std::str::from_utf8(bytes) {
        Ok(text) => read_str(text),
        Err(_) => read_with(|| serde_json::Deserializer::from_slice(bytes), bytes),
    }
}

/// [`read`] of text the caller already holds as `str` (a host string), so
/// the UTF-8 pass is not repeated.
///
/// It instantiates each model for serde_json's `str` reader only: a host
/// that reads every model through here (the WebAssembly engine) carries one
/// copy of each, not a second one for bytes (57 KB of the module).
pub fn read_str<'de, T: Deserialize<'de>>(text: &'de str) -> Result<T, Failure> {
    read_with(|| serde_json::Deserializer::from_str(text), text.as_bytes())
}

/// [`read`] through the serde_json reader `new` makes over `bytes`.
fn read_with<'de, R, T>(
    new: impl Fn() -> serde_json::Deserializer<R>,
    bytes: &'de [u8],
) -> Result<T, Failure>
where
    R: serde_json::de::Read<'de>,
    T: Deserialize<'de>,
{
    AMBIGUOUS.with(|a| a.set(false));
    let whole = |mut de: serde_json::Deserializer<R>| {
        T::deserialize(&mut de).and_then(|v| de.end().map(|()| v))
    };
    let value = match whole(new()) {
        // serde_json's guard refuses the 128th nested container (and a
        // model's own wrapping eats into its budget), while the encoder and
        // decoder take `Limits::max_depth` = 128 levels of value: a value
        // decoded at the limit must encode again. So text that trips the
        // guard is read once more with the guard off, after a scan has
        // bounded its nesting, and the visitor's own count decides. The
        // common path pays nothing for this.
        Err(e) if e.to_string().starts_with(RECURSION_LIMIT) => {
            if let Some(f) = too_deep(bytes, Limits::default().max_depth + MODEL_NESTING) {
                return Err(f.with_json_path(bytes));
            }
            AMBIGUOUS.with(|a| a.set(false));
            let mut de = new();
            de.disable_recursion_limit();
            whole(de)
        }
        other => other,
    };
    let ambiguous = AMBIGUOUS.with(|a| a.replace(false));
    // Even when parsing failed: a big literal earlier in the text is the
    // first error a reader would want to see.
    if ambiguous {
        if let Some(f) = big_integer_literal(bytes) {
            return Err(f.with_json_path(bytes));
        }
    }
    value.map_err(|e| {
        let f = Failure::from_json_in(&e, bytes);
        // serde points after the literal; the scan points at its start,
        // whichever way the number reached the visitor.
        match f.category {
            "out_of_range" => big_integer_literal(bytes).map_or(f, |f| f.with_json_path(bytes)),
            _ => f,
        }
    })
}

/// [`read`] for a model that must be a JSON object: serde would also build
/// a struct from an array of its fields in order, which a payload given as
/// `[]` should not silently become.
pub fn read_object<'de, T: Deserialize<'de>>(bytes: &'de [u8], what: &str) -> Result<T, Failure> {
    let mut line = 1;
    let mut line_start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b' ' | b'\t' | b'\r' => {}
            b'{' => break,
            _ => {
                let mut f = Failure::shape(format!("{what} must be a JSON object"));
                f.line = Some(line);
                f.column = Some((i - line_start + 1) as u64);
                return Err(f);
            }
        }
    }
    read(bytes)
}

/// A generic [`Value`] from JSON text.
///
/// ```
/// use gcf_core::generic::Value;
/// let v = gcf_bind::value::from_slice(br#"{"b": 9223372036854775807, "a": 1e20}"#)?;
/// let o = v.as_object().unwrap();
/// assert_eq!(o.keys().collect::<Vec<_>>(), ["b", "a"]);
/// assert_eq!(o.get("b"), Some(&Value::Int(i64::MAX)));
/// let e = gcf_bind::value::from_slice(b"[100000000000000000000]").unwrap_err();
/// assert_eq!(e.category, "out_of_range");
/// # Ok::<(), gcf_bind::Failure>(())
/// ```
pub fn from_slice(bytes: &[u8]) -> Result<Value, Failure> {
    match std::str::from_utf8(bytes) {
        Ok(text) => from_str(text),
        Err(_) => read::<JsonValue>(bytes).map(|v| v.0),
    }
}

/// [`from_slice`] of a `str`, without validating its UTF-8 again.
///
/// ```
/// let v = gcf_bind::value::from_str(r#"{"a": [1, "x"]}"#)?;
/// assert_eq!(v, gcf_bind::value::from_slice(br#"{"a": [1, "x"]}"#)?);
/// assert_eq!(gcf_bind::value::from_str("[1,").unwrap_err().category, "json");
/// # Ok::<(), gcf_bind::Failure>(())
/// ```
pub fn from_str(text: &str) -> Result<Value, Failure> {
    // The direct reader takes valid text; the serde reader decides the rest
    // and reports every failure (see `value_reader`).
    match crate::value_reader::read(text) {
        Some(v) => Ok(v),
        None => serde_str(text),
    }
}

/// [`from_str`] through serde alone: the reader that reports failures, and
/// the one the direct reader is tested against.
pub(crate) fn serde_str(text: &str) -> Result<Value, Failure> {
    // Past the depth limit, the message and position of the value's own
    // limit, however deep the text goes (the reader's guard for text nested
    // past what any model wraps would speak of containers).
    if let Some(mut f) = too_deep(text.as_bytes(), Limits::DEFAULT.max_depth) {
        f.message = VALUE_TOO_DEEP.to_owned();
        return Err(f.with_json_path(text.as_bytes()));
    }
    read_str::<JsonValue>(text).map(|v| v.0)
}

/// The failure of a value nested past `Limits::max_depth`, in the words the
/// JS layer uses for a value it walks itself.
const VALUE_TOO_DEEP: &str = "value nests deeper than 128 levels";
const _: () = assert!(Limits::DEFAULT.max_depth == 128);

/// A [`Value`] that deserializes with this module's rules; use it as a field
/// type, or through [`from_slice`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JsonValue(pub Value);

impl<'de> Deserialize<'de> for JsonValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let hints = Hints::new();
        ValueSeed {
            depth_left: Limits::default().max_depth,
            depth: 0,
            hints: &hints,
        }
        .deserialize(d)
        .map(JsonValue)
    }
}

/// An object [`Map`] with this module's rules (rows of keyed sets, records
/// of streams).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JsonObject(pub Map);

impl<'de> Deserialize<'de> for JsonObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match JsonValue::deserialize(d)?.0 {
            Value::Object(m) => Ok(JsonObject(m)),
            _ => Err(de::Error::custom(tagged(
                ErrorKind::InvalidInput,
                "expected an object",
            ))),
        }
    }
}

/// Depths for which [`Hints`] remembers sizes; deeper containers start
/// empty.
const HINTED_DEPTHS: usize = 16;

/// The size of the last object and of the last array closed at each depth.
///
/// serde_json gives no size hint, and records repeat their shape: the row
/// objects of an array have the same number of members, their nested
/// objects too. Starting each container at its predecessor's size spares
/// the reallocations (and the copies) of growing from a guess.
///
/// Memory stays bounded by the input: a container's length is the hint of
/// at most one later container (which then records its own), and hints are
/// capped like a host's, so all the capacity a parse reserves is at most
/// twice the members it read plus one default guess per container.
struct Hints {
    objects: [Cell<u16>; HINTED_DEPTHS],
    arrays: [Cell<u16>; HINTED_DEPTHS],
}

impl Hints {
    fn new() -> Hints {
        Hints {
            objects: std::array::from_fn(|_| Cell::new(0)),
            arrays: std::array::from_fn(|_| Cell::new(0)),
        }
    }
}

/// The size last seen at `depth` (0 for none yet, or too deep to track).
fn hint(cells: &[Cell<u16>; HINTED_DEPTHS], depth: usize) -> usize {
    cells.get(depth).map_or(0, |c| usize::from(c.get()))
}

fn remember(cells: &[Cell<u16>; HINTED_DEPTHS], depth: usize, len: usize) {
    if let Some(c) = cells.get(depth) {
        c.set(u16::try_from(len).unwrap_or(u16::MAX));
    }
}

/// The seed that carries the remaining depth down the tree.
#[derive(Clone, Copy)]
struct ValueSeed<'h> {
    depth_left: usize,
    /// Nesting from the top (0 for the root), to index [`Hints`].
    depth: usize,
    hints: &'h Hints,
}

impl<'h> ValueSeed<'h> {
    fn descend<E: de::Error>(self) -> Result<ValueSeed<'h>, E> {
        if gcf_core::stack::exhausted(self.depth + 1) {
            return Err(E::custom(tagged(
                ErrorKind::LimitExceeded,
                gcf_core::stack::message(self.depth + 1),
            )));
        }
        match self.depth_left.checked_sub(1) {
            Some(depth_left) => Ok(ValueSeed {
                depth_left,
                depth: self.depth + 1,
                hints: self.hints,
            }),
            None => Err(E::custom(tagged(ErrorKind::LimitExceeded, VALUE_TOO_DEEP))),
        }
    }
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

fn out_of_range<E: de::Error>(literal: impl fmt::Display) -> E {
    E::custom(tagged(
        ErrorKind::OutOfRange,
        out_of_range_message(&literal.to_string()),
    ))
}

fn float<E: de::Error>(f: f64) -> Result<Value, E> {
    if !f.is_finite() {
        return Err(E::custom(tagged(
            ErrorKind::OutOfRange,
            format!("number {f} is not a finite double"),
        )));
    }
    if f.abs() >= 9_223_372_036_854_775_808.0 {
        AMBIGUOUS.with(|a| a.set(true));
    }
    Ok(Value::Float(f))
}

fn literal<E: de::Error>(text: &str) -> Result<Value, E> {
    match parse_number(text) {
        Ok(ParsedNumber::Int(i)) => Ok(Value::Int(i)),
        Ok(ParsedNumber::Float(f)) => Ok(Value::Float(f)),
        Err(NumberError::OutOfRange) if !text.contains(['.', 'e', 'E']) => Err(out_of_range(text)),
        Err(_) => Err(E::custom(tagged(
            ErrorKind::OutOfRange,
            gcf_core::double_out_of_range_message(text),
        ))),
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Int(i))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Value, E> {
        i64::try_from(u)
            .map(Value::Int)
            .map_err(|_| out_of_range(u))
    }

    fn visit_i128<E: de::Error>(self, i: i128) -> Result<Value, E> {
        i64::try_from(i)
            .map(Value::Int)
            .map_err(|_| out_of_range(i))
    }

    fn visit_u128<E: de::Error>(self, u: u128) -> Result<Value, E> {
        i64::try_from(u)
            .map(Value::Int)
            .map_err(|_| out_of_range(u))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Value, E> {
        float(f)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::from(s))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::from(s))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.descend()?;
        // A hint from the host is not trusted for more than a page of items.
        let guess = seq
            .size_hint()
            .unwrap_or_else(|| hint(&self.hints.arrays, self.depth));
        let mut items = Vec::with_capacity(guess.min(4096));
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        remember(&self.hints.arrays, self.depth, items.len());
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Some(first) = map.next_key_seed(KeySeed)? else {
            self.descend::<A::Error>()?;
            return Ok(Value::Object(Map::new()));
        };
        if first.as_str() == NUMBER_TOKEN {
            let text: std::borrow::Cow<'de, str> = map.next_value()?;
            return literal(&text);
        }
        let inner = self.descend()?;
        // The host's hint counts the members after the first.
        let guess = map
            .size_hint()
            .map(|n| n.saturating_add(1))
            .unwrap_or_else(|| match hint(&self.hints.objects, self.depth) {
                0 => 8,
                n => n,
            });
        let mut entries = Map::with_capacity(guess.min(4096));
        entries.push_unique(first, map.next_value_seed(inner)?);
        while let Some(key) = map.next_key_seed(KeySeed)? {
            entries.push_unique(key, map.next_value_seed(inner)?);
        }
        remember(&self.hints.objects, self.depth, entries.len());
        Ok(Value::Object(last_wins(entries)))
    }
}

/// JSON allows a key twice; like serde_json's own map, the last value wins,
/// at the first occurrence's position. Checked after the fact because
/// duplicates are rare and a linear lookup per member is quadratic. Public
/// for host readers of their own (the JS engine's packed values), so every
/// route into a [`Value`] treats a repeated key alike.
pub fn last_wins(map: Map) -> Map {
    let n = map.len();
    let unique = if n <= SMALL_OBJECT {
        // Comparing every pair of keys was a twentieth of a generic encode.
        // A key whose fingerprint lands on a bit no earlier key set cannot
        // repeat one; only the others are compared, and only with keys of
        // the same fingerprint.
        let keys = map.as_slice();
        let mut prints = [0u64; SMALL_OBJECT];
        let mut seen = 0u64;
        let mut unique = true;
        for i in 0..n {
            let p = fingerprint(keys[i].0.as_str());
            prints[i] = p;
            let bit = 1u64 << (p.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58);
            if seen & bit != 0 && (0..i).any(|j| prints[j] == p && keys[j].0 == keys[i].0) {
                unique = false;
                break;
            }
            seen |= bit;
        }
        unique
    } else {
        let mut seen = std::collections::HashSet::with_capacity_and_hasher(
            n,
            gcf_core::hash::HashState::new(),
        );
        map.keys().all(|k| seen.insert(k))
    };
    if unique {
        return map;
    }
    let entries = map.into_vec();
    let mut out = Map::with_capacity(n);
    if n <= SMALL_OBJECT {
        for (k, v) in entries {
            out.insert(k, v);
        }
        return out;
    }
    // A wide object: `insert` scans the members for each key, quadratic in
    // the width (a 200,000-member object with every key twice took 26 s).
    // Each key's first position instead, found by hash, then the last value
    // written there.
    let mut first: std::collections::HashMap<&str, usize, gcf_core::hash::HashState> =
        std::collections::HashMap::with_capacity_and_hasher(n, gcf_core::hash::HashState::new());
    let slots: Vec<usize> = entries
        .iter()
        .map(|(k, _)| {
            let next = first.len();
            *first.entry(k.as_str()).or_insert(next)
        })
        .collect();
    let mut members: Vec<Option<(Key, Value)>> = (0..first.len()).map(|_| None).collect();
    for ((k, v), slot) in entries.into_iter().zip(slots) {
        match &mut members[slot] {
            Some(member) => member.1 = v,
            empty => *empty = Some((k, v)),
        }
    }
    for (k, v) in members.into_iter().flatten() {
        out.push_unique(k, v);
    }
    out
}

/// Objects up to this many members are checked pairwise, larger ones with a
/// hash set.
const SMALL_OBJECT: usize = 16;

/// Equal for equal text, and unequal for most distinct keys: the length
/// and the first, middle and last bytes (no copies, no loop).
fn fingerprint(key: &str) -> u64 {
    let b = key.as_bytes();
    let n = b.len();
    let at = |i: usize| b.get(i).map_or(0, |&x| u64::from(x));
    (n as u64) | at(0) << 40 | at(n / 2) << 48 | at(n.wrapping_sub(1)) << 56
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Key, E> {
        Ok(Key::new(s))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Key, E> {
        Ok(Key::from(s))
    }
}

/// serde_json's message when its recursion guard trips.
const RECURSION_LIMIT: &str = "recursion limit exceeded";

/// Levels of JSON nesting a model may add around its values (an operation's
/// input object, a list of records, a record): enough for every model of
/// this crate, and small enough that the stack stays bounded for those that
/// hold a plain `serde_json::Value`, which counts no depth of its own.
const MODEL_NESTING: usize = 16;

/// A `limit_exceeded` failure at the first `[` or `{` of JSON text nested
/// more than `max` containers deep (strings skipped with their escapes);
/// `None` if the text stays within `max`. Iterative, so any depth is safe.
fn too_deep(text: &[u8], max: usize) -> Option<Failure> {
    let (mut i, mut line, mut line_start, mut depth) = (0usize, 1u64, 0usize, 0usize);
    while i < text.len() {
        match text[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'"' => {
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    let mut f = Failure::from(gcf_core::Error::new(
                        ErrorKind::LimitExceeded,
                        format!("JSON text nests deeper than {max} containers"),
                    ));
                    f.line = Some(line);
                    f.column = Some((i - line_start + 1) as u64);
                    return Some(f);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The first bare integer literal outside `int64` in JSON text, as an
/// `out_of_range` failure at its line and column; `None` if there is none.
///
/// Strings are skipped (with their escapes); a number token is a run of
/// `-+.eE0-9` outside strings, and it is "bare" when it has no `.`, `e` or
/// `E`.
pub fn big_integer_literal(text: &[u8]) -> Option<Failure> {
    let (mut i, mut line, mut line_start) = (0usize, 1u64, 0usize);
    while i < text.len() {
        match text[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
                i += 1;
            }
            b'"' => {
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < text.len()
                    && matches!(text[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                let token = std::str::from_utf8(&text[start..i]).unwrap_or("");
                let bare = !token.contains(['.', 'e', 'E']);
                if bare && parse_number(token) == Err(NumberError::OutOfRange) {
                    let mut f = Failure::from(gcf_core::Error::new(
                        ErrorKind::OutOfRange,
                        out_of_range_message(token),
                    ));
                    f.line = Some(line);
                    f.column = Some((start - line_start + 1) as u64);
                    return Some(f);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// Serializes a [`Value`]: integers as integers, doubles as doubles (a
/// non-finite double, which no decoder produces, as `null`), members in order.
///
/// ```
/// use gcf_core::generic::Value;
/// let v = gcf_core::generic::decode("GCF profile=generic\nid=7\nx=1.5\n")?;
/// assert_eq!(serde_json::to_string(&gcf_bind::value::Json(&v)).unwrap(), r#"{"id":7,"x":1.5}"#);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub struct Json<'a>(pub &'a Value);

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::Float(f) if f.is_finite() => s.serialize_f64(*f),
            Value::Float(_) => s.serialize_unit(),
            Value::String(t) => s.serialize_str(t),
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Json(item))?;
                }
                seq.end()
            }
            Value::Object(map) => JsonMap(map).serialize(s),
        }
    }
}

/// Serializes an object [`Map`], members in order.
pub struct JsonMap<'a>(pub &'a Map);

impl Serialize for JsonMap<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0.iter() {
            m.serialize_entry(k, &Json(v))?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every test input goes through both entries and both readers (the
    /// direct one with the serde one behind it, and the serde one alone),
    /// which must agree on the value and on the failure (category, message,
    /// position).
    fn parse(s: &str) -> Result<Value, Failure> {
        let bytes = from_slice(s.as_bytes());
        assert_eq!(format!("{:?}", from_str(s)), format!("{bytes:?}"), "{s}");
        assert_eq!(format!("{:?}", serde_str(s)), format!("{bytes:?}"), "{s}");
        bytes
    }

    /// JSON text of `depth` nested containers around `1`, arrays and
    /// objects alternating from the outside in when `mixed`.
    fn nested(depth: usize, mixed: bool) -> String {
        let (mut open, mut close) = (String::new(), String::new());
        for d in 0..depth {
            if mixed && d % 2 == 1 {
                open.push_str("{\"a\":");
                close.insert(0, '}');
            } else {
                open.push('[');
                close.insert(0, ']');
            }
        }
        format!("{open}1{close}")
    }

    #[test]
    fn json_text_takes_the_same_depth_as_the_codec() {
        let limit = Limits::default().max_depth;
        for mixed in [false, true] {
            // The deepest value reads, encodes, and decodes back equal.
            let value = parse(&nested(limit, mixed)).unwrap();
            let text = gcf_core::generic::encode(&value).unwrap();
            assert!(gcf_core::generic::decode(&text).unwrap() == value);
            // Wrapped in a model, the value keeps its whole budget.
            let wrapped: Vec<JsonValue> =
                read(format!("[{}]", nested(limit, mixed)).as_bytes()).unwrap();
            assert!(wrapped.len() == 1 && wrapped[0].0 == value);
            // One level deeper is the limit error, at the container past it.
            let e = parse(&nested(limit + 1, mixed)).unwrap_err();
            assert_eq!(e.category, "limit_exceeded", "{e:?}");
            assert_eq!(e.line, Some(1), "{e:?}");
            assert!(e.column.is_some_and(|c| c > limit as u64), "{e:?}");
        }
    }

    #[test]
    fn json_text_of_any_depth_fails_cleanly() {
        for depth in [129, 130, 145, 200, 100_000] {
            let e = parse(&nested(depth, true)).unwrap_err();
            assert_eq!(e.category, "limit_exceeded", "{e:?}");
            assert_eq!((e.line, e.column.is_some()), (Some(1), true), "{e:?}");
            // One wording and one place (the 129th container) at any depth.
            assert!(
                e.message.ends_with(": value nests deeper than 128 levels"),
                "{depth}: {e:?}"
            );
            let plain = parse(&nested(depth, false)).unwrap_err();
            assert_eq!(plain.column, Some(129), "{depth}: {plain:?}");
        }
        // Brackets inside strings do not count.
        let quoted = format!("[\"{}\\\"\", {}]", "[".repeat(500), nested(100, false));
        assert_eq!(
            parse(&quoted).unwrap().as_array().map(<[Value]>::len),
            Some(2)
        );
        assert!(too_deep(quoted.as_bytes(), 101).is_none());
        assert!(too_deep(quoted.as_bytes(), 100).is_some());
    }

    #[test]
    fn doubles_are_read_exactly() {
        // serde_json's default parser reads these one ulp off.
        for (text, exact) in [
            ("248.71073360554874", 248.710_733_605_548_74_f64),
            ("105.39966868236661", 105.399_668_682_366_61_f64),
        ] {
            assert_eq!(parse(text).unwrap(), Value::Float(exact), "{text}");
        }
    }

    #[test]
    fn integers_are_exact_and_bounded() {
        assert_eq!(parse("-9223372036854775808").unwrap(), Value::Int(i64::MIN));
        assert_eq!(parse("9223372036854775807").unwrap(), Value::Int(i64::MAX));
        for big in [
            "9223372036854775808",
            "18446744073709551615",
            "100000000000000000000",
            "-9223372036854775809",
            "[1, {\"a\": -100000000000000000000000}]",
        ] {
            let e = parse(big).unwrap_err();
            assert_eq!(e.category, "out_of_range", "{big}: {e}");
            assert!(e.message.contains("model it as a string"), "{e}");
        }
        let e = parse("{\n  \"s\": \"1000000000000000000000\",\n  \"n\": 100000000000000000000}")
            .unwrap_err();
        assert_eq!((e.line, e.column), (Some(3), Some(8)), "{e}");
        // Exponent and fraction shapes are doubles whatever their size.
        for (text, f) in [
            ("1e20", 1e20),
            ("1.0E19", 1e19),
            ("-5e30", -5e30),
            ("1.5", 1.5),
        ] {
            assert!(
                matches!(parse(text).unwrap(), Value::Float(g) if g == f),
                "{text}"
            );
        }
        assert_eq!(parse("1e400").unwrap_err().category, "out_of_range");
    }

    #[test]
    fn order_duplicates_and_depth() {
        let v = parse(r#"{"z":1,"a":[true,null,"x\n"],"m":{"k":2.5},"z":3}"#).unwrap();
        let o = v.as_object().unwrap();
        assert_eq!(o.keys().collect::<Vec<_>>(), ["z", "a", "m"]);
        assert_eq!(o.get("z"), Some(&Value::Int(3)));
        let text = serde_json::to_string(&Json(&v)).unwrap();
        assert_eq!(text, r#"{"z":3,"a":[true,null,"x\n"],"m":{"k":2.5}}"#);
        let many: String = (0..40).map(|i| format!("\"k{}\":{i},", i % 30)).collect();
        let v = parse(&format!("{{{}\"end\":0}}", many)).unwrap();
        assert_eq!(v.as_object().unwrap().len(), 31);
        let deep = "[".repeat(129) + &"]".repeat(129);
        assert_eq!(parse(&deep).unwrap_err().category, "limit_exceeded");
        let ok = "[".repeat(100) + &"]".repeat(100);
        assert!(parse(&ok).is_ok());
    }

    #[test]
    fn the_literal_scan_skips_strings() {
        assert!(big_integer_literal(br#"["\"100000000000000000000", 1e30]"#).is_none());
        let f = big_integer_literal(br#"{"a\\": 100000000000000000000}"#).unwrap();
        assert_eq!(f.column, Some(9));
    }
}

#[cfg(test)]
mod random_tests {
    //! Random documents against a naive model: keys from a two-letter
    //! alphabet so that distinct keys often share a fingerprint and
    //! duplicates are frequent, containers of varying sizes at each depth so
    //! that the size hints are wrong as often as right.

    use super::*;

    use crate::test_rng::Rng;

    /// Writes a random value as JSON to `out` and returns the value the
    /// reader must produce (duplicates: last value, first position).
    fn document(rng: &mut Rng, depth: usize, out: &mut String) -> Value {
        let kind = if depth > 3 {
            rng.below(5)
        } else {
            rng.below(8)
        };
        match kind {
            0 => {
                out.push_str("null");
                Value::Null
            }
            1 => {
                let i = rng.next() as i64 >> rng.below(64);
                out.push_str(&i.to_string());
                Value::Int(i)
            }
            2 => {
                let f = (rng.next() % 1_000_000) as f64 / 64.0 + 0.5;
                out.push_str(&format!("{f:?}"));
                Value::Float(f)
            }
            3 | 4 => {
                let pieces = [
                    "a",
                    "é",
                    "\\n",
                    "\\\"",
                    "\\u00e9",
                    "zz",
                    " ",
                    "\\ud83d\\ude00",
                ];
                let decoded = ["a", "é", "\n", "\"", "é", "zz", " ", "😀"];
                let mut s = String::new();
                out.push('"');
                for _ in 0..rng.below(12) {
                    let p = rng.below(pieces.len());
                    out.push_str(pieces[p]);
                    s.push_str(decoded[p]);
                }
                out.push('"');
                Value::from(s)
            }
            5 => {
                out.push('[');
                let mut items = Vec::new();
                for i in 0..rng.below(6) {
                    if i > 0 {
                        out.push(',');
                    }
                    items.push(document(rng, depth + 1, out));
                }
                out.push(']');
                Value::Array(items)
            }
            _ => {
                out.push('{');
                let mut map = Map::new();
                let n = if rng.below(4) == 0 {
                    20 + rng.below(8)
                } else {
                    rng.below(12)
                };
                for i in 0..n {
                    if i > 0 {
                        out.push(',');
                    }
                    let key: String = (0..1 + rng.below(4))
                        .map(|_| if rng.below(2) == 0 { 'a' } else { 'b' })
                        .collect();
                    out.push_str(&format!("\"{key}\":"));
                    let v = document(rng, depth + 1, out);
                    map.insert(key, v);
                }
                out.push('}');
                Value::Object(map)
            }
        }
    }

    #[test]
    fn random_documents_read_as_the_naive_model() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut dups = 0;
        for _ in 0..3000 {
            let mut text = String::from("[");
            let mut rows = Vec::new();
            for i in 0..1 + rng.below(5) {
                if i > 0 {
                    text.push(',');
                }
                rows.push(document(&mut rng, 1, &mut text));
            }
            text.push(']');
            let expected = Value::Array(rows);
            let got = from_slice(text.as_bytes()).unwrap();
            assert_eq!(got, expected, "{text}");
            // The reader must agree on member order too, which `==` on
            // `Map` checks; count documents that had a duplicate key so the
            // test knows it exercised the slow path.
            dups += usize::from(text.contains("\"a\":") && text.matches("\"a\":").count() > 1);
        }
        assert!(dups > 100, "{dups}");
    }

    #[test]
    fn keys_with_one_fingerprint_stay_distinct() {
        assert_eq!(fingerprint("aXbYc"), fingerprint("aYbXc"));
        let v = from_slice(br#"{"aXbYc":1,"aYbXc":2,"aXbYc":3}"#).unwrap();
        let o = v.as_object().unwrap();
        assert_eq!(o.keys().collect::<Vec<_>>(), ["aXbYc", "aYbXc"]);
        assert_eq!(o.get("aXbYc"), Some(&Value::Int(3)));
        assert_eq!(
            from_slice(br#"{"":1,"":2}"#)
                .unwrap()
                .as_object()
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn invalid_utf8_is_reported_where_it_was() {
        let e = from_slice(b"[\"ok\",\n \"bad \xff\"]").unwrap_err();
        // serde_json's byte reader's error and position, as before the
        // whole-text check was added.
        assert_eq!(e.category, "json", "{e}");
        assert_eq!((e.line, e.column), (Some(2), Some(7)), "{e}");
    }
}
