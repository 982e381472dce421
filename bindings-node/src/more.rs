//! Sessions, deltas and pack roots, graph and generic: JSON in, text or
//! JSON out, as in `lib.rs`.

use gcf_bind::generic::{GenericDeltaJson, KeyedSetJson};
use gcf_core::generic::{self, DeltaSession, KeyedSet, ReanchorPolicy};
use gcf_core::graph::{self, Snapshot};
use gcf_core::{Error, ErrorKind};
use napi_derive::napi;

use crate::{core_fail, fail, shape};

fn snapshot(json: &str) -> napi::Result<Snapshot> {
    let s = gcf_bind::graph::snapshot_from_slice(json.as_bytes()).map_err(fail)?;
    Ok(gcf_bind::graph::owned_snapshot(&s))
}

fn keyed_set(json: &str) -> napi::Result<KeyedSet> {
    gcf_bind::generic::keyed_set_from_slice(json.as_bytes()).map_err(fail)
}

fn to_json<T: serde::Serialize>(v: &T) -> napi::Result<String> {
    serde_json::to_string(v).map_err(|e| fail(gcf_bind::Failure::from(e)))
}

/// The graph pack root of `{"symbols", "edges"}`.
#[napi(js_name = "graphPackRoot")]
pub fn graph_pack_root(json: String) -> napi::Result<String> {
    let s = snapshot(&json)?;
    graph::pack_root(&s.symbols, &s.edges).map_err(core_fail)
}

/// Applies a delta (JSON) to a base snapshot (JSON) and checks that the
/// result's root is `expected_new_root`; the new snapshot as 2.5.2's
/// `{symbols, edges}`. The base root is the base's own (2.5.2's
/// `verifyDelta` takes none).
#[napi(js_name = "graphVerifyDelta")]
pub fn graph_verify_delta(
    base: String,
    delta: String,
    expected_new_root: String,
) -> napi::Result<String> {
    let base = snapshot(&base)?;
    let d = gcf_bind::graph::delta_from_slice(delta.as_bytes()).map_err(fail)?;
    let mut d = graph::Delta {
        tool: d.tool.into_owned(),
        base_root: base.pack_root().map_err(core_fail)?,
        new_root: expected_new_root,
        removed: d
            .removed
            .into_iter()
            .map(|r| graph::SymbolRef {
                kind: r.kind.into_owned(),
                qualified_name: r.qualified_name.into_owned(),
            })
            .collect(),
        added: d.added.iter().map(|s| s.to_owned_symbol()).collect(),
        removed_edges: d.removed_edges.iter().map(|e| e.to_owned_edge()).collect(),
        added_edges: d.added_edges.iter().map(|e| e.to_owned_edge()).collect(),
        delta_tokens: d.delta_tokens,
        full_tokens: d.full_tokens,
    };
    for s in &mut d.added {
        s.kind = String::from(graph::expand_kind(&s.kind));
    }
    let next = graph::apply_decoded_delta(&base, &d).map_err(core_fail)?;
    Ok(shape::snapshot(&next))
}

/// A graph session (spec §9): symbols sent once, then bare references.
#[napi(js_name = "NativeGraphSession")]
pub struct NativeGraphSession {
    inner: graph::Session,
}

#[napi]
impl NativeGraphSession {
    /// An empty session.
    #[napi(constructor)]
    pub fn new() -> Self {
        NativeGraphSession {
            inner: graph::Session::new(),
        }
    }

    /// Encodes a payload (JSON) against the session and records what it sent.
    #[napi]
    pub fn encode(&mut self, json: String) -> napi::Result<String> {
        let p = gcf_bind::graph::payload_from_slice(json.as_bytes()).map_err(fail)?;
        self.inner.encode(&p).map_err(core_fail)
    }

    /// The session id of a sent symbol, or -1.
    #[napi(js_name = "idOf")]
    pub fn id_of(&self, kind: String, qualified_name: String) -> i64 {
        self.inner
            .id_of(&kind, &qualified_name)
            .and_then(|id| i64::try_from(id).ok())
            .unwrap_or(-1)
    }

    /// How many symbols the session holds.
    #[napi]
    pub fn size(&self) -> u32 {
        u32::try_from(self.inner.len()).unwrap_or(u32::MAX)
    }

    /// Forgets everything sent.
    #[napi]
    pub fn reset(&mut self) {
        self.inner.reset();
    }
}

impl Default for NativeGraphSession {
    fn default() -> Self {
        Self::new()
    }
}

/// The generic pack root of a keyed set (JSON).
#[napi(js_name = "genericPackRoot")]
pub fn generic_pack_root(json: String) -> napi::Result<String> {
    generic::pack_root(&keyed_set(&json)?).map_err(core_fail)
}

/// The delta-participating full payload of a keyed set (JSON).
#[napi(js_name = "genericEncodeFull")]
pub fn generic_encode_full(json: String, tool: String) -> napi::Result<String> {
    generic::encode_full(&keyed_set(&json)?, &tool).map_err(core_fail)
}

/// Encodes a generic delta given as JSON.
#[napi(js_name = "genericEncodeDelta")]
pub fn generic_encode_delta(json: String) -> napi::Result<String> {
    let d = gcf_bind::generic::generic_delta_from_slice(json.as_bytes()).map_err(fail)?;
    generic::encode_delta(&d).map_err(core_fail)
}

/// Decodes generic delta text into its JSON.
#[napi(js_name = "genericDecodeDelta")]
pub fn generic_decode_delta(text: String) -> napi::Result<String> {
    let d = generic::decode_delta(&text).map_err(core_fail)?;
    to_json(&GenericDeltaJson(&d))
}

/// The delta from `base` to `next` (both keyed-set JSON), with both roots;
/// a schema change is `delta_invalid` (send a full payload).
#[napi(js_name = "genericDiff")]
pub fn generic_diff(base: String, next: String) -> napi::Result<String> {
    let (base, next) = (keyed_set(&base)?, keyed_set(&next)?);
    let mut d = generic::diff(&base, &next)
        .map_err(core_fail)?
        .ok_or_else(|| {
            // 2.5.2's category for a diff that needs a full payload.
            fail(gcf_bind::Failure::new(
                gcf_core::ErrorClass::Delta,
                "delta_invalid",
                "schema change (send full)",
            ))
        })?;
    d.base_root = generic::pack_root(&base).map_err(core_fail)?;
    d.new_root = generic::pack_root(&next).map_err(core_fail)?;
    to_json(&GenericDeltaJson(&d))
}

/// Applies a generic delta (JSON) to a base keyed set (JSON), checking both
/// roots against `expected_new_root`; the new set as JSON.
#[napi(js_name = "genericVerifyDelta")]
pub fn generic_verify_delta(
    base: String,
    delta: String,
    expected_new_root: String,
) -> napi::Result<String> {
    let base = keyed_set(&base)?;
    let mut d = gcf_bind::generic::generic_delta_from_slice(delta.as_bytes()).map_err(fail)?;
    if d.new_root.is_empty() {
        d.new_root = expected_new_root.clone();
    }
    let next = generic::apply(&base, &d).map_err(core_fail)?;
    let root = generic::pack_root(&next).map_err(core_fail)?;
    if root != expected_new_root {
        return Err(core_fail(Error::new(
            ErrorKind::RootMismatch,
            format!("computed {root}, expected {expected_new_root}"),
        )));
    }
    to_json(&KeyedSetJson(&next))
}

/// A generic delta session (spec §10a.8) over a held keyed set.
#[napi(js_name = "NativeGenericDeltaSession")]
pub struct NativeGenericDeltaSession {
    inner: DeltaSession,
}

#[napi]
impl NativeGenericDeltaSession {
    /// `mode` 0 is FixedN(`n`; 0 or less is the default), 1 SizeGuard.
    #[napi(constructor)]
    pub fn new(base: String, tool: String, mode: u32, n: i64) -> napi::Result<Self> {
        let policy = match mode {
            0 => ReanchorPolicy::FixedN(usize::try_from(n).unwrap_or(0)),
            _ => ReanchorPolicy::SizeGuard,
        };
        Ok(NativeGenericDeltaSession {
            inner: DeltaSession::new(keyed_set(&base)?, tool, policy),
        })
    }

    /// The full payload of the held set.
    #[napi(js_name = "currentFull")]
    pub fn current_full(&self) -> napi::Result<String> {
        self.inner.initial_full().map_err(core_fail)
    }

    /// Advances to `set` (JSON): the wire, prefixed by `F` for a full
    /// payload or `D` for a delta.
    #[napi]
    pub fn next(&mut self, set: String) -> napi::Result<String> {
        let (text, full) = self.inner.next(keyed_set(&set)?).map_err(core_fail)?;
        let mut out = String::with_capacity(text.len() + 1);
        out.push(if full { 'F' } else { 'D' });
        out.push_str(&text);
        Ok(out)
    }
}

/// Decodes a delta-participating full payload (`key=` and `pack_root=` in
/// the header, one keyed table) into `{"set": keyed set, "packRoot"}` JSON,
/// as 2.5.2's `decodeGenericFull` returns it.
#[napi(js_name = "genericDecodeFull")]
pub fn generic_decode_full(text: String) -> napi::Result<String> {
    let doc = generic::Decoder::new()
        .allow_identity_fields(true)
        .decode_with_header(&text)
        .map_err(core_fail)?;
    let header = |name: &str| {
        doc.header
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let (name, rows) = match &doc.value {
        generic::Value::Array(rows) => (String::new(), rows.as_slice()),
        generic::Value::Object(m) => match m.iter().next() {
            Some((name, generic::Value::Array(rows))) if m.len() == 1 => {
                (String::from(name), rows.as_slice())
            }
            _ => (String::new(), &[][..]),
        },
        _ => (String::new(), &[][..]),
    };
    let mut fields: Vec<String> = Vec::new();
    let mut maps = Vec::with_capacity(rows.len());
    for row in rows {
        let Some(m) = row.as_object() else {
            return Err(fail(gcf_bind::Failure::invalid_input(
                "a full payload's rows must be records",
            )));
        };
        for k in m.keys() {
            if !fields.iter().any(|f| f == k) {
                fields.push(String::from(k));
            }
        }
        maps.push(m.clone());
    }
    let key = header("key")
        .or_else(|| doc.identity_field.clone())
        .unwrap_or_default();
    let set = KeyedSet {
        name,
        key,
        fields,
        rows: maps,
    };
    let set_json = to_json(&KeyedSetJson(&set))?;
    let root = serde_json::to_string(&header("pack_root").unwrap_or_default())
        .map_err(|e| fail(gcf_bind::Failure::from(e)))?;
    Ok(format!("{{\"set\":{set_json},\"packRoot\":{root}}}"))
}
