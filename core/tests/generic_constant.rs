//! Constant-column factoring (the fleet's "§7.4.7") against the `gcf` 3.1.0
//! crate, byte for byte: hand-written vectors with constants at every depth
//! and position, and a seeded run over realistic record sets (files, issues,
//! database rows), most of them with constant columns.

mod support;

use gcf_core::generic::{self, Encoder};
use support::{cases, Rng};

fn ours(json: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    generic::encode(&generic::from_json(&v).unwrap()).unwrap()
}

fn reference(json: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    gcf_oracle::encode_generic(&v).unwrap()
}

/// Pinned bytes, which must also be the reference's.
fn check(json: &str, body: &str) {
    let expected = format!("GCF profile=generic\n{body}");
    assert_eq!(ours(json), expected, "ours, for {json}");
    assert_eq!(reference(json), expected, "the reference, for {json}");
}

#[test]
fn where_tables_factor() {
    // The root array and an object member's array, at any depth.
    check(
        r#"[{"a":1,"b":"x"},{"a":2,"b":"x"}]"#,
        "## [2]{a,b=x}\n1\n2\n",
    );
    check(
        r#"{"files":[{"path":"a.rs","type":"file","size":3},{"path":"b.rs","type":"file","size":4}]}"#,
        "## files [2]{path,type=file,size}\na.rs|3\nb.rs|4\n",
    );
    check(
        r#"{"repo":{"name":"r","tree":{"files":[{"p":"a","k":"f"},{"p":"b","k":"f"}]}}}"#,
        "## repo\n  name=r\n  ## tree\n    ## files [2]{p,k=f}\n    a\n    b\n",
    );
    // A member array of an object that is an attachment, and of an object
    // that is an expanded item.
    check(
        r#"[{"id":1,"meta":{"tags":[{"t":"x","v":1},{"t":"x","v":2}]}},{"id":2,"meta":{"q":1}}]"#,
        "## [2]{id,meta}\n@0 1|^\n.meta {}\n    ## tags [2]{t=x,v}\n    1\n    2\n@1 2|^\n.meta {}\n    q=1\n",
    );
    check(
        r#"[1,{"rows":[{"a":1,"b":0},{"a":2,"b":0}]}]"#,
        "## [2]\n@0 =1\n@1 {}\n  ## rows [2]{a,b=0}\n  1\n  2\n",
    );
}

#[test]
fn where_tables_do_not_factor() {
    // A keyed map.
    check(
        r#"{"u1":{"role":"admin","n":1},"u2":{"role":"admin","n":2}}"#,
        "## [2:]{key,role,n}\nu1|admin|1\nu2|admin|2\n",
    );
    // An attachment's table (here with a shared schema on later rows).
    check(
        r#"[{"id":1,"items":[{"k":1,"s":"x"},{"k":2,"s":"x"}]},{"id":2,"items":[{"k":3,"s":"x"},{"k":4,"s":"x"}]}]"#,
        "## [2]{id,items}\n@0 1|^\n.items [2]{k,s}\n    1|x\n    2|x\n@1 2|^\n.items [2]\n    3|x\n    4|x\n",
    );
    // An expanded item's table.
    check(
        r#"[[{"a":1,"b":1},{"a":2,"b":1}],3]"#,
        "## [2]\n@0 [2]{a,b}\n  1|1\n  2|1\n@1 =3\n",
    );
    // One row.
    check(r#"[{"a":1,"b":"x"}]"#, "## [1]{a,b}\n1|x\n");
}

#[test]
fn which_columns_factor() {
    // Every column constant: the last stays per-row.
    check(r#"[{"a":1,"b":2},{"a":1,"b":2}]"#, "## [2]{a=1,b}\n2\n2\n");
    // Null is a constant; absent in one row is not; a container is not.
    check(
        r#"[{"a":1,"n":null,"m":"x"},{"a":2,"n":null}]"#,
        "## [2]{a,n=-,m}\n1|x\n2|~\n",
    );
    check(
        r#"[{"a":1,"o":{"x":1}},{"a":2,"o":{"x":1}}]"#,
        "## [2]{a,\"o>x\"}\n1|1\n2|1\n",
    );
    check(
        r#"[{"a":1,"o":[1]},{"a":2,"o":[1]}]"#,
        "## [2]{a,o}\n@0 1|^\n.o [1]: 1\n@1 2|^\n.o [1]: 1\n",
    );
    // Flattened path columns never factor, the plain columns beside them do.
    check(
        r#"[{"id":1,"c":{"n":"A","t":"x"},"s":"ok"},{"id":2,"c":{"n":"B","t":"x"},"s":"ok"}]"#,
        "## [2]{id,\"c>n\",\"c>t\",s=ok}\n1|A|x\n2|B|x\n",
    );
    // An inline-schema column (a `>` key rules out flattening) beside a
    // constant one.
    check(
        r#"[{"id":1,"p":{"x>1":1,"y":2,"z":3},"k":"c"},{"id":2,"p":{"x>1":4,"y":5,"z":6},"k":"c"}]"#,
        "## [2]{id,p,k=c}\n@0 1|^{\"x>1\",y,z}\n1|2|3\n@1 2|^\n4|5|6\n",
    );
    // Same written form: 75 and 75.0, 0 and -0.0; a string never equals a number.
    check(
        r#"[{"a":1,"v":75,"z":0},{"a":2,"v":75.0,"z":-0.0}]"#,
        "## [2]{a,v=75,z=0}\n1\n2\n",
    );
    check(
        r#"[{"a":1,"v":1},{"a":2,"v":"1"}]"#,
        "## [2]{a,v}\n1|1\n2|\"1\"\n",
    );
    // Rows with the constant at different positions (no aligned fast path).
    check(
        r#"[{"a":1,"t":"x"},{"t":"x","a":2},{"a":3,"t":"x","e":true}]"#,
        "## [3]{a,t=x,e}\n1|~\n2|~\n3|true\n",
    );
    // `>` names are attachments, not columns: the only column stays.
    check(
        r#"[{"id":1,"a>b":"z","t":"k"},{"id":2,"a>b":"z","t":"k"}]"#,
        "## [2]{id,t=k}\n@0 1\n.\"a>b\" =z\n@1 2\n.\"a>b\" =z\n",
    );
    check(
        r#"[{"a":1,"x>y":1},{"a":1,"x>y":2}]"#,
        "## [2]{a}\n@0 1\n.\"x>y\" =1\n@1 1\n.\"x>y\" =2\n",
    );
}

#[test]
fn names_and_values_are_quoted() {
    check(
        r#"[{"id":1,"x y":"a}b","":"v","c":"a,b","t":"true","e":"","d":"-","q":"a{b","h":"^{x","u":"é"},
            {"id":2,"x y":"a}b","":"v","c":"a,b","t":"true","e":"","d":"-","q":"a{b","h":"^{x","u":"é"}]"#,
        "## [2]{id,\"x y\"=\"a}b\",\"\"=v,c=\"a,b\",t=\"true\",e=\"\",d=\"-\",q=a{b,h=^{x,u=é}\n1\n2\n",
    );
    check(
        r#"[{"id":1,"s":"x=y","f":1.5,"b":false,"big":9007199254740993,"g":1e21},
            {"id":2,"s":"x=y","f":1.5,"b":false,"big":9007199254740993,"g":1e21}]"#,
        "## [2]{id,s=x=y,f=1.5,b=false,big=9007199254740993,g=1e+21}\n1\n2\n",
    );
}

#[test]
fn turned_off_writes_the_earlier_form() {
    let v: serde_json::Value = serde_json::from_str(
        r#"{"files":[{"p":"a","k":"f","n":null},{"p":"b","k":"f","n":null}]}"#,
    )
    .unwrap();
    let v = generic::from_json(&v).unwrap();
    assert_eq!(
        Encoder::new().constant_columns(false).encode(&v).unwrap(),
        "GCF profile=generic\n## files [2]{p,k,n}\na|f|-\nb|f|-\n"
    );
    assert_eq!(
        Encoder::new().encode(&v).unwrap(),
        "GCF profile=generic\n## files [2]{p,k=f,n=-}\na\nb\n"
    );
}

/// Rows longer than the output buffer go through the general row path.
#[test]
fn long_rows_keep_the_factored_layout() {
    let long = "x".repeat(20_000);
    let json = format!(r#"[{{"id":1,"k":"c","s":"{long}"}},{{"id":2,"k":"c","s":"{long}y"}}]"#);
    assert_eq!(ours(&json), reference(&json));
    assert!(ours(&json).starts_with("GCF profile=generic\n## [2]{id,k=c,s}\n1|x"));
}

const FIRST: &[&str] = &["Ann", "Bob", "Chen", "Dara", "Eve", "Farid"];
const CITIES: &[&str] = &["Oslo", "Lima", "Pune", "Kyiv"];

/// A realistic record set: one record type, some columns constant by
/// construction (a `type`, a `repo`, a schema version, a null column),
/// occasionally broken in one row, with nested and ragged corners.
fn records(rng: &mut Rng) -> serde_json::Value {
    use serde_json::{json, Value as J};
    let n = rng.below(7) as usize;
    let kind = rng.below(4);
    let constant_scalar = |rng: &mut Rng| -> J {
        match rng.below(8) {
            0 => J::Null,
            1 => json!(true),
            2 => json!(42),
            3 => json!(2.5),
            4 => json!(rng.pick(&["open", "a}b", "a,b", "", "true", "-", "x y", "^{x"])),
            5 => json!(1e21),
            _ => json!("main"),
        }
    };
    let c1 = constant_scalar(rng);
    let c2 = constant_scalar(rng);
    let break_at = if rng.chance(20) {
        rng.below(n as u64 + 1) as usize
    } else {
        usize::MAX
    };
    let drop_at = if rng.chance(15) {
        rng.below(n as u64 + 1) as usize
    } else {
        usize::MAX
    };
    let rows: Vec<J> = (0..n)
        .map(|i| {
            let mut m = serde_json::Map::new();
            match kind {
                0 => {
                    m.insert("path".into(), json!(format!("src/f{}.rs", rng.below(100))));
                    m.insert("type".into(), json!("file"));
                    m.insert("size".into(), json!(rng.below(5000)));
                    m.insert("repo".into(), c1.clone());
                }
                1 => {
                    m.insert("number".into(), json!(1000 + i));
                    m.insert("state".into(), c1.clone());
                    m.insert("title".into(), json!(format!("Fix {}", rng.below(50))));
                    m.insert(
                        "user".into(),
                        json!({"login": rng.pick(FIRST), "site_admin": false}),
                    );
                    m.insert("labels".into(), json!([rng.pick(&["bug", "p1"])]));
                }
                2 => {
                    m.insert("id".into(), json!(i));
                    m.insert("name".into(), json!(rng.pick(FIRST)));
                    m.insert("city".into(), json!(rng.pick(CITIES)));
                    m.insert("schema".into(), c1.clone());
                    m.insert("deleted_at".into(), J::Null);
                    m.insert("tenant".into(), c2.clone());
                }
                _ => {
                    m.insert("k".into(), c1.clone());
                    m.insert("v".into(), c2.clone());
                }
            }
            if i == break_at {
                let first = m.keys().next().cloned().unwrap_or_default();
                m.insert(first, json!(format!("odd{i}")));
            }
            if i == drop_at {
                let last = m.keys().next_back().cloned().unwrap_or_default();
                m.remove(&last);
            }
            J::Object(m)
        })
        .collect();
    J::Array(rows)
}

/// A document holding record sets at the positions tables take.
fn document(rng: &mut Rng) -> serde_json::Value {
    use serde_json::{json, Value as J};
    match rng.below(6) {
        0 => records(rng),
        1 => json!({"tool": "search", "results": records(rng), "next": J::Null}),
        2 => json!({"data": {"page": 1, "items": records(rng)}}),
        3 => {
            // Records inside rows: attachment tables and attached objects.
            let inner = records(rng);
            json!([
                {"id": 1, "child": inner.clone(), "meta": {"rows": inner}},
                {"id": 2, "child": records(rng), "meta": {"rows": records(rng)}},
            ])
        }
        4 => json!([records(rng), {"more": records(rng)}, 7]),
        _ => {
            let mut m = serde_json::Map::new();
            for name in ["alpha", "beta", "gamma"] {
                m.insert(
                    name.into(),
                    json!({"owner": "ops", "tier": rng.below(3), "list": records(rng)}),
                );
            }
            J::Object(m)
        }
    }
}

fn has_constant_column(text: &str) -> bool {
    text.lines().any(|l| {
        l.find("]{")
            .is_some_and(|i| l[i..].split(',').any(|f| f.contains('=')))
    })
}

/// Our bytes equal the reference's on realistic record sets, and the
/// reference decodes them back to the input.
#[test]
fn records_match_the_reference() {
    let mut rng = Rng::new(0xc0_45_7a_47);
    let total = cases(20_000);
    let mut factored = 0;
    for case in 0..total {
        let json = document(&mut rng);
        let input = generic::from_json(&json).unwrap();
        let ours = generic::encode(&input).unwrap();
        let reference = gcf_oracle::encode_generic(&json).unwrap();
        assert_eq!(ours, reference, "case {case}: {json}");
        let back = gcf_oracle::decode_generic(&ours)
            .unwrap_or_else(|e| panic!("case {case}: reference decode: {e}\n{ours}"));
        assert!(
            support::same_value(&generic::from_json(&back).unwrap(), &input),
            "case {case}: {json}\n{ours}"
        );
        factored += usize::from(has_constant_column(&ours));
    }
    assert!(
        factored > total / 3,
        "only {factored} of {total} outputs factor a column"
    );
}

/// Rows of a keyed set whose table factors: `tenant` and `schema` are the
/// same in every row, `deleted` is null in every row.
fn tenant_rows(rng: &mut Rng, ids: std::ops::Range<i64>) -> Vec<serde_json::Value> {
    ids.map(|id| {
        serde_json::json!({
            "id": id,
            "tenant": "acme",
            "name": rng.pick(FIRST),
            "schema": 3,
            "deleted": null,
            "city": rng.pick(CITIES),
        })
    })
    .collect()
}

fn ours_set(rows: &[serde_json::Value]) -> generic::KeyedSet {
    generic::keyed_set_from_json(&serde_json::json!({
        "name": "users", "key": "id", "rows": rows,
        "fields": ["id", "tenant", "name", "schema", "deleted", "city"],
    }))
    .unwrap()
}

fn reference_set(rows: &[serde_json::Value]) -> gcf_oracle::generic_delta::GenericSet {
    gcf_oracle::generic_delta::GenericSet {
        name: "users".into(),
        key: "id".into(),
        fields: ["id", "tenant", "name", "schema", "deleted", "city"]
            .map(String::from)
            .to_vec(),
        rows: rows
            .iter()
            .map(|r| r.as_object().unwrap().clone())
            .collect(),
    }
}

/// Factoring is a table layout: the rows a factored table decodes to are
/// the rows it came from, so pack roots, full and delta payloads, verified
/// application and the re-anchoring session are unchanged and still match
/// the reference byte for byte.
#[test]
fn deltas_over_factored_tables() {
    use gcf_oracle::generic_delta as reference_delta;
    let mut rng = Rng::new(0xde17a);
    let base_rows = tenant_rows(&mut rng, 1..9);
    let text =
        generic::encode(&generic::from_json(&serde_json::json!(base_rows)).unwrap()).unwrap();
    assert!(
        text.contains("{id,tenant=acme,name,schema=3,deleted=-,city}"),
        "{text}"
    );
    // The factored wire decodes (with the reference, until this crate's
    // decoder reads constant columns) to rows with the same pack root.
    let decoded = gcf_oracle::decode_generic(&text).unwrap();
    let decoded_rows = decoded.as_array().unwrap().clone();
    let base = ours_set(&base_rows);
    let root = generic::pack_root(&base).unwrap();
    assert_eq!(generic::pack_root(&ours_set(&decoded_rows)).unwrap(), root);
    assert_eq!(
        reference_delta::generic_pack_root(&reference_set(&base_rows)),
        root
    );
    // Full payloads are keyed sets, never factored, in both implementations.
    assert_eq!(
        generic::encode_full(&base, "t").unwrap(),
        reference_delta::encode_generic_full(&reference_set(&base_rows), "t")
    );

    let mut next_rows = decoded_rows.clone();
    next_rows[2]["city"] = serde_json::json!("Reykjavik");
    next_rows.remove(5);
    next_rows.extend(tenant_rows(&mut rng, 20..22));
    let next = ours_set(&next_rows);
    let delta = generic::diff(&base, &next).unwrap().unwrap();
    let wire = generic::encode_delta(&delta).unwrap();
    let reference_wire = reference_delta::encode_generic_delta(
        &reference_delta::diff_generic_sets(&reference_set(&base_rows), &reference_set(&next_rows))
            .unwrap(),
    );
    assert_eq!(wire, reference_wire);
    let applied = generic::apply_delta(&base, &wire).unwrap();
    assert_eq!(
        generic::pack_root(&applied).unwrap(),
        generic::pack_root(&next).unwrap()
    );

    // The session over a run of updates whose tables factor.
    let mut ours = generic::DeltaSession::new(base, "t", generic::ReanchorPolicy::FixedN(3));
    let mut theirs = reference_delta::GenericDeltaSession::new(
        reference_set(&base_rows),
        "t".into(),
        reference_delta::ReanchorPolicy::fixed_n(3),
    );
    let mut rows = base_rows;
    for turn in 0..6i64 {
        let at = (turn as usize) % rows.len();
        rows[at]["name"] = serde_json::json!(format!("n{turn}"));
        let (a, a_full) = ours.next(ours_set(&rows)).unwrap();
        let (b, b_full) = theirs.next(reference_set(&rows)).unwrap();
        assert_eq!((a, a_full), (b, b_full), "turn {turn}");
    }
}

/// The re-anchoring session against the `gcf` crate's over random runs of
/// updates: rows renamed, added and removed, the schema widened and narrowed
/// (a full payload the policy did not ask for), and now and then an update
/// both refuse (a repeated key), under fixed cadences of 1 to 5 and the size
/// guard. Every turn's payload and verdict is the crate's, byte for byte, and
/// so is the turn count.
#[test]
fn sessions_with_schema_changes_and_failed_turns_match_the_reference() {
    use gcf_oracle::generic_delta as reference_delta;
    let mut rng = Rng::new(0x5e55_1025);
    let fields_narrow = ["id", "tenant", "name", "schema", "deleted", "city"];
    let fields_wide = ["id", "tenant", "name", "schema", "deleted", "city", "note"];
    let pair = |rows: &[serde_json::Value], wide: bool| {
        let fields: &[&str] = if wide { &fields_wide } else { &fields_narrow };
        let rows: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                let mut r = r.clone();
                if wide {
                    r["note"] = serde_json::json!("n");
                }
                r
            })
            .collect();
        let ours = generic::keyed_set_from_json(&serde_json::json!({
            "name": "users", "key": "id", "rows": rows, "fields": fields,
        }))
        .unwrap();
        let theirs = reference_delta::GenericSet {
            name: "users".into(),
            key: "id".into(),
            fields: fields.iter().map(|f| f.to_string()).collect(),
            rows: rows
                .iter()
                .map(|r| r.as_object().unwrap().clone())
                .collect(),
        };
        (ours, theirs)
    };
    let policies = [
        (
            generic::ReanchorPolicy::FixedN(1),
            reference_delta::ReanchorPolicy::fixed_n(1),
        ),
        (
            generic::ReanchorPolicy::FixedN(2),
            reference_delta::ReanchorPolicy::fixed_n(2),
        ),
        (
            generic::ReanchorPolicy::FixedN(3),
            reference_delta::ReanchorPolicy::fixed_n(3),
        ),
        (
            generic::ReanchorPolicy::FixedN(5),
            reference_delta::ReanchorPolicy::fixed_n(5),
        ),
        (
            generic::ReanchorPolicy::SizeGuard,
            reference_delta::ReanchorPolicy::size_guard(),
        ),
    ];
    let (mut fulls, mut failures, mut schema_changes) = (0, 0, 0);
    for case in 0..cases(60) {
        let (policy, reference_policy) = policies[case % policies.len()];
        let count = 2 + rng.below(12) as i64;
        let mut rows = tenant_rows(&mut rng, 1..count);
        let mut next_id = 100;
        let mut wide = false;
        let (base, reference_base) = pair(&rows, wide);
        let mut ours = generic::DeltaSession::new(base, "t", policy);
        let mut theirs =
            reference_delta::GenericDeltaSession::new(reference_base, "t".into(), reference_policy);
        for turn in 1..=12 {
            let mut widened = false;
            match rng.below(6) {
                0 => {
                    rows.extend(tenant_rows(&mut rng, next_id..next_id + 1));
                    next_id += 1;
                }
                1 if rows.len() > 1 => {
                    rows.remove(rng.below(rows.len() as u64) as usize);
                }
                2 => {
                    wide = !wide;
                    widened = true;
                    schema_changes += 1;
                }
                _ => {
                    let at = rng.below(rows.len() as u64) as usize;
                    rows[at]["name"] = serde_json::json!(format!("n{case}.{turn}"));
                }
            }
            // Not with a schema change: the crate then writes the full
            // payload of a set whose identities repeat, which §10a.1 has
            // every decoder reject, and which is refused here (README, "Where
            // the spec and the references differ"; tested below).
            let repeated = !widened && rng.chance(8);
            let mut sent = rows.clone();
            if repeated {
                sent.push(sent[0].clone());
            }
            let (update, reference_update) = pair(&sent, wide);
            let a = ours.next(update);
            let b = theirs.next(reference_update);
            match (a, b) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "case {case}, turn {turn}");
                    fulls += usize::from(a.1);
                }
                (Err(_), Err(_)) => failures += 1,
                (a, b) => panic!("case {case}, turn {turn}: {a:?} against the crate's {b:?}"),
            }
            assert_eq!(ours.turn(), theirs.turn(), "case {case}, turn {turn}");
        }
    }
    assert!(
        fulls > 0 && failures > 0 && schema_changes > 0,
        "{fulls} {failures} {schema_changes}"
    );
}

/// A schema change forces a full payload; when the new set repeats an
/// identity, the crate writes it anyway (§10a.1: identities are unique, and
/// a decoder rejects a repeat, as every decoder here does). The session here
/// refuses the update instead, holds what it held, and still counts the turn.
#[test]
fn a_forced_full_payload_with_repeated_identities_is_refused() {
    use gcf_oracle::generic_delta as reference_delta;
    let mut rng = Rng::new(7);
    let rows = tenant_rows(&mut rng, 1..4);
    let base = ours_set(&rows);
    let mut ours =
        generic::DeltaSession::new(base.clone(), "t", generic::ReanchorPolicy::FixedN(5));
    let mut repeated = rows.clone();
    repeated.push(rows[0].clone());
    let mut wider = ours_set(&repeated);
    wider.fields.push("note".into());
    let err = ours.next(wider.clone()).unwrap_err();
    assert_eq!(err.kind(), gcf_core::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("share one identity"), "{err}");
    assert_eq!(ours.held(), &base);
    assert_eq!(ours.turn(), 1);

    let mut theirs = reference_delta::GenericDeltaSession::new(
        reference_set(&rows),
        "t".into(),
        reference_delta::ReanchorPolicy::fixed_n(5),
    );
    let mut reference_wider = reference_set(&repeated);
    reference_wider.fields.push("note".into());
    let (text, full) = theirs.next(reference_wider).unwrap();
    assert!(full && text.contains("\n## users [4]{@id,"), "{text}");
    // Which every decoder here refuses.
    let err = generic::decode(&text).unwrap_err();
    assert_eq!(
        (err.kind(), err.line()),
        (gcf_core::ErrorKind::DuplicateKey, Some(6))
    );
}
