//! Differential interop testing of `gcf-core` against the reference GCF
//! implementations: the `gcf` 3.1.0 crate (linked as `gcf-oracle`) and
//! gcf-python 2.8.0 (driven as one long-lived subprocess, see [`Python`]).
//!
//! The pieces, each usable alone:
//!
//! * [`gen`]: a seeded generator of JSON values, a large share of them
//!   realistic record sets (file listings, issues, database rows with
//!   constant columns, keyed maps, sets that group well), with the domain
//!   every party can represent (see the module docs).
//! * [`reference`](mod@reference): the crate's encoders and decoder, panics caught.
//! * [`Python`]: `encode`, `encode_grouped` and `decode` of gcf-python.
//! * [`ours`]: this workspace's encoder and decoder on JSON values.
//! * [`same`] and [`group_order`]: the value equality the tests require and
//!   the record order a grouped encoding produces.
//!
//! The decode direction (their bytes, our decoder) is in
//! `tests/decode_interop.rs`; the encode direction (our default, unfactored
//! and grouped bytes against theirs, and their decoders on ours, every
//! allowed difference a named, counted class) in `tests/encode_interop.rs`.

pub mod gen;
mod python;

pub use python::Python;

use serde_json::Value as Json;

/// The `gcf` 3.1.0 crate, with its panics turned into errors so a reference
/// bug is counted, not fatal.
pub mod reference {
    use super::Json;

    fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .unwrap_or_else(|_| Err(String::from("the reference panicked")))
    }

    /// `gcf::encode_generic`: the default path, which factors constant columns.
    pub fn encode(value: &Json) -> Result<String, String> {
        guarded(|| gcf_oracle::encode_generic(value))
    }

    /// `gcf::encode_generic_grouped(value, key, group)` (spec §7.4.8).
    pub fn encode_grouped(value: &Json, key: &str, group: &str) -> Result<String, String> {
        guarded(|| gcf_oracle::encode_generic_grouped(value, key, group))
    }

    /// `gcf::decode_generic`.
    pub fn decode(text: &str) -> Result<Json, String> {
        guarded(|| gcf_oracle::decode_generic(text))
    }
}

/// This workspace's generic codec on JSON values.
pub mod ours {
    use super::Json;
    use gcf_core::generic;

    /// `generic::decode`, as JSON.
    pub fn decode(text: &str) -> Result<Json, gcf_core::Error> {
        generic::decode(text).map(|v| generic::to_json(&v))
    }

    /// `generic::encode` of a JSON value: the default path, which factors
    /// constant columns.
    pub fn encode(value: &Json) -> Result<String, gcf_core::Error> {
        generic::encode(&generic::from_json(value)?)
    }

    /// `Encoder::constant_columns(false)`: the encoding without constant
    /// columns, for consumers on older decoders.
    pub fn encode_unfactored(value: &Json) -> Result<String, gcf_core::Error> {
        generic::Encoder::new()
            .constant_columns(false)
            .encode(&generic::from_json(value)?)
    }

    /// `generic::encode_grouped` of a JSON value.
    pub fn encode_grouped(value: &Json, key: &str, group: &str) -> Result<String, gcf_core::Error> {
        generic::encode_grouped(&generic::from_json(value)?, key, group)
    }
}

/// Whether two decoded values are the same data: equal structure, object
/// keys in the same order, strings equal, and numbers equal by value (an
/// integer and a double holding the same number are the same number: GCF's
/// canonical forms may write `1.0` as `1`, and `-0.0` as `0`).
pub fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => match (x.as_f64(), y.as_f64()) {
                (Some(f), Some(g)) => f == g,
                _ => x.to_string() == y.to_string(),
            },
        },
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        _ => a == b,
    }
}

/// [`same`], except that a non-empty object in `expected` whose leaves are
/// all null may be null in `got`: a flattened nested object whose path
/// columns are all null decodes as null (spec §7.4.6.2 rule 5), where the
/// references' encoders flatten such objects all the same (a documented
/// difference, see the README's "Where the spec and the references differ").
pub fn same_but_all_null_objects(got: &Json, expected: &Json) -> bool {
    match (got, expected) {
        (Json::Null, Json::Object(m)) if !m.is_empty() => all_null(expected),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(a, b)| same_but_all_null_objects(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_but_all_null_objects(va, vb))
        }
        _ => same(got, expected),
    }
}

/// Whether `v` is a non-empty object whose leaves are all null, which a
/// flattened path group reads back as null (spec §7.4.6.2 rule 5).
pub fn all_null_object(v: &Json) -> bool {
    v.as_object().is_some_and(|m| !m.is_empty()) && all_null(v)
}

fn all_null(v: &Json) -> bool {
    match v {
        Json::Null => true,
        Json::Object(m) => !m.is_empty() && m.values().all(all_null),
        _ => false,
    }
}

/// The records of `value` (an array of objects) in the order a grouped
/// encoding by `group` lists them: group by group in order of first
/// appearance, input order within a group. A record without the group field
/// belongs to the null group, as the references encode it.
pub fn group_order(value: &Json, group: &str) -> Json {
    let Some(items) = value.as_array() else {
        return value.clone();
    };
    let mut groups: Vec<(Json, Vec<Json>)> = Vec::new();
    for item in items {
        let g = item.get(group).cloned().unwrap_or(Json::Null);
        match groups.iter_mut().find(|(k, _)| same(k, &g)) {
            Some((_, members)) => members.push(item.clone()),
            None => groups.push((g, vec![item.clone()])),
        }
    }
    Json::Array(groups.into_iter().flat_map(|(_, m)| m).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn same_is_numeric_and_order_sensitive() {
        assert!(same(
            &json!({"a": 1, "b": [1.0]}),
            &json!({"a": 1.0, "b": [1]})
        ));
        assert!(!same(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 1})));
        assert!(!same(&json!([1]), &json!(["1"])));
        assert!(!same(
            &json!(9007199254740993i64),
            &json!(9007199254740992i64)
        ));
    }

    #[test]
    fn all_null_objects_may_be_null() {
        let input = json!([{"a": {"b": null, "c": {"d": null}}, "e": 1}]);
        assert!(same_but_all_null_objects(
            &json!([{"a": null, "e": 1}]),
            &input
        ));
        assert!(!same(&json!([{"a": null, "e": 1}]), &input));
        assert!(!same_but_all_null_objects(
            &json!([{"a": null, "e": 2}]),
            &input
        ));
        let not_all_null = json!([{"a": {"b": 1}}]);
        assert!(!same_but_all_null_objects(
            &json!([{"a": null}]),
            &not_all_null
        ));
    }

    #[test]
    fn group_order_is_stable() {
        let v = json!([{"k": 1, "g": "a"}, {"k": 2, "g": "b"}, {"k": 3, "g": "a"}, {"k": 4}]);
        assert_eq!(
            group_order(&v, "g"),
            json!([{"k": 1, "g": "a"}, {"k": 3, "g": "a"}, {"k": 2, "g": "b"}, {"k": 4}])
        );
    }
}
