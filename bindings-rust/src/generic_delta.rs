//! Generic-profile deltas (spec §10a) with the reference crate's types and
//! signatures: keyed sets of `serde_json` rows, their pack roots, full and
//! delta payloads, verified application and the re-anchoring session.
//!
//! Every answer is gcf-core's (`gcf_core::generic::{diff, encode_full,
//! encode_delta, decode_full, decode_delta, apply, pack_root,
//! canonical_cell, DeltaSession}`); this module only carries values between
//! `serde_json` and the core's values, and words refusals in the crate's
//! `category: ...` form.
//!
//! Where the crate writes or hashes what the core refuses, because no
//! decoder would read it back as the set or the root would not tell two
//! sets apart, the crate's infallible functions (`canonical_cell`,
//! `generic_pack_root`, `encode_generic_full`, `encode_generic_delta`,
//! `GenericDeltaSession::current_full`) return `""` and the fallible ones
//! the core's error: a nested value in a row, a number outside the numeric
//! domain (an integer outside
//! int64), a field holding `>`, a row without its identity or two rows with
//! one in a full payload, a key, root or tool that cannot be a header value.
//!
//! Other departures, each where the crate's text is not read back by a
//! spec decoder: a key that is not a bare key is quoted in the `removed`
//! declaration (`{@"a-b"}`) as in the others, where the crate writes it raw;
//! the decoders are the core's strict ones (`~` leaves a member out, an
//! attachment is read as its value, a repeated identity in a full payload is
//! `duplicate_key`); `verify_generic_delta` refuses a delta keyed or
//! declared otherwise than the held set (`delta_invalid`) and returns the
//! rows in a defined order (the crate's come out of a hash map).

use gcf_core::generic::{self as core, DeltaSession, GenericDelta, KeyedSet};
use gcf_core::Error;
use serde_json::{Map, Value};

use crate::error_text;

/// A keyed record set (spec §10a.1): `key` is the identity column, `fields`
/// the declared column order, `name` the table's name in a full payload
/// (`rows` when empty). Row order carries no meaning.
#[derive(Debug, Clone, PartialEq)]
pub struct GenericSet {
    pub name: String,
    pub key: String,
    pub fields: Vec<String>,
    pub rows: Vec<Map<String, Value>>,
}

/// What turns one keyed set into another: rows added, rows changed (whole
/// rows), identities removed, and the roots before and after. The token
/// counts only feed the header's `savings=` (left out while `full_tokens`
/// is 0).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GenericDeltaPayload {
    pub tool: String,
    pub key: String,
    pub fields: Vec<String>,
    pub base_root: String,
    pub new_root: String,
    pub added: Vec<Map<String, Value>>,
    pub changed: Vec<Map<String, Value>>,
    pub removed: Vec<Value>,
    pub delta_tokens: u64,
    pub full_tokens: u64,
}

// --- between serde_json and the core ---

fn row_in(row: &Map<String, Value>) -> Result<core::Map, Error> {
    let mut out = core::Map::with_capacity(row.len());
    for (k, v) in row {
        // A serde_json map cannot repeat a key.
        out.push_unique(k.as_str(), core::from_json(v)?);
    }
    Ok(out)
}

fn rows_in(rows: &[Map<String, Value>]) -> Result<Vec<core::Map>, Error> {
    rows.iter().map(row_in).collect()
}

fn row_out(row: &core::Map) -> Map<String, Value> {
    row.iter()
        .map(|(k, v)| (k.to_string(), core::to_json(v)))
        .collect()
}

fn set_in(s: &GenericSet) -> Result<KeyedSet, Error> {
    Ok(KeyedSet {
        name: s.name.clone(),
        key: s.key.clone(),
        fields: s.fields.clone(),
        rows: rows_in(&s.rows)?,
    })
}

/// [`set_in`] for a set that goes out as a full payload, whose table the
/// crate names `rows` when the set has no name.
fn full_set_in(s: &GenericSet) -> Result<KeyedSet, Error> {
    let mut set = set_in(s)?;
    if set.name.is_empty() {
        set.name = String::from("rows");
    }
    Ok(set)
}

fn set_out(s: &KeyedSet) -> GenericSet {
    GenericSet {
        name: s.name.clone(),
        key: s.key.clone(),
        fields: s.fields.clone(),
        rows: s.rows.iter().map(row_out).collect(),
    }
}

fn delta_in(d: &GenericDeltaPayload) -> Result<GenericDelta, Error> {
    Ok(GenericDelta {
        tool: d.tool.clone(),
        key: d.key.clone(),
        fields: d.fields.clone(),
        base_root: d.base_root.clone(),
        new_root: d.new_root.clone(),
        added: rows_in(&d.added)?,
        changed: rows_in(&d.changed)?,
        removed: d
            .removed
            .iter()
            .map(core::from_json)
            .collect::<Result<_, _>>()?,
        delta_tokens: d.delta_tokens,
        full_tokens: d.full_tokens,
    })
}

fn delta_out(d: &GenericDelta) -> GenericDeltaPayload {
    GenericDeltaPayload {
        tool: d.tool.clone(),
        key: d.key.clone(),
        fields: d.fields.clone(),
        base_root: d.base_root.clone(),
        new_root: d.new_root.clone(),
        added: d.added.iter().map(row_out).collect(),
        changed: d.changed.iter().map(row_out).collect(),
        removed: d.removed.iter().map(core::to_json).collect(),
        delta_tokens: d.delta_tokens,
        full_tokens: d.full_tokens,
    }
}

fn text(e: Error) -> String {
    error_text(&e)
}

// --- pack roots ---

/// One cell in its pack-root form (spec §10a.3): `-`, `true`/`false`, a
/// canonical number, or a string always quoted.
///
/// `""` for an array or object (the pack root defines no form for nested
/// values; the crate hashes their JSON text) and for a number outside the
/// numeric domain (the crate hashes its literal).
pub fn canonical_cell(v: &Value) -> String {
    core::from_json(v)
        .and_then(|v| core::canonical_cell(&v))
        .unwrap_or_default()
}

/// The `sha256:...` pack root of a keyed set (`gcf-pack-root-v1`, spec
/// §10a.3), whatever the order of its rows.
///
/// A row member that is not a declared field is not part of the set and is
/// left out, as the crate leaves it out. `""` for a set whose root the core
/// refuses to compute: a field declared twice, a nested value, a number
/// outside the numeric domain.
pub fn generic_pack_root(s: &GenericSet) -> String {
    set_in(s)
        .and_then(|set| core::pack_root(&set))
        .unwrap_or_default()
}

// --- diff ---

/// The delta from `base` to `next`: added and changed rows and removed
/// identities, each ordered by identity (spec §10a.6), with both roots;
/// `tool` empty and no token counts.
///
/// `delta_invalid` when no delta may carry the change and a full payload is
/// due (spec §10a.7): `next` has no key, the key or fields differ, the key
/// is not a declared field, an identity repeats or a row lacks its
/// identity. A set the core cannot hash or write (see
/// [`generic_pack_root`]) is `invalid_input` or `out_of_range`.
pub fn diff_generic_sets(
    base: &GenericSet,
    next: &GenericSet,
) -> Result<GenericDeltaPayload, String> {
    if next.key.is_empty() {
        return Err("delta_invalid: no identity key".to_string());
    }
    if next.key != base.key || next.fields != base.fields {
        return Err("delta_invalid: schema change (send full)".to_string());
    }
    let (old, new) = (set_in(base).map_err(text)?, set_in(next).map_err(text)?);
    match core::diff(&old, &new).map_err(text)? {
        Some(d) => Ok(delta_out(&d)),
        // In the crate's words (its key quoted raw).
        None => Err(text(core::no_delta(&old, &new, |k| format!("\"{k}\"")))),
    }
}

// --- wire ---

/// A delta-participating full payload: `pack_root=` and `key=` in the
/// header, the identity field marked `@`, one row per line in the set's
/// order; a field a row lacks is written `-`.
///
/// `""` for a set the core refuses (see the module docs): this function
/// cannot report an error, and the crate's text for such a set is not one a
/// decoder reads back as that set.
pub fn encode_generic_full(s: &GenericSet, tool: &str) -> String {
    full_set_in(s)
        .and_then(|set| core::encode_full(&set, tool))
        .unwrap_or_default()
}

/// A delta payload (spec §10a.2): the header, then the non-empty sections
/// `added`, `changed` and `removed`, in that order.
///
/// `""` for a delta the core refuses: a key or root that cannot be a header
/// value, a nested value, an integer outside int64.
pub fn encode_generic_delta(d: &GenericDeltaPayload) -> String {
    delta_in(d)
        .and_then(|d| core::encode_delta(&d))
        .unwrap_or_default()
}

/// Applies `d` to `base` and checks that the result's pack root is
/// `expected_new_root` (spec §10a.5). All or nothing: `base` is never
/// changed. The result keeps `base`'s name, key and fields, its untouched
/// rows in their order, then the added rows.
///
/// Errors: `base_mismatch` when `base` is not the delta's `base_root`,
/// `delta_invalid` for an operation `base` contradicts (adding an identity
/// it holds, changing or removing one it lacks, one identity in two
/// operations, another key or field set), `root_mismatch` when the result
/// is not `expected_new_root`; `invalid_input` for a set the core cannot
/// hash.
pub fn verify_generic_delta(
    base: &GenericSet,
    d: &GenericDeltaPayload,
    expected_new_root: &str,
) -> Result<GenericSet, String> {
    let base = set_in(base).map_err(text)?;
    let mut delta = delta_in(d).map_err(text)?;
    // The core checks the delta's own `new_root`; the caller's expectation
    // is the one that must hold.
    delta.new_root = expected_new_root.to_string();
    core::apply(&base, &delta)
        .map(|set| set_out(&set))
        .map_err(text)
}

/// Reads a delta-participating full payload: the keyed set (fields from the
/// table's declaration, key from `key=` or else the `@` field) and the
/// header's `pack_root` (empty when absent; not checked against the rows).
///
/// Strict, as the core's decoder is: a repeated identity is
/// `duplicate_key`, anything but one table of records `invalid_input`, and
/// every malformed line its spec category, at its line and column.
pub fn decode_generic_full(text: &str) -> Result<(GenericSet, String), String> {
    let full = core::decode_full(text).map_err(self::text)?;
    Ok((set_out(&full.set), full.pack_root))
}

/// Reads a delta payload (spec §10a.2), to apply with
/// [`verify_generic_delta`]. `fields` comes from the `added`/`changed`
/// declaration (empty when there is neither); the token counts are 0.
pub fn decode_generic_delta(text: &str) -> Result<GenericDeltaPayload, String> {
    core::decode_delta(text)
        .map(|d| delta_out(&d))
        .map_err(self::text)
}

// --- the producer session ---

/// The fixed re-anchor cadence the spec suggests (§10a.8).
pub const DEFAULT_REANCHOR_N: usize = core::DEFAULT_REANCHOR_N;

/// When a [`GenericDeltaSession`] sends a full payload rather than a delta.
/// Producer policy only: the payloads are the same either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReanchorPolicy {
    /// A full payload on turns N, 2N, 3N, ... of the session.
    FixedN(usize),
    /// A full payload once the deltas since the last one, with this turn's,
    /// reach the size of this turn's full payload.
    SizeGuard,
}

impl ReanchorPolicy {
    /// Every `n` turns; 0 stands for [`DEFAULT_REANCHOR_N`].
    pub fn fixed_n(n: usize) -> Self {
        ReanchorPolicy::FixedN(if n == 0 { DEFAULT_REANCHOR_N } else { n })
    }

    /// By size: many full payloads under heavy churn, few under light churn.
    pub fn size_guard() -> Self {
        ReanchorPolicy::SizeGuard
    }
}

impl From<ReanchorPolicy> for core::ReanchorPolicy {
    fn from(p: ReanchorPolicy) -> Self {
        match p {
            ReanchorPolicy::FixedN(n) => core::ReanchorPolicy::FixedN(n),
            ReanchorPolicy::SizeGuard => core::ReanchorPolicy::SizeGuard,
        }
    }
}

/// A producer's loop over successive states of one keyed set (spec
/// §10a.8): [`current_full`](Self::current_full) first, then
/// [`next`](Self::next) per state, which sends a delta, or a full payload
/// when the policy says so or the schema changed. Not for concurrent use.
///
/// A base whose values the core cannot hold (an integer outside int64)
/// leaves the session unable to start: `current_full` is `""` and every
/// `next` returns that error (`new` cannot report it). A base repeating an
/// identity is refused by `current_full` (`""`), and every same-schema
/// update after it with `delta_invalid`, as the crate refuses it.
#[derive(Debug, Clone)]
pub struct GenericDeltaSession {
    inner: DeltaSession,
    /// Why the base could not be taken, if it could not.
    refused: Option<String>,
}

impl GenericDeltaSession {
    /// A session whose consumer first receives `base` in full.
    pub fn new(base: GenericSet, tool: String, policy: ReanchorPolicy) -> Self {
        let (held, refused) = match full_set_in(&base) {
            Ok(set) => (set, None),
            Err(e) => (KeyedSet::default(), Some(error_text(&e))),
        };
        GenericDeltaSession {
            inner: DeltaSession::new(held, tool, policy.into()),
            refused,
        }
    }

    /// The full payload of the set the consumer holds: the first payload to
    /// send, and always a valid re-anchor. `""` when the core refuses the
    /// set (see [`encode_generic_full`]).
    pub fn current_full(&self) -> String {
        if self.refused.is_some() {
            return String::new();
        }
        self.inner.initial_full().unwrap_or_default()
    }

    /// How many times [`next`](Self::next) was called, failed calls included.
    pub fn turn(&self) -> usize {
        self.inner.turn()
    }

    /// Moves to `next`: the payload to send and whether it is a full one.
    /// On success the session holds `next`; on error it holds what it held,
    /// and the call still counts as a turn of the fixed cadence.
    ///
    /// Errors as [`diff_generic_sets`] words them when `next` keeps the
    /// schema (`delta_invalid: duplicate identity ...`), else the core's; a
    /// full payload the core refuses to write (a schema change to a set
    /// with a repeated identity, say) is an error here, where the crate
    /// sends text no decoder reads back as that set.
    pub fn next(&mut self, next: GenericSet) -> Result<(String, bool), String> {
        if let Some(refused) = &self.refused {
            self.inner.count_refused_turn();
            return Err(refused.clone());
        }
        let update = match full_set_in(&next) {
            Ok(set) => set,
            Err(e) => {
                self.inner.count_refused_turn();
                return Err(error_text(&e));
            }
        };
        // A same-schema update with a repeated identity (in it or in the
        // held set) is the core's `delta_invalid`, worded as the crate's.
        self.inner.next(update).map_err(|e| error_text(&e))
    }
}
