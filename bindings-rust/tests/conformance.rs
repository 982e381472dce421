//! Every official conformance fixture (`../shared/conformance`, read in
//! place) through the reference crate's API as this crate provides it: the
//! operation each fixture names, done with the calls a program written for
//! the `gcf` crate makes. One line per failing fixture, then
//! `N passed, N failed`; nothing is skipped.

use gcf_compat as gcf;
use serde_json::{Map, Value};

type Outcome = Result<(), String>;

macro_rules! check {
    ($cond:expr, $($msg:tt)*) => {
        if !$cond {
            return Err(format!($($msg)*));
        }
    };
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

fn string(v: &Value, name: &str) -> String {
    v.get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn int(v: &Value, name: &str) -> i64 {
    v.get(name).and_then(Value::as_i64).unwrap_or_default()
}

fn list<'a>(v: &'a Value, name: &str) -> &'a [Value] {
    v.get(name)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A fixture's camelCase symbol as the crate's type.
fn symbol(v: &Value) -> gcf::Symbol {
    gcf::Symbol {
        qualified_name: string(v, "qualifiedName"),
        kind: string(v, "kind"),
        score: v.get("score").and_then(Value::as_f64).unwrap_or_default(),
        provenance: string(v, "provenance"),
        distance: int(v, "distance") as i32,
        signature: String::new(),
        components: Default::default(),
    }
}

fn edge(v: &Value) -> gcf::Edge {
    gcf::Edge {
        source: string(v, "source"),
        target: string(v, "target"),
        edge_type: string(v, "edgeType"),
        status: string(v, "status"),
    }
}

fn payload(v: &Value) -> gcf::Payload {
    gcf::Payload {
        tool: string(v, "tool"),
        tokens_used: int(v, "tokensUsed"),
        token_budget: int(v, "tokenBudget"),
        pack_root: string(v, "packRoot"),
        symbols: list(v, "symbols").iter().map(symbol).collect(),
        edges: list(v, "edges").iter().map(edge).collect(),
    }
}

fn generic_set(v: &Value) -> gcf::GenericSet {
    gcf::GenericSet {
        name: string(v, "name"),
        key: string(v, "key"),
        fields: list(v, "fields")
            .iter()
            .map(|f| text(f).to_string())
            .collect(),
        rows: list(v, "rows")
            .iter()
            .map(|r| r.as_object().cloned().unwrap_or_default())
            .collect(),
    }
}

/// A fixture's camelCase generic delta as the crate's type.
fn generic_delta(v: &Value) -> gcf::GenericDeltaPayload {
    gcf::GenericDeltaPayload {
        tool: string(v, "tool"),
        key: string(v, "key"),
        fields: list(v, "fields")
            .iter()
            .map(|f| text(f).to_string())
            .collect(),
        base_root: string(v, "baseRoot"),
        new_root: string(v, "newRoot"),
        added: rows(v, "added"),
        changed: rows(v, "changed"),
        removed: list(v, "removed").to_vec(),
        delta_tokens: int(v, "deltaTokens") as u64,
        full_tokens: int(v, "fullTokens") as u64,
    }
}

fn rows(v: &Value, name: &str) -> Vec<Map<String, Value>> {
    list(v, name)
        .iter()
        .map(|r| r.as_object().cloned().unwrap_or_default())
        .collect()
}

/// Structural equality as every runner of this repository reads it
/// (`gcf_bind::conformance::same_value`), on both values as gcf-core's.
fn same_value(a: &Value, b: &Value) -> bool {
    match (
        gcf_core::generic::from_json(a),
        gcf_core::generic::from_json(b),
    ) {
        (Ok(a), Ok(b)) => gcf_bind::conformance::same_value(&a, &b),
        _ => false,
    }
}

/// The category at the head of an error message (`category: ...`, or the
/// graph decoder's `gcf: category: ...`).
fn category_of(message: &str) -> &str {
    let message = message.strip_prefix("gcf: ").unwrap_or(message);
    message.split(':').next().unwrap_or_default().trim()
}

fn decode_error_category(e: &gcf::DecodeError) -> String {
    use gcf::DecodeError::*;
    match e {
        EmptyInput | InvalidHeader(_) => "missing_header".into(),
        InvalidField(m) => category_of(m).to_string(),
        InvalidSymbolLine(_) => "invalid_node_line".into(),
        InvalidEdgeLine(_) => "invalid_edge_syntax".into(),
        UnknownEdgeId(_) => "unknown_edge_reference".into(),
    }
}

/// Whether an error matches `expectedError`: its category, or for a few
/// fixtures words of the expected message.
fn matches(message: &str, category: &str, want: &str) -> bool {
    category == want
        || (want.contains(' ') && message.to_lowercase().contains(&want.to_lowercase()))
}

fn expect_error<T: std::fmt::Debug>(result: Result<T, String>, want: &str) -> Outcome {
    match result {
        Ok(v) => Err(format!("succeeded with {v:?}; expected {want}")),
        Err(e) if matches(&e, category_of(&e), want) => Ok(()),
        Err(e) => Err(format!("got {e}, expected {want}")),
    }
}

fn is_graph(input: &Value) -> bool {
    input.get("symbols").is_some_and(Value::is_array) && input.get("rows").is_none()
}

fn graph_value_of(p: &gcf::Payload) -> Value {
    serde_json::json!({
        "tool": p.tool, "tokensUsed": p.tokens_used, "tokenBudget": p.token_budget,
        "packRoot": p.pack_root,
        "symbols": p.symbols.iter().map(|s| serde_json::json!([s.qualified_name, s.kind, s.score, s.provenance, s.distance])).collect::<Vec<_>>(),
        "edges": p.edges.iter().map(|e| serde_json::json!([e.source, e.target, e.edge_type, e.status])).collect::<Vec<_>>(),
    })
}

fn dispatch(f: &Value) -> Outcome {
    let input = &f["input"];
    let expected = &f["expected"];
    let want_error = f
        .get("expectedError")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match f["operation"].as_str().unwrap_or_default() {
        "encode" | "roundtrip" if is_graph(input) => {
            let out = gcf::encode(&payload(input));
            check!(
                out == text(expected),
                "encoded\n{out:?}\nexpected\n{expected}"
            );
            Ok(())
        }
        "encode" | "roundtrip" => {
            let out = gcf::encode_generic(input)?;
            check!(
                out == text(expected),
                "encoded\n{out:?}\nexpected\n{expected}"
            );
            let back = gcf::decode_generic(&out)?;
            check!(same_value(&back, input), "decoded back as {back}");
            Ok(())
        }
        "decode"
            if matches!(
                gcf_core::detect_profile(text(input)),
                Ok(gcf_core::Profile::Graph)
            ) =>
        {
            let got = gcf::decode(text(input)).map_err(|e| e.to_string())?;
            let want = payload(expected);
            check!(
                graph_value_of(&got) == graph_value_of(&want),
                "decoded {got:?}\nexpected {want:?}"
            );
            Ok(())
        }
        "decode" => {
            let got = gcf::decode_generic(text(input))?;
            check!(
                same_value(&got, expected),
                "decoded {got}\nexpected {expected}"
            );
            Ok(())
        }
        "error" => {
            let Some(input) = input.as_str() else {
                // Bytes that are not UTF-8 (`inputBase64`): the crate's API
                // takes `&str`, so such input never reaches a decoder; the
                // caller's `str::from_utf8` refuses it.
                check!(
                    want_error == "invalid_utf8",
                    "a non-text input expecting {want_error}"
                );
                return Ok(());
            };
            // The call a program makes for the payload it expects: a delta's
            // decoder for a delta, the profile's decoder otherwise.
            match gcf_core::payload_kind(input) {
                Ok(gcf_core::PayloadKind::GraphDelta) => {
                    return expect_error(gcf::decode_delta(input), want_error)
                }
                Ok(gcf_core::PayloadKind::GenericDelta) => {
                    return expect_error(gcf::decode_generic_delta(input), want_error)
                }
                _ => {}
            }
            if let Ok(gcf_core::Profile::Graph) = gcf_core::detect_profile(input) {
                return match gcf::decode(input) {
                    Ok(p) => Err(format!("decoded {p:?}; expected {want_error}")),
                    Err(e) => {
                        let category = decode_error_category(&e);
                        check!(
                            matches(&e.to_string(), &category, want_error),
                            "got {e}, expected {want_error}"
                        );
                        check!(
                            e.to_string().contains("(line ")
                                || matches!(e, gcf::DecodeError::EmptyInput),
                            "no position: {e}"
                        );
                        Ok(())
                    }
                };
            }
            expect_error(gcf::decode_generic(input), want_error)
        }
        "encode-error" => expect_error(gcf::encode_generic(input), want_error),
        "roundtrip-wire" => {
            let value = gcf::decode_generic(text(input))?;
            let out = gcf::encode_generic(&value)?;
            check!(
                out == text(expected),
                "re-encoded\n{out:?}\nexpected\n{expected}"
            );
            Ok(())
        }
        "session" => {
            let session = gcf::Session::new();
            for (i, call) in list(f, "calls").iter().enumerate() {
                let out = gcf::encode_with_session(&payload(&call["input"]), &session);
                check!(
                    out == text(&call["expected"]),
                    "call {i}: encoded\n{out:?}\nexpected\n{}",
                    call["expected"]
                );
            }
            Ok(())
        }
        "graph-stream-encode" => {
            let p = payload(input);
            let options = gcf::StreamOptions {
                token_budget: p.token_budget,
                tokens_used: p.tokens_used,
                labeled_trailer_counts: f
                    .pointer("/options/labeledTrailerCounts")
                    .and_then(Value::as_bool)
                    .unwrap_or_default(),
                ..Default::default()
            };
            let mut out = Vec::new();
            {
                let w = gcf::StreamEncoder::new(&mut out, &p.tool, options);
                for s in &p.symbols {
                    w.write_symbol(s);
                }
                for e in &p.edges {
                    w.write_edge(e);
                }
                w.close();
            }
            let out = String::from_utf8(out).map_err(|e| e.to_string())?;
            check!(
                out == text(expected),
                "streamed\n{out:?}\nexpected\n{expected}"
            );
            Ok(())
        }
        "pack-root" => {
            let p = payload(input);
            let root = gcf::pack_root(&p.symbols, &p.edges);
            check!(root == text(expected), "root {root}, expected {expected}");
            if let Some(bytes) = f.get("canonicalBytes") {
                let got = gcf::pack_root_canonical_bytes(&p.symbols, &p.edges);
                check!(
                    got == text(bytes),
                    "canonical bytes {got:?}, expected {bytes}"
                );
            }
            Ok(())
        }
        "delta" if !input.is_string() => {
            let d = gcf::DeltaPayload {
                tool: string(input, "tool"),
                base_root: string(input, "baseRoot"),
                new_root: string(input, "newRoot"),
                removed: list(input, "removed").iter().map(symbol).collect(),
                added: list(input, "added").iter().map(symbol).collect(),
                removed_edges: list(input, "removedEdges").iter().map(edge).collect(),
                added_edges: list(input, "addedEdges").iter().map(edge).collect(),
                delta_tokens: int(input, "deltaTokens"),
                full_tokens: int(input, "fullTokens"),
            };
            let out = gcf::encode_delta(&d);
            check!(
                out == text(expected),
                "encoded\n{out:?}\nexpected\n{expected}"
            );
            Ok(())
        }
        op @ ("delta" | "delta-verify") => {
            // A consumer's path through the crate's API: decode the delta,
            // check its base root, verify it against the held snapshot.
            let base = payload(&f["base_snapshot"]);
            let d = gcf::decode_delta(text(input))?;
            let applied = if gcf::pack_root(&base.symbols, &base.edges) != d.base_root {
                Err(String::from("base_mismatch: the delta is for another base"))
            } else {
                gcf::verify_delta(
                    &base.symbols,
                    &base.edges,
                    &d.removed,
                    &d.added,
                    &d.removed_edges,
                    &d.added_edges,
                    &d.new_root,
                )
            };
            if op == "delta-verify" {
                return expect_error(applied, want_error);
            }
            let (symbols, edges) = applied?;
            let want = payload(&f["expected_snapshot"]);
            let got = gcf::Payload {
                symbols,
                edges,
                ..want.clone()
            };
            check!(
                graph_value_of(&got) == graph_value_of(&want),
                "applied {got:?}\nexpected {want:?}"
            );
            check!(
                d.new_root == string(f, "new_root"),
                "new root {}",
                d.new_root
            );
            Ok(())
        }
        "generic-pack-root" => {
            let root = gcf::generic_pack_root(&generic_set(input));
            check!(root == text(expected), "root {root}, expected {expected}");
            Ok(())
        }
        "generic-delta" => {
            let d = generic_delta(input);
            let out = gcf::encode_generic_delta(&d);
            check!(
                out == text(expected),
                "encoded\n{out:?}\nexpected\n{expected}"
            );
            Ok(())
        }
        "generic-delta-decode" => {
            let base = generic_set(&input["base"]);
            let applied = gcf::decode_generic_delta(text(&input["wire"])).and_then(|d| {
                gcf::verify_generic_delta(&base, &d, &string(input, "expectedNewRoot"))
            });
            if !want_error.is_empty() {
                return expect_error(applied, want_error);
            }
            let root = gcf::generic_pack_root(&applied?);
            check!(root == text(expected), "root {root}, expected {expected}");
            Ok(())
        }
        "generic-delta-verify" => {
            let base = generic_set(&input["base"]);
            let delta = &input["delta"];
            let d = generic_delta(delta);
            let applied = gcf::verify_generic_delta(&base, &d, &string(input, "expectedNewRoot"));
            if !want_error.is_empty() {
                return expect_error(applied, want_error);
            }
            let root = gcf::generic_pack_root(&applied?);
            check!(root == text(expected), "root {root}, expected {expected}");
            Ok(())
        }
        "generic-delta-session" => {
            let policy = match input.pointer("/policy/mode").and_then(Value::as_str) {
                Some("sizeGuard") => gcf::ReanchorPolicy::size_guard(),
                _ => gcf::ReanchorPolicy::fixed_n(
                    input
                        .pointer("/policy/n")
                        .and_then(Value::as_u64)
                        .unwrap_or_default() as usize,
                ),
            };
            let mut session = gcf::GenericDeltaSession::new(
                generic_set(&input["base"]),
                string(input, "tool"),
                policy,
            );
            let initial = session.current_full();
            check!(
                initial == string(expected, "initialFull"),
                "initial full\n{initial:?}"
            );
            let emissions = list(expected, "emissions");
            let updates = list(input, "updates");
            check!(
                emissions.len() == updates.len(),
                "{} updates, {} emissions",
                updates.len(),
                emissions.len()
            );
            for (i, (update, want)) in updates.iter().zip(emissions).enumerate() {
                let (wire, full) = session.next(generic_set(update))?;
                check!(
                    wire == string(want, "wire"),
                    "turn {i}: wire\n{wire:?}\nexpected {}",
                    want["wire"]
                );
                check!(
                    Some(full) == want["isFull"].as_bool(),
                    "turn {i}: full {full}"
                );
            }
            Ok(())
        }
        other => Err(format!("unknown operation `{other}`")),
    }
}

#[test]
fn every_fixture_passes_through_the_crates_api() {
    let files = gcf_spec_tests::fixture_files(&gcf_spec_tests::conformance_dir());
    assert!(!files.is_empty(), "no fixtures found");
    let mut failures = Vec::new();
    for path in &files {
        let fixture: Value = match std::fs::read(path).map(|b| serde_json::from_slice(&b)) {
            Ok(Ok(v)) => v,
            other => {
                failures.push(format!("{}: unreadable: {other:?}", path.display()));
                continue;
            }
        };
        if let Err(why) = dispatch(&fixture) {
            failures.push(format!(
                "{}: {}: {why}",
                path.display(),
                fixture["operation"]
            ));
        }
    }
    for f in &failures {
        println!("{f}");
    }
    println!(
        "conformance (gcf-compat): {} passed, {} failed",
        files.len() - failures.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed",
        failures.len(),
        files.len()
    );
}
