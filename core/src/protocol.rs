//! Pieces of the delta protocol both profiles share (spec §10.2-10.3, §10a.3-10a.4):
//! the three outcomes, the root's text form, the `savings=` figure and the
//! token estimate.

use alloc::string::String;

/// What a producer sends a consumer who echoed a `pack_root` (spec §10.3, §10a.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The root still identifies the result: a header-only `unchanged=true` payload.
    Unchanged(String),
    /// The consumer's snapshot is known and a delta pays off (under 60% of the full size).
    Delta(String),
    /// Anything else: the full payload, with its `pack_root=`.
    Full(String),
}

impl Outcome {
    /// The payload text, whatever the outcome.
    pub fn text(&self) -> &str {
        match self {
            Outcome::Unchanged(t) | Outcome::Delta(t) | Outcome::Full(t) => t,
        }
    }

    /// The payload text, owned.
    pub fn into_text(self) -> String {
        match self {
            Outcome::Unchanged(t) | Outcome::Delta(t) | Outcome::Full(t) => t,
        }
    }
}

/// Estimated tokens of a text: one per four bytes, rounded up. A documented,
/// tokenizer-free estimate for the `tokens=` and `savings=` fields.
///
/// ```
/// assert_eq!(gcf_core::estimate_tokens("GCF profile=generic\n"), 5);
/// ```
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

/// The header-only answer (spec §10.3, §10a.4) of either profile: the
/// consumer's snapshot, identified by `root`, is still current. `count_key`
/// is `symbols` (graph) or `count` (generic).
pub(crate) fn unchanged_answer(
    profile: &str,
    tool: &str,
    root: &str,
    count_key: &str,
    count: usize,
) -> Result<String, crate::Error> {
    let mut text = String::from("GCF profile=");
    text.push_str(profile);
    if !tool.is_empty() {
        crate::header::check_header_value("tool", tool)?;
        text.push_str(" tool=");
        text.push_str(tool);
    }
    text.push_str(" unchanged=true pack_root=");
    text.push_str(root);
    text.push(' ');
    text.push_str(count_key);
    text.push('=');
    text.push_str(itoa::Buffer::new().format(count));
    text.push('\n');
    Ok(text)
}

/// The size guard of both profiles (spec §10.1, §10a.2): a delta is sent only
/// when it is under 60% of the full payload in bytes. Integers avoid the
/// rounding of `0.6 * full`.
pub(crate) fn delta_pays_off(delta_len: usize, full_len: usize) -> bool {
    (delta_len as u128) * 10 < (full_len as u128) * 6
}

/// `sha256:` and the digest in lowercase hex: the text of every root (spec §10.2 step 8).
pub(crate) fn format_root(digest: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(7 + digest.len() * 2);
    s.push_str("sha256:");
    for &b in digest {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 0xf)] as char);
    }
    s
}

/// ` savings=N%`, or nothing when `full_tokens` is zero: the double
/// `100 * (1 - delta/full)` rounded half-to-even, as the reference SDKs do
/// (30 of 200 tokens gives `85%`, 30 of 160 gives `81%`).
pub(crate) fn savings_field(delta_tokens: u64, full_tokens: u64) -> String {
    if full_tokens == 0 {
        return String::new();
    }
    let savings = 100.0 * (1.0 - delta_tokens as f64 / full_tokens as f64);
    alloc::format!(" savings={savings:.0}%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn savings_and_roots() {
        assert_eq!(savings_field(30, 200), " savings=85%");
        assert_eq!(savings_field(30, 160), " savings=81%");
        assert_eq!(savings_field(1, 0), "");
        assert_eq!(savings_field(300, 200), " savings=-50%");
        assert_eq!(format_root(&[0x0f, 0xa0]), "sha256:0fa0");
        assert_eq!(Outcome::Delta("x".into()).into_text(), "x");
    }
}
