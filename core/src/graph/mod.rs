//! Graph profile (spec §5-6b, §8-10): lands next.
