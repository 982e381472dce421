//! What the differential tests share: the kinds their symbols draw from, the
//! pieces and tokens their strings are made of, and
//! the move of a value between this crate's types and the reference
//! crate's (both derive serde with the same names).

#![allow(dead_code)]

/// Known kinds (full and abbreviated) and unknown ones.
pub const KINDS: &[&str] = &[
    "function",
    "method",
    "type",
    "interface",
    "var",
    "const",
    "class",
    "field",
    "package",
    "service",
    "route_handler",
    "external",
    "file",
    "widget",
    "resource",
    "k",
    "fn",
];

/// Pieces random strings are made of: letters, digits, GCF's structural
/// characters, quotes, escapes, controls, Unicode whitespace and non-ASCII text.
pub const PIECES: &[&str] = &[
    "a", "Z", "q", "_", "0", "7", " ", "|", ",", "\"", "\\", "\n", "\t", "\r", "\u{8}", "\u{c}",
    "\u{1}", "\u{1f}", "\u{7f}", "=", "@", "#", "-", "+", "~", "{", "}", "[", "]", ":", ">", "^",
    ".", "e", "E", "é", "日本", "😀", "\u{a0}", "\u{85}", "\u{2028}", "\u{3000}", "\u{feff}",
    "\u{200a}", "true", "false", "null", "1.5", "1e5", "01", "\\u00e9", "\\n", "\\ud83d",
    "\\ude00", "\\x", "Bob", "x",
];

/// Whole tokens that read as something other than a string somewhere.
pub const TOKENS: &[&str] = &[
    "",
    "-",
    "~",
    "^",
    "true",
    "false",
    "null",
    "0",
    "-0",
    "01",
    "-1",
    "1.0",
    "1e3",
    "1E+3",
    "-.5",
    "+1",
    ".5",
    "1.",
    "a b",
    " x",
    "x ",
    "@x",
    "#",
    "##",
    "^{a}",
    "^{}",
    "[1]: x",
    "ERR[404]: Not Found",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "1e400",
    "-1e400",
    "1e-400",
    "\"\"",
    "\"a\"",
    "\"a",
    "\"a\"b",
    "\"\\q\"",
    "\"\\ud83d\"",
    "\"\\ud83d\\ude00\"",
    "\"\\ude00\"",
    "\"\\u00\"",
    "\"\t\"",
    "1001",
    "a|b",
    "a,b",
];

/// The same value in the other crate's type.
pub fn to<T: serde::Serialize, U: serde::de::DeserializeOwned>(v: &T) -> U {
    serde_json::from_value(serde_json::to_value(v).unwrap()).unwrap()
}
