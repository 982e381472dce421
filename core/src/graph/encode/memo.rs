//! Short texts as exact keys, and the small memo that finds them.

/// A text of at most 16 bytes as three words that determine it exactly: its
/// length and two (possibly overlapping) loads that together cover every
/// byte. Comparing two keys compares the texts without a loop, and making
/// one reads the text once.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub(super) struct ShortKey {
    pub(super) lo: u64,
    pub(super) hi: u64,
    pub(super) len: u64,
}

impl ShortKey {
    /// Matches no text: [`ShortKey::of`] never gives a length above 16.
    pub(super) const NONE: ShortKey = ShortKey {
        lo: 0,
        hi: 0,
        len: u64::MAX,
    };

    /// The key of `text`, or `None` when it is longer than 16 bytes.
    #[inline(always)]
    pub(super) fn of(text: &str) -> Option<ShortKey> {
        use crate::words::{load4, load8};
        let b = text.as_bytes();
        let n = b.len();
        let (lo, hi) = if n >= 8 {
            if n > 16 {
                return None;
            }
            // Bytes 0..8 and n-8..n: all of them for n <= 16.
            (load8(b, 0), load8(b, n - 8))
        } else if n >= 4 {
            (u64::from(load4(b, 0)), u64::from(load4(b, n - 4)))
        } else if n > 0 {
            // Bytes 0, n/2 and n-1: all of them for n <= 3.
            let spread = u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16;
            (spread, 0)
        } else {
            (0, 0)
        };
        Some(ShortKey {
            lo,
            hi,
            len: n as u64,
        })
    }

    /// The key's words mixed, for [`memo_home`].
    #[inline(always)]
    pub(super) fn mixed(&self) -> usize {
        (self.lo ^ self.hi.rotate_left(29) ^ self.len.rotate_left(53)) as usize
    }
}

/// A small table from a key (the text of a kind, provenance or edge label,
/// or the address it was seen at) to the index of its entry: slots hold
/// `index + 1` (0 when free), and the keys sit in the entries, so the table
/// itself is 128 bytes to set up per call.
///
/// Slots are probed linearly from the key's home slot, so a handful of
/// keys never evict each other whatever their homes. A key that finds no
/// free slot among its probes replaces its home slot's entry; that entry's
/// next lookup simply misses (and finds its index the slow way). No slot is
/// ever emptied, so a lookup can stop at the first free slot.
pub(super) struct TextMemo {
    pub(super) slots: [u16; MEMO_SLOTS],
}

pub(super) const MEMO_SLOTS: usize = 64;
pub(super) const MEMO_PROBES: usize = 4;

impl Default for TextMemo {
    fn default() -> TextMemo {
        TextMemo {
            slots: [0; MEMO_SLOTS],
        }
    }
}

/// The [`TextMemo`] home slot of a key whose words mix to `mixed`.
#[inline(always)]
pub(super) fn memo_home(mixed: usize) -> usize {
    ((mixed as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize
}

impl TextMemo {
    /// The index kept at `home` (from [`memo_home`]) or a few slots on
    /// whose entry `matches`; almost every lookup ends at the home slot.
    #[inline(always)]
    pub(super) fn get(&self, home: usize, matches: impl Fn(usize) -> bool) -> Option<u32> {
        let slot = usize::from(self.slots[home % MEMO_SLOTS]);
        let index = slot.checked_sub(1)?;
        if matches(index) {
            return Some(index as u32);
        }
        for probe in 1..MEMO_PROBES {
            let slot = usize::from(self.slots[(home + probe) % MEMO_SLOTS]);
            let index = slot.checked_sub(1)?;
            if matches(index) {
                return Some(index as u32);
            }
        }
        None
    }

    /// Remembers `index` at `home`.
    pub(super) fn insert(&mut self, home: usize, index: u32) {
        let Some(value) = index.checked_add(1).and_then(|v| u16::try_from(v).ok()) else {
            return;
        };
        for probe in 0..MEMO_PROBES {
            let slot = &mut self.slots[(home + probe) % MEMO_SLOTS];
            if *slot == 0 || *slot == value {
                *slot = value;
                return;
            }
        }
        self.slots[home % MEMO_SLOTS] = value;
    }
}

pub(super) fn identity(text: &str) -> &str {
    text
}
