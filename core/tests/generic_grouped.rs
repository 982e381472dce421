//! Value-grouped encoding (the fleet's "§7.4.8") against the `gcf` 3.1.0
//! crate's `encode_generic_grouped`, byte for byte, and its refusals.

mod support;

use gcf_core::generic::{self, Encoder};
use gcf_core::ErrorKind;
use support::{cases, same_value, Rng};

fn ours(json: &str, key: &str, group: &str) -> Result<String, gcf_core::Error> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    generic::encode_grouped(&generic::from_json(&v).unwrap(), key, group)
}

fn reference(json: &str, key: &str, group: &str) -> Result<String, String> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    gcf_oracle::encode_generic_grouped(&v, key, group)
}

fn check(json: &str, key: &str, group: &str, body: &str) {
    let expected = format!("GCF profile=generic\n{body}");
    assert_eq!(
        ours(json, key, group).unwrap(),
        expected,
        "ours, for {json}"
    );
    assert_eq!(
        reference(json, key, group).unwrap(),
        expected,
        "the reference, for {json}"
    );
    let back = gcf_oracle::decode_generic(&expected).unwrap();
    let input = serde_json::from_str::<serde_json::Value>(json).unwrap();
    assert!(
        same_records(
            &generic::from_json(&back).unwrap(),
            &generic::from_json(&input).unwrap()
        ),
        "{json}"
    );
}

/// The same records, in any order (grouping clusters them).
fn same_records(a: &generic::Value, b: &generic::Value) -> bool {
    match (a.as_array(), b.as_array()) {
        (Some(a), Some(b)) => {
            a.len() == b.len() && a.iter().all(|x| b.iter().any(|y| same_value(x, y)))
        }
        _ => false,
    }
}

#[test]
fn layout() {
    check(
        r#"[{"id":1,"state":"open","title":"a"},{"id":2,"state":"closed","title":"b"},{"id":3,"state":"open","title":"c"}]"#,
        "id",
        "state",
        "## [3]{@id,state,title} group=state\nstate=open [2]\n1|a\n3|c\nstate=closed [1]\n2|b\n",
    );
    // Constant columns are factored; null and absent cells; the key column
    // not first; a null group value; one record.
    check(
        r#"[{"t":"x","repo":"core","id":"a","n":null,"g":null},{"repo":"core","id":"b","t":"y","g":null,"n":null},{"id":"c","repo":"core","g":1,"n":null}]"#,
        "id",
        "g",
        "## [3]{t,repo=core,@id,n=-,g} group=g\ng=- [2]\nx|a\ny|b\ng=1 [1]\n~|c\n",
    );
    check(
        r#"[{"id":1,"k":"v"}]"#,
        "id",
        "k",
        "## [1]{@id,k} group=k\nk=v [1]\n1\n",
    );
    // Quoted names and values: the subheader value is written as a scalar
    // (`}` needs no quotes there), a constant value as in a declaration.
    check(
        r#"[{"the id":1,"a b":"x}y","c":"p}q","d":"1"},{"the id":2,"a b":"true","c":"p}q","d":"1"},{"the id":3,"a b":"x}y","c":"p}q","d":"1"}]"#,
        "the id",
        "a b",
        "## [3]{@\"the id\",\"a b\",c=\"p}q\",d=\"1\"} group=\"a b\"\n\"a b\"=x}y [2]\n1\n3\n\"a b\"=\"true\" [1]\n2\n",
    );
    // A `>` name is a literal column name in a grouped table (the
    // references' grouped decoders never unflatten), quoted as a key.
    check(
        r#"[{"id":1,"a>b":"x","g":"p"},{"id":2,"a>b":"y","g":"p"}]"#,
        "id",
        "g",
        "## [2]{@id,\"a>b\",g} group=g\ng=p [2]\n1|x\n2|y\n",
    );
    // 75 and 75.0 are one group value (both written 75).
    check(
        r#"[{"id":1,"v":75,"w":1},{"id":2,"v":75.0,"w":2}]"#,
        "id",
        "v",
        "## [2]{@id,v,w} group=v\nv=75 [2]\n1|1\n2|2\n",
    );
}

#[test]
fn encoder_option_is_the_free_function() {
    let v: serde_json::Value =
        serde_json::from_str(r#"[{"id":1,"s":"a"},{"id":2,"s":"b"}]"#).unwrap();
    let v = generic::from_json(&v).unwrap();
    let text = Encoder::new().group_by("id", "s").encode(&v).unwrap();
    assert_eq!(text, generic::encode_grouped(&v, "id", "s").unwrap());
    // The header's tool and the sink path.
    let mut out = Vec::new();
    Encoder::new()
        .tool("t")
        .group_by("id", "s")
        .encode_to(&v, &mut out)
        .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        text.replacen("generic\n", "generic tool=t\n", 1)
    );
}

/// Every refusal is `invalid_input`, writes nothing, and the reference
/// refuses the same input.
#[test]
fn refusals_match_the_reference() {
    for (json, key, group, needle) in [
        (r#"{"id":1}"#, "id", "g", "array"),
        (r#"[]"#, "id", "g", "non-empty"),
        (r#"[{"id":1,"g":1}]"#, "id", "id", "differ"),
        (r#"[{"id":1,"g":1},3]"#, "id", "g", "objects"),
        (r#"[{},{}]"#, "id", "g", "with fields"),
        (r#"[{"id":1,"g":1}]"#, "nope", "g", "key field"),
        (r#"[{"id":1,"g":1}]"#, "id", "nope", "group field"),
        (r#"[{"id":1,"g":1,"n":{"a":1}}]"#, "id", "g", "nested"),
        (r#"[{"id":1,"g":1,"n":[1]}]"#, "id", "g", "nested"),
        (r#"[{"id":1,"g":1},{"g":2}]"#, "id", "g", "missing"),
        (
            r#"[{"id":1,"g":1},{"id":null,"g":2}]"#,
            "id",
            "g",
            "missing",
        ),
        (
            r#"[{"id":1,"g":1},{"id":1,"g":2}]"#,
            "id",
            "g",
            "not unique",
        ),
        (
            r#"[{"id":1,"g":1},{"id":1.0,"g":2}]"#,
            "id",
            "g",
            "not unique",
        ),
    ] {
        let err = ours(json, key, group).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{json}");
        assert!(err.message().contains(needle), "{json}: {}", err.message());
        assert!(reference(json, key, group).is_err(), "{json}");
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        let mut out = Vec::new();
        let v = generic::from_json(&v).unwrap();
        assert!(Encoder::new()
            .group_by(key, group)
            .encode_to(&v, &mut out)
            .is_err());
        assert!(out.is_empty(), "{json}: wrote {out:?}");
    }
    // `1` and `"1"` are two keys.
    assert!(ours(r#"[{"id":1,"g":1},{"id":"1","g":1}]"#, "id", "g").is_ok());
}

/// The one refusal the references do not make: a record without the group
/// field, which they file under a `null` group that decodes to a record
/// holding `g: null` (not the input).
#[test]
fn a_record_without_the_group_field_is_refused() {
    let json = r#"[{"id":1,"g":"a"},{"id":2}]"#;
    let err = ours(json, "id", "g").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    let theirs = reference(json, "id", "g").unwrap();
    assert_eq!(
        theirs,
        "GCF profile=generic\n## [2]{@id,g} group=g\ng=a [1]\n1\ng=- [1]\n2\n"
    );
    let back = gcf_oracle::decode_generic(&theirs).unwrap();
    assert_ne!(
        back,
        serde_json::from_str::<serde_json::Value>(json).unwrap()
    );
}

const STATES: &[&str] = &["open", "closed", "draft", "a}b", "true", "-", "x y", ""];

fn issues(rng: &mut Rng) -> serde_json::Value {
    use serde_json::{json, Value as J};
    let n = 1 + rng.below(12) as usize;
    let states = 1 + rng.below(4) as usize;
    let rows = (0..n)
        .map(|i| {
            let mut m = serde_json::Map::new();
            if rng.chance(50) {
                m.insert("repo".into(), json!("core"));
            }
            m.insert(
                "id".into(),
                if rng.chance(10) {
                    json!(rng.below(8))
                } else {
                    json!(i)
                },
            );
            m.insert(
                "state".into(),
                match rng.below(12) {
                    0 => J::Null,
                    1 => json!(rng.below(2)),
                    _ => json!(STATES[rng.below(states as u64) as usize]),
                },
            );
            if !rng.chance(10) {
                m.insert("title".into(), json!(format!("t{}", rng.below(5))));
            }
            m.insert("v".into(), json!(2));
            if rng.chance(3) {
                m.insert("meta".into(), json!({"a": 1}));
            }
            if rng.chance(5) {
                m.remove("state");
            }
            J::Object(m)
        })
        .collect();
    J::Array(rows)
}

/// Seeded record sets: where the reference encodes, our bytes are its
/// bytes and decode (with the reference) to the input; where it refuses, so
/// do we; the only other outcome is a record without the group field.
#[test]
fn records_match_the_reference() {
    let mut rng = Rng::new(0x6a0);
    let (mut same, mut refused, mut group_missing) = (0, 0, 0);
    for case in 0..cases(5_000) {
        let json = issues(&mut rng);
        let (key, group) = if rng.chance(90) {
            ("id", "state")
        } else {
            ("title", "repo")
        };
        let input = generic::from_json(&json).unwrap();
        let ours = generic::encode_grouped(&input, key, group);
        match (ours, gcf_oracle::encode_generic_grouped(&json, key, group)) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "case {case}: {json}");
                let back = generic::from_json(&gcf_oracle::decode_generic(&a).unwrap()).unwrap();
                assert!(same_records(&back, &input), "case {case}: {json}\n{a}");
                same += 1;
            }
            (Err(e), Err(_)) => {
                assert_eq!(e.kind(), ErrorKind::InvalidInput);
                refused += 1;
            }
            (Err(e), Ok(_)) => {
                assert!(
                    e.message().contains("group field") && e.message().contains("missing"),
                    "case {case}: {json}: {e}"
                );
                group_missing += 1;
            }
            (Ok(a), Err(b)) => panic!("case {case}: {json}\nours:\n{a}reference: {b}"),
        }
    }
    assert!(
        same > 1000 && refused > 100 && group_missing > 100,
        "{same} {refused} {group_missing}"
    );
}

/// Rows whose members come in another order than the field union, or with
/// fields absent, are written in union order (issue 21: they were looked
/// up field by field, quadratic in a wide row; now a row in union order is
/// one merge pass and any other row a slot table).
#[test]
fn members_in_any_order() {
    check(
        r#"[{"id":1,"g":"a","x":1,"y":2},{"y":3,"x":4,"g":"b","id":2},{"g":"a","id":3,"y":5},{"id":4,"x":6,"g":"b"},{"x":7,"id":5,"g":"a","y":2}]"#,
        "id",
        "g",
        "## [5]{@id,g,x,y} group=g\ng=a [3]\n1|1|2\n3|~|5\n5|7|2\ng=b [2]\n2|4|3\n4|6|~\n",
    );
    // A constant found in every row, whatever its position.
    check(
        r#"[{"id":1,"g":"a","c":"k","x":1},{"c":"k","x":2,"g":"a","id":2}]"#,
        "id",
        "g",
        "## [2]{@id,g,c=k,x} group=g\ng=a [2]\n1|1\n2|2\n",
    );
}
