//! Runs the official GCF conformance fixtures against `gcf-core`.
//!
//! Every `*.json` under the fixture folder is loaded and dispatched on its
//! `operation` field (see the folder's README). Nothing is skipped silently:
//! each fixture ends as passed, failed (with what differed) or pending (an
//! operation this build does not implement yet, reported by name).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use gcf_core::graph::{self, StreamOptions, StreamWriter, TrailerForm};
use gcf_core::{header, Profile};

mod generic;
use serde_json::Value as Json;

/// Where the fixtures are: `$GCF_CONFORMANCE_DIR`, else `../shared/conformance`
/// next to the repository.
pub fn conformance_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("GCF_CONFORMANCE_DIR") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance")
}

/// How one fixture ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Matched the expectation.
    Pass,
    /// Did not match; the text says what differed.
    Fail(String),
    /// Not implemented in this build yet.
    Pending(String),
}

/// The result of a run.
#[derive(Debug, Default)]
pub struct Report {
    /// Fixtures that passed.
    pub passed: usize,
    /// `path: operation: what differed`, one per failing fixture.
    pub failures: Vec<String>,
    /// `path: operation: why`, one per pending fixture.
    pub pending: Vec<String>,
}

impl Report {
    /// The closing line the CI reads: `N passed, N failed`.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "conformance: {} passed, {} failed",
            self.passed,
            self.failures.len()
        );
        if !self.pending.is_empty() {
            let _ = write!(s, ", {} pending", self.pending.len());
        }
        s
    }
}

/// Runs every fixture under `dir`.
pub fn run(dir: &Path) -> Report {
    let mut files = Vec::new();
    collect(dir, &mut files);
    files.sort();
    let mut report = Report::default();
    if files.is_empty() {
        report
            .failures
            .push(format!("{}: no fixtures found", dir.display()));
    }
    for path in files {
        let rel = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        let (op, verdict) = match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<Json>(&t).map_err(|e| e.to_string()))
        {
            Ok(fixture) => {
                let op = fixture["operation"].as_str().unwrap_or("?").to_string();
                let verdict = std::panic::catch_unwind(|| run_fixture(&fixture))
                    .unwrap_or_else(|_| Verdict::Fail("the library panicked".into()));
                (op, verdict)
            }
            Err(e) => (
                "?".into(),
                Verdict::Fail(format!("unreadable fixture: {e}")),
            ),
        };
        match verdict {
            Verdict::Pass => report.passed += 1,
            Verdict::Fail(why) => report.failures.push(format!("{rel}: {op}: {why}")),
            Verdict::Pending(why) => report.pending.push(format!("{rel}: {op}: {why}")),
        }
    }
    report
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

#[macro_export]
#[doc(hidden)]
macro_rules! check {
    ($cond:expr, $($msg:tt)*) => {
        if !$cond {
            return Verdict::Fail(format!($($msg)*));
        }
    };
}

#[macro_export]
#[doc(hidden)]
macro_rules! tryv {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Verdict::Fail(format!("unexpected error: {e} [{}]", e.kind().name())),
        }
    };
}

/// Runs one fixture.
pub fn run_fixture(f: &Json) -> Verdict {
    let op = f["operation"].as_str().unwrap_or("");
    match op {
        "encode" | "roundtrip" if is_graph_input(&f["input"]) => graph_encode(f),
        "decode" => match profile_of(&f["input"]) {
            Some(Profile::Graph) => graph_decode(f),
            _ => generic::decode(f),
        },
        "error" => error_fixture(f),
        "session" => graph_session(f),
        "graph-stream-encode" => graph_stream(f),
        "pack-root" => graph_pack_root(f),
        "delta" => graph_delta(f),
        "delta-verify" => graph_delta_verify(f),
        "encode" | "roundtrip" => generic::encode(f),
        "roundtrip-wire" => generic::roundtrip_wire(f),
        "encode-error" => generic::encode_error(f),
        "generic-pack-root" => generic::pack_root(f),
        "generic-delta" => generic::delta_encode(f),
        "generic-delta-decode" => generic::delta_decode(f),
        "generic-delta-verify" => generic::delta_verify(f),
        "generic-delta-session" => generic::delta_session(f),
        other => Verdict::Fail(format!("unknown operation `{other}`")),
    }
}

/// Whether an error matches a fixture's `expectedError`: a category name, or
/// for a few keyed-map and delta fixtures, words of the expected message.
fn error_matches(e: &gcf_core::Error, want: &str) -> bool {
    e.kind().name() == want
        || (want.contains(' ') && e.message().to_lowercase().contains(&want.to_lowercase()))
}

fn is_graph_input(v: &Json) -> bool {
    v.as_object()
        .is_some_and(|o| o.contains_key("symbols") && o.get("symbols").is_some_and(Json::is_array))
        && v.get("rows").is_none()
}

fn profile_of(input: &Json) -> Option<Profile> {
    input.as_str().and_then(|t| header::detect_profile(t).ok())
}

fn graph_encode(f: &Json) -> Verdict {
    let payload = tryv!(graph::payload_from_json(&f["input"]));
    let out = tryv!(graph::encode(&payload));
    let expected = f["expected"].as_str().unwrap_or_default();
    check!(out == expected, "encoded\n{out:?}\nexpected\n{expected:?}");
    Verdict::Pass
}

fn same_graph(got: &graph::Payload, want: &graph::Payload) -> Result<(), String> {
    let fields = |p: &graph::Payload| {
        (
            p.tool.clone(),
            p.token_budget,
            p.tokens_used,
            p.pack_root.clone(),
        )
    };
    if fields(got) != fields(want) {
        return Err(format!(
            "header fields {:?} != {:?}",
            fields(got),
            fields(want)
        ));
    }
    if got.symbols != want.symbols {
        return Err(format!("symbols {:?} != {:?}", got.symbols, want.symbols));
    }
    if got.edges != want.edges {
        return Err(format!("edges {:?} != {:?}", got.edges, want.edges));
    }
    Ok(())
}

fn graph_decode(f: &Json) -> Verdict {
    let got = tryv!(graph::decode(f["input"].as_str().unwrap_or_default()));
    let want = tryv!(graph::payload_from_json(&f["expected"]));
    match same_graph(&got, &want) {
        Ok(()) => Verdict::Pass,
        Err(e) => Verdict::Fail(e),
    }
}

/// The raw bytes of an `error` fixture: `input` text or base64 `inputBase64`.
fn error_input(f: &Json) -> Option<Vec<u8>> {
    if let Some(s) = f["input"].as_str() {
        return Some(s.as_bytes().to_vec());
    }
    f["inputBase64"].as_str().and_then(base64_decode)
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=') {
        acc = (acc << 6) | value(c)? as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

fn error_fixture(f: &Json) -> Verdict {
    let want = f["expectedError"].as_str().unwrap_or_default();
    let Some(bytes) = error_input(f) else {
        return Verdict::Fail("fixture has no input".into());
    };
    let result = gcf_core::decode_any_bytes(&bytes).map(drop);
    match result {
        Ok(()) => Verdict::Fail(format!("decoded without error; expected {want}")),
        Err(e) if error_matches(&e, want) => {
            check!(e.line().is_some(), "error {want} carries no line: {e}");
            Verdict::Pass
        }
        Err(e) => Verdict::Fail(format!("got {} ({e}), expected {want}", e.kind().name())),
    }
}

fn graph_session(f: &Json) -> Verdict {
    let mut session = graph::Session::new();
    for (i, call) in f["calls"].as_array().into_iter().flatten().enumerate() {
        let payload = tryv!(graph::payload_from_json(&call["input"]));
        let out = tryv!(session.encode(&payload));
        let expected = call["expected"].as_str().unwrap_or_default();
        check!(
            out == expected,
            "call {i}: encoded\n{out:?}\nexpected\n{expected:?}"
        );
    }
    Verdict::Pass
}

fn graph_stream(f: &Json) -> Verdict {
    let payload = tryv!(graph::payload_from_json(&f["input"]));
    let labeled = f["options"]["labeledTrailerCounts"]
        .as_bool()
        .unwrap_or(false);
    let options = StreamOptions {
        tool: &payload.tool,
        token_budget: payload.token_budget,
        tokens_used: payload.tokens_used,
        trailer: if labeled {
            TrailerForm::Labeled
        } else {
            TrailerForm::Positional
        },
        index_names: true,
    };
    let mut w = tryv!(StreamWriter::new(Vec::new(), options));
    for s in &payload.symbols {
        tryv!(w.write_symbol(s));
    }
    for e in &payload.edges {
        tryv!(w.write_edge_by_name(&e.source, &e.target, &e.edge_type, &e.status));
    }
    let out = String::from_utf8(tryv!(w.finish())).unwrap_or_default();
    let expected = f["expected"].as_str().unwrap_or_default();
    check!(out == expected, "streamed\n{out:?}\nexpected\n{expected:?}");
    Verdict::Pass
}

fn graph_pack_root(f: &Json) -> Verdict {
    let snap = tryv!(graph::snapshot_from_json(&f["input"]));
    let root = tryv!(snap.pack_root());
    check!(
        root == f["expected"].as_str().unwrap_or_default(),
        "root {root}, expected {}",
        f["expected"]
    );
    if let Some(bytes) = f["canonicalBytes"].as_str() {
        let got = tryv!(graph::pack_root_canonical_bytes(&snap.symbols, &snap.edges));
        check!(
            got == bytes.as_bytes(),
            "canonical bytes {:?}, expected {bytes:?}",
            String::from_utf8_lossy(&got)
        );
    }
    Verdict::Pass
}

fn graph_delta(f: &Json) -> Verdict {
    match &f["input"] {
        // Encode a delta described as JSON.
        Json::Object(_) => {
            let delta = tryv!(graph::delta_from_json(&f["input"]));
            let out = tryv!(graph::encode_delta(&delta));
            let expected = f["expected"].as_str().unwrap_or_default();
            check!(out == expected, "encoded\n{out:?}\nexpected\n{expected:?}");
            Verdict::Pass
        }
        // Decode a delta and apply it to the base snapshot.
        Json::String(text) => {
            let base = tryv!(graph::snapshot_from_json(&f["base_snapshot"]));
            let want = tryv!(graph::snapshot_from_json(&f["expected_snapshot"]));
            check!(
                tryv!(base.pack_root()) == f["base_root"].as_str().unwrap_or_default(),
                "base root differs"
            );
            let got = tryv!(graph::apply_delta(&base, text));
            check!(got == want, "applied\n{got:?}\nexpected\n{want:?}");
            check!(
                tryv!(got.pack_root()) == f["new_root"].as_str().unwrap_or_default(),
                "new root differs"
            );
            Verdict::Pass
        }
        _ => Verdict::Fail("delta input is neither an object nor text".into()),
    }
}

fn graph_delta_verify(f: &Json) -> Verdict {
    let base = tryv!(graph::snapshot_from_json(&f["base_snapshot"]));
    let want = f["expectedError"].as_str().unwrap_or_default();
    match graph::apply_delta(&base, f["input"].as_str().unwrap_or_default()) {
        Ok(_) => Verdict::Fail(format!("applied without error; expected {want}")),
        Err(e) if e.kind().name() == want => Verdict::Pass,
        Err(e) => Verdict::Fail(format!("got {} ({e}), expected {want}", e.kind().name())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes() {
        assert_eq!(base64_decode("R0NG").unwrap(), b"GCF");
        assert_eq!(base64_decode("dmFsdWU9/w==").unwrap(), b"value=\xff");
        assert!(base64_decode("!!").is_none());
    }
}
