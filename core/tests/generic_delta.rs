//! Generic deltas (spec §10a) beyond the conformance fixtures, which the
//! `spec-tests` runner covers: diff, wire round trips, contradictory
//! operations, the three outcomes and the re-anchoring session.

use gcf_core::generic::{
    apply_delta, decode_delta, diff, encode_delta, encode_full, pack_root, respond, DeltaSession,
    GenericDelta, KeyedSet, Map, Outcome, ReanchorPolicy, Value,
};
use gcf_core::ErrorKind;

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

/// Operations the held set contradicts are `delta_invalid`, a delta for
/// another set `base_mismatch` (the reference SDKs' categories); a section
/// or line the delta grammar does not allow is `malformed_delta` (§16.5).
#[test]
fn contradictory_operations_are_invalid_and_bad_sections_malformed() {
    let base = set(vec![row(1, "open"), row(2, "open")]);
    let root = pack_root(&base).unwrap();
    let header =
        format!("GCF profile=generic delta=true base_root={root} new_root=sha256:x key=id\n");
    let invalid = ErrorKind::DeltaInvalid;
    let malformed = ErrorKind::MalformedDelta;
    let cases = [
        ("## changed [1]{@id,status}\n9|x\n", invalid, "not in base"),
        ("## removed [1]{@id}\n9\n", invalid, "not in base"),
        ("## added [1]{@id,status}\n1|x\n", invalid, "already exists"),
        (
            "## added [2]{@id,status}\n7|x\n7|y\n",
            invalid,
            "two operations",
        ),
        (
            "## changed [1]{@id,status}\n1|x\n## removed [1]{@id}\n1\n",
            invalid,
            "two operations",
        ),
        ("## removed [2]{@id}\n1\n1\n", invalid, "removed twice"),
        ("## added [1]{@id,other}\n3|x\n", invalid, "other fields"),
        ("## moved [1]{@id}\n1\n", malformed, "not a delta section"),
        (
            "## removed [1]{@id}\n1\n## removed [1]{@id}\n2\n",
            malformed,
            "appears twice",
        ),
        (
            "## added [1]{id,@status}\n3|x\n",
            malformed,
            "identity field",
        ),
    ];
    for (body, kind, words) in cases {
        let err = apply_delta(&base, &format!("{header}{body}")).unwrap_err();
        assert_eq!(err.kind(), kind, "{body}: {err}");
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
        ErrorKind::BaseMismatch
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

/// The fixed cadence counts every call of `next` from the session's start,
/// as the `gcf` crate, gcf-python 2.8.0 and the npm package do: a full payload
/// forced by a schema change does not restart it, and a failed call counts.
#[test]
fn session_reanchors_on_every_nth_turn_from_the_start() {
    let base = set(vec![row(1, "a")]);
    let mut session = DeltaSession::new(base.clone(), "", ReanchorPolicy::FixedN(3));
    let mut wider = set(vec![row(1, "a")]);
    wider.fields.push("note".into());
    let mut bad = wider.clone();
    bad.rows[0].insert("status", Value::Array(vec![]));
    let updates = [
        Some(base.clone()),
        Some(wider.clone()), // turn 2: the schema changed, a full payload
        Some(wider.clone()), // turn 3: the cadence's
        Some(wider.clone()),
        None,                // turn 5 fails
        Some(wider.clone()), // turn 6: the cadence's, counting the failed turn
        Some(wider.clone()),
    ];
    let mut fulls = Vec::new();
    for (i, update) in updates.into_iter().enumerate() {
        let turn = i + 1;
        match update {
            Some(update) => {
                let (_, is_full) = session.next(update).unwrap();
                if is_full {
                    fulls.push(turn);
                }
            }
            None => {
                // A failing update leaves the held set as it was.
                let held = session.held().clone();
                assert_eq!(
                    session.next(bad.clone()).unwrap_err().kind(),
                    ErrorKind::InvalidInput
                );
                assert_eq!(session.held(), &held);
            }
        }
        assert_eq!(session.turn(), turn);
    }
    // Restarting the count at each full payload would give [2, 6]; not
    // counting the failed turn, [2, 3, 7].
    assert_eq!(fulls, vec![2, 3, 6]);
    // A binding that could not read its caller's set counts the turn (8):
    // turn 9 is the cadence's.
    session.count_refused_turn();
    assert_eq!(session.turn(), 8);
    assert!(session.next(wider).unwrap().1);
}

/// `decode_delta(encode_delta(d)) == d` for every scalar kind, quoting
/// corner and section mix (token counts and `savings=` are not read back).
#[test]
fn delta_wire_decodes_back() {
    let tricky = [
        Value::Null,
        Value::Bool(false),
        Value::Int(i64::MIN),
        Value::Float(0.1),
        Value::Float(1e21),
        Value::from(""),
        Value::from("-"),
        Value::from("^{a}"),
        Value::from("^{x"),
        Value::from("a|b"),
        Value::from("ERR[1]: x"),
        Value::from(" pad "),
        Value::from("\u{bd7}x"),
    ];
    let rows = |offset: i64| -> Vec<Map> {
        tricky
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let mut m = Map::new();
                m.insert("id", Value::Int(offset + i as i64));
                if i % 3 != 0 {
                    m.insert("v", v.clone());
                }
                m.insert("w", tricky[(i + 5) % tricky.len()].clone());
                m
            })
            .collect()
    };
    let full = GenericDelta {
        tool: "t".into(),
        key: "id".into(),
        fields: vec!["id".into(), "v".into(), "w".into()],
        base_root: "sha256:aa".into(),
        new_root: "sha256:bb".into(),
        added: rows(0),
        changed: rows(100),
        removed: tricky.to_vec(),
        delta_tokens: 10,
        full_tokens: 40,
    };
    let only_removed = GenericDelta {
        fields: Vec::new(),
        added: Vec::new(),
        changed: Vec::new(),
        tool: String::new(),
        ..full.clone()
    };
    for sent in [full, only_removed] {
        let wire = encode_delta(&sent).unwrap();
        let back = decode_delta(&wire).unwrap_or_else(|e| panic!("{e}\n{wire}"));
        // An absent field is written `-` (a keyed set's rows are records
        // over its fields, absent hashing as null) and reads back as null.
        let filled = |rows: Vec<Map>| -> Vec<Map> {
            rows.iter()
                .map(|r| {
                    let mut m = Map::new();
                    for f in &sent.fields {
                        m.insert(f.as_str(), r.get(f).cloned().unwrap_or(Value::Null));
                    }
                    m
                })
                .collect()
        };
        let expected = GenericDelta {
            delta_tokens: 0,
            full_tokens: 0,
            added: filled(sent.added.clone()),
            changed: filled(sent.changed.clone()),
            ..sent
        };
        assert!(sent.added.is_empty() || wire.contains("\n0|-|"), "{wire}");
        assert_eq!(back, expected, "{wire}");
    }
}
