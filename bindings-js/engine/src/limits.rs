//! The decode limits (spec §12) of this thread's next decodes.
//!
//! The 2.5.2 API has no limits, so the JS layer's `limits` option is an
//! addition to a few calls (`decode`, `decodeGeneric`); rather than a
//! second signature of every decode export in both hosts, the layer sets
//! the limits for one call and resets them after it ([`set_decode_limits`]
//! with `""`), and every decode of this crate reads them here. JS calls
//! into one engine from one thread at a time (a worker is another thread,
//! with its own limits), and no decode calls back into JS, so the limits a
//! decode reads are the ones its caller set.

use std::cell::Cell;

use gcf_bind::options::{DecodeLimits, LimitNames};
use gcf_core::Limits;

use crate::Result;

thread_local! {
    static DECODE_LIMITS: Cell<Limits> = const { Cell::new(Limits::DEFAULT) };
}

/// Sets the limits of this thread's decodes from a JSON object of
/// `gcf_bind`'s [`DecodeLimits`] (`{"maxDepth": 32, ...}`, each member
/// optional), or back to the defaults for `""`. A refused object (an
/// unknown member, a value out of range) is a `usage` failure and leaves
/// the limits as they were.
///
/// ```
/// gcf_js_engine::set_decode_limits(r#"{"maxInputLen": 10}"#).unwrap();
/// let f = gcf_js_engine::generic_decode("GCF profile=generic\nname=abcdef\n").unwrap_err();
/// assert_eq!(f.category, "limit_exceeded");
/// gcf_js_engine::set_decode_limits("").unwrap();
/// assert!(gcf_js_engine::generic_decode("GCF profile=generic\nname=abcdef\n").is_ok());
/// ```
pub fn set_decode_limits(json: &str) -> Result<()> {
    let limits = if json.is_empty() {
        Limits::DEFAULT
    } else {
        DecodeLimits::from_str(json, LimitNames::Camel)?.to_core(LimitNames::Camel)?
    };
    DECODE_LIMITS.with(|l| l.set(limits));
    Ok(())
}

/// The limits the decodes of this thread apply now.
pub(crate) fn decode_limits() -> Limits {
    DECODE_LIMITS.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_object_keeps_the_limits_set_before() {
        set_decode_limits(r#"{"maxDepth": 2}"#).unwrap();
        let f = set_decode_limits(r#"{"maxDepth": 0}"#).unwrap_err();
        assert_eq!(f.category, "usage");
        assert_eq!(decode_limits().max_depth, 2);
        set_decode_limits("").unwrap();
        assert_eq!(decode_limits(), Limits::DEFAULT);
    }
}
