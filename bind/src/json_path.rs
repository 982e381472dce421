//! Where in a JSON document a reader failed, as a path (`symbols[3].score`).
//!
//! serde_json reports a line and a column. For a person who wrote the JSON
//! (a file given to the CLI) that is enough; for a host value that a binding
//! turned into JSON on its own (a JS object, a Go struct), that position
//! is in text the caller never saw, while the path names their own field.
//! So a failure read from JSON carries both: the path starts the message.
//!
//! The path is found after the fact, by scanning the text up to the
//! failure's position, so reading pays nothing for it.

use std::fmt::Write;

/// One open container on the way to the position.
enum Frame {
    /// An object; the key of the member being read, once its key is read.
    Object(Option<String>),
    /// An array; the index of the item being read.
    Array(usize),
}

/// The byte offset of 1-based `line` and `column` (serde_json counts a
/// column in bytes from the start of its line), or `None` past the end.
fn offset(json: &[u8], line: u64, column: u64) -> Option<usize> {
    let mut start = 0usize;
    for _ in 1..line {
        start += json.get(start..)?.iter().position(|&b| b == b'\n')? + 1;
    }
    let column = usize::try_from(column).ok()?;
    start.checked_add(column.saturating_sub(1))
}

/// The path of the innermost value that holds byte `at` of `json`, such as
/// `symbols[3].score` or `[0]`; empty at the top level.
///
/// The text up to `at` is scanned as JSON; anything past what a parser
/// accepted is never reached, since serde_json stops at the first error.
pub fn path_at(json: &[u8], at: usize) -> String {
    let mut frames: Vec<Frame> = Vec::new();
    let mut i = 0;
    let end = at.min(json.len());
    while i < end {
        match json[i] {
            b'{' => frames.push(Frame::Object(None)),
            b'[' => frames.push(Frame::Array(0)),
            b'}' | b']' => {
                frames.pop();
            }
            b',' => match frames.last_mut() {
                Some(Frame::Array(index)) => *index += 1,
                Some(Frame::Object(key)) => *key = None,
                None => {}
            },
            b'"' => {
                let (text, next) = string(json, i + 1);
                // A string that is an object's key (none read yet for this
                // member) names the member; any other string is a value.
                if let Some(Frame::Object(key @ None)) = frames.last_mut() {
                    *key = Some(text);
                }
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    // An object whose first key is not read yet stands for itself.
    let named = frames
        .iter()
        .position(|f| matches!(f, Frame::Object(None)))
        .unwrap_or(frames.len());
    let frames = &frames[..named];
    let mut path = String::new();
    for (i, frame) in frames.iter().enumerate() {
        // A message stays readable: the first and last steps of a deep path.
        if frames.len() > 2 * KEEP_STEPS && i >= KEEP_STEPS && i < frames.len() - KEEP_STEPS {
            if i == KEEP_STEPS {
                path.push('…');
            }
            continue;
        }
        match frame {
            Frame::Array(index) => {
                let _ = write!(path, "[{index}]");
            }
            Frame::Object(Some(key)) => {
                let short = shortened(key);
                let cut = if short.len() < key.len() { "…" } else { "" };
                if is_identifier(short) {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    let _ = write!(path, "{short}{cut}");
                } else {
                    path.push('[');
                    quote(&mut path, short);
                    let _ = write!(path, "{cut}]");
                }
            }
            Frame::Object(None) => {}
        }
    }
    path
}

/// How many steps a long path keeps at each end.
const KEEP_STEPS: usize = 8;

/// The longest key a path spells out, in bytes (a longer one is cut, at a
/// character boundary, and marked `…` after it).
const KEY_BYTES: usize = 64;

/// `key`, cut to at most [`KEY_BYTES`] bytes.
fn shortened(key: &str) -> &str {
    let mut end = key.len().min(KEY_BYTES);
    while !key.is_char_boundary(end) {
        end -= 1;
    }
    &key[..end]
}

/// Where the first top-level member named `key` of the JSON object `json`
/// is: the byte offsets of its key (the opening quote) and of its value.
/// `None` when `json` is no object or has no such member. For a caller that
/// read the object's members and refuses one: the error can point at it.
///
/// ```
/// let line = br#"{"id": 1, "tags": ["a"]}"#;
/// assert_eq!(gcf_bind::json_path::member_at(line, "tags"), Some((10, 18)));
/// assert_eq!(gcf_bind::json_path::member_at(line, "a"), None);
/// ```
pub fn member_at(json: &[u8], key: &str) -> Option<(usize, usize)> {
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let mut i = json.iter().position(|b| !blank(b))?;
    if json[i] != b'{' {
        return None;
    }
    // Nesting below the object, whether a key comes next, the key found.
    let mut depth = 0usize;
    let mut key_next = true;
    let mut found = None;
    i += 1;
    while let Some(&b) = json.get(i) {
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth == 0 => return None,
            b'}' | b']' => depth -= 1,
            b',' if depth == 0 => key_next = true,
            b':' if depth == 0 => {
                if let Some(key_at) = found {
                    let value_at = i + 1 + json.get(i + 1..)?.iter().position(|b| !blank(b))?;
                    return Some((key_at, value_at));
                }
            }
            b'"' => {
                let (_, next) = string(json, i + 1);
                if depth == 0 && key_next {
                    key_next = false;
                    // The key as a reader reads it, escapes and all.
                    let text: Option<std::borrow::Cow<'_, str>> =
                        serde_json::from_slice(&json[i..next]).ok();
                    if text.as_deref() == Some(key) {
                        found = Some(i);
                    }
                }
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// [`path_at`] of a serde_json line and column.
pub fn path_at_line(json: &[u8], line: u64, column: u64) -> String {
    offset(json, line, column).map_or_else(String::new, |at| path_at(json, at))
}

/// The string whose text starts at `from` (after its quote), unescaped as
/// far as a path needs it, and the offset after its closing quote (or the
/// end of the text).
fn string(json: &[u8], from: usize) -> (String, usize) {
    let mut i = from;
    let mut raw = Vec::new();
    while let Some(&b) = json.get(i) {
        match b {
            b'"' => return (String::from_utf8_lossy(&raw).into_owned(), i + 1),
            b'\\' => {
                match json.get(i + 1) {
                    Some(b'n') => raw.push(b'\n'),
                    Some(b't') => raw.push(b'\t'),
                    Some(b'r') => raw.push(b'\r'),
                    Some(b'b') => raw.push(8),
                    Some(b'f') => raw.push(12),
                    // A \u escape is kept as written: a key spelled with
                    // one is rare, and the path only has to point at it.
                    Some(b'u') => raw.extend_from_slice(b"\\u"),
                    Some(&c) => raw.push(c),
                    None => {}
                }
                i += 2;
            }
            _ => {
                raw.push(b);
                i += 1;
            }
        }
    }
    (String::from_utf8_lossy(&raw).into_owned(), json.len())
}

/// `text` as a JSON string, on the end of `out` (a few lines rather than
/// serde_json's `Value` formatting, which this one use would bring into the
/// WebAssembly module).
fn quote(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Whether `key` reads unambiguously after a `.` in a path.
fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path where `marker` (a unique substring) starts in `json`.
    fn at(json: &str, marker: &str) -> String {
        path_at(json.as_bytes(), json.find(marker).expect("marker"))
    }

    #[test]
    fn paths_name_members_and_items() {
        let json = r#"{"symbols":[{"a":1},{"qualifiedName":"x","score":"0.5"}],"edges":[]}"#;
        assert_eq!(at(json, r#""0.5""#), "symbols[1].score");
        assert_eq!(at(json, "1}"), "symbols[0].a");
        assert_eq!(at(json, r#"[]}"#), "edges");
        assert_eq!(at(json, r#"{"symbols""#), "");
        // Inside an object before its first key: the object.
        assert_eq!(at(json, r#""a""#), "symbols[0]");
    }

    #[test]
    fn odd_keys_are_quoted_and_strings_do_not_confuse_the_scan() {
        let json = r#"{"a b":{"x\"y":[1,"],{\"z\":",{"k":null}]}}"#;
        assert_eq!(at(json, "null"), r#"["a b"]["x\"y"][2].k"#);
        assert_eq!(at(json, "1,"), r#"["a b"]["x\"y"][0]"#);
        assert_eq!(path_at(b"[[1,2],[3,", 10), "[1][1]");
        let json = r#"{"a\nb\\":{"c":true}}"#;
        assert_eq!(at(json, "true"), r#"["a\u000ab\\"].c"#);
    }

    #[test]
    fn long_paths_and_keys_are_shortened() {
        let deep = format!("{}1", "[".repeat(40));
        assert_eq!(
            path_at(deep.as_bytes(), deep.len() - 1),
            format!("{}…{}", "[0]".repeat(8), "[0]".repeat(8))
        );
        let long = "é".repeat(100);
        let json = format!(r#"{{"{long}":{{"b c{long}":1}}}}"#);
        let path = at(&json, "1}");
        assert_eq!(
            path,
            format!(r#"["{}"…]["b c{}"…]"#, "é".repeat(32), "é".repeat(30))
        );
    }

    #[test]
    fn any_bytes_at_any_offset_give_a_path() {
        // Truncated, unbalanced and escaped text, and bytes that are not
        // UTF-8: the scan only ever reads what it is given.
        let pieces = [
            "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\\"", "a", "é", "\n", "1",
        ];
        let mut rng = crate::test_rng::Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..2_000 {
            let mut json: Vec<u8> = (0..rng.below(40))
                .flat_map(|_| rng.pick(&pieces).as_bytes().to_vec())
                .collect();
            if rng.below(4) == 0 {
                json.push(0xff);
            }
            for at in 0..=json.len() + 1 {
                let path = path_at(&json, at);
                // Each step at most a key escaped for JSON (six bytes a byte).
                assert!(
                    path.len() <= 2 * KEEP_STEPS * (6 * KEY_BYTES + 8) + 8,
                    "{path}"
                );
            }
            let _ = path_at_line(&json, rng.next() % 4, rng.next() % 50);
        }
    }

    #[test]
    fn members_are_found_at_the_top_level_only() {
        let json = br#" {"a": {"b": 1}, "c\u0041": [ "b", {"b":2} ], "b" :  true}"#;
        let at = |key| member_at(json, key);
        assert_eq!(at("a"), Some((2, 7)));
        assert_eq!(at("cA"), Some((17, 28)));
        assert_eq!(at("b"), Some((46, 53)));
        assert_eq!(at("x"), None);
        assert_eq!(member_at(b"[{\"a\":1}]", "a"), None);
        assert_eq!(member_at(br#"{"a"#, "a"), None);
        assert_eq!(member_at(br#"{"a":"#, "a"), None);
        // Anything at all: no panic.
        let pieces = ["{", "}", "[", "]", ",", ":", "\"", "\\", "a", " ", "é"];
        let mut rng = crate::test_rng::Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..2_000 {
            let json: Vec<u8> = (0..rng.below(30))
                .flat_map(|_| rng.pick(&pieces).as_bytes().to_vec())
                .collect();
            if let Some((k, v)) = member_at(&json, "a") {
                assert!(k < v && v < json.len());
            }
        }
    }

    #[test]
    fn lines_and_columns_become_offsets() {
        let json = b"{\n  \"a\": [\n    1,\n    true\n  ]\n}";
        assert_eq!(path_at_line(json, 4, 5), "a[1]");
        assert_eq!(path_at_line(json, 9, 1), "");
        assert_eq!(path_at(json, usize::MAX), "");
    }
}
