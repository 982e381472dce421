//! A JSON-text reader that builds a generic [`Value`] directly: one pass
//! over the bytes, no serde, no intermediate tree.
//!
//! It exists for speed. Through serde, a generic encode spent about four
//! fifths of its time reading its input (a visitor call per token, a size
//! guess per container, every key built through serde's string machinery).
//! Here a string without escapes is found by a word-at-a-time scan and
//! copied once, keys become [`Key`]s (inline, no allocation, when short),
//! array items are gathered on a scratch stack shared by the whole read, so
//! every array is allocated once at its exact size, and objects start at
//! the size of the last object at their depth, which records repeat.
//!
//! It answers only for text it is sure of. [`read`] returns `None` for
//! anything malformed, and for the few well-formed inputs whose reading
//! depends on how serde_json was built or which need the serde reader's
//! error: a bare integer outside `int64`, a number that overflows a double,
//! `-0` (a double `-0.0` without serde_json's `arbitrary_precision`, an
//! integer `0` with it), a lone surrogate escape, nesting past the depth
//! limit. The caller then reads the text with the serde reader of
//! [`crate::value`], which gives the value or the failure (category,
//! message, line and column) exactly as before. Errors therefore cost a
//! second read, and valid text never does; `None` is never a verdict on the
//! text, only "ask the other reader", so this reader may be stricter than
//! JSON, never looser. The tests hold the two readers to the same answer
//! on every input of the value tests and on random valid and damaged text.
//!
//! The rules it shares with the serde reader: JSON whitespace (space, tab,
//! CR, LF) only; integers (no fraction, no exponent) exactly in `int64`;
//! other numbers through `str::parse::<f64>`, which rounds correctly as
//! serde_json's `float_roundtrip` does; at most [`Limits::max_depth`]
//! nested containers, the root counting one, so the recursion is bounded
//! too; a repeated key keeps its first position and its last value.

use gcf_core::generic::{Key, Map, Value};
use gcf_core::Limits;

/// The value of JSON `text`, or `None` when the serde reader must decide
/// (see the module docs).
pub(crate) fn read(text: &str) -> Option<Value> {
    let mut r = Reader {
        text,
        b: text.as_bytes(),
        i: 0,
        items: Vec::new(),
        sizes: [0; SIZED_DEPTHS],
    };
    let v = r.value(Limits::default().max_depth)?;
    r.skip_ws();
    (r.i == r.b.len()).then_some(v)
}

/// One of 64 bits for `key`, from its length and its first and last bytes.
#[inline]
fn key_bit(key: &str) -> u64 {
    let b = key.as_bytes();
    let (first, last) = match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => (u32::from(f), u32::from(l)),
        _ => (0, 0),
    };
    let h = (b.len() as u32)
        .wrapping_mul(0x9E37_79B9)
        .wrapping_add(first.wrapping_mul(0x85EB_CA6B))
        .wrapping_add(last.wrapping_mul(0xC2B2_AE35));
    1u64 << (h >> 26)
}

/// Depths for which `Reader::sizes` remembers object sizes; deeper objects
/// start empty.
const SIZED_DEPTHS: usize = 16;

struct Reader<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    /// Array items read but not yet placed in their array.
    items: Vec<Value>,
    /// The member count of the last object closed at each depth, the
    /// capacity the next one starts with (see `object`).
    sizes: [u16; SIZED_DEPTHS],
}

impl<'a> Reader<'a> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    /// The next byte after whitespace, consumed.
    #[inline(always)]
    fn next_token(&mut self) -> Option<u8> {
        let mut c = self.peek()?;
        // Text from `JSON.stringify` has no whitespace at all.
        if c <= b' ' {
            self.skip_ws();
            c = self.peek()?;
        }
        self.i += 1;
        Some(c)
    }

    /// A value starting after whitespace; `depth_left` containers may still
    /// open, this one included.
    fn value(&mut self, depth_left: usize) -> Option<Value> {
        let c = self.next_token()?;
        self.value_from(c, depth_left)
    }

    /// The value whose first byte `c` was just consumed. Inlined into the
    /// container loops, so that a scalar member costs no call; containers
    /// recurse through `array` and `object`, at most the depth limit.
    #[inline(always)]
    fn value_from(&mut self, c: u8, depth_left: usize) -> Option<Value> {
        // Short of stack (`gcf_core::stack`), the serde reader takes over
        // and says so.
        if matches!(c, b'{' | b'[')
            && gcf_core::stack::exhausted(Limits::default().max_depth + 1 - depth_left)
        {
            return None;
        }
        match c {
            b'"' => self.string().map(Value::String),
            b'{' => self.object(depth_left.checked_sub(1)?),
            b'[' => self.array(depth_left.checked_sub(1)?),
            b't' => self.word(b"rue", Value::Bool(true)),
            b'f' => self.word(b"alse", Value::Bool(false)),
            b'n' => self.word(b"ull", Value::Null),
            c @ (b'-' | b'0'..=b'9') => self.number(c),
            _ => None,
        }
    }

    fn word(&mut self, rest: &[u8], v: Value) -> Option<Value> {
        let end = self.i + rest.len();
        (self.b.get(self.i..end)? == rest).then(|| {
            self.i = end;
            v
        })
    }

    fn array(&mut self, depth_left: usize) -> Option<Value> {
        self.skip_ws();
        if self.peek()? == b']' {
            self.i += 1;
            return Some(Value::Array(Vec::new()));
        }
        let mark = self.items.len();
        loop {
            let c = self.next_token()?;
            let v = self.value_from(c, depth_left)?;
            self.items.push(v);
            match self.next_token()? {
                b',' => {}
                b']' => break,
                _ => return None,
            }
        }
        Some(Value::Array(self.items.drain(mark..).collect()))
    }

    fn object(&mut self, depth_left: usize) -> Option<Value> {
        match self.next_token()? {
            b'}' => return Some(Value::Object(Map::new())),
            b'"' => {}
            _ => return None,
        }
        // Objects are built in place, not gathered on a stack like arrays:
        // a member is larger than an item, and records repeat their shape,
        // so the size of the previous object at the same depth is nearly
        // always this one's. A wrong guess costs a reallocation; memory stays
        // bounded by the input, since an object's size is the guess of at
        // most one later object (which then leaves its own).
        let depth = Limits::default().max_depth - depth_left;
        let guess = self.sizes.get(depth).map_or(0, |&n| usize::from(n));
        let mut map = Map::with_capacity(if guess == 0 { 4 } else { guess });
        // One bit per key, chosen by its length and end bytes: a key whose
        // bit is new cannot repeat an earlier one, so the exact check of
        // `last_wins` runs only for objects where two bits met.
        let (mut seen, mut collided) = (0u64, false);
        loop {
            // The key is built where it is pushed, so that it is written
            // once, into the map: built earlier and moved, its inline bytes
            // (written a few at a time) were read back as whole words before
            // the writes had landed, a store-forwarding stall that took a
            // third of the reader's time.
            let (plain, decoded) = self.key_text()?;
            let text = decoded.as_deref().unwrap_or(plain);
            // With `arbitrary_precision` on in the build, serde_json reads
            // an object under this first key as a number.
            if map.is_empty() && text == crate::value::NUMBER_TOKEN {
                return None;
            }
            let bit = key_bit(text);
            collided |= seen & bit != 0;
            seen |= bit;
            if self.next_token()? != b':' {
                return None;
            }
            let c = self.next_token()?;
            if c == b'"' {
                let s = self.string()?;
                map.push_unique(Key::new(text), Value::String(s));
            } else {
                let v = self.value_from(c, depth_left)?;
                map.push_unique(Key::new(text), v);
            }
            match self.next_token()? {
                b',' => {
                    if self.next_token()? != b'"' {
                        return None;
                    }
                }
                b'}' => break,
                _ => return None,
            }
        }
        if let Some(n) = self.sizes.get_mut(depth) {
            *n = u16::try_from(map.len()).unwrap_or(u16::MAX);
        }
        Some(Value::Object(if collided {
            crate::value::last_wins(map)
        } else {
            map
        }))
    }

    /// A key, after its opening quote: its text in the input, or for a key
    /// with escapes, the decoded text (and `""` for the slice).
    fn key_text(&mut self) -> Option<(&'a str, Option<String>)> {
        let start = self.i;
        let end = self.plain_run(start);
        match *self.b.get(end)? {
            b'"' => {
                self.i = end + 1;
                Some((&self.text[start..end], None))
            }
            b'\\' => {
                let mut s = String::new();
                self.escaped(start, end, &mut s).then_some(("", Some(s)))
            }
            _ => None,
        }
    }

    /// A string, after its opening quote.
    fn string(&mut self) -> Option<Key> {
        let start = self.i;
        let end = self.plain_run(start);
        match *self.b.get(end)? {
            b'"' => {
                self.i = end + 1;
                Some(Key::new(&self.text[start..end]))
            }
            b'\\' => {
                let mut s = String::with_capacity(end - start + 16);
                self.escaped(start, end, &mut s).then(|| Key::from(s))
            }
            _ => None,
        }
    }

    /// The end of the run from `i` of bytes that stand for themselves in a
    /// string (not `"`, `\` or a control character): the index of the first
    /// other byte, or the text's length.
    #[inline]
    fn plain_run(&self, mut i: usize) -> usize {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGHS: u64 = 0x8080_8080_8080_8080;
        let b = self.b;
        // Eight bytes at a time: a byte is flagged when it equals `"` or
        // `\`, or is below 0x20. Each test can also flag bytes above a
        // real match (borrows propagate upwards), never below one, so the
        // lowest flagged byte is the first special one.
        while let Some(chunk) = b.get(i..i + 8) {
            let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            let quote = w ^ (ONES * u64::from(b'"'));
            let slash = w ^ (ONES * u64::from(b'\\'));
            let hit = (quote.wrapping_sub(ONES) & !quote)
                | (slash.wrapping_sub(ONES) & !slash)
                | (w.wrapping_sub(ONES * 0x20) & !w);
            let hit = hit & HIGHS;
            if hit != 0 {
                return i + (hit.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
        while let Some(&c) = b.get(i) {
            if c == b'"' || c == b'\\' || c < 0x20 {
                break;
            }
            i += 1;
        }
        i
    }

    /// Decodes the string from `start` (its first escape is at `at`) into
    /// `out`, and moves past its closing quote; `false` if it is malformed
    /// or holds a lone surrogate.
    fn escaped(&mut self, start: usize, mut at: usize, out: &mut String) -> bool {
        let mut from = start;
        loop {
            out.push_str(&self.text[from..at]);
            match self.b.get(at) {
                Some(b'"') => {
                    self.i = at + 1;
                    return true;
                }
                Some(b'\\') => {}
                _ => return false,
            }
            let Some(&e) = self.b.get(at + 1) else {
                return false;
            };
            let mut next = at + 2;
            match e {
                b'"' => out.push('"'),
                b'\\' => out.push('\\'),
                b'/' => out.push('/'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => {
                    let Some(hi) = self.hex4(next) else {
                        return false;
                    };
                    next += 4;
                    let code = match hi {
                        0xD800..=0xDBFF => {
                            if self.b.get(next..next + 2) != Some(b"\\u") {
                                return false;
                            }
                            match self.hex4(next + 2) {
                                Some(lo @ 0xDC00..=0xDFFF) => {
                                    next += 6;
                                    0x1_0000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                }
                                _ => return false,
                            }
                        }
                        0xDC00..=0xDFFF => return false,
                        _ => hi,
                    };
                    match char::from_u32(code) {
                        Some(c) => out.push(c),
                        None => return false,
                    }
                }
                _ => return false,
            }
            from = next;
            at = self.plain_run(next);
        }
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.b.get(at..at + 4)?;
        let mut n = 0u32;
        for &d in digits {
            n = n << 4 | char::from(d).to_digit(16)?;
        }
        Some(n)
    }

    /// A number whose first byte `first` was just consumed.
    fn number(&mut self, first: u8) -> Option<Value> {
        let start = self.i - 1;
        let negative = first == b'-';
        let lead = if negative { self.next_byte()? } else { first };
        let mut magnitude = u64::from(lead.wrapping_sub(b'0'));
        match lead {
            b'0' => {}
            b'1'..=b'9' => {
                while let Some(d @ b'0'..=b'9') = self.peek() {
                    // Past u64 is past int64 too: the serde reader reports it.
                    magnitude = magnitude
                        .checked_mul(10)?
                        .checked_add(u64::from(d - b'0'))?;
                    self.i += 1;
                }
            }
            _ => return None,
        }
        if let Some(b'.' | b'e' | b'E') = self.peek() {
            return self.fraction(start);
        }
        if !negative {
            return i64::try_from(magnitude).ok().map(Value::Int);
        }
        match magnitude {
            0 => None,
            m if m <= 1 << 63 => Some(Value::Int((m as i64).wrapping_neg())),
            _ => None,
        }
    }

    /// The rest of a number with a fraction or exponent, from `start`.
    fn fraction(&mut self, start: usize) -> Option<Value> {
        if self.peek() == Some(b'.') {
            self.i += 1;
            self.digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            self.digits()?;
        }
        let f = gcf_core::parse_f64(&self.text[start..self.i])?;
        f.is_finite().then_some(Value::Float(f))
    }

    /// One or more digits.
    fn digits(&mut self) -> Option<()> {
        let start = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        (self.i > start).then_some(())
    }

    fn next_byte(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }
}

#[cfg(test)]
mod tests {
    //! The direct reader against the serde reader: on random valid JSON
    //! (every number shape, escapes, surrogates, duplicate keys, whitespace,
    //! nesting around the limit) and on the same text damaged at random, it
    //! must answer exactly when its answer is the serde reader's, and
    //! `from_str` (the two together) must be the serde reader everywhere.

    use super::*;
    use crate::value::{from_str, serde_str};

    use crate::test_rng::Rng;

    const NUMBERS: &[&str] = &[
        "0",
        "-0",
        "-0.0",
        "-0e0",
        "7",
        "-12",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "100000000000000000000",
        "1.5",
        "1e20",
        "1E+2",
        "2.5e-3",
        "1e400",
        "-1e400",
        "1e-400",
        "248.71073360554874",
        "105.39966868236661",
        "0.1000000000000000055511151231257827",
        "9223372036854775808.0",
        "1.7976931348623157e308",
        "4.9e-324",
        "123456789012345678901234567890e-10",
        "01",
        "1.",
        ".5",
        "1e",
        "+1",
        "-",
    ];

    const STRINGS: &[&str] = &[
        "a",
        "é",
        "\\n",
        "\\\"",
        "\\\\",
        "\\/",
        "\\b\\f\\r\\t",
        "\\u00e9",
        "\\u0000",
        "\\ud83d\\ude00",
        "\\ud83d",
        "\\ude00",
        "\\ud83dx",
        "\\ud83d\\u0041",
        "\\x",
        "\\u12",
        "\\uZZZZ",
        "😀",
        "\u{1}",
        "\u{7f}",
        "long text past eight bytes",
        "$serde_json::private::Number",
    ];

    fn ws(rng: &mut Rng, out: &mut String) {
        if rng.below(4) == 0 {
            out.push_str(rng.pick(&[" ", "\n", "\t", "\r\n  ", "\u{c}", "\u{a0}"]));
        }
    }

    fn string(rng: &mut Rng, out: &mut String) {
        out.push('"');
        for _ in 0..rng.below(4) {
            out.push_str(rng.pick(STRINGS));
        }
        out.push('"');
    }

    fn value(rng: &mut Rng, depth: usize, out: &mut String) {
        ws(rng, out);
        match rng.below(if depth > 4 { 6 } else { 9 }) {
            0 => out.push_str(rng.pick(&["null", "true", "false", "nul", "True"])),
            1 | 2 => out.push_str(rng.pick(NUMBERS)),
            3 | 4 => string(rng, out),
            5 => out.push_str(&format!("{}", rng.next() as i64 >> rng.below(64))),
            6 => {
                out.push('[');
                for i in 0..rng.below(5) {
                    if i > 0 {
                        out.push(',');
                    }
                    value(rng, depth + 1, out);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                for i in 0..rng.below(6) {
                    if i > 0 {
                        out.push(',');
                    }
                    ws(rng, out);
                    if rng.below(8) == 0 {
                        string(rng, out);
                    } else {
                        out.push_str(rng.pick(&["\"a\"", "\"b\"", "\"a\\u0062\"", "\"ab\""]));
                    }
                    ws(rng, out);
                    out.push(':');
                    value(rng, depth + 1, out);
                }
                out.push('}');
            }
        }
        ws(rng, out);
    }

    /// Damages `text` at one random place.
    fn damage(rng: &mut Rng, text: &str) -> String {
        let mut chars: Vec<char> = text.chars().collect();
        let at = rng.below(chars.len() + 1);
        let c = [
            '"', '\\', ',', ':', '[', ']', '{', '}', '-', '1', 'e', '.', ' ', '\u{0}',
        ][rng.below(14)];
        match rng.below(3) {
            0 if at < chars.len() => {
                chars.remove(at);
            }
            1 if at < chars.len() => chars[at] = c,
            _ => chars.insert(at, c),
        }
        chars.into_iter().collect()
    }

    /// The reader's answer, checked against the serde reader's; whether it
    /// answered.
    fn agree(text: &str) -> bool {
        let serde = serde_str(text);
        assert_eq!(
            format!("{:?}", from_str(text)),
            format!("{serde:?}"),
            "{text:?}"
        );
        match read(text) {
            Some(v) => {
                assert_eq!(
                    format!("{:?}", Ok::<_, crate::Failure>(v)),
                    format!("{serde:?}"),
                    "{text:?}"
                );
                true
            }
            None => false,
        }
    }

    #[test]
    fn random_text_reads_as_the_serde_reader_reads_it() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let (mut answered, mut deferred) = (0, 0);
        for _ in 0..20_000 {
            let mut text = String::new();
            value(&mut rng, 0, &mut text);
            for t in [text.clone(), damage(&mut rng, &text)] {
                if agree(&t) {
                    answered += 1;
                } else {
                    deferred += 1;
                }
            }
        }
        // Both paths were taken often enough to mean something.
        assert!(
            answered > 5_000 && deferred > 5_000,
            "{answered} {deferred}"
        );
    }

    #[test]
    fn the_depth_limit_is_the_serde_readers() {
        let limit = Limits::default().max_depth;
        for depth in [limit - 1, limit, limit + 1, 1000] {
            for (open, close) in [("[", "]"), ("{\"k\":[", "]}")] {
                let text = format!("{}1{}", open.repeat(depth), close.repeat(depth));
                let expected = text.matches(['[', '{']).count() <= limit;
                assert_eq!(read(&text).is_some(), expected, "{depth} {open}");
                agree(&text);
            }
        }
        assert!(read(&"[".repeat(1_000_000)).is_none());
    }

    #[test]
    fn what_it_reads() {
        let v = read(" {\"id\": -9223372036854775808, \"s\": \"a\\u00e9\\ud83d\\ude00\\n\", \"f\": 2.5e-3, \"a\": [true, null, {}], \"id\": 1} ").unwrap();
        let o = v.as_object().unwrap();
        assert_eq!(o.keys().collect::<Vec<_>>(), ["id", "s", "f", "a"]);
        assert_eq!(o.get("id"), Some(&Value::Int(1)));
        assert_eq!(o.get("s"), Some(&Value::from("aé😀\n")));
        assert_eq!(o.get("f"), Some(&Value::Float(2.5e-3)));
        for deferred in [
            "-0",
            "1e400",
            "9223372036854775808",
            "\"\\ud800\"",
            "[1,]",
            "",
        ] {
            assert!(read(deferred).is_none(), "{deferred}");
        }
    }
}
