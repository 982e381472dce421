//! Symbol ids as declared, and their uniqueness.

use crate::hash::HashMap;

/// Maps symbol ids to their index in `symbols` (or a bare reference),
/// with a fast path for the usual sequential ids.
#[derive(Default)]
pub(crate) struct IdTable {
    /// Ids seen so far were exactly 0..len in order.
    pub(super) sequential: bool,
    pub(super) len: u64,
    pub(super) map: HashMap<u64, Slot>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Slot {
    Symbol(u32),
    Reference,
}

impl IdTable {
    pub(crate) fn new() -> IdTable {
        IdTable {
            sequential: true,
            len: 0,
            map: HashMap::default(),
        }
    }

    /// Records `id`; false if it was already declared.
    pub(crate) fn insert(&mut self, id: u64, slot: Slot) -> bool {
        if self.sequential && id == self.len && slot == Slot::Symbol(id as u32) {
            self.len += 1;
            return true;
        }
        if self.sequential {
            // Leave the fast path: materialize what it stood for.
            self.sequential = false;
            self.map.reserve(self.len as usize + 1);
            for i in 0..self.len {
                self.map.insert(i, Slot::Symbol(i as u32));
            }
        }
        self.map.try_insert_unique(id, slot)
    }

    pub(crate) fn get(&self, id: u64) -> Option<Slot> {
        if self.sequential {
            return (id < self.len).then_some(Slot::Symbol(id as u32));
        }
        self.map.get(&id).copied()
    }
}

trait TryInsertUnique {
    fn try_insert_unique(&mut self, id: u64, slot: Slot) -> bool;
}

impl TryInsertUnique for HashMap<u64, Slot> {
    fn try_insert_unique(&mut self, id: u64, slot: Slot) -> bool {
        match self.entry(id) {
            hashbrown::hash_map::Entry::Occupied(_) => false,
            hashbrown::hash_map::Entry::Vacant(v) => {
                v.insert(slot);
                true
            }
        }
    }
}
