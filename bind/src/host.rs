//! The models read from JSON a host already holds as `str` (a JS or Python
//! string), next to the byte readers of [`crate::graph`] and
//! [`crate::generic`].
//!
//! Text known to be UTF-8 needs neither the UTF-8 pass nor serde_json's byte
//! reader. The byte entries keep that reader for invalid input (its error
//! and position), so every model read through them is compiled twice, once
//! per serde_json reader. A host that only calls these entries compiles one:
//! the WebAssembly module is that much smaller (about 70 KB of the two
//! readers' model code before this module), and the call skips a pass.

use serde::Deserialize;

use crate::failure::Failure;
use crate::value::read_str;

/// `value::read_object` of a `str`: the same check that the text is a JSON
/// object, with the same failure, then [`read_str`].
pub(crate) fn read_object_str<'de, T: Deserialize<'de>>(
    text: &'de str,
    what: &str,
) -> Result<T, Failure> {
    if let Some(f) = not_an_object(text.as_bytes(), what) {
        return Err(f);
    }
    read_str(text)
}

/// The `shape` failure at the first byte of `json` that is neither
/// whitespace nor `{`; `None` when the text starts (after whitespace) with
/// `{`, or is only whitespace, which the reader reports.
fn not_an_object(json: &[u8], what: &str) -> Option<Failure> {
    let mut line = 1;
    let mut line_start = 0;
    for (i, &b) in json.iter().enumerate() {
        match b {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b' ' | b'\t' | b'\r' => {}
            b'{' => return None,
            _ => {
                let mut f = Failure::shape(format!("{what} must be a JSON object"));
                f.line = Some(line);
                f.column = Some((i - line_start + 1) as u64);
                return Some(f);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::read_object;

    /// Both entries answer alike, so a host may use either.
    #[test]
    fn str_and_byte_readers_agree() {
        #[derive(Debug, PartialEq, Deserialize)]
        struct T {
            a: u8,
        }
        for text in [
            r#"{"a": 1}"#,
            " \r\n\t{\"a\": 2}",
            "[1]",
            "\n\n  x",
            "",
            "  ",
            r#"{"a": 300}"#,
            r#"{"a": 1"#,
            "\"é\"",
            r#"{"a": 1} x"#,
        ] {
            let bytes = read_object::<T>(text.as_bytes(), "a thing");
            let s = read_object_str::<T>(text, "a thing");
            assert_eq!(format!("{s:?}"), format!("{bytes:?}"), "{text:?}");
        }
        let f = read_object_str::<T>("\n  [", "a thing").unwrap_err();
        assert_eq!(
            (f.category, f.line, f.column, f.message.as_str()),
            (
                "invalid_input",
                Some(2),
                Some(3),
                "a thing must be a JSON object"
            )
        );
    }

    /// Every `*_from_str` entry answers what its byte twin does, values
    /// and failures (category, message and position).
    #[test]
    fn the_str_entries_match_the_byte_entries() {
        let inputs = [
            r#"{"tool":"t","symbols":[{"qualifiedName":"a.B","kind":"function","score":0.5,"provenance":"x","distance":0}],"edges":[{"source":"a.B","target":"a.B","edgeType":"calls"}]}"#,
            r#"{"key":"id","rows":[{"id":1,"v":"x"}],"added":[{"id":2}],"removed":[1],"baseRoot":"r","symbols":[]}"#,
            r#"{"symbols": [{"qualifiedName": 5}]}"#,
            "[]",
            "{",
            "{\"tool\": \"a\\u00e9\"}",
        ];
        for text in inputs {
            let b = text.as_bytes();
            let pairs = [
                (
                    format!("{:?}", crate::graph::payload_from_str(text)),
                    format!("{:?}", crate::graph::payload_from_slice(b)),
                ),
                (
                    format!("{:?}", crate::graph::snapshot_from_str(text)),
                    format!("{:?}", crate::graph::snapshot_from_slice(b)),
                ),
                (
                    format!("{:?}", crate::graph::delta_from_str(text)),
                    format!("{:?}", crate::graph::delta_from_slice(b)),
                ),
                (
                    format!("{:?}", crate::generic::keyed_set_from_str(text)),
                    format!("{:?}", crate::generic::keyed_set_from_slice(b)),
                ),
                (
                    format!("{:?}", crate::generic::generic_delta_from_str(text)),
                    format!("{:?}", crate::generic::generic_delta_from_slice(b)),
                ),
            ];
            for (s, bytes) in pairs {
                assert_eq!(s, bytes, "{text}");
            }
        }
        assert!(
            crate::graph::payload_from_str(inputs[0])
                .unwrap()
                .symbols
                .len()
                == 1
        );
        assert_eq!(
            crate::graph::payload_from_str("[]").unwrap_err().category,
            "invalid_input"
        );
    }
}
