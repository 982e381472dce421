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
    /// Nesting depth of objects and arrays (spec minimum 32).
    pub max_depth: usize,
    /// Elements of one array or object, rows of one table, symbols or edges of
    /// one graph (spec minimum 10,000).
    pub max_container_len: usize,
    /// Bytes in one line (spec minimum 65,536).
    pub max_line_len: usize,
    /// Fields in one tabular header (spec minimum 1,000).
    pub max_fields: usize,
    /// Bytes of input a decoder accepts (no normative minimum).
    pub max_input_len: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 128,
            max_container_len: 100_000_000,
            max_line_len: 64 * 1024 * 1024,
            max_fields: 65_536,
            max_input_len: usize::MAX,
        }
    }
}

impl Limits {
    /// The smallest limits a conforming implementation may impose (spec §12).
    pub const fn spec_minimum() -> Limits {
        Limits {
            max_depth: 32,
            max_container_len: 10_000,
            max_line_len: 65_536,
            max_fields: 1_000,
            max_input_len: usize::MAX,
        }
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
