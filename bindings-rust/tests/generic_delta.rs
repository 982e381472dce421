//! Generic deltas against the reference crate (`gcf_oracle`) on seeded
//! random keyed sets: the same pack roots, cells, full and delta payloads
//! byte for byte, the same diffs, the same reading of our text, verified
//! application to the same sets, and the same session payloads turn by turn
//! under both policies.
//!
//! The generator keeps to what both write as valid GCF: bare section names
//! and keys, rows holding only declared fields, unique identities, scalars
//! inside int64, and doubles without an exact tie between two shortest
//! forms (`tests/scalar.rs`). What the crate writes otherwise and we refuse
//! is checked on its own at the end.

use std::collections::HashSet;

use gcf_compat as ours;
use gcf_interop::gen::Rng;
use gcf_oracle as theirs;
use serde_json::{json, Map, Value};

mod common;
use common::{PIECES, TOKENS};

const FIELDS: &[&str] = &[
    "name", "status", "total", "x y", "é", "note", "flag", "a_b", "n2", "-",
];

fn text(r: &mut Rng) -> String {
    if r.chance(25) {
        return r.pick(TOKENS).to_string();
    }
    let n = r.below(5);
    (0..n).map(|_| *r.pick(PIECES)).collect()
}

fn number(r: &mut Rng) -> Value {
    match r.below(6) {
        0 => json!(r.next_u64() as i64 >> r.below(64)),
        1 => json!(r.below(100_000) as i64 - 1000),
        2 => json!((r.below(2_000_000) as f64 - 1_000_000.0) / 100.0),
        3 => json!(*r.pick(&[
            0.5,
            -0.0,
            0.1,
            1.0 / 3.0,
            1e-7,
            1e-6,
            1e21,
            1e300,
            5e-324,
            9007199254740992.0,
            123456.789,
            -2.5e-8,
        ])),
        4 => json!(*r.pick(&[0i64, 1, -1, i64::MAX, i64::MIN, 9007199254740993])),
        _ => json!(r.below(1000) as f64 / 7.0),
    }
}

fn cell(r: &mut Rng) -> Value {
    match r.below(20) {
        0 | 1 => Value::Null,
        2 | 3 => Value::Bool(r.chance(50)),
        4..=9 => number(r),
        _ => Value::String(text(r)),
    }
}

/// A fresh identity: an integer or a string, never one already `used`
/// (compared by JSON text, so `5` and `"5"` are two identities, as they
/// are in the pack root).
fn identity(r: &mut Rng, used: &mut HashSet<String>) -> Value {
    loop {
        let id = if r.chance(60) {
            json!(r.below(5000) as i64 - 100)
        } else {
            Value::String(text(r))
        };
        if used.insert(id.to_string()) {
            return id;
        }
    }
}

fn row(r: &mut Rng, key: &str, fields: &[String], id: Value) -> Map<String, Value> {
    let mut m = Map::new();
    for f in fields {
        if f == key {
            m.insert(f.clone(), id.clone());
        } else if !r.chance(8) {
            m.insert(f.clone(), cell(r));
        }
    }
    m
}

fn keyed_set(r: &mut Rng, used: &mut HashSet<String>) -> ours::GenericSet {
    let key = r.pick(&["id", "sku", "_k"]).to_string();
    let mut fields: Vec<String> = vec![key.clone()];
    for _ in 0..r.below(5) {
        let f = r.pick(FIELDS).to_string();
        if !fields.contains(&f) {
            fields.push(f);
        }
    }
    r.shuffle(&mut fields);
    let rows = (0..r.below(31))
        .map(|_| {
            let id = identity(r, used);
            row(r, &key, &fields, id)
        })
        .collect();
    ours::GenericSet {
        name: r.pick(&["orders", "rows", "t", "", "items_2"]).to_string(),
        key,
        fields,
        rows,
    }
}

/// The next state of `base`: rows removed, changed (some cells re-rolled)
/// and added, in any order.
fn mutate(r: &mut Rng, base: &ours::GenericSet, used: &mut HashSet<String>) -> ours::GenericSet {
    let mut next = base.clone();
    let churn = r.below(40);
    next.rows.retain(|_| !r.chance(churn as u64 / 2));
    for row in &mut next.rows {
        if r.chance(churn as u64) {
            for f in &base.fields {
                if *f != base.key && r.chance(50) {
                    if r.chance(10) {
                        row.remove(f);
                    } else {
                        row.insert(f.clone(), cell(r));
                    }
                }
            }
        }
    }
    for _ in 0..r.below(6) {
        let id = identity(r, used);
        let new = row(r, &base.key, &base.fields, id);
        next.rows.push(new);
    }
    if r.chance(50) {
        r.shuffle(&mut next.rows);
    }
    next
}

fn to_theirs(s: &ours::GenericSet) -> theirs::GenericSet {
    theirs::GenericSet {
        name: s.name.clone(),
        key: s.key.clone(),
        fields: s.fields.clone(),
        rows: s.rows.clone(),
    }
}

fn from_theirs(s: theirs::GenericSet) -> ours::GenericSet {
    ours::GenericSet {
        name: s.name,
        key: s.key,
        fields: s.fields,
        rows: s.rows,
    }
}

fn delta_to_theirs(d: &ours::GenericDeltaPayload) -> theirs::GenericDeltaPayload {
    theirs::GenericDeltaPayload {
        tool: d.tool.clone(),
        key: d.key.clone(),
        fields: d.fields.clone(),
        base_root: d.base_root.clone(),
        new_root: d.new_root.clone(),
        added: d.added.clone(),
        changed: d.changed.clone(),
        removed: d.removed.clone(),
        delta_tokens: d.delta_tokens,
        full_tokens: d.full_tokens,
    }
}

fn delta_from_theirs(d: theirs::GenericDeltaPayload) -> ours::GenericDeltaPayload {
    ours::GenericDeltaPayload {
        tool: d.tool,
        key: d.key,
        fields: d.fields,
        base_root: d.base_root,
        new_root: d.new_root,
        added: d.added,
        changed: d.changed,
        removed: d.removed,
        delta_tokens: d.delta_tokens,
        full_tokens: d.full_tokens,
    }
}

/// Rows in identity order, for sets whose row order is not defined (the
/// crate's `verify_generic_delta` returns them in hash order).
fn by_identity(s: &ours::GenericSet) -> Vec<(String, Map<String, Value>)> {
    let mut rows: Vec<_> = s
        .rows
        .iter()
        .map(|r| {
            let id = theirs::canonical_cell(r.get(&s.key).unwrap_or(&Value::Null));
            (id, r.clone())
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

fn category(e: &str) -> &str {
    e.split(':').next().unwrap_or(e)
}

#[test]
fn random_keyed_sets_against_the_crate() {
    let mut r = Rng::new(0x6e6e_7c2d);
    let (mut cells, mut nonempty, mut negatives) = (0usize, 0usize, 0usize);
    for case in 0..2_000 {
        let mut used = HashSet::new();
        let base = keyed_set(&mut r, &mut used);
        let next = mutate(&mut r, &base, &mut used);
        let (tb, tn) = (to_theirs(&base), to_theirs(&next));
        let tool = *r.pick(&["", "orders_query", "t"]);
        let at = format!("case {case}: {base:?} -> {next:?}");

        // Pack roots, cells and the full payload.
        let (base_root, next_root) = (
            ours::generic_pack_root(&base),
            ours::generic_pack_root(&next),
        );
        assert_eq!(base_root, theirs::generic_pack_root(&tb), "{at}");
        assert_eq!(next_root, theirs::generic_pack_root(&tn), "{at}");
        for row in &base.rows {
            for v in row.values() {
                assert_eq!(ours::canonical_cell(v), theirs::canonical_cell(v), "{v:?}");
                cells += 1;
            }
        }
        let full = ours::encode_generic_full(&base, tool);
        assert_eq!(full, theirs::encode_generic_full(&tb, tool), "{at}");

        // Our full payload reads back as the crate reads it, to the same set.
        let (held, declared) = ours::decode_generic_full(&full).expect(&full);
        let (their_held, their_declared) = theirs::decode_generic_full(&full).expect(&full);
        assert_eq!(
            (&held, &declared),
            (&from_theirs(their_held), &their_declared),
            "{full}"
        );
        assert_eq!(
            (ours::generic_pack_root(&held), declared),
            (base_root.clone(), base_root.clone())
        );

        // The diff, its payload, and the crate's reading of our payload.
        let mut d = ours::diff_generic_sets(&base, &next).expect(&at);
        let td = theirs::diff_generic_sets(&tb, &tn).expect(&at);
        assert_eq!(d, delta_from_theirs(td), "{at}");
        d.tool = r.pick(&["", "orders_query"]).to_string();
        if r.chance(50) {
            d.full_tokens = r.below(5000) as u64;
            d.delta_tokens = r.below(6000) as u64;
        }
        let wire = ours::encode_generic_delta(&d);
        assert_eq!(
            wire,
            theirs::encode_generic_delta(&delta_to_theirs(&d)),
            "{at}"
        );
        let read = ours::decode_generic_delta(&wire).expect(&wire);
        let their_read = theirs::decode_generic_delta(&wire).expect(&wire);
        assert_eq!(read, delta_from_theirs(their_read.clone()), "{wire}");
        nonempty +=
            usize::from(!(d.added.is_empty() && d.changed.is_empty() && d.removed.is_empty()));

        // Applied to the held set, the delta gives the next set, for both.
        let applied = ours::verify_generic_delta(&held, &read, &next_root).expect(&wire);
        assert_eq!(ours::generic_pack_root(&applied), next_root);
        let their_applied =
            theirs::verify_generic_delta(&to_theirs(&held), &their_read, &next_root).expect(&wire);
        assert_eq!(
            by_identity(&applied),
            by_identity(&from_theirs(their_applied)),
            "{wire}"
        );
        assert_eq!(
            (&applied.name, &applied.key, &applied.fields),
            (&held.name, &held.key, &held.fields)
        );

        // Refusals, with the crate's categories.
        let wrong = ours::verify_generic_delta(&held, &read, "sha256:00").unwrap_err();
        assert!(wrong.starts_with("root_mismatch: "), "{wrong}");
        if base_root != next_root {
            let err = ours::verify_generic_delta(&next, &read, &next_root).unwrap_err();
            let their_err = theirs::verify_generic_delta(&tn, &their_read, &next_root).unwrap_err();
            assert_eq!(category(&err), category(&their_err), "{err} / {their_err}");
            negatives += 1;
        }
        if let Some(existing) = base.rows.first() {
            let mut bad = read.clone();
            bad.added.push(existing.clone());
            let err = ours::verify_generic_delta(&held, &bad, &next_root).unwrap_err();
            let their_err =
                theirs::verify_generic_delta(&to_theirs(&held), &delta_to_theirs(&bad), &next_root)
                    .unwrap_err();
            assert_eq!(category(&err), category(&their_err), "{err} / {their_err}");
            assert!(err.starts_with("delta_invalid: "), "{err}");
            negatives += 1;
        }
        if let Some(missing) = next.rows.iter().find(|row| {
            let id = &row[&next.key];
            !base.rows.iter().any(|b| &b[&base.key] == id)
        }) {
            let mut bad = read.clone();
            bad.removed.push(missing[&next.key].clone());
            let err = ours::verify_generic_delta(&held, &bad, &next_root).unwrap_err();
            let their_err =
                theirs::verify_generic_delta(&to_theirs(&held), &delta_to_theirs(&bad), &next_root)
                    .unwrap_err();
            assert_eq!(category(&err), category(&their_err), "{err} / {their_err}");
            negatives += 1;
        }

        // A schema change and a repeated identity have no delta.
        let mut other = next.clone();
        other.fields.push("extra".into());
        let err = ours::diff_generic_sets(&base, &other).unwrap_err();
        assert_eq!(
            err,
            theirs::diff_generic_sets(&tb, &to_theirs(&other)).unwrap_err()
        );
        if let Some(first) = next.rows.first().cloned() {
            let mut twice = next.clone();
            twice.rows.push(first);
            let err = ours::diff_generic_sets(&base, &twice).unwrap_err();
            let their_err = theirs::diff_generic_sets(&tb, &to_theirs(&twice)).unwrap_err();
            assert_eq!(err, their_err);
        }
    }
    eprintln!("{cells} cells, {nonempty} non-empty deltas, {negatives} refusals compared");
    assert!(
        nonempty > 1_500 && negatives > 2_000,
        "{nonempty} {negatives}"
    );
}

/// One state of a session's sequence: mostly the next state, sometimes the
/// same, sometimes a schema change (a field added or dropped).
fn turn(r: &mut Rng, prev: &ours::GenericSet, used: &mut HashSet<String>) -> ours::GenericSet {
    match r.below(10) {
        0 => prev.clone(),
        1 => {
            let mut s = prev.clone();
            let extra = s.fields.iter().position(|f| *f != s.key);
            match extra {
                Some(i) if r.chance(50) => {
                    let gone = s.fields.remove(i);
                    for row in &mut s.rows {
                        row.remove(&gone);
                    }
                }
                _ => {
                    let f = format!("f{}", r.below(1000));
                    if !s.fields.contains(&f) {
                        s.fields.push(f.clone());
                        for row in &mut s.rows {
                            row.insert(f.clone(), cell(r));
                        }
                    }
                }
            }
            s
        }
        _ => mutate(r, prev, used),
    }
}

#[test]
fn sessions_against_the_crate() {
    let mut r = Rng::new(0x5e55_1024);
    let (mut turns, mut fulls) = (0usize, 0usize);
    for _ in 0..300 {
        let mut used = HashSet::new();
        let base = keyed_set(&mut r, &mut used);
        let tool = r.pick(&["", "orders_query"]).to_string();
        let n = r.below(6);
        let (policy, their_policy) = if r.chance(50) {
            (
                ours::ReanchorPolicy::fixed_n(n),
                theirs::ReanchorPolicy::fixed_n(n),
            )
        } else {
            (
                ours::ReanchorPolicy::size_guard(),
                theirs::ReanchorPolicy::size_guard(),
            )
        };
        let direct = if r.chance(50) {
            ours::ReanchorPolicy::FixedN(n)
        } else {
            policy
        };
        assert_eq!(format!("{policy:?}"), format!("{their_policy:?}"));
        let mut mine = ours::GenericDeltaSession::new(base.clone(), tool.clone(), direct);
        let mut reference = theirs::GenericDeltaSession::new(
            to_theirs(&base),
            tool.clone(),
            match direct {
                ours::ReanchorPolicy::FixedN(n) => theirs::ReanchorPolicy::FixedN(n),
                ours::ReanchorPolicy::SizeGuard => theirs::ReanchorPolicy::SizeGuard,
            },
        );
        assert_eq!(mine.current_full(), reference.current_full());
        let mut prev = base;
        for _ in 0..r.below(16) {
            let update = turn(&mut r, &prev, &mut used);
            let got = mine.next(update.clone());
            let want = reference.next(to_theirs(&update));
            assert_eq!(got, want, "{direct:?}, turn {}: {update:?}", mine.turn());
            assert_eq!(mine.turn(), reference.turn());
            if r.chance(20) {
                assert_eq!(mine.current_full(), reference.current_full());
            }
            fulls += usize::from(got.as_ref().is_ok_and(|g| g.1));
            turns += 1;
            prev = update;
        }
    }
    eprintln!("{turns} session turns compared, {fulls} of them full payloads");
    assert!(
        turns > 1_500 && fulls > 200 && fulls < turns / 2,
        "{turns} {fulls}"
    );
}

#[test]
fn reanchor_policies() {
    assert_eq!(ours::DEFAULT_REANCHOR_N, theirs::DEFAULT_REANCHOR_N);
    assert_eq!(
        ours::ReanchorPolicy::fixed_n(0),
        ours::ReanchorPolicy::FixedN(15)
    );
    assert_eq!(
        ours::ReanchorPolicy::fixed_n(4),
        ours::ReanchorPolicy::FixedN(4)
    );
    assert_eq!(
        ours::ReanchorPolicy::size_guard(),
        ours::ReanchorPolicy::SizeGuard
    );
}

/// What the crate writes although no decoder reads it back as the set, or
/// hashes although the root would not tell two sets apart: refused here,
/// `""` from the infallible functions and an error from the others.
#[test]
fn what_the_core_refuses() {
    let set = |rows: Vec<Value>| ours::GenericSet {
        name: "t".into(),
        key: "id".into(),
        fields: vec!["id".into(), "v".into()],
        rows: rows
            .into_iter()
            .map(|v| v.as_object().unwrap().clone())
            .collect(),
    };
    let good = set(vec![json!({"id": 1, "v": "a"})]);
    let nested = set(vec![json!({"id": 1, "v": [1, 2]})]);
    let undeclared = set(vec![json!({"id": 1, "v": 2, "w": 3})]);
    let huge: Value = serde_json::from_str(r#"{"id": 1, "v": 18446744073709551615}"#).unwrap();
    let huge = set(vec![huge]);
    let repeated = set(vec![json!({"id": 1, "v": 1}), json!({"id": 1.0, "v": 2})]);
    let mut arrow = good.clone();
    arrow.fields.push("a>b".into());

    assert_eq!(ours::canonical_cell(&json!([1])), "");
    assert_eq!(ours::canonical_cell(&json!({"a": 1})), "");
    assert_eq!(ours::canonical_cell(&huge.rows[0]["v"]), "");
    // A member outside the declared fields is not part of the set, as the
    // crate hashes and writes it: the same root and text as the crate's.
    assert_eq!(
        ours::generic_pack_root(&undeclared),
        theirs::generic_pack_root(&to_theirs(&undeclared))
    );
    assert_eq!(
        ours::encode_generic_full(&undeclared, "t"),
        theirs::encode_generic_full(&to_theirs(&undeclared), "t")
    );
    assert_eq!(
        ours::diff_generic_sets(&good, &undeclared).map(|d| ours::encode_generic_delta(&d)),
        theirs::diff_generic_sets(&to_theirs(&good), &to_theirs(&undeclared))
            .map(|d| theirs::encode_generic_delta(&d))
    );
    for s in [&nested, &huge] {
        assert_eq!(ours::generic_pack_root(s), "", "{s:?}");
        assert_eq!(ours::encode_generic_full(s, ""), "", "{s:?}");
        assert_ne!(theirs::generic_pack_root(&to_theirs(s)), "");
        let err = ours::diff_generic_sets(&good, s).unwrap_err();
        assert!(
            err.starts_with("invalid_input: ") || err.starts_with("out_of_range: "),
            "{err}"
        );
    }
    for s in [&repeated, &arrow] {
        assert_eq!(ours::encode_generic_full(s, ""), "", "{s:?}");
    }
    assert_eq!(ours::encode_generic_full(&good, "two words"), "");
    let err = ours::diff_generic_sets(&repeated, &good).unwrap_err();
    assert!(
        err.starts_with("delta_invalid: duplicate identity 1 "),
        "{err}"
    );
    assert_eq!(
        err,
        theirs::diff_generic_sets(&to_theirs(&repeated), &to_theirs(&good)).unwrap_err()
    );

    let d = ours::GenericDeltaPayload {
        key: "id".into(),
        fields: good.fields.clone(),
        base_root: ours::generic_pack_root(&good),
        new_root: "sha256:0".into(),
        added: nested.rows.clone(),
        ..Default::default()
    };
    assert_eq!(ours::encode_generic_delta(&d), "");
    let spaced = ours::GenericDeltaPayload {
        new_root: "two words".into(),
        ..ours::GenericDeltaPayload::default()
    };
    assert_eq!(ours::encode_generic_delta(&spaced), "");

    // A base the core cannot hold: the session says so on every call.
    let mut s = ours::GenericDeltaSession::new(
        huge.clone(),
        String::new(),
        ours::ReanchorPolicy::size_guard(),
    );
    assert_eq!(s.current_full(), "");
    for turn in 1..=3 {
        assert!(s
            .next(good.clone())
            .unwrap_err()
            .starts_with("out_of_range: "));
        assert_eq!(s.turn(), turn);
    }
    // An update the core cannot hold counts as a turn and changes nothing.
    let mut s = ours::GenericDeltaSession::new(
        good.clone(),
        String::new(),
        ours::ReanchorPolicy::fixed_n(2),
    );
    assert!(s.next(huge).is_err());
    let (_, full) = s.next(good.clone()).unwrap();
    assert!(full, "the second call is the second turn");
    // A base repeating an identity: not written, and every same-schema
    // update from it refused as the crate refuses it.
    let mut from_repeated = ours::GenericDeltaSession::new(
        repeated.clone(),
        String::new(),
        ours::ReanchorPolicy::size_guard(),
    );
    let mut theirs_repeated = theirs::GenericDeltaSession::new(
        to_theirs(&repeated),
        String::new(),
        theirs::ReanchorPolicy::size_guard(),
    );
    assert_eq!(from_repeated.current_full(), "");
    assert_eq!(
        from_repeated.next(good.clone()),
        theirs_repeated.next(to_theirs(&good))
    );
    // A same-schema update repeating an identity: the crate's wording.
    let err = s.next(repeated.clone()).unwrap_err();
    assert!(
        err.starts_with("delta_invalid: duplicate identity"),
        "{err}"
    );
    let their_err = theirs::GenericDeltaSession::new(
        to_theirs(&good),
        String::new(),
        theirs::ReanchorPolicy::fixed_n(2),
    )
    .next(to_theirs(&repeated))
    .unwrap_err();
    assert_eq!(err, their_err);
}

#[test]
fn a_key_that_is_not_bare_is_quoted_in_removed() {
    // The crate writes `{@a-b}`, which no spec decoder reads (§2a.1);
    // every declaration here quotes it.
    let set = |ids: &[i64]| ours::GenericSet {
        name: "t".into(),
        key: "a-b".into(),
        fields: vec!["a-b".into(), "v".into()],
        rows: ids
            .iter()
            .map(|i| json!({"a-b": i, "v": 1}).as_object().unwrap().clone())
            .collect(),
    };
    let (base, next) = (set(&[1, 2]), set(&[1]));
    let d = ours::diff_generic_sets(&base, &next).unwrap();
    let wire = ours::encode_generic_delta(&d);
    assert!(wire.ends_with("\n## removed [1]{@\"a-b\"}\n2\n"), "{wire}");
    let theirs_wire = theirs::encode_generic_delta(&delta_to_theirs(&d));
    assert_eq!(wire.replace("{@\"a-b\"}", "{@a-b}"), theirs_wire);
    assert!(ours::decode_generic_delta(&theirs_wire)
        .unwrap_err()
        .starts_with("invalid_syntax: "));
    let read = ours::decode_generic_delta(&wire).unwrap();
    let root = ours::generic_pack_root(&next);
    assert_eq!(
        ours::verify_generic_delta(&base, &read, &root).unwrap(),
        next
    );
}

#[test]
fn strict_decoding() {
    // The crate's own examples of malformed payloads are refused here too.
    for text in [
        "",
        "GCF profile=graph delta=true base_root=a new_root=b key=id\n",
        "GCF profile=generic delta=true base_root=a new_root=b key=id\n## added [2]{@id,x}\n1|2\n",
        "GCF profile=generic delta=true base_root=a new_root=b key=id\n## added [1]{@id,x}\n1\n",
        "GCF profile=generic delta=true base_root=a new_root=b key=id\n## bogus [1]{@id}\n1\n",
        "GCF profile=generic delta=true base_root=a new_root=b key=id\n## added [01]{@id,x}\n1|2\n",
    ] {
        let err = ours::decode_generic_delta(text).unwrap_err();
        assert!(theirs::decode_generic_delta(text).is_err(), "{text:?}");
        assert!(err.contains(": "), "{err}");
    }
    let dup = "GCF profile=generic pack_root=sha256:0 key=id\n## t [2]{@id,v}\n1|a\n1|b\n";
    let err = ours::decode_generic_full(dup).unwrap_err();
    assert!(
        err.starts_with("duplicate_key: ") && err.contains("line 4"),
        "{err}"
    );
}
