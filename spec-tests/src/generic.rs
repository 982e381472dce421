//! Generic-profile operations of the conformance suite.

use gcf_core::generic::{self as g, Map, Value};
use serde_json::Value as Json;

use crate::{check, error_matches, tryv, Verdict};

/// Structural equality of the JSON data model: objects by membership (a
/// table decodes every row in header order, so per-row key order is not
/// carried), arrays by order, numbers by value.
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => same_members(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q))
        }
        _ => a == b,
    }
}

fn same_members(x: &Map, y: &Map) -> bool {
    x.len() == y.len()
        && x.iter()
            .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
}

fn text(v: &Json) -> &str {
    v.as_str().unwrap_or_default()
}

pub fn encode(f: &Json) -> Verdict {
    let value = tryv!(g::from_json(&f["input"]));
    let out = tryv!(g::encode(&value));
    let expected = text(&f["expected"]);
    check!(out == expected, "encoded\n{out:?}\nexpected\n{expected:?}");
    let back = tryv!(g::decode(&out));
    check!(
        same_value(&back, &value),
        "decode(encode(input)) differs:\n{:?}\ninput\n{:?}",
        g::to_json(&back),
        g::to_json(&value)
    );
    Verdict::Pass
}

pub fn encode_error(f: &Json) -> Verdict {
    let want = text(&f["expectedError"]);
    match g::from_json(&f["input"]).and_then(|v| g::encode(&v)) {
        Ok(out) => Verdict::Fail(format!("encoded {out:?}; expected {want}")),
        Err(e) if error_matches(&e, want) => Verdict::Pass,
        Err(e) => Verdict::Fail(format!("got {} ({e}), expected {want}", e.kind().name())),
    }
}

pub fn decode(f: &Json) -> Verdict {
    let got = tryv!(g::decode(text(&f["input"])));
    let want = tryv!(g::from_json(&f["expected"]));
    check!(
        same_value(&got, &want),
        "decoded\n{}\nexpected\n{}",
        g::to_json(&got),
        f["expected"]
    );
    Verdict::Pass
}

pub fn roundtrip_wire(f: &Json) -> Verdict {
    let value = tryv!(g::decode(text(&f["input"])));
    let out = tryv!(g::encode(&value));
    let expected = text(&f["expected"]);
    check!(
        out == expected,
        "re-encoded\n{out:?}\nexpected\n{expected:?}"
    );
    Verdict::Pass
}

pub fn pack_root(f: &Json) -> Verdict {
    let set = tryv!(g::keyed_set_from_json(&f["input"]));
    let root = tryv!(g::pack_root(&set));
    check!(
        root == text(&f["expected"]),
        "root {root}, expected {}",
        f["expected"]
    );
    Verdict::Pass
}

pub fn delta_encode(f: &Json) -> Verdict {
    let delta = tryv!(g::generic_delta_from_json(&f["input"]));
    let out = tryv!(g::encode_delta(&delta));
    let expected = text(&f["expected"]);
    check!(out == expected, "encoded\n{out:?}\nexpected\n{expected:?}");
    Verdict::Pass
}

/// Checks an apply against `expected` (the resulting root) or `expectedError`.
fn check_applied(f: &Json, result: gcf_core::Result<g::KeyedSet>) -> Verdict {
    match (f["expectedError"].as_str(), result) {
        (Some(want), Err(e)) if error_matches(&e, want) => Verdict::Pass,
        (Some(want), Err(e)) => {
            Verdict::Fail(format!("got {} ({e}), expected {want}", e.kind().name()))
        }
        (Some(want), Ok(_)) => Verdict::Fail(format!("applied without error; expected {want}")),
        (None, Err(e)) => Verdict::Fail(format!("unexpected error {}: {e}", e.kind().name())),
        (None, Ok(set)) => {
            let root = tryv!(g::pack_root(&set));
            check!(
                root == text(&f["expected"]),
                "root {root}, expected {}",
                f["expected"]
            );
            Verdict::Pass
        }
    }
}

pub fn delta_decode(f: &Json) -> Verdict {
    let base = tryv!(g::keyed_set_from_json(&f["input"]["base"]));
    check_applied(f, g::apply_delta(&base, text(&f["input"]["wire"])))
}

pub fn delta_verify(f: &Json) -> Verdict {
    let input = &f["input"];
    let base = tryv!(g::keyed_set_from_json(&input["base"]));
    let mut delta = tryv!(g::generic_delta_from_json(&input["delta"]));
    delta.new_root = text(&input["expectedNewRoot"]).to_string();
    match check_applied(f, g::apply(&base, &delta)) {
        Verdict::Pass => {}
        other => return other,
    }
    // The same delta sent over the wire must end the same way.
    let wire = tryv!(g::encode_delta(&delta));
    check_applied(f, g::apply_delta(&base, &wire))
}

pub fn delta_session(f: &Json) -> Verdict {
    let input = &f["input"];
    let policy = match input["policy"]["mode"].as_str() {
        Some("fixedN") => {
            g::ReanchorPolicy::FixedN(input["policy"]["n"].as_u64().unwrap_or(0) as usize)
        }
        Some("sizeGuard") => g::ReanchorPolicy::SizeGuard,
        other => return Verdict::Fail(format!("unknown policy {other:?}")),
    };
    let base = tryv!(g::keyed_set_from_json(&input["base"]));
    let mut session = g::DeltaSession::new(base, text(&input["tool"]).to_string(), policy);
    let initial = tryv!(session.initial_full());
    let expected = &f["expected"];
    check!(
        initial == text(&expected["initialFull"]),
        "initial full {initial:?}, expected {:?}",
        expected["initialFull"]
    );
    let updates = input["updates"].as_array().cloned().unwrap_or_default();
    let emissions = expected["emissions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    check!(
        updates.len() == emissions.len(),
        "fixture has {} updates but {} emissions",
        updates.len(),
        emissions.len()
    );
    for (turn, (update, want)) in updates.iter().zip(&emissions).enumerate() {
        let next = tryv!(g::keyed_set_from_json(update));
        let (wire, is_full) = tryv!(session.next(next));
        check!(
            wire == text(&want["wire"]) && Some(is_full) == want["isFull"].as_bool(),
            "turn {}: got ({wire:?}, {is_full}), expected {want}",
            turn + 1
        );
    }
    Verdict::Pass
}
