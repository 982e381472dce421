//! Session statefulness (spec §9): stable ids across calls and bare
//! references to symbols already delivered.

use alloc::string::String;
use alloc::vec::Vec;

use crate::hash::HashMap;

use super::decode::Indexed;
use super::encode::{emission_order, write_payload, Ids, SymbolTokens};
use super::types::{Payload, Symbol};
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::sink::Sink;

/// Producer-side session state: which symbols were delivered, under which ids.
///
/// Identity is `(kind, qualified_name)` (spec §9.1). Each call to
/// [`Session::encode`] declares new symbols with the next ids and writes
/// symbols already delivered as `@id  # previously transmitted`. A session
/// must be scoped to one principal and one conversation (spec §9.3).
///
/// With [`Session::with_max_retained`], a call that would grow the session
/// past the bound resets it and returns a full non-session payload instead
/// (spec §9.5); [`Session::fell_back`] reports it.
///
/// ```
/// use gcf_core::graph::{Payload, Session, Symbol};
///
/// let mut session = Session::new();
/// let first = Payload { tool: "t", symbols: vec![Symbol::new("pkg.A", "function", 0.9, "lsp", 0)], ..Payload::default() };
/// assert_eq!(session.encode(&first)?, "GCF profile=graph tool=t symbols=1 session=true\n## targets\n@0 fn pkg.A 0.90 lsp\n");
/// assert_eq!(session.encode(&first)?, "GCF profile=graph tool=t symbols=1 session=true\n## targets\n@0  # previously transmitted\n");
/// # Ok::<(), gcf_core::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Session {
    ids: HashMap<(String, String), u64>,
    next_id: u64,
    max_retained: Option<usize>,
    limits: Limits,
    fell_back: bool,
}

impl Session {
    /// An empty session with no bound on retained symbols.
    pub fn new() -> Session {
        Session::default()
    }

    /// An empty session that retains at most `max` symbols.
    pub fn with_max_retained(max: usize) -> Session {
        Session {
            max_retained: Some(max),
            ..Session::default()
        }
    }

    /// Replaces the limits used when encoding.
    pub fn limits(mut self, limits: Limits) -> Session {
        self.limits = limits;
        self
    }

    /// Symbols delivered so far.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// The id the next new symbol takes (past [`Session::len`] when a
    /// payload declared a symbol twice, each occurrence under its own id).
    pub fn next_id(&self) -> u64 {
        self.next_id
    }

    /// Whether nothing was delivered yet.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The id of a delivered symbol.
    pub fn id_of(&self, kind: &str, qualified_name: &str) -> Option<u64> {
        // Keys are owned; this lookup allocates only to build the probe key.
        self.ids
            .get(&(String::from(kind), String::from(qualified_name)))
            .copied()
    }

    /// Forgets everything; the next payload starts a new session at id 0.
    pub fn reset(&mut self) {
        self.ids.clear();
        self.next_id = 0;
    }

    /// Marks a symbol as delivered without writing it (the reference SDKs'
    /// `record`) and returns its id: the one it has, or the next. Nothing
    /// about the symbol is checked, since nothing is written: a later payload
    /// naming it writes a bare reference.
    ///
    /// ```
    /// use gcf_core::graph::{Payload, Session, Symbol};
    /// let mut session = Session::new();
    /// assert_eq!(session.record("function", "pkg.A"), 0);
    /// assert_eq!(session.record("function", "pkg.A"), 0);
    /// let p = Payload { symbols: vec![Symbol::new("pkg.B", "function", 0.5, "x", 0)], ..Payload::default() };
    /// assert!(session.encode(&p)?.contains("@1 fn pkg.B"));
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn record(&mut self, kind: &str, qualified_name: &str) -> u64 {
        if let Some(&id) = self.ids.get(&KeyRef(kind, qualified_name)) {
            return id;
        }
        let id = self.next_id;
        self.ids
            .insert((String::from(kind), String::from(qualified_name)), id);
        self.next_id += 1;
        id
    }

    /// Whether the last call fell back to a full non-session payload.
    pub fn fell_back(&self) -> bool {
        self.fell_back
    }

    /// Encodes `payload` within the session into a new `String`.
    pub fn encode<S: AsRef<str>>(&mut self, payload: &Payload<S>) -> Result<String, Error> {
        let mut out = Vec::new();
        self.encode_to(payload, &mut out)?;
        String::from_utf8(out)
            .map_err(|_| Error::new(ErrorKind::InvalidInput, "encoder produced invalid UTF-8"))
    }

    /// Encodes `payload` within the session into `sink`. The session records
    /// the new symbols only if the whole payload was written.
    ///
    /// A new symbol whose identity occurs twice in one payload is declared
    /// at each occurrence, each under an id of its own (as [`super::encode`]
    /// declares every occurrence: their scores and distances may differ);
    /// the session remembers the first. A delivered symbol named twice is one
    /// bare reference.
    pub fn encode_to<S: AsRef<str>, K: Sink + ?Sized>(
        &mut self,
        payload: &Payload<S>,
        sink: &mut K,
    ) -> Result<(), Error> {
        self.fell_back = false;
        let (order, tokens) = emission_order(&payload.symbols, &self.limits)?;
        // New symbols take the next ids in the payload's order, as the `gcf`
        // crate, gcf-python 2.8.0 and the npm package allocate them (spec §9.2
        // asks only that they be allocated monotonically); they are written
        // in emission order like any payload's, so a group may list `@3`
        // before `@2`. Each identity: its first occurrence's id and whether
        // it was delivered before; each occurrence: its id and line, or
        // `None` for a second reference to a delivered symbol.
        let mut fresh: HashMap<(&str, &str), (u64, bool)> =
            crate::hash::map_with_capacity(payload.symbols.len());
        let mut occurrences: Vec<Option<(u64, bool)>> = Vec::with_capacity(payload.symbols.len());
        let mut next = self.next_id;
        for s in &payload.symbols {
            let key = (s.kind.as_ref(), s.qualified_name.as_ref());
            let occurrence = match fresh.get(&key) {
                Some(&(_, true)) => None,
                Some(&(_, false)) => {
                    next += 1;
                    Some((next - 1, false))
                }
                None => {
                    // Probe without allocating an owned key: hashbrown's Equivalent.
                    let entry = match self.ids.get(&KeyRef(key.0, key.1)) {
                        Some(&id) => (id, true),
                        None => {
                            next += 1;
                            (next - 1, false)
                        }
                    };
                    fresh.insert(key, entry);
                    Some(entry)
                }
            };
            occurrences.push(occurrence);
        }
        let mut assigned: Vec<(u64, bool)> = Vec::with_capacity(order.len());
        let mut kept: Vec<u32> = Vec::with_capacity(order.len());
        for &i in &order {
            if let Some(occurrence) = occurrences[i as usize] {
                assigned.push(occurrence);
                kept.push(i);
            }
        }
        let new_symbols = fresh.values().filter(|&&(_, reference)| !reference).count();
        if let Some(max) = self.max_retained {
            if self.ids.len() + new_symbols > max {
                // Spec §9.5: past the bound, fall back to a full non-session payload.
                self.reset();
                self.fell_back = true;
                return write_payload(
                    payload,
                    &order,
                    &tokens,
                    &Ids::Sequential,
                    &self.limits,
                    sink,
                );
            }
        }
        write_payload_session(payload, &kept, &tokens, &assigned, &self.limits, sink)?;
        for (&(kind, name), &(id, reference)) in &fresh {
            if !reference {
                self.ids
                    .insert((String::from(kind), String::from(name)), id);
            }
        }
        self.next_id = next;
        Ok(())
    }
}

/// Consumer-side session state: resolves bare references (spec §9.2).
///
/// Decode every payload of a session with the same `SessionDecoder`: a bare
/// `@id  # previously transmitted` line comes back as the full symbol
/// delivered earlier (placed in the group it now appears in), and edges to it
/// resolve. A reference to an id never delivered is an
/// [`ErrorKind::UnknownEdgeReference`] error: per spec §9.4 the consumer
/// rejects the response and asks for a full payload. A payload without
/// `session=true` starts a new session.
///
/// ```
/// use gcf_core::graph::{Payload, Session, SessionDecoder, Symbol};
///
/// let mut producer = Session::new();
/// let mut consumer = SessionDecoder::new();
/// let p = Payload { symbols: vec![Symbol::new("pkg.A", "function", 0.9, "lsp", 0)], ..Payload::default() };
/// consumer.decode(&producer.encode(&p)?)?;
/// let again = consumer.decode(&producer.encode(&p)?)?; // a bare reference on the wire
/// assert_eq!(again.symbols[0].qualified_name, "pkg.A");
/// # Ok::<(), gcf_core::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct SessionDecoder {
    known: HashMap<u64, Symbol>,
    limits: Limits,
    max_retained: Option<usize>,
}

impl SessionDecoder {
    /// An empty consumer session.
    pub fn new() -> SessionDecoder {
        SessionDecoder::default()
    }

    /// Replaces the limits used when decoding.
    pub fn limits(mut self, limits: Limits) -> SessionDecoder {
        self.limits = limits;
        self
    }

    /// Bounds the symbols remembered; past it the decoder forgets the session,
    /// and later references fail until the producer sends a full payload.
    pub fn with_max_retained(mut self, max: usize) -> SessionDecoder {
        self.max_retained = Some(max);
        self
    }

    /// Symbols remembered.
    pub fn len(&self) -> usize {
        self.known.len()
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }

    /// Forgets the session.
    pub fn reset(&mut self) {
        self.known.clear();
    }

    /// Decodes one payload of the session. On error nothing is remembered.
    pub fn decode(&mut self, input: &str) -> Result<Payload, Error> {
        let decoder = super::Decoder::new().limits(self.limits);
        let (payload, ids) = decoder.decode_with_known(input, Some(&self.known))?;
        let payload = payload.to_owned_payload();
        let delivered = payload
            .session
            .then(|| ids.into_iter().zip(payload.symbols.clone()));
        self.remember(delivered);
        Ok(payload)
    }

    /// Decodes one payload of the session into numbered strings (see
    /// [`decode_indexed`](super::decode_indexed)) and hands it to `consume`,
    /// returning what it returns: a symbol resolved from a bare reference is
    /// numbered like the others (its name carries its index, its kind and
    /// provenance share the numbers of equal labels). The payload borrows the
    /// input and the symbols remembered, which the decoder updates once
    /// `consume` is done with it. On error `consume` is not called and
    /// nothing is remembered.
    ///
    /// ```
    /// use gcf_core::graph::{Edge, Payload, Session, SessionDecoder, Symbol};
    ///
    /// let mut producer = Session::new();
    /// let mut consumer = SessionDecoder::new();
    /// let a = Symbol::new("pkg.A", "function", 0.9, "lsp", 0);
    /// let first = Payload { symbols: vec![a.clone()], ..Payload::default() };
    /// consumer.decode_indexed_with(&producer.encode(&first)?, |_| ())?;
    /// let second = Payload {
    ///     symbols: vec![Symbol::new("pkg.B", "function", 0.5, "lsp", 1), a],
    ///     edges: vec![Edge::new("pkg.B", "pkg.A", "calls")],
    ///     ..Payload::default()
    /// };
    /// // pkg.A is a bare reference on the wire.
    /// let (target, kinds) = consumer.decode_indexed_with(&producer.encode(&second)?, |p| {
    ///     let target = p.edges[0].target.index().map(|i| p.symbols[i].qualified_name.to_string());
    ///     (target, p.symbols[0].kind.index() == p.symbols[1].kind.index())
    /// })?;
    /// assert_eq!((target.as_deref(), kinds), (Some("pkg.A"), true));
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn decode_indexed_with<R>(
        &mut self,
        input: &str,
        consume: impl FnOnce(&Payload<Indexed<'_>>) -> R,
    ) -> Result<R, Error> {
        let decoder = super::Decoder::new().limits(self.limits);
        let (payload, ids) = decoder.decode_indexed_with_known(input, &self.known)?;
        let result = consume(&payload);
        let delivered = payload.session.then(|| {
            let owned: Vec<Symbol> = payload
                .symbols
                .iter()
                .map(Symbol::to_owned_symbol)
                .collect();
            ids.into_iter().zip(owned)
        });
        self.remember(delivered);
        Ok(result)
    }

    /// Remembers the symbols a payload delivered (by id), or forgets the
    /// session when the payload was not part of one (`None`).
    fn remember(&mut self, delivered: Option<impl Iterator<Item = (u64, Symbol)>>) {
        let Some(delivered) = delivered else {
            self.known.clear();
            return;
        };
        self.known.extend(delivered);
        if self.max_retained.is_some_and(|max| self.known.len() > max) {
            self.known.clear();
        }
    }
}

/// A borrowed probe for `(String, String)` keys.
#[derive(Hash)]
struct KeyRef<'a>(&'a str, &'a str);

impl hashbrown::Equivalent<(String, String)> for KeyRef<'_> {
    fn equivalent(&self, key: &(String, String)) -> bool {
        self.0 == key.0 && self.1 == key.1
    }
}

// `(String, String)` hashes as its two fields in order, exactly like `KeyRef`
// whose derived Hash hashes two `&str` in order: `str` and `String` hash alike.

/// Writes the symbols at `order` (which may skip duplicates) with session ids.
fn write_payload_session<S: AsRef<str>, K: Sink + ?Sized>(
    payload: &Payload<S>,
    order: &[u32],
    tokens: &SymbolTokens<'_>,
    ids: &[(u64, bool)],
    limits: &Limits,
    sink: &mut K,
) -> Result<(), Error> {
    if order.len() == payload.symbols.len() {
        return write_payload(payload, order, tokens, &Ids::Session(ids), limits, sink);
    }
    // Duplicates were dropped: write a payload holding only the kept symbols.
    let trimmed = Payload {
        tool: payload.tool.as_ref(),
        token_budget: payload.token_budget,
        tokens_used: payload.tokens_used,
        pack_root: payload.pack_root.as_ref(),
        symbols: order
            .iter()
            .map(|&i| payload.symbols[i as usize].as_borrowed())
            .collect(),
        edges: payload.edges.iter().map(|e| e.as_borrowed()).collect(),
        locations: payload.locations.iter().map(|l| l.as_borrowed()).collect(),
        ..Payload::default()
    };
    let sequential: Vec<u32> = (0..trimmed.symbols.len() as u32).collect();
    let tokens = tokens.select(order);
    write_payload(
        &trimmed,
        &sequential,
        &tokens,
        &Ids::Session(ids),
        limits,
        sink,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{decode, Edge, Symbol};
    use alloc::vec;

    /// New symbols take ids in the payload's order (as the references
    /// allocate them) and are written in emission order; the ids recorded
    /// are the ids written, so a later bare reference names the same symbol
    /// (gcf-python 2.8.0 records them in emission order instead, and its
    /// second payload here would say `@0`, which it had declared as pkg.B).
    /// Edges keep the payload's order, and `session=true` precedes
    /// `pack_root=`, as in every reference.
    #[test]
    fn ids_follow_the_payload_and_edges_keep_their_order() {
        let mut session = Session::new();
        let one = Payload {
            tool: "t",
            pack_root: "sha256:ab",
            symbols: vec![
                Symbol::new("pkg.B", "function", 0.5, "lsp", 1),
                Symbol::new("pkg.A", "function", 0.9, "lsp", 0),
            ],
            edges: vec![
                Edge::new("pkg.B", "pkg.A", "calls"),
                Edge::new("pkg.A", "pkg.B", "calls"),
            ],
            ..Payload::default()
        };
        assert_eq!(
            session.encode(&one).unwrap(),
            "GCF profile=graph tool=t symbols=2 edges=2 session=true pack_root=sha256:ab\n\
             ## targets\n@1 fn pkg.A 0.90 lsp\n## related\n@0 fn pkg.B 0.50 lsp\n\
             ## edges [2]\n@1<@0 calls\n@0<@1 calls\n"
        );
        let two = Payload {
            tool: "t",
            symbols: vec![Symbol::new("pkg.A", "function", 0.9, "lsp", 0)],
            ..Payload::default()
        };
        let text = session.encode(&two).unwrap();
        assert!(
            text.ends_with("## targets\n@1  # previously transmitted\n"),
            "{text}"
        );
        let mut consumer = SessionDecoder::new();
        consumer.decode(&session_text(&one)).unwrap();
        assert_eq!(
            consumer.decode(&text).unwrap().symbols[0].qualified_name,
            "pkg.A"
        );
    }

    /// `one` as the first payload of a fresh session writes it.
    fn session_text(p: &Payload<&str>) -> String {
        Session::new().encode(p).unwrap()
    }

    fn s(q: &'static str, d: u32) -> Symbol<&'static str> {
        Symbol::new(q, "function", 0.5, "x", d)
    }

    #[test]
    fn stable_ids_and_references() {
        let mut session = Session::new();
        let p1 = Payload {
            symbols: vec![s("a", 0), s("b", 1)],
            ..Payload::default()
        };
        session.encode(&p1).unwrap();
        let p2 = Payload {
            symbols: vec![s("c", 0), s("b", 0)],
            edges: vec![Edge::new("c", "b", "calls")],
            ..Payload::default()
        };
        let out = session.encode(&p2).unwrap();
        assert_eq!(
            out,
            "GCF profile=graph tool= symbols=2 edges=1 session=true\n## targets\n@2 fn c 0.50 x\n@1  # previously transmitted\n## edges [1]\n@1<@2 calls\n"
        );
        assert_eq!(session.id_of("function", "c"), Some(2));
        assert_eq!(session.len(), 3);
    }

    #[test]
    fn a_new_symbol_twice_in_a_payload_is_declared_at_each_occurrence() {
        // As `encode` declares every occurrence (the two may differ in score
        // or distance); the session remembers the first occurrence's id.
        let mut session = Session::new();
        let p = Payload {
            symbols: vec![
                s("a", 0),
                Symbol::new("a", "function", 0.4, "x", 1),
                s("b", 0),
            ],
            ..Payload::default()
        };
        let out = session.encode(&p).unwrap();
        assert_eq!(
            out,
            "GCF profile=graph tool= symbols=3 session=true\n## targets\n@0 fn a 0.50 x\n\
             @2 fn b 0.50 x\n## related\n@1 fn a 0.40 x\n"
        );
        assert_eq!(decode(&out).unwrap().symbols.len(), 3);
        assert_eq!(
            (session.len(), session.id_of("function", "a")),
            (2, Some(0))
        );
        let again = session.encode(&p).unwrap();
        assert_eq!(
            again,
            "GCF profile=graph tool= symbols=2 session=true\n## targets\n\
             @0  # previously transmitted\n@2  # previously transmitted\n"
        );
    }

    #[test]
    fn a_delivered_symbol_named_twice_is_one_reference_and_the_rest_keep_their_fields() {
        // The second reference comes first in emission order and is
        // dropped, so every later symbol moves up one place in the trimmed
        // payload.
        let mut session = Session::new();
        let sym = |q, kind, provenance, score| Symbol::new(q, kind, score, provenance, 0);
        session
            .encode(&Payload {
                symbols: vec![sym("a", "function", "lsp", 0.9)],
                ..Payload::default()
            })
            .unwrap();
        let p = Payload {
            symbols: vec![
                sym("a", "function", "lsp", 0.9),
                sym("a", "function", "lsp", 0.9),
                sym("b", "type", "ast", 0.5),
                sym("c", "method", "grep", 0.1),
            ],
            ..Payload::default()
        };
        let out = session.encode(&p).unwrap();
        assert_eq!(
            out,
            "GCF profile=graph tool= symbols=3 session=true\n## targets\n@0  # previously transmitted\n\
             @1 type b 0.50 ast\n@2 method c 0.10 grep\n"
        );
    }

    #[test]
    fn record_marks_delivered_without_checking_or_colliding() {
        let mut session = Session::new();
        // Nothing is written, so nothing is checked: an empty kind or a name
        // no payload could hold still takes an id, and later ones follow it.
        assert_eq!(session.record("", "a b"), 0);
        assert_eq!(session.record("function", "pkg.A"), 1);
        assert_eq!(session.record("", "a b"), 0);
        let p = Payload {
            symbols: vec![s("pkg.A", 0), s("n", 0)],
            ..Payload::default()
        };
        assert_eq!(
            session.encode(&p).unwrap(),
            "GCF profile=graph tool= symbols=2 session=true\n## targets\n\
             @1  # previously transmitted\n@2 fn n 0.50 x\n"
        );
        assert_eq!(session.len(), 3);
    }

    #[test]
    fn bound_falls_back_to_full_payload() {
        let mut session = Session::with_max_retained(2);
        session
            .encode(&Payload {
                symbols: vec![s("a", 0)],
                ..Payload::default()
            })
            .unwrap();
        let out = session
            .encode(&Payload {
                symbols: vec![s("b", 0), s("c", 0)],
                ..Payload::default()
            })
            .unwrap();
        assert!(session.fell_back());
        assert_eq!(
            out,
            "GCF profile=graph tool= symbols=2\n## targets\n@0 fn b 0.50 x\n@1 fn c 0.50 x\n"
        );
        assert!(session.is_empty());
        let out = session
            .encode(&Payload {
                symbols: vec![s("b", 0)],
                ..Payload::default()
            })
            .unwrap();
        assert!(!session.fell_back());
        assert_eq!(
            out,
            "GCF profile=graph tool= symbols=1 session=true\n## targets\n@0 fn b 0.50 x\n"
        );
    }

    #[test]
    fn consumer_resolves_references_and_edges() {
        let mut producer = Session::new();
        let mut consumer = SessionDecoder::new();
        consumer
            .decode(
                &producer
                    .encode(&Payload {
                        symbols: vec![s("a", 0), s("b", 1)],
                        ..Payload::default()
                    })
                    .unwrap(),
            )
            .unwrap();
        let p2 = Payload {
            symbols: vec![s("b", 0), s("c", 2)],
            edges: vec![Edge::new("c", "b", "calls")],
            ..Payload::default()
        };
        let wire = producer.encode(&p2).unwrap();
        assert!(wire.contains("@1  # previously transmitted"));
        let got = consumer.decode(&wire).unwrap();
        assert_eq!(
            got.symbols[0],
            Symbol::new("b".into(), "function".into(), 0.5, "x".into(), 0)
        );
        assert_eq!(
            got.edges[0],
            Edge::new("c".into(), "b".into(), "calls".into())
        );
        let mut fresh = SessionDecoder::new();
        assert_eq!(
            fresh.decode(&wire).unwrap_err().kind(),
            ErrorKind::UnknownEdgeReference
        );
        assert!(fresh.is_empty());
        // A non-session payload resets the consumer.
        consumer.decode("GCF profile=graph symbols=0\n").unwrap();
        assert!(consumer.is_empty());
    }

    #[test]
    fn failed_write_records_nothing() {
        let mut session = Session::new();
        let mut sink = crate::FnSink(|_: &[u8]| Err(crate::SinkError));
        assert!(session
            .encode_to(
                &Payload {
                    symbols: vec![s("a", 0)],
                    ..Payload::default()
                },
                &mut sink
            )
            .is_err());
        assert!(session.is_empty());
    }
}
