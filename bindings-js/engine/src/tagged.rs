//! A JSON spelling of a generic value that `JSON.parse` reads without losing
//! what a plain object would lose: member order (V8 moves integer-like keys
//! to the front of an object) and integers beyond 2^53.
//!
//! - an object is a flat array `[key, value, key, value, ...]`;
//! - an array is `{"a": [items]}`;
//! - an integer outside ±(2^53 - 1) is `{"i": "digits"}`, so the JS layer
//!   can apply its `largeInt` mode;
//! - every other scalar is plain JSON.
//!
//! The JS side walks the parsed result once, making `Map`s and arrays.

use gcf_core::generic::Value;

/// The largest integer a double holds exactly, with its neighbours.
const SAFE: i64 = (1 << 53) - 1;

/// The tagged JSON of `value`.
pub(crate) fn to_string(value: &Value) -> String {
    let mut out = Vec::with_capacity(256);
    write(&mut out, value);
    // Every piece written is UTF-8: strings come from `&str`, the rest is ASCII.
    String::from_utf8(out).unwrap_or_default()
}

fn write(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Int(i) if (-SAFE..=SAFE).contains(i) => {
            out.extend_from_slice(itoa::Buffer::new().format(*i).as_bytes())
        }
        Value::Int(i) => {
            out.extend_from_slice(b"{\"i\":\"");
            out.extend_from_slice(itoa::Buffer::new().format(*i).as_bytes());
            out.extend_from_slice(b"\"}");
        }
        Value::Float(f) => {
            // Writing to a Vec cannot fail; a non-finite double (which no
            // decoder produces) comes out as `null`.
            let _ = serde_json::to_writer(&mut *out, f);
        }
        Value::String(s) => string(out, s),
        Value::Array(items) => {
            out.extend_from_slice(b"{\"a\":[");
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                write(out, item);
            }
            out.extend_from_slice(b"]}");
        }
        Value::Object(map) => {
            out.push(b'[');
            for (n, (k, v)) in map.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                string(out, k);
                out.push(b',');
                write(out, v);
            }
            out.push(b']');
        }
    }
}

fn string(out: &mut Vec<u8>, s: &str) {
    let _ = serde_json::to_writer(&mut *out, s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcf_core::generic::Map;

    #[test]
    fn objects_arrays_and_large_integers_are_tagged() {
        let mut m = Map::new();
        m.insert("5", Value::Int(1));
        m.insert(
            "a",
            Value::Array(vec![Value::Int(1 << 60), Value::from("x\"")]),
        );
        m.insert("f", Value::Float(1.5));
        assert_eq!(
            to_string(&Value::Object(m)),
            r#"["5",1,"a",{"a":[{"i":"1152921504606846976"},"x\""]},"f",1.5]"#
        );
    }
}
