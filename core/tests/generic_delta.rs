//! Conformance fixtures for generic deltas (spec §10a): every fixture whose
//! operation is `generic-pack-root`, `generic-delta`, `generic-delta-decode`,
//! `generic-delta-verify` or `generic-delta-session`, plus behaviour the
//! fixtures do not pin down.

use std::path::{Path, PathBuf};

use gcf_core::generic::{
    apply, apply_delta, decode_delta, diff, encode_delta, encode_full, pack_root, respond,
    DeltaSession, GenericDelta, KeyedSet, Map, Outcome, ReanchorPolicy, Value,
};
use gcf_core::{Error, ErrorKind};
use serde_json::Value as Json;

const OPERATIONS: [&str; 5] = [
    "generic-pack-root",
    "generic-delta",
    "generic-delta-decode",
    "generic-delta-verify",
    "generic-delta-session",
];

fn conformance_dir() -> PathBuf {
    std::env::var_os("GCF_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance")
        })
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// serde_json (arbitrary precision) to the generic model, integers exact.
fn to_value(json: &Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => {
            let literal = n.to_string();
            if literal.contains(['.', 'e', 'E']) {
                Value::Float(literal.parse().expect("a JSON double"))
            } else {
                Value::Int(literal.parse().expect("fixture integers fit in int64"))
            }
        }
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) => Value::Array(items.iter().map(to_value).collect()),
        Json::Object(members) => Value::Object(to_map(members)),
    }
}

fn to_map(members: &serde_json::Map<String, Json>) -> Map {
    members
        .iter()
        .map(|(k, v)| (k.clone(), to_value(v)))
        .collect()
}

fn rows(json: &Json) -> Vec<Map> {
    json.as_array().map_or_else(Vec::new, |rows| {
        rows.iter()
            .map(|r| to_map(r.as_object().unwrap()))
            .collect()
    })
}

fn strings(json: &Json) -> Vec<String> {
    json.as_array().map_or_else(Vec::new, |a| {
        a.iter().map(|s| s.as_str().unwrap().to_owned()).collect()
    })
}

fn text(json: &Json) -> String {
    json.as_str().unwrap_or("").to_owned()
}

fn keyed_set(json: &Json) -> KeyedSet {
    KeyedSet {
        name: text(&json["name"]),
        key: text(&json["key"]),
        fields: strings(&json["fields"]),
        rows: rows(&json["rows"]),
    }
}

fn generic_delta(json: &Json) -> GenericDelta {
    GenericDelta {
        tool: text(&json["tool"]),
        key: text(&json["key"]),
        fields: strings(&json["fields"]),
        base_root: text(&json["baseRoot"]),
        new_root: text(&json["newRoot"]),
        added: rows(&json["added"]),
        changed: rows(&json["changed"]),
        removed: json["removed"]
            .as_array()
            .map_or_else(Vec::new, |ids| ids.iter().map(to_value).collect()),
        delta_tokens: json["deltaTokens"].as_u64().unwrap_or(0),
        full_tokens: json["fullTokens"].as_u64().unwrap_or(0),
    }
}

/// An `expectedError` is a category name, or (fixture 004) words of the message.
fn error_matches(err: &Error, expected: &str) -> bool {
    err.kind().name() == expected || err.message().contains(expected)
}

/// Compares the outcome of an apply with `expected` (a root) or `expectedError`.
fn check_applied(fixture: &Json, result: gcf_core::Result<KeyedSet>) -> Result<(), String> {
    match (fixture["expectedError"].as_str(), result) {
        (Some(want), Err(e)) if error_matches(&e, want) => Ok(()),
        (Some(want), Err(e)) => Err(format!(
            "expected error {want}, got {} ({e})",
            e.kind().name()
        )),
        (Some(want), Ok(_)) => Err(format!("expected error {want}, but it applied")),
        (None, Err(e)) => Err(format!("unexpected error {}: {e}", e.kind().name())),
        (None, Ok(set)) => {
            let root = pack_root(&set).map_err(|e| e.to_string())?;
            let expected = fixture["expected"].as_str().unwrap_or("");
            let claimed = fixture["input"]["expectedNewRoot"]
                .as_str()
                .unwrap_or(expected);
            if root == expected && root == claimed {
                Ok(())
            } else {
                Err(format!("root {root}, expected {expected}"))
            }
        }
    }
}

fn run(fixture: &Json) -> Result<(), String> {
    let input = &fixture["input"];
    let show = |e: Error| format!("{}: {e}", e.kind().name());
    match fixture["operation"].as_str().unwrap_or("") {
        "generic-pack-root" => {
            let got = pack_root(&keyed_set(input)).map_err(show)?;
            let want = fixture["expected"].as_str().unwrap_or("");
            if got == want {
                Ok(())
            } else {
                Err(format!("got {got}, expected {want}"))
            }
        }
        "generic-delta" => {
            let got = encode_delta(&generic_delta(input)).map_err(show)?;
            let want = fixture["expected"].as_str().unwrap_or("");
            if got != want {
                return Err(format!("got {got:?}, expected {want:?}"));
            }
            // The wire decodes back to the same delta, numbers compared by value.
            let back = decode_delta(&got).map_err(show)?;
            let mut sent = generic_delta(input);
            (sent.delta_tokens, sent.full_tokens) = (0, 0);
            if sent.added.is_empty() && sent.changed.is_empty() {
                sent.fields.clear(); // only row sections declare fields
            }
            if back != sent {
                return Err(format!("decoded {back:?}, sent {sent:?}"));
            }
            Ok(())
        }
        "generic-delta-decode" => check_applied(
            fixture,
            apply_delta(&keyed_set(&input["base"]), &text(&input["wire"])),
        ),
        "generic-delta-verify" => {
            let base = keyed_set(&input["base"]);
            let mut delta = generic_delta(&input["delta"]);
            delta.new_root = text(&input["expectedNewRoot"]);
            check_applied(fixture, apply(&base, &delta))?;
            // The same delta through the wire must end the same way.
            let wire = encode_delta(&delta).map_err(show)?;
            check_applied(fixture, apply_delta(&base, &wire))
                .map_err(|e| format!("through the wire: {e}"))
        }
        "generic-delta-session" => {
            let policy = match input["policy"]["mode"].as_str() {
                Some("fixedN") => {
                    ReanchorPolicy::FixedN(input["policy"]["n"].as_u64().unwrap_or(0) as usize)
                }
                Some("sizeGuard") => ReanchorPolicy::SizeGuard,
                other => return Err(format!("unknown policy {other:?}")),
            };
            let mut session =
                DeltaSession::new(keyed_set(&input["base"]), text(&input["tool"]), policy);
            let expected = &fixture["expected"];
            let initial = session.initial_full().map_err(show)?;
            if initial != text(&expected["initialFull"]) {
                return Err(format!(
                    "initial full {initial:?}, expected {:?}",
                    expected["initialFull"]
                ));
            }
            let emissions = expected["emissions"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let updates = input["updates"].as_array().cloned().unwrap_or_default();
            if emissions.len() != updates.len() {
                return Err("fixture has unequal updates and emissions".into());
            }
            for (turn, (update, want)) in updates.iter().zip(&emissions).enumerate() {
                let (wire, is_full) = session.next(keyed_set(update)).map_err(show)?;
                if wire != text(&want["wire"]) || Some(is_full) != want["isFull"].as_bool() {
                    return Err(format!(
                        "turn {}: got ({wire:?}, {is_full}), expected {want}",
                        turn + 1
                    ));
                }
            }
            Ok(())
        }
        other => Err(format!("not a generic delta operation: {other}")),
    }
}

#[test]
fn conformance_fixtures() {
    let root = conformance_dir();
    let mut paths = Vec::new();
    collect(&root, &mut paths);
    let (mut passed, mut failed) = (0, 0);
    let mut per_operation = [0usize; OPERATIONS.len()];
    for path in &paths {
        let fixture: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let operation = fixture["operation"].as_str().unwrap_or("");
        let Some(slot) = OPERATIONS.iter().position(|op| *op == operation) else {
            continue;
        };
        per_operation[slot] += 1;
        match run(&fixture) {
            Ok(()) => passed += 1,
            Err(why) => {
                failed += 1;
                println!(
                    "FAIL {} [{operation}]: {why}",
                    path.strip_prefix(&root).unwrap_or(path).display()
                );
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    assert_eq!(
        failed, 0,
        "{failed} generic delta fixtures failed (see output)"
    );
    assert_eq!(
        per_operation,
        [5, 2, 3, 4, 3],
        "fixture counts per operation changed: {OPERATIONS:?}"
    );
}

// --- behaviour beyond the fixtures ----------------------------------------

fn row(id: i64, status: &str) -> Map {
    let mut m = Map::new();
    m.insert("id", Value::Int(id));
    m.insert("status", Value::from(status));
    m
}

fn set(rows: Vec<Map>) -> KeyedSet {
    KeyedSet {
        name: "orders".into(),
        key: "id".into(),
        fields: vec!["id".into(), "status".into()],
        rows,
    }
}

#[test]
fn diff_encode_apply_round_trip() {
    let base = set(vec![
        row(1, "open"),
        row(2, "open"),
        row(3, "open"),
        row(4, "a|b"),
    ]);
    let new = set(vec![
        row(4, "a|b"),
        row(2, "true"),
        row(5, "-"),
        row(3, "open"),
    ]);
    let delta = diff(&base, &new).unwrap().unwrap();
    let wire = encode_delta(&delta).unwrap();
    assert!(
        wire.contains(
            "## added [1]{@id,status}\n5|\"-\"\n## changed [1]{@id,status}\n2|\"true\"\n"
        ),
        "{wire}"
    );
    assert!(wire.ends_with("## removed [1]{@id}\n1\n"));
    let applied = apply_delta(&base, &wire).unwrap();
    assert_eq!(pack_root(&applied).unwrap(), pack_root(&new).unwrap());
    // Kept rows keep the base order; added rows come last.
    assert_eq!(
        applied.rows,
        vec![row(2, "true"), row(3, "open"), row(4, "a|b"), row(5, "-")]
    );
}

#[test]
fn contradictory_operations_are_malformed() {
    let base = set(vec![row(1, "open"), row(2, "open")]);
    let root = pack_root(&base).unwrap();
    let header =
        format!("GCF profile=generic delta=true base_root={root} new_root=sha256:x key=id\n");
    let cases = [
        ("## changed [1]{@id,status}\n9|x\n", "not in the base"),
        ("## removed [1]{@id}\n9\n", "not in the base"),
        ("## added [1]{@id,status}\n1|x\n", "already exists"),
        ("## added [2]{@id,status}\n7|x\n7|y\n", "two operations"),
        (
            "## changed [1]{@id,status}\n1|x\n## removed [1]{@id}\n1\n",
            "two operations",
        ),
        ("## removed [2]{@id}\n1\n1\n", "removed twice"),
        ("## moved [1]{@id}\n1\n", "not a delta section"),
        (
            "## removed [1]{@id}\n1\n## removed [1]{@id}\n2\n",
            "appears twice",
        ),
        ("## added [1]{id,@status}\n3|x\n", "identity field"),
        ("## added [1]{@id,other}\n3|x\n", "other fields"),
    ];
    for (body, words) in cases {
        let err = apply_delta(&base, &format!("{header}{body}")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::MalformedDelta, "{body}: {err}");
        assert!(err.message().contains(words), "{body}: {err}");
    }
    let no_root = "GCF profile=generic delta=true new_root=a key=id\n";
    assert_eq!(
        apply_delta(&base, no_root).unwrap_err().kind(),
        ErrorKind::MalformedDelta
    );
    let not_delta = format!("GCF profile=generic base_root={root} new_root=a key=id\n");
    assert_eq!(
        apply_delta(&base, &not_delta).unwrap_err().kind(),
        ErrorKind::MalformedDelta
    );
    let wrong_base = "GCF profile=generic delta=true base_root=sha256:0 new_root=a key=id\n";
    assert_eq!(
        apply_delta(&base, wrong_base).unwrap_err().kind(),
        ErrorKind::RootMismatch
    );
}

#[test]
fn three_outcomes() {
    let base = set((0..200).map(|i| row(i, "open")).collect());
    let mut one_change = base.clone();
    one_change.rows[3] = row(3, "shipped");
    let everything = set((0..200).map(|i| row(i, "closed")).collect());

    let Outcome::Unchanged(text) = respond(Some(&base), &base, "q").unwrap() else {
        panic!("unchanged")
    };
    let root = pack_root(&base).unwrap();
    assert_eq!(
        text,
        format!("GCF profile=generic tool=q unchanged=true pack_root={root} count=200\n")
    );

    let Outcome::Delta(text) = respond(Some(&base), &one_change, "q").unwrap() else {
        panic!("delta")
    };
    assert!(
        text.starts_with("GCF profile=generic tool=q delta=true "),
        "{text}"
    );
    assert_eq!(apply_delta(&base, &text).unwrap().rows, one_change.rows);

    // Rewriting every row fails the 60% size guard.
    let outcome = respond(Some(&base), &everything, "q").unwrap();
    assert_eq!(
        outcome,
        Outcome::Full(encode_full(&everything, "q").unwrap())
    );
    // Unknown base, or a schema change: full.
    assert!(matches!(
        respond(None, &one_change, "q").unwrap(),
        Outcome::Full(_)
    ));
    let mut wider = one_change.clone();
    wider.fields.push("note".into());
    assert!(matches!(
        respond(Some(&base), &wider, "q").unwrap(),
        Outcome::Full(_)
    ));
}

#[test]
fn session_counts_turns_since_the_last_full() {
    let base = set(vec![row(1, "a")]);
    let mut session = DeltaSession::new(base.clone(), "", ReanchorPolicy::FixedN(2));
    let mut wider = set(vec![row(1, "a")]);
    wider.fields.push("note".into());
    let mut fulls = Vec::new();
    for (i, update) in [
        base.clone(),
        wider.clone(),
        wider.clone(),
        wider.clone(),
        wider,
    ]
    .into_iter()
    .enumerate()
    {
        let (_, is_full) = session.next(update).unwrap();
        if is_full {
            fulls.push(i + 1);
        }
    }
    // Turn 2 is a full (schema change), so the cadence restarts from it.
    assert_eq!(fulls, vec![2, 4]);
    // A failing update leaves the session as it was.
    let mut bad = base.clone();
    bad.rows[0].insert("status", Value::Array(vec![]));
    let held = session.held().clone();
    assert_eq!(
        session.next(bad).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(session.held(), &held);
}
