//! The first line of every payload (spec §3): `GCF profile=<p> key=value ...`.

use alloc::vec::Vec;

use crate::error::{Error, ErrorKind};
use crate::input::SourceLine;

/// The two encoding profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Code graphs: symbols, edges, distance groups (spec §5-6b).
    Graph,
    /// Any JSON value (spec §7).
    Generic,
}

impl Profile {
    /// The header spelling, `graph` or `generic`.
    pub const fn name(self) -> &'static str {
        match self {
            Profile::Graph => "graph",
            Profile::Generic => "generic",
        }
    }
}

/// A parsed header line: the profile and the pairs after it, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header<'a> {
    /// The profile named by the first pair.
    pub profile: Profile,
    /// Every pair after `profile=`, as written.
    pub fields: Vec<(&'a str, &'a str)>,
}

impl<'a> Header<'a> {
    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&'a str> {
        self.fields.iter().find(|(k, _)| *k == key).map(|&(_, v)| v)
    }

    /// The byte offset of `key`'s pair within the line, for error columns.
    pub(crate) fn column_of(&self, line: &str, key: &str) -> usize {
        self.fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(k, _)| {
                crate::text::column_of(line, k.as_ptr() as usize - line.as_ptr() as usize)
            })
            .unwrap_or(1)
    }
}

fn is_bare_key(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// Up to this many pairs, a duplicate is looked for by scanning the pairs
/// before it; past it, in a set (a hostile header of a million pairs would
/// otherwise take a trillion comparisons).
const SCAN_FIELDS: usize = 16;

/// Parses a header line in one pass over its bytes: every header is parsed
/// once per decode, so its cost is part of every small payload's.
pub(crate) fn parse_header<'a>(line: &SourceLine<'a>) -> Result<Header<'a>, Error> {
    let text = line.text;
    let Some(rest) = text
        .strip_prefix("GCF")
        .filter(|rest| rest.is_empty() || rest.starts_with(' '))
    else {
        let message = alloc::format!(
            "invalid header, expected `GCF profile=graph` or `GCF profile=generic`, got `{}`",
            crate::error::excerpt(text)
        );
        return Err(line.error_at(ErrorKind::MissingHeader, 0, message));
    };
    let base = text.len() - rest.len();
    let bytes = rest.as_bytes();
    let mut profile = None;
    let mut fields: Vec<(&str, &str)> = Vec::new();
    let mut seen: Option<crate::hash::HashSet<&str>> = None;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b' ' {
            i += 1;
            continue;
        }
        // One token: its printable ASCII bytes (a bare key's are), which
        // end at a space, at the line's end or, in a malformed token, at
        // another byte, after which the token runs on to the next space.
        let start = i;
        while bytes.get(i).is_some_and(|b| b.wrapping_sub(0x21) < 0x5e) {
            i += 1;
        }
        let printable = bytes.get(i).is_none_or(|&b| b == b' ');
        while bytes.get(i).is_some_and(|&b| b != b' ') {
            i += 1;
        }
        let token = &rest[start..i];
        let at = base + start;
        let Some(eq) = token.bytes().position(|b| b == b'=') else {
            return Err(line.error_at(
                ErrorKind::MalformedHeaderField,
                at,
                alloc::format!("header field `{}` has no `=`", crate::error::excerpt(token)),
            ));
        };
        let (key, value) = (&token[..eq], &token[eq + 1..]);
        if profile.is_none() {
            // The first pair names the profile (§3.1): any other first pair,
            // or `profile=` with no value, is the profile missing, and any
            // other value an unknown profile, whatever else is wrong with
            // the pair, as the reference SDKs report them.
            if key != "profile" || value.is_empty() {
                return Err(line.error_at(
                    ErrorKind::MissingProfile,
                    at,
                    "the header's first field must be `profile=graph` or `profile=generic`",
                ));
            }
            profile = Some(match value {
                "graph" => Profile::Graph,
                "generic" => Profile::Generic,
                other => {
                    return Err(line.error_at(
                        ErrorKind::UnknownProfile,
                        at + eq + 1,
                        alloc::format!(
                            "unknown profile `{}`; expected `graph` or `generic`",
                            crate::error::excerpt(other)
                        ),
                    ))
                }
            });
            continue;
        }
        // An empty value is malformed (§4 `header-value = 1*(%x21-7E)`), but
        // for `tool=`: every reference SDK writes it for an empty tool, and
        // it reads as no tool.
        if !printable || !is_bare_key(key) || (value.is_empty() && key != "tool") {
            return Err(line.error_at(
                ErrorKind::MalformedHeaderField,
                at,
                alloc::format!(
                    "header field `{}` is not `key=value` with a printable ASCII value",
                    crate::error::excerpt(token)
                ),
            ));
        }
        let duplicate = key == "profile"
            || match &mut seen {
                Some(seen) => {
                    crate::ops::tick(1);
                    !seen.insert(key)
                }
                None if fields.len() < SCAN_FIELDS => fields.iter().any(|(k, _)| {
                    crate::ops::tick(1);
                    *k == key
                }),
                None => {
                    let set = seen.insert(fields.iter().map(|&(k, _)| k).collect());
                    !set.insert(key)
                }
            };
        if duplicate {
            return Err(line.error_at(
                ErrorKind::DuplicateHeaderField,
                at,
                alloc::format!(
                    "header field `{}` appears more than once",
                    crate::error::excerpt(key)
                ),
            ));
        }
        fields.push((key, value));
    }
    match profile {
        Some(profile) => Ok(Header { profile, fields }),
        None => Err(line.error_at(
            ErrorKind::MissingProfile,
            text.len(),
            "the header has no `profile=` field",
        )),
    }
}

/// Reads the first line of a payload as its header; empty input has none.
pub(crate) fn read_header<'a>(
    lines: &mut crate::input::SourceLines<'a>,
) -> Result<(SourceLine<'a>, Header<'a>), Error> {
    let line = match lines.next() {
        Some(line) => line?,
        None => {
            return Err(Error::at(
                ErrorKind::MissingHeader,
                1,
                1,
                "empty input: a payload starts with a `GCF profile=...` header",
            ))
        }
    };
    let header = parse_header(&line)?;
    Ok((line, header))
}

/// The 1-based column where `key`'s value starts in the header line `line`,
/// if the line has that pair. Pairs follow `GCF` one space apart and a value
/// holds no space, so ` key=` is found only where the pair starts.
pub(crate) fn value_column(line: &str, key: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    line.match_indices(key).find_map(|(at, _)| {
        let end = at + key.len();
        (at > 0 && bytes[at - 1] == b' ' && bytes.get(end) == Some(&b'='))
            .then(|| crate::text::column_of(line, end + 1))
    })
}

/// The value a graph header's `tool=` carries: `tool` itself, checked as a
/// header value, or empty. Every graph header writes `tool=`, empty too, as
/// every reference SDK does (README, "Where the spec and the references
/// differ"); the decoders read `tool=` back as no tool.
pub(crate) fn graph_tool(tool: &str) -> Result<&str, Error> {
    if !tool.is_empty() {
        check_header_value("tool", tool)?;
    }
    Ok(tool)
}

/// Checks a value a writer is about to put in a header: non-empty printable
/// ASCII without spaces (spec §4 `header-value`), so the header reads back as
/// the same pairs. Every writer of both profiles checks through this one.
pub(crate) fn check_header_value(key: &str, value: &str) -> Result<(), Error> {
    if value.is_empty() || !value.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            alloc::format!(
                "header field `{key}` must be non-empty printable ASCII without spaces, got {}",
                crate::error::excerpt_quoted(value)
            ),
        ));
    }
    Ok(())
}

/// Reads the profile of a payload from its first line, without decoding it.
///
/// ```
/// use gcf_core::{detect_profile, Profile};
/// assert_eq!(detect_profile("GCF profile=generic\n=1\n").unwrap(), Profile::Generic);
/// assert!(detect_profile("{}").is_err());
/// ```
pub fn detect_profile(input: &str) -> Result<Profile, Error> {
    let first = input.split('\n').next().unwrap_or("");
    let first = first.strip_suffix('\r').unwrap_or(first);
    parse_header(&SourceLine {
        number: 1,
        text: first,
    })
    .map(|h| h.profile)
}

/// Parses a header count (`symbols=`, `edges=`, `count=`): a decimal without leading zeros.
pub(crate) fn parse_count(
    line: &SourceLine<'_>,
    header: &Header<'_>,
    key: &str,
) -> Result<Option<u64>, Error> {
    let Some(v) = header.get(key) else {
        return Ok(None);
    };
    match parse_decimal(v) {
        Some(n) => Ok(Some(n)),
        None => Err(line.error_at(
            ErrorKind::MalformedHeaderField,
            header.column_of(line.text, key) - 1,
            alloc::format!(
                "header field `{}={}` is not a decimal count",
                crate::error::excerpt(key),
                crate::error::excerpt(v)
            ),
        )),
    }
}

/// `0` or a decimal without leading zeros that fits in a `u64`.
/// Reads a graph distance, `1*DIGIT` (spec §4 `distance`, and the digits of
/// a `distance_N` group name): leading zeros are allowed, unlike a count.
/// `None` when `s` is not all ASCII digits; `Some(None)` when the value does
/// not fit the `u32` a distance is kept in (a limit, never a silent skip).
pub(crate) fn parse_distance(s: &str) -> Option<Option<u32>> {
    let b = s.as_bytes();
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let significant = s.trim_start_matches('0');
    // Past ten significant digits the value is beyond u32 and would overflow
    // a parse; below, `parse` cannot fail on ASCII digits.
    if significant.len() > 10 {
        return Some(None);
    }
    if significant.is_empty() {
        return Some(Some(0));
    }
    Some(significant.parse::<u32>().ok())
}

pub(crate) fn parse_decimal(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) || (b.len() > 1 && b[0] == b'0') {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_header_line(text: &str) -> Result<Header<'_>, Error> {
        parse_header(&SourceLine { number: 1, text })
    }

    fn kind(s: &str) -> ErrorKind {
        parse_header_line(s).unwrap_err().kind()
    }

    #[test]
    fn value_columns_find_the_pair_not_a_longer_key_or_a_value() {
        let line = "GCF profile=generic xkey=1 key=id base_root=key=é new_root=r";
        assert_eq!(value_column(line, "key"), Some(32));
        assert_eq!(value_column(line, "base_root"), Some(45));
        // After a non-ASCII character, columns count characters.
        assert_eq!(value_column(line, "new_root"), Some(60));
        assert_eq!(value_column(line, "tool"), None);
        assert_eq!(value_column("GCF profile=graph key", "key"), None);
        assert_eq!(value_column("key=1", "key"), None);
    }

    #[test]
    fn header_errors() {
        assert_eq!(kind("value=1"), ErrorKind::MissingHeader);
        assert_eq!(kind("GCFX profile=graph"), ErrorKind::MissingHeader);
        assert_eq!(kind("GCF"), ErrorKind::MissingProfile);
        assert_eq!(kind("GCF tool=test"), ErrorKind::MissingProfile);
        // A first pair that is not a valid `profile=` one is the profile
        // missing (or unknown), whatever else is wrong with it, as the
        // references report it; a pair without `=` stays malformed.
        for header in [
            "GCF pro-file=generic",
            "GCF profi\u{e9}=generic",
            "GCF profile=",
        ] {
            assert_eq!(kind(header), ErrorKind::MissingProfile, "{header}");
        }
        assert_eq!(kind("GCF profile=gr\u{e9}"), ErrorKind::UnknownProfile);
        assert_eq!(kind("GCF profile"), ErrorKind::MalformedHeaderField);
        assert_eq!(kind("GCF profile=custom"), ErrorKind::UnknownProfile);
        assert_eq!(
            kind("GCF profile=generic broken"),
            ErrorKind::MalformedHeaderField
        );
        assert_eq!(
            kind("GCF profile=generic a="),
            ErrorKind::MalformedHeaderField
        );
        assert_eq!(
            kind("GCF profile=generic 1a=b"),
            ErrorKind::MalformedHeaderField
        );
        // An empty value is malformed but for `tool=`, which every reference
        // SDK writes for an empty tool.
        for field in ["budget=", "pack_root=", "profile=", "tools="] {
            let header = alloc::format!("GCF profile=graph {field}");
            assert!(parse_header_line(&header).is_err(), "{header}");
        }
        for profile in ["graph", "generic"] {
            let header = alloc::format!("GCF profile={profile} tool= symbols=1");
            let parsed = parse_header_line(&header).unwrap();
            assert!(parsed.fields.contains(&("tool", "")), "{header}");
        }
        assert_eq!(
            kind("GCF profile=graph tool=a tool=b"),
            ErrorKind::DuplicateHeaderField
        );
        assert_eq!(
            kind("GCF profile=graph profile=graph"),
            ErrorKind::DuplicateHeaderField
        );
        let e = parse_header_line("GCF profile=graph tool=a tool=b").unwrap_err();
        assert_eq!(e.column(), Some(26));
        assert_eq!(
            kind("GCF profile=generic a=\u{e9}"),
            ErrorKind::MalformedHeaderField
        );
        assert_eq!(
            kind("GCF profile=generic a\t=b"),
            ErrorKind::MalformedHeaderField
        );
        let e = parse_header_line("GCF profile=graphs").unwrap_err();
        assert_eq!(
            (e.kind(), e.column()),
            (ErrorKind::UnknownProfile, Some(13))
        );
        let e = parse_header_line("GCF profile=graph  x").unwrap_err();
        assert_eq!(
            (e.kind(), e.column()),
            (ErrorKind::MalformedHeaderField, Some(20))
        );
    }

    /// Duplicates are found past the scanned pairs too, at the first pair
    /// that repeats an earlier one, and a header of many pairs parses in
    /// linear time (it once took a minute for 200,000 pairs).
    #[test]
    fn duplicates_among_many_pairs() {
        for n in [3, SCAN_FIELDS, SCAN_FIELDS + 1, 3 * SCAN_FIELDS, 200_000] {
            let pairs: Vec<alloc::string::String> =
                (0..n).map(|i| alloc::format!("k{i}=1")).collect();
            let line = alloc::format!("GCF profile=generic {}", pairs.join(" "));
            let h = parse_header_line(&line).unwrap();
            assert_eq!(h.fields.len(), n);
            assert_eq!(h.get(&alloc::format!("k{}", n - 1)), Some("1"));
            for (dup, of) in [(n - 1, 0), (n / 2, 1)] {
                let at = line.len() + 1;
                let twice = alloc::format!("{line} k{of}=2 k{dup}=3 k{dup}=4");
                let e = parse_header_line(&twice).unwrap_err();
                assert_eq!(e.kind(), ErrorKind::DuplicateHeaderField);
                assert_eq!(e.column(), Some(at + 1), "{n}");
            }
        }
    }

    #[test]
    fn header_fields_in_order() {
        let h = parse_header_line("GCF profile=generic  tool=x key=id").unwrap();
        assert_eq!(h.profile, Profile::Generic);
        assert_eq!(h.fields, [("tool", "x"), ("key", "id")]);
        assert_eq!(h.get("nope"), None);
        assert_eq!(parse_decimal("012"), None);
        assert_eq!(parse_decimal("0"), Some(0));
        assert_eq!(parse_decimal("99999999999999999999999"), None);
    }
}
