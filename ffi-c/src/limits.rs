//! Decode limits (spec §12) set by the caller, for the `*_with_limits`
//! decoders.

use gcf_bind::options::{DecodeLimits, LimitNames};
use gcf_core::Limits;

use crate::error::FfiError;

/// Decode limits for the `*_with_limits` decoders. Zero-initialise it for the
/// defaults: each field left 0 keeps its default (so a limit of 0 cannot be
/// set; 1 is the smallest). Input past a limit is a `GCF_STATUS_DATA_ERROR`
/// of category `limit_exceeded` at its line; a value no decoder can take
/// (`max_depth` above 128) is `GCF_STATUS_INVALID_ARGUMENT`, category `usage`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct gcf_limits {
    /// Nesting depth of objects and arrays, 1 to 128 (the default).
    pub max_depth: u64,
    /// Elements of one array or object, rows of a table, symbols or edges of
    /// a graph (default 100,000,000).
    pub max_container_len: u64,
    /// Bytes in one line (default 64 MiB).
    pub max_line_len: u64,
    /// Fields in one field declaration, a table header or an inline schema (default 65,536).
    pub max_fields: u64,
    /// Bytes of input (default: no limit).
    pub max_input_len: u64,
    /// Bytes of values written once and decoded into every row (constant
    /// columns, groups): the fixed part of the budget (default 64 MiB).
    pub max_expansion: u64,
    /// The same, per byte of input (default 64).
    pub max_expansion_ratio: u64,
}

/// The core's limits from `limits`, NULL for the defaults, checked by
/// `gcf_bind` as for every binding.
///
/// # Safety
///
/// `limits` is NULL or points to a readable `gcf_limits`.
pub(crate) unsafe fn limits_arg(limits: *const gcf_limits) -> Result<Limits, FfiError> {
    // SAFETY: NULL or readable, per the caller.
    let Some(l) = (unsafe { limits.as_ref() }) else {
        return Ok(Limits::DEFAULT);
    };
    let set = |v: u64| (v != 0).then_some(v);
    let limits = DecodeLimits {
        max_depth: set(l.max_depth),
        max_container_len: set(l.max_container_len),
        max_line_len: set(l.max_line_len),
        max_fields: set(l.max_fields),
        max_input_len: set(l.max_input_len),
        max_expansion: set(l.max_expansion),
        max_expansion_ratio: set(l.max_expansion_ratio),
    };
    Ok(limits.to_core(LimitNames::Snake)?)
}
