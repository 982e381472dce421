//! Sessions (spec §9): symbols transmitted once, referenced by a stable id
//! afterwards.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use gcf_core::{Error, ErrorKind};

use crate::convert::{drop_unknown_edges, payload_in};
use crate::types::{Payload, Symbol};

/// What a session remembers: gcf-core's session, which writes, and the ids
/// it gave each qualified name, which the reference crate's queries read by
/// name alone (gcf-core keys a symbol by kind and name).
#[derive(Default)]
struct Transmitted {
    core: gcf_core::graph::Session,
    ids: HashMap<String, usize>,
}

impl Transmitted {
    /// Records the ids of `symbols` not seen before: those gcf-core's
    /// session gave them, or the next ones in order where it gave none.
    fn learn(&mut self, symbols: &[Symbol]) {
        for s in symbols {
            if self.ids.contains_key(&s.qualified_name) {
                continue;
            }
            let id = self
                .core
                .id_of(&s.kind, &s.qualified_name)
                .and_then(|id| usize::try_from(id).ok())
                .unwrap_or(self.ids.len());
            self.ids.insert(s.qualified_name.clone(), id);
        }
    }
}

/// The symbols delivered to one consumer, so that later payloads reference
/// them (`@N  # previously transmitted`) instead of declaring them again.
/// Safe to share between threads, as in the reference crate.
#[derive(Default)]
pub struct Session {
    inner: Mutex<Transmitted>,
}

impl Session {
    pub fn new() -> Self {
        Session::default()
    }

    fn lock(&self) -> MutexGuard<'_, Transmitted> {
        // A panic while holding the lock cannot leave the maps half written
        // in a way that matters more than losing the session: keep going.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a symbol of this name was delivered.
    pub fn transmitted(&self, qname: &str) -> bool {
        self.lock().ids.contains_key(qname)
    }

    /// The session id of a delivered symbol.
    pub fn get_id(&self, qname: &str) -> Option<usize> {
        self.lock().ids.get(qname).copied()
    }

    /// Marks symbols as delivered, giving the new ones the next ids in
    /// order. Nothing is written, so nothing is checked: a symbol no payload
    /// could hold (an empty kind, a name with a space) still takes its id,
    /// and the ones after it follow it.
    pub fn record(&self, symbols: &[Symbol]) {
        let mut t = self.lock();
        for s in symbols {
            if t.ids.contains_key(&s.qualified_name) {
                continue;
            }
            let id = t.core.record(&s.kind, &s.qualified_name);
            let id = usize::try_from(id).unwrap_or(usize::MAX);
            t.ids.insert(s.qualified_name.clone(), id);
        }
    }

    /// The id the next new symbol gets.
    pub fn next_id(&self) -> usize {
        usize::try_from(self.lock().core.next_id()).unwrap_or(usize::MAX)
    }

    /// How many symbols were delivered.
    pub fn size(&self) -> usize {
        self.lock().ids.len()
    }

    /// Forgets everything: the next payload starts again at id 0.
    pub fn reset(&self) {
        let mut t = self.lock();
        t.core.reset();
        t.ids.clear();
    }
}

/// Encodes a payload within a session: symbols delivered before are bare
/// references, new ones full declarations, remembered afterwards. A payload
/// gcf-core refuses encodes as `""` and records nothing
/// ([`encode_with_session_checked`] gives the error).
pub fn encode_with_session(p: &Payload, sess: &Session) -> String {
    encode_with_session_checked(p, sess).unwrap_or_default()
}

/// [`encode_with_session`] with the error of a payload gcf-core refuses (an
/// addition to the reference crate's API).
pub fn encode_with_session_checked(p: &Payload, sess: &Session) -> Result<String, Error> {
    let mut t = sess.lock();
    let mut payload = payload_in(p)?;
    let text = match t.core.encode(&payload) {
        Err(e) if e.kind() == ErrorKind::UnknownEdgeReference => {
            drop_unknown_edges(&mut payload);
            t.core.encode(&payload)?
        }
        result => result?,
    };
    t.learn(&p.symbols);
    Ok(text)
}
