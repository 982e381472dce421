//! Generic decode into the packed form the JS layer reads
//! (`fromPackedValue` in `bindings-js/layer/packed_value.mjs`), written as
//! the decoder goes: the core's decoder drives a [`Build`] that writes each
//! scalar, array and object into the packed streams as soon as the decoder
//! has it, so no [`Value`] tree is made, walked or dropped.
//!
//! A [`Packed`] whose `strings` start with a NUL, then the ops, then every
//! string the ops ask for, each preceded by a NUL (so JS's `split("\0")`
//! gives `""`, the ops and the strings in order), and whose `nums` hold the
//! numbers, in the order the ops ask for them.
//!
//! The ops run a stack machine, in the order the decoder finishes values
//! (members before their container):
//!
//! - `N`, `T`, `F`; `S` (the next string); `D` (the next number); `I` (an
//!   integer beyond 2^53: the next string holds its digits, for the layer's
//!   `largeInt` mode): push that scalar;
//! - `A`: the next number is a length `n`; pop `n` values, push the array of
//!   them;
//! - `O` and a slot digit (`0`-`7`): the next number is a size `n`, the next
//!   `n` strings are keys (kept in that slot); pop `n` values, push the
//!   object of those members;
//! - `P` and a slot digit: the same with the keys kept in that slot (records
//!   repeat their shape, so their keys cross once);
//! - `a`, `o`, `p`: as `A`, `O`, `P`, but the members are not the top of the
//!   stack: after the length (and keys), the next `n` numbers are the stack
//!   positions of the members, and nothing is popped. The decoder finishes
//!   a row's inline bodies and attachments while it reads the row, its
//!   scalar cells and flattened objects when the row ends, so a row holding
//!   both gathers its members this way;
//! - `R`: the next number is the stack position of the root; the end.
//!
//! A string holding a NUL cannot be carried: the whole value then comes as
//! tagged JSON ([`generic_decode`](crate::generic_decode)), which never
//! starts with a NUL.
//!
//! The WebAssembly build decodes to the core's [`Value`] and pushes that
//! tree instead (the same ops, never gathering): a second instance of the
//! whole generic decoder, over this builder, added 44 KB to a module already
//! past its size budget.

#[cfg(not(target_arch = "wasm32"))]
use gcf_core::generic::Decoder;
use gcf_core::generic::{Build, Key, Map, Value};

use crate::packed::Packed;
use crate::{tagged, Result};

/// [`generic_decode`](crate::generic_decode) into the packed form (see the
/// module docs).
///
/// ```
/// let p = gcf_js_engine::generic_decode_packed("GCF profile=generic\n## rows [2]{a,b}\n1|x\n2|-\n").unwrap();
/// // Two records, the array of them, the root object.
/// assert_eq!(p.strings, "\0DSO0DNP0AO1R\0x\0a\0b\0rows");
/// assert_eq!(p.nums, [1.0, 2.0, 2.0, 2.0, 1.0, 0.0]);
/// ```
pub fn generic_decode_packed(text: &str) -> Result<Packed> {
    let mut build = PackedBuilder::new(text.as_bytes());
    #[cfg(not(target_arch = "wasm32"))]
    let root = Decoder::new()
        .limits(crate::decode_limits())
        .decode_into(text, &mut build)?;
    #[cfg(target_arch = "wasm32")]
    let root = build.push(&crate::generic_decoder().decode(text)?);
    match build.finish(root) {
        Some(packed) => Ok(packed),
        None => tagged_decode(text),
    }
}

/// [`generic_decode_packed`] of UTF-8 bytes (validated by the core, which
/// reports `invalid_utf8` at its line and column).
pub fn generic_decode_bytes_packed(bytes: &[u8]) -> Result<Packed> {
    // What the core's `decode_bytes` does before decoding the text.
    generic_decode_packed(gcf_core::validate_utf8(bytes)?)
}

/// The value of `text` as tagged JSON: for a value with a NUL in a string,
/// decoded a second time (it decoded once, so it decodes again).
fn tagged_decode(text: &str) -> Result<Packed> {
    Ok(Packed {
        strings: tagged::to_string(&crate::generic_decoder().decode(text)?),
        nums: Vec::new(),
    })
}

/// The largest integer a double holds exactly along with its neighbours, as
/// an integer.
const SAFE: i64 = (1 << 53) - 1;

/// Object shapes kept for `P`: enough for the records of a table and the
/// objects nested in them (an order, its customer, its items) to each keep
/// theirs.
const SHAPES: usize = 8;

/// Writes the packed form as the decoder builds (see the module docs). A
/// built value is its position on the reader's stack.
struct PackedBuilder {
    ops: Vec<u8>,
    /// Every string, each preceded by a NUL.
    strings: String,
    nums: Vec<f64>,
    /// The height of the reader's stack.
    depth: usize,
    /// Object shapes by slot.
    shapes: Vec<Vec<Key>>,
    /// When each slot was last used, in objects written (a new shape takes
    /// the slot least recently used, so a shape every record nests keeps
    /// its slot while record shapes come and go).
    used: [usize; SHAPES],
    /// The decoder's number of the table whose row keys each slot holds,
    /// if a table's rows put them there ([`Build::row`]).
    table_of: [Option<usize>; SHAPES],
    /// Objects written.
    objects: usize,
    /// The slot the last object used (looked at first).
    last_shape: usize,
    /// Whether a string may hold a NUL: only from the text's own NUL bytes
    /// or from an escape, so without either no string needs looking at.
    nul_possible: bool,
    /// A string held a NUL: the packed form is void.
    nul_found: bool,
}

impl PackedBuilder {
    fn new(text: &[u8]) -> PackedBuilder {
        // Sized from the text, which holds every string and more than a
        // byte per value: growing from nothing was a tenth of a small decode.
        PackedBuilder {
            ops: Vec::with_capacity(text.len() / 2 + 16),
            strings: String::with_capacity(text.len() + 16),
            nums: Vec::with_capacity(text.len() / 4 + 4),
            depth: 0,
            shapes: Vec::new(),
            used: [0; SHAPES],
            table_of: [None; SHAPES],
            objects: 0,
            last_shape: 0,
            nul_possible: memchr::memchr2(0, b'\\', text).is_some(),
            nul_found: false,
        }
    }

    /// The packed form with the value at `root` as the result, or `None` if
    /// a string held a NUL.
    fn finish(mut self, root: usize) -> Option<Packed> {
        if self.nul_found {
            return None;
        }
        self.ops.push(b'R');
        self.nums.push(root as f64);
        let mut strings = String::with_capacity(1 + self.ops.len() + self.strings.len());
        strings.push('\0');
        // The ops are ASCII letters and digits.
        strings.push_str(core::str::from_utf8(&self.ops).ok()?);
        strings.push_str(&self.strings);
        Some(Packed {
            strings,
            nums: self.nums,
        })
    }

    /// The position of the value just pushed.
    #[inline]
    fn pushed(&mut self) -> usize {
        self.depth += 1;
        self.depth - 1
    }

    /// Pushes `v`; a container in it (which the decoder does not hand over
    /// as a scalar) is pushed with its members.
    fn push(&mut self, v: &Value) -> usize {
        match v {
            Value::Null => self.ops.push(b'N'),
            Value::Bool(true) => self.ops.push(b'T'),
            Value::Bool(false) => self.ops.push(b'F'),
            Value::Int(i) if (-SAFE..=SAFE).contains(i) => {
                self.ops.push(b'D');
                self.nums.push(*i as f64);
            }
            Value::Int(i) => {
                self.ops.push(b'I');
                self.text(itoa::Buffer::new().format(*i));
            }
            Value::Float(f) => {
                self.ops.push(b'D');
                self.nums.push(*f);
            }
            Value::String(s) => {
                self.ops.push(b'S');
                self.text(s);
            }
            Value::Array(items) => {
                let items = items.iter().map(|x| self.push(x)).collect();
                return self.array(items);
            }
            Value::Object(map) => {
                let members = map
                    .as_slice()
                    .iter()
                    .map(|(k, x)| (k.clone(), self.push(x)))
                    .collect();
                return self.object(members);
            }
        }
        self.pushed()
    }

    fn text(&mut self, s: &str) {
        if self.nul_possible && s.as_bytes().contains(&0) {
            self.nul_found = true;
        }
        self.strings.push('\0');
        self.strings.push_str(s);
    }

    /// Ends the container whose op (`A`, `O` or `P`) is at `op` in the ops,
    /// its members at the stack positions `at`: popped when they are the
    /// top of the stack, in order (the usual case), else gathered (the op
    /// in lowercase, the positions written). Returns its position.
    fn members(&mut self, op: usize, at: impl ExactSizeIterator<Item = usize> + Clone) -> usize {
        let n = at.len();
        if n <= self.depth && at.clone().eq(self.depth - n..self.depth) {
            self.depth -= n;
        } else {
            self.ops[op] = self.ops[op].to_ascii_lowercase();
            self.nums.extend(at.map(|i| i as f64));
        }
        self.pushed()
    }

    /// The slot holding the `n` keys `key(0..n)`, if one does.
    fn shape_of<'k>(&self, n: usize, key: impl Fn(usize) -> &'k Key) -> Option<usize> {
        let same = |slot: usize| {
            let keys = &self.shapes[slot];
            keys.len() == n && keys.iter().enumerate().all(|(i, a)| a.same_text(key(i)))
        };
        let n = self.shapes.len();
        (0..n)
            .map(|i| (self.last_shape + i) % n)
            .find(|&slot| same(slot))
    }
}

impl Build for PackedBuilder {
    type Value = usize;

    #[inline]
    fn scalar(&mut self, value: Value) -> usize {
        self.push(&value)
    }

    #[inline]
    fn repeated(&mut self, value: &Value) -> usize {
        self.push(value)
    }

    #[inline]
    fn string(&mut self, text: &str) -> usize {
        self.ops.push(b'S');
        self.text(text);
        self.pushed()
    }

    fn array(&mut self, items: Vec<usize>) -> usize {
        let op = self.ops.len();
        self.ops.push(b'A');
        self.nums.push(items.len() as f64);
        self.members(op, items.into_iter())
    }

    fn scalar_array(&mut self, items: Vec<Value>) -> usize {
        // Each item pushes one value, in order: they are the top of the
        // stack.
        let from = self.depth;
        for item in &items {
            self.push(item);
        }
        let op = self.ops.len();
        self.ops.push(b'A');
        self.nums.push(items.len() as f64);
        self.members(op, from..from + items.len())
    }

    fn object(&mut self, members: Vec<(Key, usize)>) -> usize {
        self.object_of(&members)
    }

    fn object_from(&mut self, members: &mut Vec<(Key, usize)>) -> usize {
        let built = self.object_of(members);
        members.clear();
        built
    }

    /// Rows of one table share their keys: the slot the table's keys went
    /// to is found again by the table's number, not by comparing them.
    fn row(&mut self, table: usize, keys: &[Key], values: &mut Vec<usize>) -> usize {
        let n = keys.len().min(values.len());
        let built = self.object_with(n, |i| &keys[i], values.iter().copied().take(n), Some(table));
        values.clear();
        built
    }
}

impl PackedBuilder {
    /// [`Build::object`] of members read in place.
    fn object_of(&mut self, members: &[(Key, usize)]) -> usize {
        let n = members.len();
        self.object_with(
            n,
            |i| &members[i].0,
            members.iter().map(|&(_, at)| at),
            None,
        )
    }

    /// The object of the `n` members keyed `key(0..n)` whose values are at
    /// `at`; `table` is the decoder's number of the table whose row it is.
    fn object_with<'k>(
        &mut self,
        n: usize,
        key: impl Fn(usize) -> &'k Key,
        at: impl ExactSizeIterator<Item = usize> + Clone,
        table: Option<usize>,
    ) -> usize {
        let op = self.ops.len();
        let known = table.and_then(|t| self.table_of.iter().position(|&k| k == Some(t)));
        let slot = match known.or_else(|| self.shape_of(n, &key)) {
            Some(slot) => {
                self.ops.extend_from_slice(&[b'P', b'0' + slot as u8]);
                slot
            }
            None => {
                let slot = if self.shapes.len() < SHAPES {
                    self.shapes.push(Vec::with_capacity(n));
                    self.shapes.len() - 1
                } else {
                    (0..SHAPES).min_by_key(|&i| self.used[i]).unwrap_or(0)
                };
                self.ops.extend_from_slice(&[b'O', b'0' + slot as u8]);
                self.nums.push(n as f64);
                let keys = &mut self.shapes[slot];
                keys.clear();
                keys.extend((0..n).map(|i| key(i).clone()));
                for i in 0..n {
                    self.text(key(i));
                }
                // Whichever table's keys the slot held, they are gone.
                self.table_of[slot] = None;
                slot
            }
        };
        if table.is_some() {
            self.table_of[slot] = table;
        }
        self.objects += 1;
        self.last_shape = slot;
        self.used[slot] = self.objects;
        self.members(op, at)
    }
}

/// The value of [`generic_decode_packed`]'s packed form, read as the JS
/// layer reads it (`fromPackedValue`, with objects as [`Value`] objects
/// instead of `Map`s and numbers read back as the JSON route reads them):
/// the reader the tests and the fuzz targets hold the engine to. `None` if
/// it is not exactly such a form: an op, string or number missing or left
/// over, a value taken twice.
#[doc(hidden)]
pub fn read_packed_value(p: &Packed) -> Option<Value> {
    read(p).map(|(v, _)| v)
}

/// [`read_packed_value`], and how many containers gathered their members.
fn read(p: &Packed) -> Option<(Value, usize)> {
    let fields: Vec<&str> = p.strings.split('\0').collect();
    if fields.first() != Some(&"") {
        return None;
    }
    let mut r = Reader {
        ops: fields.get(1)?.as_bytes(),
        fields: &fields,
        nums: &p.nums,
        at: (0, 2, 0),
        stack: Vec::new(),
        shapes: vec![Vec::new(); SHAPES],
        gathers: 0,
    };
    let v = r.run()?;
    (r.at == (r.ops.len(), fields.len(), p.nums.len())).then_some((v, r.gathers))
}

/// The JS layer's reader (see [`read_packed_value`]).
struct Reader<'a> {
    ops: &'a [u8],
    fields: &'a [&'a str],
    nums: &'a [f64],
    /// The next op, string and number.
    at: (usize, usize, usize),
    /// The stack; a value taken leaves `None` (a gathered one stays in
    /// place). Values may be left over: the decoder builds the members of
    /// a flattened object whose leaves are all null, then drops them for
    /// one null.
    stack: Vec<Option<Value>>,
    shapes: Vec<Vec<&'a str>>,
    gathers: usize,
}

impl<'a> Reader<'a> {
    fn op(&mut self) -> Option<u8> {
        self.at.0 += 1;
        self.ops.get(self.at.0 - 1).copied()
    }

    fn string(&mut self) -> Option<&'a str> {
        self.at.1 += 1;
        self.fields.get(self.at.1 - 1).copied()
    }

    fn number(&mut self) -> Option<f64> {
        self.at.2 += 1;
        self.nums.get(self.at.2 - 1).copied()
    }

    /// A length or stack position.
    fn index(&mut self) -> Option<usize> {
        let x = self.number()?;
        // Whole by a round trip, not `f64::fract` (a libm call on x86-64).
        ((0.0..=u32::MAX as f64).contains(&x) && (x as u32) as f64 == x).then_some(x as usize)
    }

    fn take(&mut self, at: usize) -> Option<Value> {
        self.stack.get_mut(at)?.take()
    }

    /// The members of a container of `n`: the top of the stack, or
    /// gathered by position.
    fn members(&mut self, n: usize, gathered: bool) -> Option<Vec<Value>> {
        if gathered {
            self.gathers += 1;
            (0..n)
                .map(|_| {
                    let at = self.index()?;
                    self.take(at)
                })
                .collect()
        } else {
            let from = self.stack.len().checked_sub(n)?;
            self.stack.drain(from..).collect()
        }
    }

    fn run(&mut self) -> Option<Value> {
        loop {
            let op = self.op()?;
            let v = match op {
                b'N' => Value::Null,
                b'T' => Value::Bool(true),
                b'F' => Value::Bool(false),
                b'S' => Value::from(self.string()?),
                b'D' => {
                    let x = self.number()?;
                    if x.abs() <= SAFE as f64
                        && (x as i64) as f64 == x
                        && !(x == 0.0 && x.is_sign_negative())
                    {
                        Value::Int(x as i64)
                    } else {
                        Value::Float(x)
                    }
                }
                b'I' => Value::Int(self.string()?.parse().ok()?),
                b'A' | b'a' => {
                    let n = self.index()?;
                    Value::Array(self.members(n, op == b'a')?)
                }
                b'O' | b'o' | b'P' | b'p' => {
                    let slot = usize::from(self.op()?.checked_sub(b'0')?);
                    if op.eq_ignore_ascii_case(&b'O') {
                        let n = self.index()?;
                        let keys = (0..n).map(|_| self.string()).collect::<Option<_>>()?;
                        *self.shapes.get_mut(slot)? = keys;
                    }
                    let keys = self.shapes.get(slot)?.clone();
                    let values = self.members(keys.len(), op.is_ascii_lowercase())?;
                    let mut m = Map::new();
                    for (k, v) in keys.into_iter().zip(values) {
                        if m.contains_key(k) {
                            return None;
                        }
                        m.push_unique(k, v);
                    }
                    Value::Object(m)
                }
                b'R' => {
                    let at = self.index()?;
                    return self.take(at);
                }
                _ => return None,
            };
            self.stack.push(Some(v));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::packed_value::tests::{json, random, Rng};

    fn unpack(p: &Packed) -> Value {
        read_packed_value(p).expect("a packed form that reads")
    }

    fn unpack_noting_gathers(p: &Packed) -> (Value, usize) {
        read(p).expect("a packed form that reads")
    }

    /// Equal, member order included (`Value`'s equality ignores no order,
    /// but says `Int(1) == Float(1.0)`: the packed form keeps that apart
    /// only as the JSON route does, as a JS number).
    fn same_order(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .zip(y.iter())
                        .all(|((k, v), (l, w))| k == l && same_order(v, w))
            }
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_order(v, w))
            }
            _ => a == b,
        }
    }

    /// Decodes `bytes` both ways (the core's tree, the packed form read
    /// back; the `&str` and the bytes entry) and panics unless they agree:
    /// the same value, member order included, or the same error. Returns
    /// whether it decoded.
    fn agrees(bytes: &[u8]) -> bool {
        let shown = || String::from_utf8_lossy(bytes).into_owned();
        let packed = generic_decode_bytes_packed(bytes);
        // The WebAssembly build's route: the tree, pushed.
        if let (Ok(value), Ok(p)) = (gcf_core::generic::decode_bytes(bytes), &packed) {
            let mut build = PackedBuilder::new(bytes);
            let root = build.push(&value);
            if let Some(walked) = build.finish(root) {
                let (v, gathers) = read(&walked).expect("the walk's form reads");
                assert_eq!(gathers, 0);
                assert!(same_order(&v, &unpack(p)), "{}", shown());
            }
        }
        if let Ok(text) = core::str::from_utf8(bytes) {
            assert_eq!(
                generic_decode_packed(text).map_err(|e| format!("{e:?}")),
                packed.clone().map_err(|e| format!("{e:?}")),
                "{}",
                shown()
            );
        }
        match (gcf_core::generic::decode_bytes(bytes), packed) {
            (Ok(value), Ok(p)) => {
                if p.strings.starts_with('\0') {
                    assert!(same_order(&unpack(&p), &value), "{}", shown());
                } else {
                    assert_eq!(p.strings, tagged::to_string(&value), "{}", shown());
                }
                true
            }
            (Err(a), Err(b)) => {
                assert_eq!(gcf_bind::Failure::from(a), b, "{}", shown());
                false
            }
            (a, b) => panic!("{}: decode {a:?}, packed {b:?}", shown()),
        }
    }

    #[test]
    fn records_send_their_keys_once_per_shape() {
        let text = crate::encode_value(
            &json(r#"{"rows":[{"a":1,"b":"x"},{"a":2,"b":null},{"b":3,"a":4}],"big":-9007199254740993,"f":-0.0,"e":[]}"#),
            0,
        )
        .unwrap();
        let p = generic_decode_packed(&text).unwrap();
        // Three rows (a table: the third row's keys in the table's order,
        // so in the first row's slot), the rows' array, the big integer,
        // -0, the empty array, the root (another shape, another slot).
        assert_eq!(
            p.strings,
            "\0DSO0DNP0DDP0AIDAO1R\0x\0a\0b\0-9007199254740993\0rows\0big\0f\0e"
        );
        assert_eq!(p.nums, [1.0, 2.0, 2.0, 4.0, 3.0, 3.0, -0.0, 0.0, 4.0, 0.0]);
        assert!(same_order(
            &unpack(&p),
            &gcf_core::generic::decode(&text).unwrap()
        ));
    }

    #[test]
    fn shapes_past_the_slots_are_sent_again() {
        // Ten shapes in turn: with eight slots, each comes back to a slot
        // another shape took since, so its keys cross again, and the value
        // still reads back.
        let rows: Vec<String> = (0..40)
            .map(|i| format!(r#"{{"k{}":{i},"n":{{"x":"{i}"}}}}"#, i % 10))
            .collect();
        let v = json(&format!("[{}]", rows.join(",")));
        let text = crate::encode_value(&v, crate::NO_FLATTEN).unwrap();
        assert!(agrees(text.as_bytes()), "{text}");
        let p = generic_decode_packed(&text).unwrap();
        let ops = p.strings.split('\0').nth(1).unwrap();
        // The nested object's shape stays put; the ten record shapes evict
        // each other.
        assert!(ops.matches('O').count() > 10, "{ops}");
        assert!(ops.matches('P').count() >= 39, "{ops}");
    }

    #[test]
    fn a_tables_slot_taken_between_its_rows_is_found_again_by_its_keys() {
        // Each record nests nine objects of shapes no other record has, so
        // between two records of the table the records' slot is taken for
        // one of them: the table's number no longer names a slot, and the
        // next record's keys cross again, in a fresh `O`.
        let rows: Vec<String> = (0..12)
            .map(|i| {
                let inner: Vec<String> = (0..9)
                    .map(|j| format!(r#""s{j}":{{"q{i}_{j}":{j},"r{i}_{j}":"x"}}"#))
                    .collect();
                format!(r#"{{"id":{i},"name":"n{i}","c":{{{}}}}}"#, inner.join(","))
            })
            .collect();
        let v = json(&format!(r#"{{"rows":[{}]}}"#, rows.join(",")));
        for flags in [0, crate::NO_FLATTEN] {
            let text = crate::encode_value(&v, flags).unwrap();
            assert!(agrees(text.as_bytes()), "{text}");
            let p = generic_decode_packed(&text).unwrap();
            let keys_sent = p.strings.split('\0').filter(|s| *s == "name").count();
            assert!(keys_sent > 1, "{flags}: {text}");
        }
    }

    #[test]
    fn a_string_with_a_nul_sends_the_value_as_tagged_json() {
        for text in [r#"{"a":"x\u0000y"}"#, r#"{"k\u0000":1}"#, r#"["\u0000"]"#] {
            let gcf = crate::encode_value(&json(text), 0).unwrap();
            let p = generic_decode_packed(&gcf).unwrap();
            assert!(p.strings.starts_with(['{', '[']), "{}", p.strings);
            assert_eq!(p.strings, crate::generic_decode(&gcf).unwrap());
            assert!(p.nums.is_empty());
            assert_eq!(generic_decode_bytes_packed(gcf.as_bytes()).unwrap(), p);
        }
    }

    #[test]
    fn random_values_decode_to_the_packed_form_and_back() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..3000 {
            let v = random(&mut rng, 0);
            for flags in [0, crate::NO_FLATTEN, crate::CONSTANT_COLUMNS] {
                let text = crate::encode_value(&v, flags).unwrap();
                assert!(agrees(text.as_bytes()), "{text}");
            }
        }
    }

    /// Texts of the forms where the decoder finishes containers out of
    /// document order or hands over repeats: inline bodies beside flattened
    /// objects, attachments, constants, groups, keyed maps.
    const OUT_OF_ORDER: &[&str] = &[
        "## [2]{\"a>x\",b,\"c>y\",d}\n@0 1|^{p,q}|2|-\n3|4\n@1 ~|^|~|x\n5|6\n",
        "## [2]{\"a>x\",b,\"c>y\",d,e}\n@0 1|^|2|-|^\n.b [1]{p,q}\n    3|4\n.e {}\n    m[2]: 1,2\n@1 5|^|7|x|^\n.b [2]\n    5|6\n    1|1\n.e {}\n    m[1]: 3\n",
        "## [1]{\"o>k\",c,items,t}\n@0 z|^{name,kind=user,age}|^|1\nAnn|30\n.items [2]{sku,qty=1,\"p>q\"}\n    a|5\n    b|6\n",
        "## [2]{a,b=5,c}\n1|~\n~|^\n  .c {}\n    z=1\n",
        "## m [2:]{key,a,b=on}\nx|1\ny|2\n",
        "## s\n  ## t [3]{@k,\"g g\"} group=\"g g\"\n  \"g g\"=- [1]\n  1\n  \"g g\"=2.5 [1]\n  2\n  \"g g\"=a [1] [1]\n  3\n",
        "## [1]{id,m}\n1|^\n  .m [2]{@k,g} group=g\n    g=a [2]\n    1\n    2\n",
        "## [3]{@id,dept,x=1,y} group=dept\ndept=Sales [2]\nu1|a\nu3|~\ndept=\"R&D, Labs\" [1]\nu2|c\n",
        "## rows [2]{k=-,id,t=true,i=-7,x=1.5e3,s=\"a,b}c\",n=\"\",sp=a b,c=^{abc,w}\n1|p\n2|q\n",
        "## a\n  k=v\n  l[3]: 1,x,-\n## b [1]\n@0 [2]{a,b=2}\n  1\n  3\n",
    ];

    /// [`agrees`] on `text`, every cut of it and a one-byte change at every
    /// place (or at `count` places): how many decoded.
    fn agrees_on_variants(text: &[u8], count: usize) -> usize {
        let mut decoded = usize::from(agrees(text));
        let stride = (text.len() / count.max(1)).max(1);
        for cut in (0..text.len()).step_by(stride) {
            decoded += usize::from(agrees(&text[..cut]));
        }
        let mut buf = text.to_vec();
        for pos in (0..text.len()).step_by(stride) {
            for &m in b"|-@.^=>{ \n\0" {
                let orig = buf[pos];
                buf[pos] = m;
                decoded += usize::from(agrees(&buf));
                buf[pos] = orig;
            }
        }
        decoded
    }

    #[test]
    fn containers_finished_out_of_order_read_back_in_place() {
        let (mut decoded, mut out_of_order) = (0, 0);
        for body in OUT_OF_ORDER {
            let text = format!("GCF profile=generic\n{body}");
            assert!(agrees(text.as_bytes()), "{text}");
            let p = generic_decode_packed(&text).unwrap();
            out_of_order += usize::from(unpack_noting_gathers(&p).1 > 0);
            decoded += agrees_on_variants(text.as_bytes(), usize::MAX);
        }
        // The forms this test is for: a row's containers defined in
        // another order than its members list them.
        assert!(out_of_order >= 3, "{out_of_order}");
        assert!(decoded > 500, "{decoded}");
    }

    /// Every GCF text in the conformance fixtures whose header starts
    /// with `prefix` (`GCF profile=generic`, `GCF profile=graph`).
    pub(crate) fn fixture_texts(prefix: &str) -> Vec<String> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir)
                .expect("the conformance fixtures")
                .flatten()
            {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "json") {
                    out.push(path);
                }
            }
        }
        fn strings(v: &serde_json::Value, prefix: &str, out: &mut Vec<String>) {
            match v {
                serde_json::Value::String(s) if s.starts_with(prefix) => out.push(s.clone()),
                serde_json::Value::Array(items) => {
                    items.iter().for_each(|x| strings(x, prefix, out))
                }
                serde_json::Value::Object(m) => m.values().for_each(|x| strings(x, prefix, out)),
                _ => {}
            }
        }
        let dir = std::env::var_os("GCF_CONFORMANCE_DIR").map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance"),
            PathBuf::from,
        );
        let mut files = Vec::new();
        walk(&dir, &mut files);
        files.sort();
        let mut out = Vec::new();
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            strings(&serde_json::from_str(&text).unwrap(), prefix, &mut out);
        }
        out
    }

    #[test]
    fn fixture_texts_and_their_variants_agree_with_the_tree() {
        let texts = fixture_texts("GCF profile=generic");
        assert!(texts.len() > 100, "{} texts", texts.len());
        let (mut decoded, mut failed) = (0, 0);
        for text in &texts {
            if agrees(text.as_bytes()) {
                decoded += 1;
            } else {
                failed += 1;
            }
            agrees_on_variants(text.as_bytes(), 8);
        }
        assert!(
            decoded > 80 && failed > 20,
            "{decoded} decoded, {failed} failed"
        );
    }
}
