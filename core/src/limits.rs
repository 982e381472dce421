//! Implementation limits (spec §12), enforced with an error, never a panic.

/// Bounds that protect decoders and encoders from hostile or runaway input.
///
/// Every default is at or above the spec's minimum, and generous enough that
/// this crate's own output (for example a 100,000-row table) always decodes.
/// Lower them for untrusted input you want to bound tightly; the constructor
/// [`Limits::spec_minimum`] gives the floor that conformance allows.
///
/// ```
/// use gcf_core::Limits;
/// let tight = Limits { max_depth: 32, ..Limits::default() };
/// assert!(tight.max_line_len >= Limits::spec_minimum().max_line_len);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Nesting depth of objects and arrays (spec minimum 32): the containers
    /// on a value's deepest path, the root container counting 1 (a
    /// document's top-level lines are its root object). The encoder, the
    /// decoder, the stream writer and the JSON readers all count it so, so
    /// what one side accepts the other does.
    pub max_depth: usize,
    /// Elements of one array or object, rows of one table, symbols, edges or
    /// locations of one graph (spec minimum 10,000). The objects a table
    /// decodes into count as declared: a declaration whose rows (or keyed
    /// values, or grouped records, or any object its path columns nest)
    /// would hold more members, or an inline schema of more entries, is
    /// refused whatever its rows leave absent.
    pub max_container_len: usize,
    /// Bytes in one line (spec minimum 65,536).
    pub max_line_len: usize,
    /// Fields in one tabular header or inline schema (`^{...}`; spec
    /// minimum 1,000). The generic
    /// encoders refuse to write more, so that a decoder with the same
    /// limits reads what they write.
    pub max_fields: usize,
    /// Bytes of input a decoder accepts (no normative minimum).
    pub max_input_len: usize,
    /// The fixed part of a document's expansion budget, in bytes (no
    /// normative minimum). Some text is written once and decoded into every
    /// row: a constant column (spec §7.4.7) into each row of its table, a
    /// group subheader's value (spec §7.4.8) into each row of its group, an
    /// inline schema's constants into each positional body, and a field
    /// name too long to store inline (longer than
    /// [`Key::INLINE_CAPACITY`](crate::generic::Key::INLINE_CAPACITY)) into
    /// each row as its key. A decoder counts the memory those copies take
    /// row by row (a map entry per repeated value, plus its string's and
    /// its long key's bytes) and fails with `limit_exceeded` at the row
    /// where the document's total passes
    /// `max_expansion + max_expansion_ratio × input length`
    /// ([`Limits::expansion_budget`]). Without this bound, a 1 MiB constant
    /// and a million two-byte rows would decode into a terabyte.
    ///
    /// The default (64 MiB) lets any document decode whose repeated values
    /// take at most that much, whatever its size: 100,000 rows with five
    /// short constants take about 30 MB.
    pub max_expansion: usize,
    /// The proportional part of the expansion budget (see
    /// [`Limits::max_expansion`]): bytes of repeated values allowed per byte
    /// of input. The default (64) is about what decoding plain cells costs
    /// already (a one-byte cell and its delimiter become a 56-byte map entry
    /// on 64-bit targets, 28 bytes per input byte), so repeated values add
    /// at most a little over twice the memory plain cells of the same input
    /// could take. It stays above realistic factored
    /// tables: a million rows of a six-digit id and five short constants
    /// need about 43 bytes per input byte.
    pub max_expansion_ratio: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

impl Limits {
    /// The limits every decoder and encoder starts with ([`Limits::default`]),
    /// usable in `const` contexts.
    pub const DEFAULT: Limits = Limits {
        max_depth: 128,
        max_container_len: 100_000_000,
        max_line_len: 64 * 1024 * 1024,
        max_fields: 65_536,
        max_input_len: usize::MAX,
        max_expansion: 64 * 1024 * 1024,
        max_expansion_ratio: 64,
    };

    /// The smallest limits a conforming implementation may impose (spec §12).
    /// The spec sets no expansion bound; these keep the default one, as an
    /// unbounded one would let a small input decode into any size.
    pub const fn spec_minimum() -> Limits {
        Limits {
            max_depth: 32,
            max_container_len: 10_000,
            max_line_len: 65_536,
            max_fields: 1_000,
            max_input_len: usize::MAX,
            max_expansion: 64 * 1024 * 1024,
            max_expansion_ratio: 64,
        }
    }

    /// The expansion budget (see [`Limits::max_expansion`]) of an input of
    /// `input_len` bytes.
    ///
    /// ```
    /// use gcf_core::Limits;
    /// let l = Limits { max_expansion: 100, max_expansion_ratio: 2, ..Limits::default() };
    /// assert_eq!(l.expansion_budget(10), 120);
    /// assert_eq!(Limits::default().expansion_budget(usize::MAX), usize::MAX);
    /// ```
    pub const fn expansion_budget(&self, input_len: usize) -> usize {
        self.max_expansion
            .saturating_add(self.max_expansion_ratio.saturating_mul(input_len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_at_or_above_spec_minimum() {
        let d = Limits::default();
        let m = Limits::spec_minimum();
        assert!(d.max_depth >= m.max_depth);
        assert!(d.max_container_len >= m.max_container_len);
        assert!(d.max_line_len >= m.max_line_len);
        assert!(d.max_fields >= m.max_fields);
    }
}
