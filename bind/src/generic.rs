//! Generic-profile models as JSON: keyed sets and generic deltas, in the
//! shapes of the conformance fixtures, the CLI and the C ABI. Any other JSON
//! value is a [`Value`](gcf_core::generic::Value), read by [`crate::value`].

use std::borrow::Cow;

use gcf_core::generic::{GenericDelta, KeyedSet, Map};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::failure::Failure;
use crate::host::read_object_str;
use crate::value::{read_object, JsonMap, JsonObject, JsonValue};

fn or_empty<'de, D: serde::Deserializer<'de>, T: Deserialize<'de> + Default>(
    d: D,
) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[derive(Deserialize)]
struct KeyedSetIn<'a> {
    #[serde(borrow, default, deserialize_with = "or_empty")]
    name: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "or_empty")]
    key: Cow<'a, str>,
    #[serde(default, deserialize_with = "or_empty")]
    fields: Vec<String>,
    rows: Option<Vec<JsonObject>>,
}

/// A keyed set from `{"name", "key", "fields": [...], "rows": [{...}]}`.
///
/// `key` (the identity field) and `rows` are required; `name` defaults to
/// `rows` and `fields` to the keys of the first row. Rows keep their member
/// order and integers stay exact.
///
/// ```
/// let set = gcf_bind::generic::keyed_set_from_slice(br#"{"key": "id", "rows": [{"id": 1, "total": 9.5}]}"#)?;
/// assert_eq!((set.name.as_str(), set.fields.len()), ("rows", 2));
/// assert!(gcf_bind::generic::keyed_set_from_slice(br#"{"rows": []}"#).is_err());
/// # Ok::<(), gcf_bind::Failure>(())
/// ```
pub fn keyed_set_from_slice(json: &[u8]) -> Result<KeyedSet, Failure> {
    keyed_set(read_object(json, "a keyed set")?)
}

/// [`keyed_set_from_slice`] of a `str`.
pub fn keyed_set_from_str(json: &str) -> Result<KeyedSet, Failure> {
    keyed_set(read_object_str(json, "a keyed set")?)
}

fn keyed_set(set: KeyedSetIn<'_>) -> Result<KeyedSet, Failure> {
    if set.key.is_empty() {
        return Err(Failure::shape(
            "`key` must be the name of the identity field",
        ));
    }
    let Some(rows) = set.rows else {
        return Err(Failure::shape("`rows` must be an array of objects"));
    };
    let rows: Vec<Map> = rows.into_iter().map(|r| r.0).collect();
    let fields = if set.fields.is_empty() {
        rows.first()
            .map(|r| r.keys().map(String::from).collect())
            .unwrap_or_default()
    } else {
        set.fields
    };
    let name = if set.name.is_empty() {
        "rows".to_owned()
    } else {
        set.name.into_owned()
    };
    Ok(KeyedSet {
        name,
        key: set.key.into_owned(),
        fields,
        rows,
    })
}

/// The `tool` member of a JSON object, if it has a string one (a keyed set
/// given to `delta` may name the producing tool).
pub fn tool_of(json: &[u8]) -> Result<String, Failure> {
    #[derive(Deserialize)]
    struct Tool {
        #[serde(default)]
        tool: Option<serde_json::Value>,
    }
    let t: Tool = read_object(json, "a keyed set")?;
    Ok(match t.tool {
        Some(serde_json::Value::String(s)) => s,
        _ => String::new(),
    })
}

/// The spec 10a.4 answer of a producer that holds `base` and `current`
/// for a consumer that echoed `echoed` (`None`: it holds `base`). An echoed
/// root is known when it is the root of one of the two sets; an unknown or
/// empty root gets the full payload.
pub fn respond(
    base: &KeyedSet,
    current: &KeyedSet,
    echoed: Option<&str>,
    tool: &str,
) -> Result<gcf_core::Outcome, Failure> {
    let base_root = gcf_core::generic::pack_root(base)?;
    let echoed = match echoed {
        // The consumer holds nothing: a first request.
        Some("") => None,
        // Not given: the consumer holds `base`.
        None => Some(base_root.as_str()),
        Some(root) => Some(root),
    };
    let held = (echoed == Some(base_root.as_str())).then_some(base);
    Ok(gcf_core::generic::respond_echoed(
        echoed, held, current, tool,
    )?)
}

/// Serializes a keyed set, every member explicit, the shape
/// [`keyed_set_from_slice`] reads.
pub struct KeyedSetJson<'a>(pub &'a KeyedSet);

impl Serialize for KeyedSetJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let set = self.0;
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("name", &set.name)?;
        m.serialize_entry("key", &set.key)?;
        m.serialize_entry("fields", &set.fields)?;
        m.serialize_entry("rows", &Rows(&set.rows))?;
        m.end()
    }
}

struct Rows<'a>(&'a [Map]);

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(JsonMap))
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GenericDeltaIn {
    #[serde(default, deserialize_with = "or_empty")]
    tool: String,
    #[serde(default, deserialize_with = "or_empty")]
    key: String,
    #[serde(default, deserialize_with = "or_empty")]
    fields: Vec<String>,
    #[serde(default, deserialize_with = "or_empty")]
    base_root: String,
    #[serde(default, deserialize_with = "or_empty")]
    new_root: String,
    #[serde(default, deserialize_with = "or_empty")]
    added: Vec<JsonObject>,
    #[serde(default, deserialize_with = "or_empty")]
    changed: Vec<JsonObject>,
    #[serde(default, deserialize_with = "or_empty")]
    removed: Vec<JsonValue>,
    #[serde(default, deserialize_with = "or_empty")]
    delta_tokens: u64,
    #[serde(default, deserialize_with = "or_empty")]
    full_tokens: u64,
}

/// A generic delta from `{"tool", "key", "fields", "baseRoot", "newRoot",
/// "added", "changed", "removed", "deltaTokens", "fullTokens"}`.
pub fn generic_delta_from_slice(json: &[u8]) -> Result<GenericDelta, Failure> {
    Ok(generic_delta(read_object(json, "a generic delta")?))
}

/// [`generic_delta_from_slice`] of a `str`.
pub fn generic_delta_from_str(json: &str) -> Result<GenericDelta, Failure> {
    Ok(generic_delta(read_object_str(json, "a generic delta")?))
}

fn generic_delta(d: GenericDeltaIn) -> GenericDelta {
    GenericDelta {
        tool: d.tool,
        key: d.key,
        fields: d.fields,
        base_root: d.base_root,
        new_root: d.new_root,
        added: d.added.into_iter().map(|r| r.0).collect(),
        changed: d.changed.into_iter().map(|r| r.0).collect(),
        removed: d.removed.into_iter().map(|v| v.0).collect(),
        delta_tokens: d.delta_tokens,
        full_tokens: d.full_tokens,
    }
}

/// Serializes a generic delta, the shape [`generic_delta_from_slice`] reads.
pub struct GenericDeltaJson<'a>(pub &'a GenericDelta);

impl Serialize for GenericDeltaJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = self.0;
        let mut m = s.serialize_map(Some(10))?;
        m.serialize_entry("tool", &d.tool)?;
        m.serialize_entry("key", &d.key)?;
        m.serialize_entry("fields", &d.fields)?;
        m.serialize_entry("baseRoot", &d.base_root)?;
        m.serialize_entry("newRoot", &d.new_root)?;
        m.serialize_entry("added", &Rows(&d.added))?;
        m.serialize_entry("changed", &Rows(&d.changed))?;
        let removed: Vec<_> = d.removed.iter().map(crate::value::Json).collect();
        m.serialize_entry("removed", &removed)?;
        m.serialize_entry("deltaTokens", &d.delta_tokens)?;
        m.serialize_entry("fullTokens", &d.full_tokens)?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyed_sets_round_trip_with_defaults() {
        let text = br#"{"name":"orders","key":"id","fields":["id","total","note"],"rows":[{"total":59.98,"id":9223372036854775807,"note":null},{"id":"k2","total":[1,{"x":true}]}]}"#;
        let set = keyed_set_from_slice(text).unwrap();
        let back = serde_json::to_vec(&KeyedSetJson(&set)).unwrap();
        assert_eq!(back, text.to_vec());
        let minimal = keyed_set_from_slice(br#"{"key":"id","rows":[{"id":1}]}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&KeyedSetJson(&minimal)).unwrap(),
            r#"{"name":"rows","key":"id","fields":["id"],"rows":[{"id":1}]}"#
        );
        for bad in [
            &br#"{"rows":[]}"#[..],
            br#"{"key":"id"}"#,
            br#"{"key":"id","rows":[1]}"#,
        ] {
            let f = keyed_set_from_slice(bad).unwrap_err();
            assert_eq!(f.category, "invalid_input", "{f}");
        }
        assert_eq!(tool_of(br#"{"tool":"t","rows":[]}"#).unwrap(), "t");
    }

    #[test]
    fn generic_deltas_round_trip() {
        let text = br#"{"tool":"t","key":"id","fields":["id","v"],"baseRoot":"sha256:a","newRoot":"sha256:b","added":[{"id":3,"v":"x"}],"changed":[],"removed":[1,"two"],"deltaTokens":4,"fullTokens":9}"#;
        let d = generic_delta_from_slice(text).unwrap();
        assert_eq!(
            serde_json::to_vec(&GenericDeltaJson(&d)).unwrap(),
            text.to_vec()
        );
    }
}
