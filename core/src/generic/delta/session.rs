//! The producer side: the three-outcome rule (spec §10a.4) and a session that
//! re-anchors on a schedule (§10a.8).

use alloc::string::String;

use crate::error::Result;
use crate::protocol::{delta_pays_off, unchanged_answer};

use super::{diff, encode_delta, encode_full, pack_root, KeyedSet};

pub use crate::protocol::Outcome;

/// Chooses and encodes the response to a consumer (spec §10a.4, §10a.7).
///
/// `held` is the set the producer still holds for the root the consumer
/// echoed, or `None` when it echoed nothing or a root the producer does not
/// know. The answer is `Unchanged` when `current` has the same root, `Delta`
/// when a delta is allowed and smaller than 60% of the full payload (the
/// size guard, measured in bytes), and `Full` otherwise. Delta payloads carry
/// `tool` but no `savings=`: that needs token counts, see [`encode_delta`].
///
/// ```
/// use gcf_core::generic::{respond, KeyedSet, Outcome};
/// let set = KeyedSet { name: "t".into(), key: "id".into(), fields: vec!["id".into()], rows: vec![] };
/// assert!(matches!(respond(None, &set, "")?, Outcome::Full(_)));
/// let Outcome::Unchanged(text) = respond(Some(&set), &set, "")? else { panic!() };
/// assert!(text.starts_with("GCF profile=generic unchanged=true pack_root=sha256:") && text.ends_with(" count=0\n"));
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn respond(held: Option<&KeyedSet>, current: &KeyedSet, tool: &str) -> Result<Outcome> {
    let Some(held) = held else {
        return Ok(Outcome::Full(encode_full(current, tool)?));
    };
    let root = pack_root(current)?;
    if pack_root(held)? == root {
        return unchanged_answer("generic", tool, &root, "count", current.rows.len())
            .map(Outcome::Unchanged);
    }
    let full = encode_full(current, tool)?;
    let Some(mut delta) = diff(held, current)? else {
        return Ok(Outcome::Full(full));
    };
    delta.tool = String::from(tool);
    let text = encode_delta(&delta)?;
    if delta_pays_off(text.len(), full.len()) {
        Ok(Outcome::Delta(text))
    } else {
        Ok(Outcome::Full(full))
    }
}

/// [`respond`] in the shape of the graph profile's
/// [`graph::respond`](crate::graph::respond): the consumer echoed
/// `echoed_root` (`None` on a first request) and the producer still holds
/// `held` for it (`None` when it no longer knows that root). The answer is
/// `Unchanged` when the echoed root is `current`'s, a delta against `held`
/// under the same rules as [`respond`], and `Full` otherwise.
///
/// ```
/// use gcf_core::generic::{pack_root, respond_echoed, KeyedSet, Outcome};
/// let set = KeyedSet { name: "t".into(), key: "id".into(), fields: vec!["id".into()], rows: vec![] };
/// let root = pack_root(&set)?;
/// assert!(matches!(respond_echoed(Some(&root), None, &set, "")?, Outcome::Unchanged(_)));
/// assert!(matches!(respond_echoed(None, Some(&set), &set, "")?, Outcome::Full(_)));
/// assert!(matches!(respond_echoed(Some("sha256:00"), None, &set, "")?, Outcome::Full(_)));
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn respond_echoed(
    echoed_root: Option<&str>,
    held: Option<&KeyedSet>,
    current: &KeyedSet,
    tool: &str,
) -> Result<Outcome> {
    let Some(echoed) = echoed_root else {
        return respond(None, current, tool);
    };
    if echoed == pack_root(current)? {
        return respond(Some(current), current, tool);
    }
    respond(held, current, tool)
}

/// The fixed re-anchor cadence the spec suggests (§10a.8).
pub const DEFAULT_REANCHOR_N: usize = 15;

/// When a [`DeltaSession`] sends a full payload instead of a delta (spec §10a.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReanchorPolicy {
    /// Every Nth turn is a full payload: turns N, 2N, 3N, ... counted from
    /// the session's start, whatever full payloads a schema change sent in
    /// between (the cadence of the `gcf` crate, gcf-python and the npm
    /// package, so a session's payloads are theirs byte for byte); `0`
    /// means [`DEFAULT_REANCHOR_N`].
    FixedN(usize),
    /// A full payload once the deltas sent since the last one, plus this
    /// turn's, reach the size of this turn's full payload (in bytes).
    SizeGuard,
}

impl Default for ReanchorPolicy {
    fn default() -> Self {
        ReanchorPolicy::FixedN(DEFAULT_REANCHOR_N)
    }
}

/// A producer session over successive states of one keyed set: a full
/// payload first, then a delta per update, with a full payload whenever the
/// schema changes, a delta is not allowed (§10a.7), or the policy re-anchors
/// (§10a.8). Consumers apply either kind the same way, so the cadence never
/// affects correctness, only the cost and the length of delta chains.
///
/// Session deltas carry no `tool=` or `savings=`; full payloads carry `tool`.
///
/// ```
/// use gcf_core::generic::{DeltaSession, KeyedSet, Map, ReanchorPolicy, Value};
///
/// let row = |id: i64| { let mut m = Map::new(); m.insert("id", Value::Int(id)); m };
/// let base = KeyedSet { name: "t".into(), key: "id".into(), fields: vec!["id".into()], rows: vec![row(1)] };
/// let mut session = DeltaSession::new(base.clone(), "tool", ReanchorPolicy::FixedN(2));
/// assert!(session.initial_full()?.contains("## t [1]{@id}\n1\n"));
/// let (text, is_full) = session.next(KeyedSet { rows: vec![row(1), row(2)], ..base.clone() })?;
/// assert!(!is_full && text.ends_with("## added [1]{@id}\n2\n"));
/// let (_, is_full) = session.next(base)?;
/// assert!(is_full, "the second turn re-anchors");
/// # Ok::<(), gcf_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct DeltaSession {
    held: KeyedSet,
    tool: String,
    policy: ReanchorPolicy,
    /// Calls of [`next`](Self::next) so far, failed ones included.
    turn: usize,
    delta_bytes_since_full: usize,
    /// How an error names the key (see [`quoting_keys_with`](Self::quoting_keys_with)).
    quote_key: fn(&str) -> String,
}

/// The key as the crate and 2.5.2 name it in an error: in double quotes.
fn quote_key_as_json(key: &str) -> String {
    alloc::format!("{key:?}")
}

impl DeltaSession {
    /// A session whose consumer will first receive `base` in full.
    pub fn new(base: KeyedSet, tool: impl Into<String>, policy: ReanchorPolicy) -> Self {
        let policy = match policy {
            ReanchorPolicy::FixedN(0) => ReanchorPolicy::FixedN(DEFAULT_REANCHOR_N),
            other => other,
        };
        DeltaSession {
            held: base,
            tool: tool.into(),
            policy,
            turn: 0,
            delta_bytes_since_full: 0,
            quote_key: quote_key_as_json,
        }
    }

    /// Names the key in the session's errors as `quote` writes it, in place
    /// of double quotes: a binding words the error as its reference does
    /// (2.8.0 writes a Python `repr`).
    ///
    /// ```
    /// use gcf_core::generic::{DeltaSession, KeyedSet, Map, ReanchorPolicy, Value};
    /// let mut row = Map::new();
    /// row.insert("id", Value::Int(1));
    /// let set = |rows| KeyedSet { name: "t".into(), key: "id".into(), fields: vec!["id".into()], rows };
    /// let mut s = DeltaSession::new(set(vec![row.clone()]), "t", ReanchorPolicy::FixedN(5))
    ///     .quoting_keys_with(|k| format!("'{k}'"));
    /// let e = s.next(set(vec![row.clone(), row])).unwrap_err();
    /// assert!(e.message().ends_with("for key 'id'"), "{}", e.message());
    /// ```
    pub fn quoting_keys_with(mut self, quote: fn(&str) -> String) -> Self {
        self.quote_key = quote;
        self
    }

    /// The full payload of the current set: the first thing to send, and
    /// always a valid manual re-anchor.
    pub fn initial_full(&self) -> Result<String> {
        encode_full(&self.held, &self.tool)
    }

    /// The set the consumer holds after the last payload.
    pub fn held(&self) -> &KeyedSet {
        &self.held
    }

    /// How many times [`next`](Self::next) was called, failed calls
    /// included (the initial full payload is turn 0).
    pub fn turn(&self) -> usize {
        self.turn
    }

    /// Counts a turn whose update never reached [`next`](Self::next): a
    /// binding whose caller's set could not be read calls this before it
    /// reports the error, so that the cadence counts every call of its
    /// `next`, as the references do.
    pub fn count_refused_turn(&mut self) {
        self.turn = self.turn.saturating_add(1);
    }

    /// Moves to `update`, returning the payload to send and whether it is a
    /// full payload. On error the session holds what it held, and the call
    /// still counts as a turn of the [`FixedN`](ReanchorPolicy::FixedN)
    /// cadence, as the references count it.
    pub fn next(&mut self, update: KeyedSet) -> Result<(String, bool)> {
        self.turn = self.turn.saturating_add(1);
        let turn = self.turn;
        let mut full = None;
        let delta = match diff(&self.held, &update)? {
            // The same schema and still no delta: an identity repeats or is
            // missing, which no payload may carry (§10a.1), refused as the
            // references refuse it.
            None if update.key == self.held.key && update.fields == self.held.fields => {
                return Err(super::no_delta(&self.held, &update, self.quote_key))
            }
            None => None,
            Some(delta) => {
                let text = encode_delta(&delta)?;
                let reanchor = match self.policy {
                    ReanchorPolicy::FixedN(n) => turn % n.max(1) == 0,
                    ReanchorPolicy::SizeGuard => {
                        let full_text = encode_full(&update, &self.tool)?;
                        let reached = self.delta_bytes_since_full.saturating_add(text.len())
                            >= full_text.len();
                        full = Some(full_text);
                        reached
                    }
                };
                (!reanchor).then_some(text)
            }
        };
        let result = match delta {
            Some(text) => {
                self.delta_bytes_since_full =
                    self.delta_bytes_since_full.saturating_add(text.len());
                (text, false)
            }
            None => {
                let text = match full {
                    Some(text) => text,
                    None => encode_full(&update, &self.tool)?,
                };
                self.delta_bytes_since_full = 0;
                (text, true)
            }
        };
        self.held = update;
        Ok(result)
    }
}
