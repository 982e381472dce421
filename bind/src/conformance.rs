//! The conformance suite's operations, as JSON: one fixture in, one verdict
//! out. Every binding (the Rust runner, Go, and the coming Node, Python and
//! WebAssembly ones) runs all fixtures by reading each file and handing its
//! bytes to [`run_json`] (in C: `gcf_conformance_run`), instead of writing a
//! dispatch of its own.
//!
//! Inputs go through this crate's own JSON models (the same code the CLI and
//! the C ABI use), so the suite also checks the serde layer on every input.
//!
//! ```
//! let fixture = br#"{"operation": "encode", "input": {"id": 7}, "expected": "GCF profile=generic\nid=7\n"}"#;
//! let verdict = gcf_bind::conformance::run(fixture);
//! assert!(verdict.passed(), "{verdict:?}");
//! assert_eq!(gcf_bind::conformance::run_json(fixture), r#"{"operation":"encode","status":"pass"}"#);
//! ```

use std::borrow::Cow;

use gcf_core::generic::{self as g, Value};
use gcf_core::graph::{self, StreamWriter};
use gcf_core::Profile;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::failure::Failure;
use crate::options::{reanchor_policy, GraphStreamOptions};
use crate::{generic as bg, graph as bgr, value as bv};

/// How one fixture ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// The fixture's `operation`.
    pub operation: String,
    /// `pass` or `fail`.
    pub status: &'static str,
    /// What differed, for a failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl Verdict {
    /// Whether the fixture passed.
    pub fn passed(&self) -> bool {
        self.status == "pass"
    }
}

/// Runs one fixture given as JSON text.
pub fn run(fixture: &[u8]) -> Verdict {
    let f: Fixture = match crate::value::read(fixture) {
        Ok(f) => f,
        Err(e) => {
            return Verdict {
                operation: "?".into(),
                status: "fail",
                detail: Some(format!("unreadable fixture: {e}")),
            }
        }
    };
    let operation = f.operation.to_string();
    let outcome = std::panic::catch_unwind(|| dispatch(&f))
        .unwrap_or_else(|_| Err("the library panicked".to_owned()));
    match outcome {
        Ok(()) => Verdict {
            operation,
            status: "pass",
            detail: None,
        },
        Err(why) => Verdict {
            operation,
            status: "fail",
            detail: Some(why),
        },
    }
}

/// [`run`] with the verdict as JSON: `{"operation", "status", "detail"?}`.
pub fn run_json(fixture: &[u8]) -> String {
    serde_json::to_string(&run(fixture)).unwrap_or_else(|_| {
        r#"{"operation":"?","status":"fail","detail":"unserializable verdict"}"#.into()
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Fixture<'a> {
    #[serde(borrow)]
    operation: Cow<'a, str>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(default)]
    input_base64: Option<String>,
    #[serde(borrow, default)]
    expected: Option<&'a RawValue>,
    #[serde(default)]
    expected_error: Option<String>,
    #[serde(borrow, default)]
    options: Option<&'a RawValue>,
    #[serde(borrow, default)]
    calls: Option<Vec<Call<'a>>>,
    #[serde(borrow, default, rename = "base_snapshot")]
    base_snapshot: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "expected_snapshot")]
    expected_snapshot: Option<&'a RawValue>,
    #[serde(default, rename = "base_root")]
    base_root: Option<String>,
    #[serde(default, rename = "new_root")]
    new_root: Option<String>,
    #[serde(default)]
    canonical_bytes: Option<String>,
}

#[derive(Deserialize)]
struct Call<'a> {
    #[serde(borrow)]
    input: &'a RawValue,
    #[serde(borrow)]
    expected: &'a RawValue,
}

type Outcome = Result<(), String>;

fn bytes(raw: Option<&RawValue>) -> &[u8] {
    raw.map_or(b"null", |r| r.get().as_bytes())
}

/// A JSON string member's text ("" when absent or not a string).
fn text(raw: Option<&RawValue>) -> String {
    raw.and_then(|r| serde_json::from_str::<String>(r.get()).ok())
        .unwrap_or_default()
}

fn is_text(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| r.get().starts_with('"'))
}

fn fail(what: impl std::fmt::Display) -> String {
    what.to_string()
}

fn unexpected(e: impl Into<Failure>) -> String {
    let f: Failure = e.into();
    format!("unexpected error: {f}")
}

macro_rules! check {
    ($cond:expr, $($msg:tt)*) => {
        if !$cond {
            return Err(format!($($msg)*));
        }
    };
}

/// Whether a failure matches `expectedError`: a category name, or for a few
/// keyed-map and delta fixtures, words of the expected message.
fn error_matches(category: &str, message: &str, want: &str) -> bool {
    category == want
        || (want.contains(' ') && message.to_lowercase().contains(&want.to_lowercase()))
}

fn expect_error(result: Result<impl std::fmt::Debug, Failure>, want: &str) -> Outcome {
    match result {
        Ok(v) => Err(format!("succeeded with {v:?}; expected {want}")),
        Err(e) if error_matches(e.category, &e.message, want) => Ok(()),
        Err(e) => Err(format!("got {} ({e}), expected {want}", e.category)),
    }
}

fn is_graph_input(raw: Option<&RawValue>) -> bool {
    match bv::from_slice(bytes(raw)) {
        Ok(Value::Object(o)) => {
            matches!(o.get("symbols"), Some(Value::Array(_))) && !o.contains_key("rows")
        }
        _ => false,
    }
}

fn dispatch(f: &Fixture) -> Outcome {
    let graph_input = || is_graph_input(f.input);
    match f.operation.as_ref() {
        "encode" | "roundtrip" if graph_input() => graph_encode(f),
        "decode" => match gcf_core::detect_profile(&text(f.input)) {
            Ok(Profile::Graph) => graph_decode(f),
            _ => generic_decode(f),
        },
        "error" => error_fixture(f),
        "session" => graph_session(f),
        "graph-stream-encode" => graph_stream(f),
        "pack-root" => graph_pack_root(f),
        "delta" => graph_delta(f),
        "delta-verify" => graph_delta_verify(f),
        "encode" | "roundtrip" => generic_encode(f),
        "roundtrip-wire" => roundtrip_wire(f),
        "encode-error" => encode_error(f),
        "generic-pack-root" => generic_pack_root(f),
        "generic-delta" => generic_delta_encode(f),
        "generic-delta-decode" => generic_delta_decode(f),
        "generic-delta-verify" => generic_delta_verify(f),
        "generic-delta-session" => generic_delta_session(f),
        other => Err(format!("unknown operation `{other}`")),
    }
}

fn graph_encode(f: &Fixture) -> Outcome {
    let payload = bgr::payload_from_slice(bytes(f.input)).map_err(unexpected)?;
    let out = graph::encode(&payload).map_err(unexpected)?;
    let expected = text(f.expected);
    check!(out == expected, "encoded\n{out:?}\nexpected\n{expected:?}");
    Ok(())
}

fn same_graph(got: &graph::Payload, want: &graph::Payload) -> Outcome {
    let fields = |p: &graph::Payload| {
        (
            p.tool.clone(),
            p.token_budget,
            p.tokens_used,
            p.pack_root.clone(),
        )
    };
    check!(
        fields(got) == fields(want),
        "header fields {:?} != {:?}",
        fields(got),
        fields(want)
    );
    check!(
        got.symbols == want.symbols,
        "symbols {:?} != {:?}",
        got.symbols,
        want.symbols
    );
    check!(
        got.edges == want.edges,
        "edges {:?} != {:?}",
        got.edges,
        want.edges
    );
    Ok(())
}

fn graph_decode(f: &Fixture) -> Outcome {
    let got = graph::decode(&text(f.input)).map_err(unexpected)?;
    let want = bgr::payload_from_slice(bytes(f.expected))
        .map_err(unexpected)?
        .to_owned_payload();
    same_graph(&got, &want)
}

/// The raw bytes of an `error` fixture: `input` text or base64 `inputBase64`.
fn error_input(f: &Fixture) -> Option<Vec<u8>> {
    if is_text(f.input) {
        return Some(text(f.input).into_bytes());
    }
    f.input_base64.as_deref().and_then(base64_decode)
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

fn error_fixture(f: &Fixture) -> Outcome {
    let want = f.expected_error.as_deref().unwrap_or_default();
    let input = error_input(f).ok_or_else(|| fail("fixture has no input"))?;
    match gcf_core::decode_any_bytes(&input) {
        Ok(_) => Err(format!("decoded without error; expected {want}")),
        Err(e) if error_matches(e.kind().name(), e.message(), want) => {
            check!(e.line().is_some(), "error {want} carries no line: {e}");
            Ok(())
        }
        Err(e) => Err(format!("got {} ({e}), expected {want}", e.kind().name())),
    }
}

fn graph_session(f: &Fixture) -> Outcome {
    let mut session = graph::Session::new();
    for (i, call) in f.calls.iter().flatten().enumerate() {
        let payload = bgr::payload_from_slice(call.input.get().as_bytes()).map_err(unexpected)?;
        let out = session.encode(&payload).map_err(unexpected)?;
        let expected = text(Some(call.expected));
        check!(
            out == expected,
            "call {i}: encoded\n{out:?}\nexpected\n{expected:?}"
        );
    }
    Ok(())
}

fn graph_stream(f: &Fixture) -> Outcome {
    let payload = bgr::payload_from_slice(bytes(f.input)).map_err(unexpected)?;
    // The fixture's options, with the payload's header fields and the name
    // index the by-name edges need.
    let mut options = match f.options {
        Some(raw) => GraphStreamOptions::from_slice(raw.get().as_bytes()).map_err(unexpected)?,
        None => GraphStreamOptions::default(),
    };
    options.tool = Cow::Borrowed(payload.tool.as_ref());
    options.token_budget = payload.token_budget;
    options.tokens_used = payload.tokens_used;
    options.index_names = true;
    let stream_options = options.to_core().map_err(unexpected)?;
    let mut w = StreamWriter::new(Vec::new(), stream_options).map_err(unexpected)?;
    for s in &payload.symbols {
        w.write_symbol(s).map_err(unexpected)?;
    }
    for e in &payload.edges {
        w.write_edge_by_name(&e.source, &e.target, &e.edge_type, &e.status)
            .map_err(unexpected)?;
    }
    let out = String::from_utf8(w.finish().map_err(unexpected)?).map_err(fail)?;
    let expected = text(f.expected);
    check!(out == expected, "streamed\n{out:?}\nexpected\n{expected:?}");
    Ok(())
}

fn snapshot(raw: Option<&RawValue>) -> Result<graph::Snapshot, String> {
    bgr::snapshot_from_slice(bytes(raw))
        .map(|s| bgr::owned_snapshot(&s))
        .map_err(unexpected)
}

fn graph_pack_root(f: &Fixture) -> Outcome {
    let snap = snapshot(f.input)?;
    let root = snap.pack_root().map_err(unexpected)?;
    let expected = text(f.expected);
    check!(root == expected, "root {root}, expected {expected}");
    if let Some(want) = &f.canonical_bytes {
        let got =
            graph::pack_root_canonical_bytes(&snap.symbols, &snap.edges).map_err(unexpected)?;
        check!(
            got == want.as_bytes(),
            "canonical bytes {:?}, expected {want:?}",
            String::from_utf8_lossy(&got)
        );
    }
    Ok(())
}

fn graph_delta(f: &Fixture) -> Outcome {
    if !is_text(f.input) {
        // Encode a delta described as JSON.
        let delta = bgr::delta_from_slice(bytes(f.input)).map_err(unexpected)?;
        let out = graph::encode_delta(&delta).map_err(unexpected)?;
        let expected = text(f.expected);
        check!(out == expected, "encoded\n{out:?}\nexpected\n{expected:?}");
        return Ok(());
    }
    // Decode a delta and apply it to the base snapshot.
    let base = snapshot(f.base_snapshot)?;
    let want = snapshot(f.expected_snapshot)?;
    check!(
        base.pack_root().map_err(unexpected)? == f.base_root.as_deref().unwrap_or_default(),
        "base root differs"
    );
    let got = graph::apply_delta(&base, &text(f.input)).map_err(unexpected)?;
    check!(got == want, "applied\n{got:?}\nexpected\n{want:?}");
    check!(
        got.pack_root().map_err(unexpected)? == f.new_root.as_deref().unwrap_or_default(),
        "new root differs"
    );
    Ok(())
}

fn graph_delta_verify(f: &Fixture) -> Outcome {
    let base = snapshot(f.base_snapshot)?;
    let want = f.expected_error.as_deref().unwrap_or_default();
    expect_error(
        graph::apply_delta(&base, &text(f.input)).map_err(Failure::from),
        want,
    )
}

/// Structural equality of the JSON data model (spec §1.1), as the fixtures'
/// "equals structurally" means it: [`Value::structurally_eq`].
pub fn same_value(a: &Value, b: &Value) -> bool {
    a.structurally_eq(b)
}

fn json_of(v: &Value) -> String {
    serde_json::to_string(&bv::Json(v)).unwrap_or_default()
}

fn generic_encode(f: &Fixture) -> Outcome {
    let value = bv::from_slice(bytes(f.input)).map_err(unexpected)?;
    let out = g::encode(&value).map_err(unexpected)?;
    let expected = text(f.expected);
    check!(out == expected, "encoded\n{out:?}\nexpected\n{expected:?}");
    let back = g::decode(&out).map_err(unexpected)?;
    check!(
        same_value(&back, &value),
        "decode(encode(input)) differs:\n{}\ninput\n{}",
        json_of(&back),
        json_of(&value)
    );
    Ok(())
}

fn encode_error(f: &Fixture) -> Outcome {
    let want = f.expected_error.as_deref().unwrap_or_default();
    let result = bv::from_slice(bytes(f.input)).and_then(|v| g::encode(&v).map_err(Failure::from));
    expect_error(result, want)
}

fn generic_decode(f: &Fixture) -> Outcome {
    let got = g::decode(&text(f.input)).map_err(unexpected)?;
    let want = bv::from_slice(bytes(f.expected)).map_err(unexpected)?;
    check!(
        same_value(&got, &want),
        "decoded\n{}\nexpected\n{}",
        json_of(&got),
        json_of(&want)
    );
    Ok(())
}

fn roundtrip_wire(f: &Fixture) -> Outcome {
    let value = g::decode(&text(f.input)).map_err(unexpected)?;
    let out = g::encode(&value).map_err(unexpected)?;
    let expected = text(f.expected);
    check!(
        out == expected,
        "re-encoded\n{out:?}\nexpected\n{expected:?}"
    );
    Ok(())
}

fn keyed_set(raw: &[u8]) -> Result<g::KeyedSet, String> {
    bg::keyed_set_from_slice(raw).map_err(unexpected)
}

fn generic_pack_root(f: &Fixture) -> Outcome {
    let set = keyed_set(bytes(f.input))?;
    let root = g::pack_root(&set).map_err(unexpected)?;
    let expected = text(f.expected);
    check!(root == expected, "root {root}, expected {expected}");
    Ok(())
}

fn generic_delta_encode(f: &Fixture) -> Outcome {
    let delta = bg::generic_delta_from_slice(bytes(f.input)).map_err(unexpected)?;
    let out = g::encode_delta(&delta).map_err(unexpected)?;
    let expected = text(f.expected);
    check!(out == expected, "encoded\n{out:?}\nexpected\n{expected:?}");
    Ok(())
}

/// Checks an apply against `expected` (the resulting root) or `expectedError`.
fn check_applied(f: &Fixture, result: gcf_core::Result<g::KeyedSet>) -> Outcome {
    match &f.expected_error {
        Some(want) => expect_error(result.map(|s| s.rows.len()).map_err(Failure::from), want),
        None => {
            let set = result.map_err(unexpected)?;
            let root = g::pack_root(&set).map_err(unexpected)?;
            let expected = text(f.expected);
            check!(root == expected, "root {root}, expected {expected}");
            Ok(())
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DeltaInput<'a> {
    #[serde(borrow, default)]
    base: Option<&'a RawValue>,
    #[serde(default)]
    wire: Option<String>,
    #[serde(borrow, default)]
    delta: Option<&'a RawValue>,
    #[serde(default)]
    expected_new_root: Option<String>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(borrow, default)]
    policy: Option<&'a RawValue>,
    #[serde(borrow, default)]
    updates: Option<Vec<&'a RawValue>>,
}

fn delta_input<'a>(f: &Fixture<'a>) -> Result<DeltaInput<'a>, String> {
    serde_json::from_str(f.input.map_or("null", RawValue::get)).map_err(fail)
}

fn generic_delta_decode(f: &Fixture) -> Outcome {
    let input = delta_input(f)?;
    let base = keyed_set(bytes(input.base))?;
    check_applied(
        f,
        g::apply_delta(&base, input.wire.as_deref().unwrap_or_default()),
    )
}

fn generic_delta_verify(f: &Fixture) -> Outcome {
    let input = delta_input(f)?;
    let base = keyed_set(bytes(input.base))?;
    let mut delta = bg::generic_delta_from_slice(bytes(input.delta)).map_err(unexpected)?;
    delta.new_root = input.expected_new_root.unwrap_or_default();
    check_applied(f, g::apply(&base, &delta))?;
    // The same delta sent over the wire must end the same way.
    let wire = g::encode_delta(&delta).map_err(unexpected)?;
    check_applied(f, g::apply_delta(&base, &wire))
}

fn generic_delta_session(f: &Fixture) -> Outcome {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Emission {
        wire: String,
        is_full: bool,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Expected {
        initial_full: String,
        emissions: Vec<Emission>,
    }
    let input = delta_input(f)?;
    let policy = reanchor_policy(bytes(input.policy)).map_err(unexpected)?;
    let expected: Expected =
        serde_json::from_str(f.expected.map_or("null", RawValue::get)).map_err(fail)?;
    let base = keyed_set(bytes(input.base))?;
    let mut session = g::DeltaSession::new(base, input.tool.unwrap_or_default(), policy);
    let initial = session.initial_full().map_err(unexpected)?;
    check!(
        initial == expected.initial_full,
        "initial full {initial:?}, expected {:?}",
        expected.initial_full
    );
    let updates = input.updates.unwrap_or_default();
    check!(
        updates.len() == expected.emissions.len(),
        "fixture has {} updates but {} emissions",
        updates.len(),
        expected.emissions.len()
    );
    for (turn, (update, want)) in updates.iter().zip(&expected.emissions).enumerate() {
        let next = keyed_set(update.get().as_bytes())?;
        let (wire, is_full) = session.next(next).map_err(unexpected)?;
        check!(
            wire == want.wire && is_full == want.is_full,
            "turn {}: got ({wire:?}, {is_full}), expected ({:?}, {})",
            turn + 1,
            want.wire,
            want.is_full
        );
    }
    Ok(())
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

    #[test]
    fn verdicts_can_fail() {
        let wrong = run(br#"{"operation": "encode", "input": {"id": 7}, "expected": "GCF profile=generic\nid=8\n"}"#);
        assert!(!wrong.passed() && wrong.detail.as_deref().unwrap().contains("id=8"));
        let unknown = run(br#"{"operation": "teleport"}"#);
        assert_eq!(
            run_json(br#"{"operation": "teleport"}"#),
            r#"{"operation":"teleport","status":"fail","detail":"unknown operation `teleport`"}"#
        );
        assert!(!unknown.passed());
        assert!(!run(b"{").passed());
        let big = run(br#"{"operation": "encode-error", "input": {"v": 100000000000000000000}, "expectedError": "out_of_range"}"#);
        assert!(big.passed(), "{big:?}");
    }
}
