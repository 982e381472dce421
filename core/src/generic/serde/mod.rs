//! Any `serde` type in and out of the generic profile (feature `serde`).
//!
//! [`to_string`] encodes a value of any type that implements
//! [`serde::Serialize`], and [`from_str`] decodes into any type that
//! implements [`serde::Deserialize`] (borrowing bare strings from the text),
//! the way `serde_json` does for JSON: a program that answers with `serde_json::to_string(&result)` answers
//! in GCF by calling `gcf_core::generic::to_string(&result)` instead.
//!
//! The data model is serde_json's, so a value reaches the encoder as it
//! would through `serde_json::to_value` and [`from_json`](super::from_json):
//! structs and maps are objects in field (insertion) order, sequences and
//! tuples arrays, `None` and `()` null, an enum variant its name (unit) or a
//! one-member object `{"Variant": ...}` (externally tagged), bytes an array of
//! numbers, a map key a string (integers, booleans, chars and finite floats
//! written as text; any other key is refused), a repeated map key keeps its
//! first position and its last value. Numbers follow the spec (§2.3.2):
//! integers must fit `int64` (`u64::MAX` is [`ErrorKind::OutOfRange`], as it is
//! for [`from_json`](super::from_json); model such ids as strings), an `f32`
//! is the double its shortest text reads as (`0.1f32` is `0.1`), and a NaN or
//! infinity is null, as serde_json writes it. A `serde_json::Value` (or
//! `Number`, or `RawValue`) inside a type is read as its JSON value, its
//! numbers exactly.
//!
//! [`from_str`] reads the values [`from_value`] of [`decode`](super::decode)
//! would (from a flat tape the decoder builds, not a tree): the decoder's errors keep their category, line and column; a value that
//! does not fit the type (`"invalid type: string \"x\", expected u32"`) is
//! [`ErrorKind::InvalidInput`], with serde's message.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Order {
//!     id: u32,
//!     status: Status,
//!     total: f64,
//!     note: Option<String>,
//! }
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! #[serde(rename_all = "snake_case")]
//! enum Status {
//!     Open,
//!     Shipped,
//! }
//!
//! let orders = vec![
//!     Order { id: 1, status: Status::Open, total: 9.5, note: None },
//!     Order { id: 2, status: Status::Shipped, total: 12.0, note: Some("gift".into()) },
//! ];
//! let text = gcf_core::generic::to_string(&orders)?;
//! // A whole double is written as an integer (spec §2.3.1), and read back into the f64.
//! assert_eq!(text, "GCF profile=generic\n## [2]{id,status,total,note}\n1|open|9.5|-\n2|shipped|12|gift\n");
//! let back: Vec<Order> = gcf_core::generic::from_str(&text)?;
//! assert_eq!(back, orders);
//! # Ok::<(), gcf_core::Error>(())
//! ```

mod de;
mod ser;
mod tape;
mod tape_de;

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use ::serde::de::{Deserialize, DeserializeOwned};
use ::serde::Serialize;

use crate::error::{Error, ErrorKind};

use super::flat::Flat;
use super::{Key, Map, Value};

/// The value tree of `value`, as [`to_string`] encodes it.
///
/// ```
/// use gcf_core::generic::{to_value, Value};
///
/// assert_eq!(to_value(&(1u8, "a", None::<bool>))?, Value::Array(vec![1.into(), "a".into(), Value::Null]));
/// assert_eq!(to_value(&u64::MAX).unwrap_err().kind(), gcf_core::ErrorKind::OutOfRange);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, Error> {
    value.serialize(ser::ValueSerializer)
}

/// Encodes `value` with the generic profile and the default options: the
/// text [`encode`](super::encode) writes for [`to_value`]'s tree, written
/// from one flat tape of the value instead (no tree: a table of 10,000
/// structs encodes in about half the time). For other options, give
/// [`to_value`]'s tree to an [`Encoder`](super::Encoder).
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    super::Encoder::new().serialize(value)
}

/// A `T` from a value tree.
///
/// ```
/// use gcf_core::generic::{from_value, Value};
///
/// let pair: (String, i32) = from_value(Value::Array(vec!["x".into(), 7.into()]))?;
/// assert_eq!(pair, ("x".to_string(), 7));
/// let wrong = from_value::<u8>(Value::Int(300)).unwrap_err();
/// assert_eq!(wrong.kind(), gcf_core::ErrorKind::InvalidInput);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    // Through the tape `from_str` reads, so both routes read alike.
    let (tape, root) = tape_de::Tape::of_value(value);
    tape.check()?;
    T::deserialize(tape_de::At {
        tape: &tape,
        item: root,
    })
}

/// Decodes a generic payload ([`decode`](super::decode), its limits and
/// errors) into a `T`. A bare (unquoted) string is lent from `text`, so a
/// type may borrow it (`&'a str` fields, `#[serde(borrow)] Cow<'a, str>`);
/// a quoted string is the decoder's own text (escapes read), which a
/// `&'a str` cannot hold, and is refused there as serde_json refuses a
/// string with escapes. Object keys are handed over as transient text, so
/// a map with `&'a str` keys is refused as well: give it `String` or
/// `Cow<'a, str>` keys. For other limits, see
/// [`Decoder::deserialize`](super::Decoder::deserialize).
///
/// ```
/// use serde::Deserialize;
///
/// #[derive(Deserialize, Debug, PartialEq)]
/// struct Symbol<'a> {
///     name: &'a str,
///     kind: &'a str,
///     line: u32,
/// }
///
/// let text = "GCF profile=generic\n## [2]{name,kind,line}\nmain|fn|1\nParser|struct|40\n";
/// let symbols: Vec<Symbol<'_>> = gcf_core::generic::from_str(text)?;
/// assert_eq!(symbols[1], Symbol { name: "Parser", kind: "struct", line: 40 });
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn from_str<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, Error> {
    super::Decoder::new().deserialize(text)
}

/// [`from_str`] of `bytes`, which must be UTF-8: malformed UTF-8 is
/// `invalid_utf8` and a UTF-8-encoded surrogate `invalid_surrogate`, with
/// their line and column, as [`decode_bytes`](super::decode_bytes) reports
/// them.
pub fn from_slice<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, Error> {
    from_str(crate::input::validate_utf8(bytes)?)
}

/// A `T` read from everything `reader` yields: the input is read to its
/// end first (GCF has no value boundary before it), then decoded as
/// [`from_slice`] decodes it, so `T` owns its data. The decoder's
/// [`max_input_len`](crate::Limits::max_input_len) bounds how much is read
/// ([`Decoder::deserialize_reader`](super::Decoder::deserialize_reader)); a
/// failed read is `invalid_input`, with the I/O error's message. The
/// default limits set no input length, so a reader that never ends is read
/// until memory runs out: give a reader you do not trust (a socket, a
/// pipe) a decoder with `max_input_len` set.
///
/// ```
/// use serde::Deserialize;
///
/// #[derive(Deserialize, Debug, PartialEq)]
/// struct Symbol {
///     name: String,
///     line: u32,
/// }
///
/// let file = std::io::Cursor::new("GCF profile=generic\n## [1]{name,line}\nmain|1\n");
/// let symbols: Vec<Symbol> = gcf_core::generic::from_reader(file)?;
/// assert_eq!(symbols, [Symbol { name: "main".into(), line: 1 }]);
/// # Ok::<(), gcf_core::Error>(())
/// ```
#[cfg(feature = "std")]
pub fn from_reader<R: std::io::Read, T: DeserializeOwned>(reader: R) -> Result<T, Error> {
    super::Decoder::new().deserialize_reader(reader)
}

/// [`to_string`] as bytes.
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, Error> {
    to_string(value).map(String::into_bytes)
}

/// [`to_string`] written into `writer` (buffered: the payload reaches it
/// in a few large writes). On error the writer may hold part of the
/// payload; a failed write is [`ErrorKind::Sink`], with the I/O error's
/// message.
#[cfg(feature = "std")]
pub fn to_writer<W: std::io::Write, T: Serialize + ?Sized>(
    writer: W,
    value: &T,
) -> Result<(), Error> {
    let mut sink = crate::IoSink::new(writer);
    super::Encoder::new()
        .serialize_to(value, &mut sink)
        .map_err(|e| match sink.take_error() {
            Some(io) => Error::new(ErrorKind::Sink, alloc::format!("write failed: {io}")),
            None => e,
        })
}

impl super::Encoder {
    /// [`to_string`] with this encoder's options (limits, tool, constant
    /// columns, flattening, value groups).
    ///
    /// ```
    /// use gcf_core::generic::{to_string, Encoder};
    ///
    /// #[derive(serde::Serialize)]
    /// struct Symbol { id: u32, kind: &'static str }
    ///
    /// let symbols = [Symbol { id: 1, kind: "fn" }, Symbol { id: 2, kind: "fn" }];
    /// // Constant columns are factored by default (spec §7.4.7)...
    /// assert_eq!(to_string(&symbols)?, "GCF profile=generic\n## [2]{id,kind=fn}\n1\n2\n");
    /// // ...and written in every row with them off.
    /// let text = Encoder::new().constant_columns(false).serialize(&symbols)?;
    /// assert_eq!(text, "GCF profile=generic\n## [2]{id,kind}\n1|fn\n2|fn\n");
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn serialize<T: Serialize + ?Sized>(&self, value: &T) -> Result<String, Error> {
        // The tape route when it carries the value (nearly always), else
        // the tree: the same text either way (tests hold them to each other).
        match tape::Tape::of(value) {
            Ok(tape) => self.encode_view(tape.root()?),
            Err(tape::Refused::TreeRoute) => self.encode(&to_value(value)?),
            Err(tape::Refused::Failed(e)) => Err(e),
        }
    }

    /// [`serialize`](Self::serialize) into `sink`. On error, the sink may
    /// already hold part of the payload.
    pub fn serialize_to<T: Serialize + ?Sized, K: crate::Sink + ?Sized>(
        &self,
        value: &T,
        sink: &mut K,
    ) -> Result<(), Error> {
        match tape::Tape::of(value) {
            Ok(tape) => self.encode_view_to(tape.root()?, sink),
            Err(tape::Refused::TreeRoute) => self.encode_to(&to_value(value)?, sink),
            Err(tape::Refused::Failed(e)) => Err(e),
        }
    }
}

impl super::Decoder {
    /// [`from_str`] with this decoder's limits and options.
    ///
    /// ```
    /// use gcf_core::{generic::Decoder, ErrorKind, Limits};
    ///
    /// let strict = Decoder::new().limits(Limits { max_depth: 2, ..Limits::default() });
    /// let nested = "GCF profile=generic\n## a\n  ## b\n    ## c\n    x=1\n";
    /// let err = strict.deserialize::<serde_json::Value>(nested).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn deserialize<'a, T: Deserialize<'a>>(&self, text: &'a str) -> Result<T, Error> {
        // Built into one flat tape, not a `Value` tree: the same values.
        let mut tape = tape_de::Tape::new(text);
        let root = self.decode_into(text, &mut tape)?;
        tape.check()?;
        T::deserialize(tape_de::At {
            tape: &tape,
            item: root,
        })
    }

    /// [`from_reader`] with this decoder's limits: at most
    /// [`max_input_len`](crate::Limits::max_input_len) bytes are read (one
    /// more shows the input is over it, `limit_exceeded`, and nothing past
    /// that is read).
    #[cfg(feature = "std")]
    pub fn deserialize_reader<R: std::io::Read, T: DeserializeOwned>(
        &self,
        reader: R,
    ) -> Result<T, Error> {
        use std::io::Read;
        let limit = self.max_input_len();
        let mut bytes = Vec::new();
        reader
            .take(u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| Error::new(ErrorKind::InvalidInput, alloc::format!("read failed: {e}")))?;
        if bytes.len() > limit {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                alloc::format!("input is over the configured limit of {limit} bytes"),
            ));
        }
        self.deserialize(crate::input::validate_utf8(&bytes)?)
    }
}

/// The struct name and field serde_json gives a `Number` under its
/// `arbitrary_precision` feature (the number's literal as the field's
/// string), which this crate's `serde_json` feature turns on: a number that
/// reaches the serializer as this struct, or a deserializer's visitor as a
/// map with this key, is that literal's value. Private to serde_json and
/// stable since 2018; the tests send `serde_json::Value`s both ways.
const JSON_NUMBER: &str = "$serde_json::private::Number";

/// Members scanned for a repeated key before they are indexed.
const SCANNED: usize = 16;

/// An object's members as serde hands them over. A repeated key (a map
/// whose keys turn into the same text, a flattened field, a JSON object
/// that says a key twice) replaces the earlier value in its place, as
/// serde_json's map does; past a few members the keys are indexed, so that
/// check stays linear in the object's size.
struct MemberList {
    entries: Vec<(Key, Value)>,
    index: Option<crate::hash::HashMap<Key, usize>>,
    /// Before the index: bit `n % 64` is set once a key of `n` bytes is in.
    /// A key whose bit is clear repeats none, so a struct's fields, mostly
    /// of different lengths, are rarely compared at all (the comparisons
    /// were a third of serializing a table of structs).
    lengths: u64,
}

impl MemberList {
    fn with_capacity(capacity: usize) -> MemberList {
        MemberList {
            entries: Vec::with_capacity(capacity),
            index: None,
            lengths: 0,
        }
    }

    fn insert(&mut self, key: Key, value: Value) {
        let position = match &mut self.index {
            Some(index) => index.get(&key).copied(),
            None => {
                let bit = 1u64 << (key.len() % 64);
                let seen = self.lengths & bit != 0;
                self.lengths |= bit;
                if seen {
                    let len = key.len();
                    self.entries.iter().position(|(k, _)| {
                        crate::ops::tick(1);
                        k.len() == len && *k == key
                    })
                } else {
                    None
                }
            }
        };
        if let Some(at) = position {
            self.entries[at].1 = value;
            return;
        }
        if let Some(index) = &mut self.index {
            index.insert(key.clone(), self.entries.len());
        } else if self.entries.len() == SCANNED {
            let mut index = crate::hash::map_with_capacity(2 * SCANNED);
            for (at, (k, _)) in self.entries.iter().enumerate() {
                index.insert(k.clone(), at);
            }
            index.insert(key.clone(), self.entries.len());
            self.index = Some(index);
        }
        self.entries.push((key, value));
    }

    fn into_map(self) -> Map {
        Map::from_unique(self.entries)
    }
}

/// The error of a `Serialize` or `Deserialize` impl that failed with a
/// message of its own.
fn custom(message: impl core::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidInput, message.to_string())
}

impl ::serde::ser::Error for Error {
    fn custom<T: core::fmt::Display>(message: T) -> Self {
        custom(message)
    }
}

impl ::serde::de::Error for Error {
    fn custom<T: core::fmt::Display>(message: T) -> Self {
        custom(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_the_first_place_and_the_last_value_past_the_scan() {
        for n in [3usize, SCANNED, SCANNED + 1, 100] {
            let mut m = MemberList::with_capacity(0);
            for i in 0..n {
                m.insert(Key::from(alloc::format!("k{i}")), Value::Int(i as i64));
            }
            m.insert(Key::new("k1"), Value::Null);
            m.insert(Key::from(alloc::format!("k{}", n - 1)), Value::Bool(true));
            let map = m.into_map();
            assert_eq!(map.len(), n, "{n}");
            assert_eq!(map.get("k1"), Some(&Value::Null));
            assert_eq!(map.as_slice()[n - 1].1, Value::Bool(true));
            assert_eq!(map.as_slice()[0].1, Value::Int(0));
        }
    }
}
