//! Operation counts for complexity tests (issue 21): the comparisons and
//! scans whose count would grow faster than the input if an algorithm went
//! quadratic (key comparisons, slot and column scans, token checks) add to
//! one counter. Tests compare the count at 1x, 2x and 4x input, which is
//! repeatable under any load, unlike a timer.
//!
//! Only the `op-counts` feature (enabled by this crate's own tests) keeps a
//! counter; otherwise `tick` compiles to nothing.

#[cfg(feature = "op-counts")]
static COUNT: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

/// Adds `n` operations.
#[inline(always)]
pub(crate) fn tick(n: usize) {
    #[cfg(feature = "op-counts")]
    COUNT.fetch_add(n as u64, core::sync::atomic::Ordering::Relaxed);
    #[cfg(not(feature = "op-counts"))]
    let _ = n;
}

/// Operations counted since the last [`reset`] (process-wide: measure in one
/// thread at a time).
#[cfg(feature = "op-counts")]
pub fn count() -> u64 {
    COUNT.load(core::sync::atomic::Ordering::Relaxed)
}

/// Sets the count to zero.
#[cfg(feature = "op-counts")]
pub fn reset() {
    COUNT.store(0, core::sync::atomic::Ordering::Relaxed);
}
