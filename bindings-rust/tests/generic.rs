//! The generic API against the reference crate (`gcf_oracle`): the seeded
//! values of the interop tests (`gcf_interop::gen`: realistic record sets,
//! keyed maps, nested values, adversarial strings and keys), the same bytes
//! and the same decoded values.

use gcf_compat as gcf;
use gcf_interop::gen;
use serde_json::{json, Value};

const VALUES: u64 = 3000;

/// Both answers, compared as the caller sees them: equal text, or both
/// errors of one category (the crate's messages lead with it, ours too).
fn same_answer(
    seed: u64,
    what: &str,
    ours: Result<String, String>,
    theirs: Result<String, String>,
) {
    match (ours, theirs) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "seed {seed}: {what}"),
        // The crate's grouped errors name no category (ours do).
        (Err(_), Err(_)) if what == "grouped" => {}
        (Err(a), Err(b)) => {
            let category = |e: &str| e.split(':').next().unwrap_or("").trim().to_string();
            assert_eq!(category(&a), category(&b), "seed {seed}: {what}: {a} / {b}");
        }
        (a, b) => panic!("seed {seed}: {what}: ours {a:?}, the crate {b:?}"),
    }
}

#[test]
fn values_encode_and_decode_as_the_crate_does() {
    let no_flatten = gcf::GenericOptions { no_flatten: true };
    let oracle_no_flatten = gcf_oracle::GenericOptions { no_flatten: true };
    let (mut decoded, mut grouped) = (0, 0);
    for seed in 0..VALUES {
        let case = gen::case(seed);
        let ours = gcf::encode_generic(&case.value);
        same_answer(
            seed,
            "encode",
            ours.clone(),
            gcf_oracle::encode_generic(&case.value),
        );
        same_answer(
            seed,
            "encode, no_flatten",
            gcf::encode_generic_with_options(&case.value, &no_flatten),
            gcf_oracle::encode_generic_with_options(&case.value, &oracle_no_flatten),
        );
        let Ok(text) = ours else { continue };
        let back = gcf::decode_generic(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(
            back,
            gcf_oracle::decode_generic(&text).unwrap(),
            "seed {seed}"
        );
        decoded += 1;
        if let Some((key, group)) = &case.grouping {
            grouped += usize::from(gcf::encode_generic_grouped(&case.value, key, group).is_ok());
            same_answer(
                seed,
                "grouped",
                gcf::encode_generic_grouped(&case.value, key, group),
                gcf_oracle::encode_generic_grouped(&case.value, key, group),
            );
        }
    }
    assert!(decoded > VALUES * 9 / 10, "{decoded}");
    println!("{decoded} decoded, {grouped} grouped");
    assert!(grouped > 100, "{grouped} grouped tables");
}

#[test]
fn integers_past_int64_are_out_of_range_as_in_the_crate() {
    let big: Value = serde_json::from_str(r#"{"n": 9223372036854775808}"#).unwrap();
    let e = gcf::encode_generic(&big).unwrap_err();
    assert!(e.starts_with("out_of_range"), "{e}");
    assert!(gcf_oracle::encode_generic(&big)
        .unwrap_err()
        .starts_with("out_of_range"));
}

#[test]
fn decode_errors_lead_with_their_category_and_carry_a_position() {
    for (text, category) in [
        ("", "missing_header"),
        ("GCF profile=generic\n## [2]{a,b}\n1|2\n", "count_mismatch"),
        ("GCF profile=generic\nx=\"open\n", "unterminated_quote"),
        ("GCF profile=nope\n", "unknown_profile"),
    ] {
        let e = gcf::decode_generic(text).unwrap_err();
        assert!(e.starts_with(category), "{text:?}: {e}");
        let theirs = gcf_oracle::decode_generic(text).unwrap_err();
        assert!(
            theirs.starts_with(category),
            "{text:?}: the crate says {theirs}"
        );
        if !text.is_empty() {
            assert!(e.contains("(line "), "{e}");
        }
    }
}

#[test]
fn grouped_tables_refuse_what_they_cannot_hold() {
    let rows = json!([{"id": 1, "state": "open"}, {"id": 2, "state": "closed"}, {"id": 3, "state": "open"}]);
    let text = gcf::encode_generic_grouped(&rows, "id", "state").unwrap();
    assert_eq!(
        text,
        gcf_oracle::encode_generic_grouped(&rows, "id", "state").unwrap()
    );
    assert!(gcf::encode_generic_grouped(&rows, "id", "id").is_err());
    assert!(gcf::encode_generic_grouped(&json!({"a": 1}), "id", "state").is_err());
    // The crate files a record without the group field under a null group,
    // which decodes to a record with `"state": null`: refused here.
    let missing = json!([{"id": 1, "state": "open"}, {"id": 2}]);
    assert!(gcf_oracle::encode_generic_grouped(&missing, "id", "state").is_ok());
    let e = gcf::encode_generic_grouped(&missing, "id", "state").unwrap_err();
    assert!(e.starts_with("invalid_input"), "{e}");
}

#[test]
fn a_double_between_two_shortest_forms_takes_the_even_digit() {
    // 262464899148850.625 is exactly halfway between the 17-digit forms
    // ...850.62 and ...850.63, both of which read back as it: the even one,
    // as gcf-python (`repr`) and JavaScript (`String`) write it; the crate's
    // `format!("{}")` writes the other.
    for (exact, ours, theirs) in [
        (
            "262464899148850.625",
            "262464899148850.62",
            "262464899148850.63",
        ),
        (
            "-890236549097760.25",
            "-890236549097760.2",
            "-890236549097760.3",
        ),
    ] {
        // Parsed from text: as a literal, the exact value looks to clippy
        // like more precision than a double holds (it is the double, exactly).
        let value: f64 = exact.parse().unwrap();
        let v = json!({ "x": value });
        assert_eq!(
            gcf::encode_generic(&v).unwrap(),
            format!("GCF profile=generic\nx={ours}\n")
        );
        assert_eq!(
            gcf_oracle::encode_generic(&v).unwrap(),
            format!("GCF profile=generic\nx={theirs}\n")
        );
        for text in [ours, theirs] {
            assert_eq!(text.parse::<f64>().unwrap(), value, "{text} reads back");
        }
    }
}
