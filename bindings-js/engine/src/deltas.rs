//! Sessions, deltas and pack roots, graph and generic.

use gcf_bind::generic::{GenericDeltaJson, KeyedSetJson};
use gcf_core::generic::{self, DeltaSession, KeyedSet, ReanchorPolicy};
use gcf_core::graph::{self, Snapshot};
use gcf_core::{Error, ErrorKind};

use crate::{shape, Result};

fn snapshot(json: &str) -> Result<Snapshot> {
    let s = gcf_bind::graph::snapshot_from_str(json)?;
    Ok(gcf_bind::graph::owned_snapshot(&s))
}

fn keyed_set(json: &str) -> Result<KeyedSet> {
    gcf_bind::generic::keyed_set_from_str(json)
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String> {
    Ok(serde_json::to_string(v)?)
}

/// The graph pack root of `{"symbols", "edges"}`.
pub fn graph_pack_root(json: &str) -> Result<String> {
    let s = snapshot(json)?;
    Ok(graph::pack_root(&s.symbols, &s.edges)?)
}

/// Applies a delta (JSON) to a base snapshot (JSON) and checks that the
/// result's root is `expected_new_root`; the new snapshot as 2.5.2's
/// `{symbols, edges}`. The base root is the base's own (2.5.2's
/// `verifyDelta` takes none).
pub fn graph_verify_delta(base: &str, delta: &str, expected_new_root: &str) -> Result<String> {
    let base = snapshot(base)?;
    let d = gcf_bind::graph::delta_from_str(delta)?;
    let mut d = graph::Delta {
        tool: d.tool.into_owned(),
        base_root: base.pack_root()?,
        new_root: String::from(expected_new_root),
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
    let next = graph::apply_decoded_delta(&base, &d)?;
    Ok(shape::snapshot(&next))
}

/// A graph session (spec §9): symbols sent once, then bare references.
#[derive(Default)]
pub struct GraphSession {
    inner: graph::Session,
}

impl GraphSession {
    /// An empty session.
    pub fn new() -> Self {
        GraphSession::default()
    }

    /// Encodes a payload (JSON) against the session and records what it sent.
    pub fn encode(&mut self, json: &str) -> Result<String> {
        let p = gcf_bind::graph::payload_from_str(json)?;
        Ok(self.inner.encode(&p.as_borrowed())?)
    }

    /// Marks a symbol sent without writing it (2.5.2's `record`) and returns
    /// its id: nothing about it is checked, since nothing is written.
    pub fn record(&mut self, kind: &str, qualified_name: &str) -> i64 {
        i64::try_from(self.inner.record(kind, qualified_name)).unwrap_or(i64::MAX)
    }

    /// The id the next new symbol takes.
    pub fn next_id(&self) -> f64 {
        self.inner.next_id() as f64
    }

    /// The session id of a sent symbol, or -1.
    pub fn id_of(&self, kind: &str, qualified_name: &str) -> i64 {
        self.inner
            .id_of(kind, qualified_name)
            .and_then(|id| i64::try_from(id).ok())
            .unwrap_or(-1)
    }

    /// How many symbols the session holds.
    pub fn size(&self) -> u32 {
        u32::try_from(self.inner.len()).unwrap_or(u32::MAX)
    }

    /// Forgets everything sent.
    pub fn reset(&mut self) {
        self.inner.reset();
    }
}

/// The consumer side of a graph session (spec §9.2, the core's
/// `graph::SessionDecoder`): every payload of one session decoded by one
/// decoder, bare references resolved to the symbols delivered before.
#[derive(Default)]
pub struct GraphSessionDecoder {
    inner: graph::SessionDecoder,
}

impl GraphSessionDecoder {
    /// An empty consumer session remembering at most `max_retained`
    /// symbols (negative: no bound) before it forgets the session.
    pub fn new(max_retained: i64) -> Self {
        let inner = graph::SessionDecoder::new();
        GraphSessionDecoder {
            inner: match usize::try_from(max_retained) {
                Ok(max) => inner.with_max_retained(max),
                Err(_) => inner,
            },
        }
    }

    /// Decodes one payload of the session into [`graph_decode`]'s JSON,
    /// under the decode limits of this thread ([`set_decode_limits`]); on
    /// error nothing is remembered.
    ///
    /// [`graph_decode`]: crate::graph_decode
    /// [`set_decode_limits`]: crate::set_decode_limits
    pub fn decode(&mut self, text: &str) -> Result<String> {
        let inner = std::mem::take(&mut self.inner).limits(crate::decode_limits());
        self.inner = inner;
        // The numbered form, as `graph_decode` decodes: the module then
        // holds one instance of the core's graph decoder, not two. (The
        // closure is not redundant: `shape::payload` names one lifetime of
        // `Indexed`, the callback must take any.)
        #[allow(clippy::redundant_closure)]
        let json = self
            .inner
            .decode_indexed_with(text, |p| shape::payload(p))?;
        Ok(json)
    }

    /// [`GraphSessionDecoder::decode`] of UTF-8 bytes (checked by the
    /// core, which reports the line and column of a bad sequence).
    pub fn decode_bytes(&mut self, bytes: &[u8]) -> Result<String> {
        self.decode(gcf_core::validate_utf8(bytes)?)
    }

    /// How many symbols are remembered.
    pub fn size(&self) -> u32 {
        u32::try_from(self.inner.len()).unwrap_or(u32::MAX)
    }

    /// Forgets the session.
    pub fn reset(&mut self) {
        self.inner.reset();
    }
}

/// The generic pack root of a keyed set (JSON).
pub fn generic_pack_root(json: &str) -> Result<String> {
    Ok(generic::pack_root(&keyed_set(json)?)?)
}

/// The delta-participating full payload of a keyed set (JSON).
pub fn generic_encode_full(json: &str, tool: &str) -> Result<String> {
    Ok(generic::encode_full(&keyed_set(json)?, tool)?)
}

/// Encodes a generic delta given as JSON.
pub fn generic_encode_delta(json: &str) -> Result<String> {
    let d = gcf_bind::generic::generic_delta_from_str(json)?;
    Ok(generic::encode_delta(&d)?)
}

/// Decodes generic delta text into its JSON.
pub fn generic_decode_delta(text: &str) -> Result<String> {
    let d = generic::decode_delta_with(text, &crate::decode_limits())?;
    to_json(&GenericDeltaJson(&d))
}

/// The delta from `base` to `next` (both keyed-set JSON), with both roots;
/// a schema change is `delta_invalid` (send a full payload).
pub fn generic_diff(base: &str, next: &str) -> Result<String> {
    let (base, next) = (keyed_set(base)?, keyed_set(next)?);
    // No delta: `delta_invalid` in 2.5.2's words (its key quoted as JSON).
    let mut d = generic::diff(&base, &next)?.ok_or_else(|| {
        generic::no_delta(&base, &next, |k| {
            serde_json::to_string(k).unwrap_or_else(|_| k.to_owned())
        })
    })?;
    d.base_root = generic::pack_root(&base)?;
    d.new_root = generic::pack_root(&next)?;
    to_json(&GenericDeltaJson(&d))
}

/// Applies a generic delta (JSON) to a base keyed set (JSON), checking both
/// roots against `expected_new_root`; the new set as JSON.
pub fn generic_verify_delta(base: &str, delta: &str, expected_new_root: &str) -> Result<String> {
    let base = keyed_set(base)?;
    let mut d = gcf_bind::generic::generic_delta_from_str(delta)?;
    if d.new_root.is_empty() {
        d.new_root = String::from(expected_new_root);
    }
    let next = generic::apply(&base, &d)?;
    let root = generic::pack_root(&next)?;
    if root != expected_new_root {
        return Err(Error::new(
            ErrorKind::RootMismatch,
            format!("computed {root}, expected {expected_new_root}"),
        )
        .into());
    }
    to_json(&KeyedSetJson(&next))
}

/// A generic delta session (spec §10a.8) over a held keyed set.
pub struct GenericDeltaSession {
    inner: DeltaSession,
}

impl GenericDeltaSession {
    /// `mode` 0 is FixedN(`n`; 0 or less is the default), 1 SizeGuard.
    pub fn new(base: &str, tool: &str, mode: u32, n: i64) -> Result<Self> {
        let policy = match mode {
            // A cadence past usize (a 32-bit one on WebAssembly) never
            // comes round: the largest there is.
            0 => ReanchorPolicy::FixedN(usize::try_from(n).unwrap_or(if n > 0 {
                usize::MAX
            } else {
                0
            })),
            _ => ReanchorPolicy::SizeGuard,
        };
        Ok(GenericDeltaSession {
            inner: DeltaSession::new(keyed_set(base)?, String::from(tool), policy),
        })
    }

    /// The full payload of the held set.
    pub fn current_full(&self) -> Result<String> {
        Ok(self.inner.initial_full()?)
    }

    /// Counts a turn whose set the JS layer could not send (see
    /// `DeltaSession::count_refused_turn`).
    pub fn count_refused_turn(&mut self) {
        self.inner.count_refused_turn();
    }

    /// How many times `next` was called, failed calls included (the core's
    /// `DeltaSession::turn`, which the layer reports as 2.5.2's `turn()`).
    pub fn turn(&self) -> f64 {
        self.inner.turn() as f64
    }

    /// Advances to `set` (JSON): the wire, prefixed by `F` for a full
    /// payload or `D` for a delta; a set that cannot be read still counts
    /// as a turn.
    pub fn next(&mut self, set: &str) -> Result<String> {
        let set = keyed_set(set).inspect_err(|_| self.inner.count_refused_turn())?;
        let (text, full) = self.inner.next(set)?;
        let mut out = String::with_capacity(text.len() + 1);
        out.push(if full { 'F' } else { 'D' });
        out.push_str(&text);
        Ok(out)
    }
}

/// Decodes a delta-participating full payload (`key=` and `pack_root=` in
/// the header, one keyed table) into `{"set": keyed set, "packRoot"}` JSON,
/// as 2.5.2's `decodeGenericFull` returns it (the core's
/// [`generic::decode_full`]).
pub fn generic_decode_full(text: &str) -> Result<String> {
    let full = generic::decode_full_with(text, &crate::decode_limits())?;
    let set_json = to_json(&KeyedSetJson(&full.set))?;
    let root = serde_json::to_string(&full.pack_root)?;
    Ok(format!("{{\"set\":{set_json},\"packRoot\":{root}}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_full_payload_keeps_its_fields() {
        let set = r#"{"name":"users","key":"id","fields":["id","name"],"rows":[]}"#;
        let text = generic_encode_full(set, "t").unwrap();
        let back: serde_json::Value =
            serde_json::from_str(&generic_decode_full(&text).unwrap()).unwrap();
        assert_eq!(back["set"]["fields"], serde_json::json!(["id", "name"]));
        assert_eq!(back["set"]["name"], "users");
    }
}
