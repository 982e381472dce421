//! The packed form of generic values: the route the JS layer takes for
//! plain values (objects, arrays, `Map`s, strings, finite numbers, booleans,
//! null) instead of JSON, for the reason the graph route has one
//! ([`crate::packed`]): writing JSON in JS (`JSON.stringify`, after a walk
//! that checks the value is plain enough for it) and reading it back here
//! cost more than the encode itself (`bindings-node/BENCH.md`).
//!
//! A value travels as three streams, each read front to back:
//!
//! - `ops`, one byte per value or container end: [`NULL`], [`TRUE`],
//!   [`FALSE`], [`STRING`] (its text is the next field), [`NUMBER`] (the
//!   next `f64` of `nums`), [`ARRAY`] (items follow, then [`END`]),
//!   [`OBJECT`] (member values follow, then [`END`]; the keys are the next
//!   fields, one per member, read at the end) and [`SAME_KEYS`] (an object
//!   whose keys, in order, are those of the last object closed at the same
//!   depth: records repeat their shape, so their keys cross once);
//! - `text`, the strings back to back as UTF-8, in the order the ops ask
//!   for them: a string where its op is, an object's keys after its values;
//! - `nums`, the numbers and the strings' lengths, in that same order: a
//!   number op's value (a safe integer reads as an integer, any other finite
//!   number as a double, as JSON.stringify writes them and the JSON route
//!   reads them back), and before each string is read, its length in UTF-16
//!   code units ([`crate::units`]: no separators, so a string may hold any
//!   character, NUL included).
//!
//! For `{"a": "x", "b": {"c": 7}}`: ops `{s{d..`, text `xcab`, nums
//! `[1, 7, 1, 1, 1]` (the length of `x`, 7, the lengths of `c`, `a`, `b`).
//! [`generic_encode_packed_args`] builds them from a value.
//!
//! [`generic_encode_packed`] answers `""` for anything that is not exactly
//! such a value, for the caller to take the JSON route, which decides (and
//! reports errors) as before; so, like the JSON reader of `gcf-bind`, this
//! reader may be stricter than the JSON route, never looser. In particular:
//! a lone surrogate arrives from `TextEncoder` as U+FFFD (one code unit, as
//! the surrogate was), so any U+FFFD goes the JSON route, which refuses the
//! surrogate;
//! nesting past [`Limits::max_depth`] goes there for its error.
//!
//! **Decode** goes the other way in a form of its own, written as the
//! decoder builds the value:
//! [`generic_decode_packed`](crate::generic_decode_packed).

use gcf_bind::value::{last_wins, NUMBER_TOKEN};
use gcf_core::generic::{Cell, Key, Map, Value};
use gcf_core::Limits;

use crate::packed_view::{self, Read};
use crate::units::{utf16_len, Strings};
use crate::Result;
use gcf_core::generic::flat::Flat;

/// `null` (also what JSON.stringify makes of `undefined` in an array, and
/// the JSON route of a member whose value is `undefined`).
pub(crate) const NULL: u8 = b'n';
/// `true`.
pub(crate) const TRUE: u8 = b't';
/// `false`.
pub(crate) const FALSE: u8 = b'f';
/// A string: the next field of `text`.
pub(crate) const STRING: u8 = b's';
/// A number: the next of `nums`.
pub(crate) const NUMBER: u8 = b'd';
/// An array: its items, then [`END`].
pub(crate) const ARRAY: u8 = b'[';
/// An object with keys of its own: its member values, then [`END`], then
/// its keys are the next fields.
pub(crate) const OBJECT: u8 = b'{';
/// An object with the keys of the last object closed at its depth: its
/// member values, then [`END`].
pub(crate) const SAME_KEYS: u8 = b'(';
/// The end of an array or object.
pub(crate) const END: u8 = b'.';

/// The largest integer a double holds exactly along with its neighbours
/// (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// The encode of [`generic_encode`](crate::generic_encode) for a packed
/// value (see the module docs), or `""` (which no encode returns) when the
/// streams are not exactly a packed value: the caller then takes the JSON
/// route.
///
/// ```
/// use gcf_js_engine::{generic_encode, generic_encode_packed};
/// let packed = generic_encode_packed(b"{s{d..", b"xcab", &[1.0, 7.0, 1.0, 1.0, 1.0], 0).unwrap();
/// assert_eq!(packed, generic_encode(r#"{"a":"x","b":{"c":7}}"#, 0).unwrap());
/// // Text left over (or a length past its end): the JSON route decides.
/// assert_eq!(generic_encode_packed(b"s", b"ab", &[1.0], 0).unwrap(), "");
/// ```
pub fn generic_encode_packed(ops: &[u8], text: &[u8], nums: &[f64], flags: u32) -> Result<String> {
    let Some(checked) = checked_text(text) else {
        return Ok(String::new());
    };
    match packed_view::read(ops, checked, nums) {
        Read::Indexed(index) => Ok(crate::encoder(flags).encode_view(index.root()?)?),
        Read::RepeatedKeys => match read(ops, text, nums) {
            Some(value) => crate::encode_value(&value, flags),
            None => Ok(String::new()),
        },
        Read::NotPacked => Ok(String::new()),
    }
}

/// The packed arguments of `v` (`ops`, `text`, `nums`) as the JS layer
/// writes them, for tests, benches and the fuzz targets: every object whose
/// keys, in order, are those of the last object closed at its depth goes as
/// `SAME_KEYS`.
///
/// ```
/// use gcf_js_engine::{generic_encode, generic_encode_packed, generic_encode_packed_args};
/// let v = gcf_bind::value::from_str(r#"[{"id":1,"n":"é"},{"id":2,"n":"b"}]"#).unwrap();
/// let (ops, text, nums) = generic_encode_packed_args(&v);
/// assert_eq!((&ops[..], &text[..]), (&b"[{ds.(ds.."[..], "éidnb".as_bytes()));
/// assert_eq!(nums, [1.0, 1.0, 2.0, 1.0, 2.0, 1.0]);
/// assert_eq!(
///     generic_encode_packed(&ops, &text, &nums, 0).unwrap(),
///     generic_encode(r#"[{"id":1,"n":"é"},{"id":2,"n":"b"}]"#, 0).unwrap()
/// );
/// ```
pub fn generic_encode_packed_args(v: &Value) -> (Vec<u8>, Vec<u8>, Vec<f64>) {
    struct Packer {
        ops: Vec<u8>,
        text: Vec<u8>,
        nums: Vec<f64>,
        shapes: Vec<Option<Vec<String>>>,
    }
    impl Packer {
        fn str(&mut self, s: &str) {
            self.nums.push(utf16_len(s));
            self.text.extend_from_slice(s.as_bytes());
        }
        fn walk(&mut self, v: &Value, depth: usize) {
            match v {
                Value::Null => self.ops.push(NULL),
                Value::Bool(b) => self.ops.push(if *b { TRUE } else { FALSE }),
                Value::Int(i) => {
                    self.ops.push(NUMBER);
                    self.nums.push(*i as f64);
                }
                Value::Float(f) => {
                    self.ops.push(NUMBER);
                    self.nums.push(*f);
                }
                Value::String(s) => {
                    self.ops.push(STRING);
                    self.str(s.as_str());
                }
                Value::Array(a) => {
                    self.ops.push(ARRAY);
                    for x in a {
                        self.walk(x, depth + 1);
                    }
                    self.ops.push(END);
                }
                Value::Object(m) => {
                    let at = self.ops.len();
                    self.ops.push(SAME_KEYS);
                    for (_, x) in m.iter() {
                        self.walk(x, depth + 1);
                    }
                    self.ops.push(END);
                    let keys: Vec<String> = m.keys().map(String::from).collect();
                    if self.shapes.len() <= depth {
                        self.shapes.resize(depth + 1, None);
                    }
                    if self.shapes[depth].as_ref() != Some(&keys) {
                        self.ops[at] = OBJECT;
                        for k in &keys {
                            self.str(k);
                        }
                        self.shapes[depth] = Some(keys);
                    }
                }
            }
        }
    }
    let mut p = Packer {
        ops: Vec::new(),
        text: Vec::new(),
        nums: Vec::new(),
        shapes: Vec::new(),
    };
    p.walk(v, 0);
    (p.ops, p.text, p.nums)
}

/// The text stream as a `str`, or `None` when it is not UTF-8 or holds
/// U+FFFD (see the module docs). JS writes UTF-8 by construction; checked
/// all the same, since any bytes can arrive here.
fn checked_text(text: &[u8]) -> Option<&str> {
    let text = core::str::from_utf8(text).ok()?;
    (!crate::packed::has_replacement_char(text)).then_some(text)
}

/// The value of the three streams as a tree, or `None` (see the module
/// docs): what [`packed_view`] leaves to it, and the tests' reference.
fn read(ops: &[u8], text: &[u8], nums: &[f64]) -> Option<Value> {
    let text = checked_text(text)?;
    let mut tape = Tape {
        streams: Streams::new(ops, text, nums),
        items: Vec::new(),
        shapes: Vec::new(),
    };
    let value = tape.value(Limits::default().max_depth)?;
    tape.streams.is_done().then_some(value)
}

/// The containers that may still open inside one that opens with
/// `depth_left`, or `None` past the depth limit or where this thread's stack
/// runs short (`gcf_core::stack`): the layer then takes the JSON route,
/// whose reader says which.
pub(crate) fn enter(depth_left: usize) -> Option<usize> {
    let depth = Limits::default().max_depth.saturating_sub(depth_left);
    if gcf_core::stack::exhausted(depth) {
        return None;
    }
    depth_left.checked_sub(1)
}

/// The keys of the last object closed at one depth.
struct Shape {
    keys: Vec<Key>,
    /// Whether the keys are distinct: a `Map` can give two keys that JS
    /// writes alike (`1` and `"1"`), which, as in the JSON route, keep the
    /// first position and the last value.
    unique: bool,
}

/// The streams still to read, and the reader's scratch.
struct Tape<'a> {
    streams: Streams<'a>,
    /// The values of the containers being read, innermost last: every
    /// array and object is then allocated once, at its size.
    items: Vec<Value>,
    /// Per depth (the root at 0), the shape [`SAME_KEYS`] refers to.
    shapes: Vec<Option<Shape>>,
}

/// The three streams of a packed value, read front to back.
pub(crate) struct Streams<'a> {
    ops: &'a [u8],
    text: Strings<'a>,
    nums: &'a [f64],
}

impl<'a> Streams<'a> {
    pub(crate) fn new(ops: &'a [u8], text: &'a str, nums: &'a [f64]) -> Self {
        Streams {
            ops,
            text: Strings::new(text),
            nums,
        }
    }

    /// The next op.
    #[inline]
    pub(crate) fn op(&mut self) -> Option<u8> {
        let (&op, rest) = self.ops.split_first()?;
        self.ops = rest;
        Some(op)
    }

    /// The next string of the text, as long as the next number says.
    #[inline]
    pub(crate) fn field(&mut self) -> Option<&'a str> {
        let units = self.number()?;
        self.text.next(units)
    }

    /// The next number.
    #[inline]
    pub(crate) fn number(&mut self) -> Option<f64> {
        let (&x, rest) = self.nums.split_first()?;
        self.nums = rest;
        Some(x)
    }

    /// Whether every stream has been read to its end.
    pub(crate) fn is_done(&self) -> bool {
        self.ops.is_empty() && self.text.is_empty() && self.nums.is_empty()
    }
}

impl<'a> Tape<'a> {
    fn op(&mut self) -> Option<u8> {
        self.streams.op()
    }

    fn field(&mut self) -> Option<&'a str> {
        self.streams.field()
    }

    /// A value whose op is next; `depth_left` containers may still open,
    /// so the recursion is bounded by the depth limit.
    fn value(&mut self, depth_left: usize) -> Option<Value> {
        let op = self.op()?;
        self.value_of(op, depth_left)
    }

    /// The value of `op`, just read.
    fn value_of(&mut self, op: u8, depth_left: usize) -> Option<Value> {
        Some(match op {
            NULL => Value::Null,
            TRUE => Value::Bool(true),
            FALSE => Value::Bool(false),
            STRING => Value::String(Key::new(self.field()?)),
            NUMBER => number(self.streams.number()?)?,
            ARRAY => {
                let mark = self.items(enter(depth_left)?)?;
                Value::Array(self.items.drain(mark..).collect())
            }
            OBJECT => {
                let mark = self.items(enter(depth_left)?)?;
                let depth = Limits::default().max_depth - depth_left;
                self.object(depth, mark)?
            }
            SAME_KEYS => {
                let depth = Limits::default().max_depth - depth_left;
                self.same_keys(depth, enter(depth_left)?)?
            }
            _ => return None,
        })
    }

    /// Reads values up to the container's [`END`] onto `items`; where they
    /// start.
    fn items(&mut self, depth_left: usize) -> Option<usize> {
        let mark = self.items.len();
        loop {
            let op = self.op()?;
            if op == END {
                return Some(mark);
            }
            let v = self.value_of(op, depth_left)?;
            self.items.push(v);
        }
    }

    /// The shape at `depth`, growing the table to hold it.
    fn shape(&mut self, depth: usize) -> &mut Option<Shape> {
        if self.shapes.len() <= depth {
            self.shapes.resize_with(depth + 1, || None);
        }
        &mut self.shapes[depth]
    }

    /// The object of the values on `items` from `mark`, with keys of its
    /// own: the next fields. Its keys become the shape at `depth`.
    fn object(&mut self, depth: usize, mark: usize) -> Option<Value> {
        let count = self.items.len() - mark;
        let mut keys = Vec::with_capacity(count);
        for _ in 0..count {
            keys.push(Key::new(self.field()?));
        }
        if keys.first().is_some_and(|k| k.as_str() == NUMBER_TOKEN) {
            return None;
        }
        let mut map = Map::with_capacity(count);
        for (k, v) in keys.iter().zip(self.items.drain(mark..)) {
            map.push_unique(k.clone(), v);
        }
        let map = last_wins(map);
        *self.shape(depth) = Some(Shape {
            unique: map.len() == count,
            keys,
        });
        Some(Value::Object(map))
    }

    /// An object with the keys of the shape at `depth`, read member by
    /// member into its map. Scalars are built where they are stored, and
    /// keys cloned there from the shape: a member built elsewhere and moved
    /// (or returned through memory) was written a few bytes at a time and
    /// read back as whole words before the writes had landed, a stall that
    /// took a third of the encode's time.
    fn same_keys(&mut self, depth: usize, depth_left: usize) -> Option<Value> {
        let (len, unique) = {
            let shape = self.shape(depth).as_ref()?;
            (shape.keys.len(), shape.unique)
        };
        let mut map = Map::with_capacity(len);
        loop {
            let op = self.op()?;
            if op == END {
                break;
            }
            // The shape at `depth` is as it was: a nested value closes deeper.
            let key = self
                .shapes
                .get(depth)?
                .as_ref()?
                .keys
                .get(map.len())?
                .clone();
            let value = match op {
                STRING => Value::String(Key::new(self.field()?)),
                NUMBER => number(self.streams.number()?)?,
                NULL => Value::Null,
                TRUE => Value::Bool(true),
                FALSE => Value::Bool(false),
                _ => self.value_of(op, depth_left)?,
            };
            map.push_unique(key, value);
        }
        if map.len() != len {
            return None;
        }
        Some(Value::Object(if unique { map } else { last_wins(map) }))
    }
}

/// A JS number as the JSON route reads JSON.stringify's text of it: a safe
/// integer (`-0` too) as an integer, a number with a fraction as a double.
/// Integral doubles past 2^53 and non-finite numbers, which the layer writes
/// its own way (or refuses), are left to the JSON route.
pub(crate) fn number(x: f64) -> Option<Value> {
    number_cell(x).map(|cell| match cell {
        Cell::Int(i) => Value::Int(i),
        _ => Value::Float(x),
    })
}

/// [`number`] as the cell the index holds (an `Int` or a `Float`), with no
/// `Value` to build and drop on the way.
#[inline]
pub(crate) fn number_cell<'a>(x: f64) -> Option<Cell<'a>> {
    if !x.is_finite() {
        return None;
    }
    if x.abs() <= MAX_SAFE {
        // Whole by a round trip through i64 (exact below 2^53), not
        // `f64::fract`, a libm call on x86-64 (see `units::index`).
        let i = x as i64;
        return Some(if i as f64 == x {
            Cell::Int(i)
        } else {
            Cell::Float(x)
        });
    }
    // Every double this large is whole: an integral double past 2^53.
    None
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn number_splits_integers_from_doubles_as_fract_says() {
        for &x in crate::packed::tests::EDGES {
            let by_fract = if !x.is_finite() {
                None
            } else if x.fract() != 0.0 {
                Some(Value::Float(x))
            } else {
                (x.abs() <= MAX_SAFE).then_some(Value::Int(x as i64))
            };
            assert_eq!(number(x), by_fract, "{x}");
        }
    }

    pub(crate) fn json(text: &str) -> Value {
        gcf_bind::value::from_str(text).unwrap()
    }

    fn round_trip(v: &Value) -> Option<Value> {
        let (ops, text, nums) = generic_encode_packed_args(v);
        read(&ops, &text, &nums)
    }

    #[test]
    fn records_send_their_keys_once_per_shape() {
        let v = json(r#"[{"a":1,"b":"x"},{"a":2,"b":"y"},{"b":3,"a":4},{"b":5,"a":6}]"#);
        let (ops, text, nums) = generic_encode_packed_args(&v);
        assert_eq!(ops, b"[{ds.(ds.{dd.(dd..");
        assert_eq!(text, b"xabyba");
        // Each string's length where it is read: "x", then the keys "a" and
        // "b" at the end of the first object; "y"; the keys "b" and "a".
        assert_eq!(
            nums,
            [1.0, 1.0, 1.0, 1.0, 2.0, 1.0, 3.0, 4.0, 1.0, 1.0, 5.0, 6.0]
        );
        assert_eq!(read(&ops, &text, &nums), Some(v));
    }

    #[test]
    fn values_read_back_as_the_json_route_reads_them() {
        for text in [
            "null",
            "true",
            "[]",
            "{}",
            r#"[{}, {}, {"a": {}}, {"a": []}, [[], [{}]]]"#,
            r#"{"a": -0, "b": 0.5, "c": 9007199254740991, "d": -9007199254740991, "e": 1e-300}"#,
            r#"{"orders": [{"id": 1, "c": {"n": "x", "t": "g"}, "i": [{"s": "a", "q": 1}]},
                           {"id": 2, "c": {"n": "y", "t": "b"}, "i": [{"s": "b", "q": 2}, {"s": "c"}]}]}"#,
            r#"{"é": "ü€😀", "": "", "x y": "a,b|c\"d"}"#,
        ] {
            let v = json(text);
            assert_eq!(round_trip(&v), Some(v), "{text}");
        }
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_last_value() {
        // A JS Map with the keys 1 and "1": the layer writes both as "1".
        let map_like = (
            b"[{ddd.(ddd..".to_vec(),
            "1x1",
            [1.0, 2.0, 3.0, 1.0, 1.0, 1.0, 4.0, 5.0, 6.0],
        );
        let v = read(&map_like.0, map_like.1.as_bytes(), &map_like.2).unwrap();
        assert_eq!(v, json(r#"[{"1":1,"1":3,"x":2},{"1":4,"x":5,"1":6}]"#));
        assert_eq!(v, json(r#"[{"1":3,"x":2},{"1":6,"x":5}]"#));
    }

    #[test]
    fn strings_are_sliced_by_their_lengths_in_utf16_units() {
        let v = json(r#"["é", "😀", "", "a\u0000b", "x"]"#);
        let (ops, text, nums) = generic_encode_packed_args(&v);
        assert_eq!(nums, [1.0, 2.0, 0.0, 3.0, 1.0]);
        assert_eq!(read(&ops, &text, &nums), Some(v.clone()));
        // A NUL is a character like any other: the packed route writes what
        // the JSON route writes.
        assert_eq!(
            generic_encode_packed(&ops, &text, &nums, 0).unwrap(),
            crate::generic_encode(r#"["é","😀","","a\u0000b","x"]"#, 0).unwrap()
        );
    }

    #[test]
    fn anything_else_sends_the_caller_to_json() {
        let none = |ops: &[u8], text: &str, nums: &[f64]| {
            assert_eq!(
                read(ops, text.as_bytes(), nums),
                None,
                "{ops:?} {text:?} {nums:?}"
            );
        };
        none(b"", "", &[]);
        // Something left over in any stream: text, an op, a number.
        none(b"s", "ab", &[1.0]);
        none(b"nn", "", &[]);
        none(b"n", "", &[1.0]);
        // Something missing: a string's length, its text, a number, an end,
        // an object's keys.
        none(b"s", "a", &[]);
        none(b"s", "a", &[2.0]);
        none(b"d", "", &[]);
        none(b"[n", "", &[]);
        none(b"{n.", "", &[]);
        // A length that is no length, or ends inside a character (é is one
        // code unit and two bytes, 😀 two units and four bytes).
        for len in [-1.0, 0.5, f64::NAN, 9_007_199_254_740_992.0] {
            none(b"s", "a", &[len]);
        }
        none(b"ss", "\u{1F600}", &[1.0, 1.0]);
        // No shape yet, or one of another size.
        none(b"(n.", "", &[]);
        none(b"[{n.(nn..", "a", &[1.0]);
        none(b"[{n.(..", "a", &[1.0]);
        // An op that is none, a stray end.
        none(b"x", "", &[]);
        none(b".", "", &[]);
        // Numbers the layer writes itself, U+FFFD (a lone surrogate), bytes
        // that are not UTF-8, serde_json's number key.
        for x in [
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
            9_007_199_254_740_992.0,
            1e300,
        ] {
            none(b"d", "", &[x]);
        }
        none(b"s", "a\u{FFFD}", &[2.0]);
        assert_eq!(read(b"s", b"\xff", &[1.0]), None);
        none(
            b"{s.",
            &format!("1{NUMBER_TOKEN}"),
            &[1.0, utf16_len(NUMBER_TOKEN)],
        );
    }

    #[test]
    fn nesting_stops_at_the_depth_limit() {
        let limit = Limits::default().max_depth;
        for depth in [limit - 1, limit, limit + 1, 10 * limit] {
            let mut ops = vec![ARRAY; depth];
            ops.extend(vec![END; depth]);
            let got = read(&ops, b"", &[]);
            assert_eq!(got.is_some(), depth <= limit, "{depth}");
            assert_eq!(
                got.is_some(),
                gcf_bind::value::from_str(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)))
                    .is_ok()
            );
        }
    }

    /// A Node worker or a C host may call in on a small stack: the tape
    /// readers give the value up (the layer then takes the JSON route,
    /// whose reader reports `limit_exceeded`) rather than overflow it.
    #[test]
    fn deep_tapes_on_small_thread_stacks_are_read_or_given_up() {
        let limit = Limits::default().max_depth;
        let tapes: Vec<Vec<u8>> = [ARRAY, OBJECT]
            .into_iter()
            .map(|open| {
                let mut ops = vec![open; limit];
                ops.extend(vec![END; limit]);
                ops
            })
            .collect();
        // Each object level names one key, `k`, except the innermost.
        let text = "k".repeat(limit - 1);
        let lengths = vec![1.0; limit - 1];
        let big = read_all(&tapes, &text, &lengths);
        for kib in [16, 32, 64, 96] {
            let tapes = tapes.clone();
            let text = text.clone();
            let lengths = lengths.clone();
            let small = std::thread::Builder::new()
                .stack_size(kib * 1024)
                .spawn(move || read_all(&tapes, &text, &lengths))
                .unwrap()
                .join()
                .unwrap();
            for ((value, text), (big_value, big_text)) in small.iter().zip(&big) {
                assert!(big_value.is_some() && !big_text.is_empty());
                assert!(value.is_none() || value == big_value, "{kib} KiB");
                assert!(text.is_empty() || text == big_text, "{kib} KiB");
            }
        }
    }

    /// Each tape read as a tree and encoded: an object tape with `text`'s
    /// keys and their `lengths`, an array tape with none.
    fn read_all(tapes: &[Vec<u8>], text: &str, lengths: &[f64]) -> Vec<(Option<Value>, String)> {
        tapes
            .iter()
            .map(|ops| {
                let (text, nums) = if ops[0] == OBJECT {
                    (text, lengths)
                } else {
                    ("", &[][..])
                };
                (
                    read(ops, text.as_bytes(), nums),
                    generic_encode_packed(ops, text.as_bytes(), nums, 0).unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn random_values_round_trip_and_damaged_tapes_never_panic() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..3000 {
            let v = random(&mut rng, 0);
            assert_eq!(round_trip(&v).as_ref(), Some(&v));
            let (mut ops, mut text, mut nums) = generic_encode_packed_args(&v);
            // One change anywhere: the reader answers (some value or None),
            // it never panics.
            damage(&mut rng, &mut ops, &mut text, &mut nums);
            let _ = read(&ops, &text, &nums);
        }
    }

    /// An encode's text or its error, comparable.
    fn outcome(r: Result<String>) -> std::result::Result<String, String> {
        r.map_err(|e| format!("{e:?}"))
    }

    /// The core's encode of the tree itself (`&Value` as the view): what
    /// every route of the engine must write.
    fn tree_encode(v: &Value, flags: u32) -> Result<String> {
        Ok(crate::encoder(flags).encode(v)?)
    }

    #[test]
    fn the_index_encodes_what_the_tree_encodes() {
        let mut rng = Rng(0x51_7cc1_b727_220a);
        let mut damaged_indexed = 0;
        for _ in 0..3000 {
            let v = random(&mut rng, 0);
            let (mut ops, mut text, mut nums) = generic_encode_packed_args(&v);
            for flags in [0, crate::NO_FLATTEN, crate::CONSTANT_COLUMNS] {
                let expected = outcome(tree_encode(&v, flags));
                assert_eq!(
                    outcome(generic_encode_packed(&ops, &text, &nums, flags)),
                    expected,
                    "{v:?}"
                );
                // The JSON route's tree, indexed.
                assert_eq!(outcome(crate::encode_value(&v, flags)), expected, "{v:?}");
            }
            // Damaged streams: the index takes exactly what the tree takes,
            // and encodes it the same.
            damage(&mut rng, &mut ops, &mut text, &mut nums);
            let tree = read(&ops, &text, &nums);
            let indexed = match checked_text(&text) {
                Some(t) => !matches!(packed_view::read(&ops, t, &nums), Read::NotPacked),
                None => false,
            };
            assert_eq!(indexed, tree.is_some(), "{ops:?}");
            if let Some(tree) = tree {
                damaged_indexed += 1;
                assert_eq!(
                    outcome(generic_encode_packed(&ops, &text, &nums, 0)),
                    outcome(tree_encode(&tree, 0))
                );
            }
        }
        // Some damage still leaves a value (a changed scalar op, say).
        assert!(damaged_indexed > 100, "{damaged_indexed}");
    }

    #[test]
    fn rows_of_one_shape_holding_a_container_are_not_a_scalar_table() {
        // The index tells the encoder which rows share row 0's names and
        // whether they hold only scalars (`View::record_shape`): a row of
        // the same shape with an array or object in it, first or last, and
        // rows of another shape, encode as the value tree does.
        for text in [
            r#"[{"a":1,"b":2},{"a":3,"b":[1]},{"a":5,"b":6}]"#,
            r#"[{"a":1,"b":2},{"a":3,"b":4},{"a":5,"b":{"c":1}}]"#,
            r#"[{"a":[1],"b":2},{"a":3,"b":4}]"#,
            r#"[{"a":1,"b":2},{"b":3,"a":4},{"a":5,"b":6}]"#,
            r#"[{"a":1,"b":2},{"a":3},{"a":5,"b":6}]"#,
            r#"[{},{},{}]"#,
            r#"{"t":[{"a":1,"b":"x"},{"a":2,"b":"y"}],"u":[{"a":1,"b":"x"},{"a":2,"b":[]}]}"#,
        ] {
            let v = json(text);
            let (ops, text_bytes, nums) = generic_encode_packed_args(&v);
            for flags in [0, crate::NO_FLATTEN, crate::CONSTANT_COLUMNS] {
                assert_eq!(
                    outcome(generic_encode_packed(&ops, &text_bytes, &nums, flags)),
                    outcome(tree_encode(&v, flags)),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn repeated_keys_are_merged_by_the_tree() {
        let (ops, text, nums) = (
            b"[{ddd.(ddd..",
            "1x1",
            [1.0, 2.0, 3.0, 1.0, 1.0, 1.0, 4.0, 5.0, 6.0],
        );
        let checked = checked_text(text.as_bytes()).unwrap();
        assert!(matches!(
            packed_view::read(ops, checked, &nums),
            Read::RepeatedKeys
        ));
        assert_eq!(
            generic_encode_packed(ops, text.as_bytes(), &nums, 0).unwrap(),
            tree_encode(&json(r#"[{"1":3,"x":2},{"1":6,"x":5}]"#), 0).unwrap()
        );
    }

    /// One change to packed streams: an op, a byte of text, a number (a
    /// value or a length), or a number too many.
    fn damage(rng: &mut Rng, ops: &mut [u8], text: &mut [u8], nums: &mut Vec<f64>) {
        match rng.below(4) {
            0 if !ops.is_empty() => {
                let i = rng.below(ops.len());
                ops[i] = b"ntfsd[{(.x"[rng.below(10)];
            }
            1 if !text.is_empty() => {
                let i = rng.below(text.len());
                text[i] = [0, b'a', 0xc3][rng.below(3)];
            }
            2 if !nums.is_empty() => {
                let i = rng.below(nums.len());
                nums[i] = [0.0, 1.0, 2.0, 0.5, -1.0][rng.below(5)];
            }
            _ => nums.push(1.0),
        }
    }

    pub(crate) struct Rng(pub(crate) u64);

    impl Rng {
        pub(crate) fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    pub(crate) fn random(rng: &mut Rng, depth: usize) -> Value {
        const KEYS: &[&str] = &["id", "name", "a", "b", "é", "", "x y"];
        match rng.below(if depth > 3 { 5 } else { 8 }) {
            0 => Value::Null,
            1 => Value::Bool(rng.below(2) == 0),
            2 => Value::Int(rng.below(2000) as i64 - 1000),
            3 => Value::Float(rng.below(1000) as f64 / 7.0 + 0.5),
            4 => Value::from(
                [
                    "",
                    "x",
                    "ü€😀",
                    "a\u{1}b",
                    "long string past the inline size",
                    "a\0b",
                ][rng.below(6)],
            ),
            5 => Value::Array((0..rng.below(4)).map(|_| random(rng, depth + 1)).collect()),
            6 => {
                // Records: objects of one shape, now and then another.
                let n = rng.below(5);
                let keys: Vec<&str> = (0..rng.below(4))
                    .map(|i| KEYS[(i + depth) % KEYS.len()])
                    .collect();
                Value::Array(
                    (0..n)
                        .map(|_| {
                            let mut m = Map::new();
                            let shift = usize::from(rng.below(4) == 0);
                            for k in keys.iter().skip(shift) {
                                m.insert(*k, random(rng, depth + 2));
                            }
                            Value::Object(m)
                        })
                        .collect(),
                )
            }
            _ => {
                let mut m = Map::new();
                for _ in 0..rng.below(4) {
                    m.insert(KEYS[rng.below(KEYS.len())], random(rng, depth + 1));
                }
                Value::Object(m)
            }
        }
    }
}
