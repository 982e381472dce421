//! Generic encode of real JSON files, gcf-core against the `gcf` 3.1.0
//! crate: a campaign over whatever JSON a machine holds (package manifests,
//! schemas, API descriptions, lock files), shapes no random generator is
//! tuned to; and graph encode of the graph payloads among them (those of
//! `scripts/corpus/code_graphs.py`: real code's names and structure). Run
//! by `scripts/corpus-diff.sh`, which finds the files:
//!
//! ```text
//! cargo run -p gcf-benches --bin corpus_diff -- <file listing paths, one per line>
//! ```
//!
//! Each distinct file that parses as JSON is encoded by both with the
//! default options and with flattening off; the texts must be byte-identical
//! and ours must decode back to the input (`Value::structurally_eq`), and a
//! refusal must be mutual, with one category. Differences the README lists
//! under "Where the spec and the references differ" are counted by class;
//! anything else is printed (the first 20) and fails the run.

use std::collections::{BTreeMap, HashSet};
use std::process::ExitCode;

use gcf_core::generic::{self, Encoder};

/// How one file's encodes compared.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
enum Outcome {
    Identical,
    /// Both refused the input with the same category (an integer past
    /// int64, ...).
    BothRefused,
    /// Only decimal numbers differ, each pair spelling the same double: a
    /// double halfway between two shortest forms, which
    /// the crate's `format!("{}")` writes with the odd last digit and ours
    /// (as ryu, gcf-python 2.8.0 and the npm package) with the even one
    /// (listed).
    ShortestFormTie,
    /// A graph payload naming one qualified name twice: each symbol gets an
    /// id of its own here, the crate writes every copy with the last one's
    /// id, which no strict decoder reads (listed).
    RepeatedName,
    Unlisted,
}

fn main() -> ExitCode {
    let Some(listing) = std::env::args().nth(1) else {
        eprintln!("usage: corpus_diff <file listing JSON paths, one per line>");
        return ExitCode::from(2);
    };
    let paths = match std::fs::read_to_string(&listing) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{listing}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut seen = HashSet::new();
    let hasher = std::collections::hash_map::RandomState::new();
    let mut files = 0usize;
    let mut graphs = 0usize;
    let mut counts: BTreeMap<(&str, Outcome), usize> = BTreeMap::new();
    let mut shown = 0usize;
    for path in paths.lines().filter(|l| !l.is_empty()) {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        // Copies of one file (vendored packages, several Pythons) count
        // once; a hash keeps memory flat over a large corpus.
        if !seen.insert(std::hash::BuildHasher::hash_one(&hasher, &text)) {
            continue;
        }
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        files += 1;
        if json.get("symbols").is_some_and(serde_json::Value::is_array) {
            graphs += 1;
            let outcome = compare_graph(text.as_bytes());
            *counts.entry(("graph", outcome.0)).or_default() += 1;
            if outcome.0 == Outcome::Unlisted && shown < 20 {
                shown += 1;
                println!("DIFF graph {path}\n{}", outcome.1);
            }
        }
        for (options, flatten) in [("default", true), ("no_flatten", false)] {
            let outcome = compare(&json, flatten);
            *counts.entry((options, outcome.0)).or_default() += 1;
            if outcome.0 == Outcome::Unlisted && shown < 20 {
                shown += 1;
                println!("DIFF {options} {path}\n{}", outcome.1);
            }
        }
    }
    println!(
        "{files} distinct JSON files, each encoded twice (default, no_flatten); \
         the {graphs} graph payloads among them also as graphs:"
    );
    let mut unlisted = 0;
    for ((options, outcome), n) in &counts {
        println!("  {options:<10} {outcome:?}: {n}");
        if *outcome == Outcome::Unlisted {
            unlisted += n;
        }
    }
    if unlisted > 0 {
        println!("{unlisted} unlisted differences");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Encodes `json` both ways and says how they compare (with a detail for an
/// unlisted difference).
fn compare(json: &serde_json::Value, flatten: bool) -> (Outcome, String) {
    let theirs = gcf_oracle::encode_generic_with_options(
        json,
        &gcf_oracle::GenericOptions {
            no_flatten: !flatten,
        },
    );
    let ours = generic::from_json(json).and_then(|value| {
        Encoder::new()
            .flatten(flatten)
            .encode(&value)
            .map(|text| (value, text))
    });
    match (ours, theirs) {
        (Err(ours), Err(theirs)) => {
            // The crate's errors are `category: detail` strings.
            let category = theirs.split(':').next().unwrap_or_default();
            if ours.kind().name() == category {
                (Outcome::BothRefused, String::new())
            } else {
                (
                    Outcome::Unlisted,
                    format!("  refused as {} here, {category} by the crate", ours.kind()),
                )
            }
        }
        (Ok(_), Err(e)) => (Outcome::Unlisted, format!("  the crate refused: {e}")),
        (Err(e), Ok(_)) => (Outcome::Unlisted, format!("  we refused: {e}")),
        (Ok((value, ours)), Ok(theirs)) => {
            match generic::decode(&ours) {
                Ok(back) if back.structurally_eq(&value) => {}
                Ok(_) => {
                    return (
                        Outcome::Unlisted,
                        "  ours does not decode to the input".into(),
                    )
                }
                Err(e) => return (Outcome::Unlisted, format!("  ours does not decode: {e}")),
            }
            if ours == theirs {
                return (Outcome::Identical, String::new());
            }
            classify(&ours, &theirs)
        }
    }
}

/// Graph-encodes the payload in `json` both ways and says how they compare.
fn compare_graph(json: &[u8]) -> (Outcome, String) {
    let payload = match gcf_bind::graph::payload_from_slice(json) {
        Ok(payload) => payload.to_owned_payload(),
        Err(e) => return (Outcome::Unlisted, format!("  not a graph payload: {e}")),
    };
    // The crate never refuses: it writes whatever it is given.
    let theirs = gcf_oracle::encode(&gcf_benches::workload::oracle_from_owned(&payload));
    let ours = match gcf_core::graph::encode(&payload) {
        Ok(text) => text,
        Err(e) => return (Outcome::Unlisted, format!("  we refused: {e}")),
    };
    match gcf_core::graph::decode(&ours) {
        // Decoded symbols come in emission order: re-encoding them must give
        // the same text.
        Ok(back) if gcf_core::graph::encode(&back).as_deref() == Ok(ours.as_str()) => {}
        Ok(_) => {
            return (
                Outcome::Unlisted,
                "  ours does not re-encode to itself".into(),
            )
        }
        Err(e) => return (Outcome::Unlisted, format!("  ours does not decode: {e}")),
    }
    if ours == theirs {
        return (Outcome::Identical, String::new());
    }
    if gcf_benches::workload::repeats_a_name(&payload) {
        return (Outcome::RepeatedName, String::new());
    }
    classify(&ours, &theirs)
}

/// The class of a difference between two texts that are not equal.
fn classify(ours: &str, theirs: &str) -> (Outcome, String) {
    if same_doubles(ours) == same_doubles(theirs) {
        return (Outcome::ShortestFormTie, String::new());
    }
    let at = ours
        .bytes()
        .zip(theirs.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(theirs.len()));
    let around = |text: &str| {
        let from = text.floor_char_boundary(at.saturating_sub(120));
        let to = text.ceil_char_boundary((at + 120).min(text.len()));
        format!("{:?}", &text[from..to])
    };
    (
        Outcome::Unlisted,
        format!(
            "  at byte {at}\n  ours:  {}\n  crate: {}",
            around(ours),
            around(theirs)
        ),
    )
}

/// `text` with every decimal number token (one holding `.` or an exponent,
/// in JSON's number grammar: `00.5` stays text) replaced by the bits of the
/// double it names, so two texts that differ only in how they spell the
/// same doubles compare equal.
fn same_doubles(text: &str) -> String {
    let is_number_byte =
        |b: u8| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E');
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let starts_token = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        if starts_token && is_number_byte(bytes[i]) {
            let end = (i..bytes.len())
                .find(|&j| !is_number_byte(bytes[j]))
                .unwrap_or(bytes.len());
            let ends_token = end == bytes.len() || !bytes[end].is_ascii_alphanumeric();
            let token = &text[i..end];
            if ends_token && token.contains(['.', 'e', 'E']) && is_json_number(token) {
                if let Ok(x) = token.parse::<f64>() {
                    out.push_str(&format!("<{:x}>", x.to_bits()));
                    i = end;
                    continue;
                }
            }
            out.push_str(token);
            i = end;
            continue;
        }
        let next = text[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&text[i..i + next]);
        i += next;
    }
    out
}

/// Whether `token` is a number in JSON's grammar: `-?(0|[1-9][0-9]*)`, then
/// an optional fraction and exponent.
fn is_json_number(token: &str) -> bool {
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let rest = token.strip_prefix('-').unwrap_or(token);
    let int = digits(rest);
    if int == 0 || (int > 1 && rest.starts_with('0')) {
        return false;
    }
    let mut rest = &rest[int..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let n = digits(fraction);
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    if let Some(exponent) = rest.strip_prefix(['e', 'E']) {
        let exponent = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
        let n = digits(exponent);
        return n > 0 && n == exponent.len();
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    #[test]
    fn json_numbers() {
        for good in ["0", "-0", "1.5", "0.25e-3", "1E+9", "-12.0"] {
            assert!(super::is_json_number(good), "{good}");
        }
        for bad in [
            "", "-", "00.5", "01", "1.", ".5", "1e", "1e+", "1.5.2", "+1", "1-2",
        ] {
            assert!(!super::is_json_number(bad), "{bad}");
        }
    }

    #[test]
    fn only_the_spelling_of_doubles_is_ignored() {
        use super::same_doubles;
        assert_eq!(
            same_doubles("a=99.97036743164062"),
            same_doubles("a=99.97036743164063")
        );
        assert_eq!(same_doubles("x|1.5e3|y"), same_doubles("x|1500.0|y"));
        assert_ne!(same_doubles("a=00.5"), same_doubles("a=0.5"));
        assert_ne!(same_doubles("a=0.5"), same_doubles("a=0.25"));
        assert_ne!(same_doubles("v1.5"), same_doubles("v1.50"));
    }
}
