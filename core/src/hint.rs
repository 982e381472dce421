//! Memory hints for loops that read scattered memory.
//!
//! Encoding a large graph visits symbols in emission order, not in the order
//! they sit in memory, and resolves each edge endpoint through a hash table:
//! every such read is a likely cache miss. Asking for the memory a few
//! iterations ahead lets those misses overlap instead of being paid one after
//! the other.

/// Asks the CPU to start loading the cache line holding `address`.
///
/// A hint only: it never faults, whatever the address (dangling, null or
/// unmapped), never changes the program's results, and compiles to nothing
/// on targets without a stable prefetch instruction (and under Miri).
#[inline(always)]
pub(crate) fn prefetch<T: ?Sized>(address: *const T) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `prefetch` requires SSE, which every x86_64 CPU has (it is in
    // the target's baseline feature set). The instruction is a hint that
    // neither reads memory architecturally nor faults on any address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            address as *const u8 as *const i8,
        );
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = address;
}

/// Prefetches the first and the last byte of `value`: a struct of 64 bytes
/// or less, not aligned to a cache line, spans at most two lines.
#[inline(always)]
pub(crate) fn prefetch_value<T>(value: &T) {
    let start = value as *const T as *const u8;
    prefetch(start);
    prefetch(start.wrapping_add(core::mem::size_of::<T>().saturating_sub(1)));
}

/// Prefetches the first and the last byte of `bytes` (a name is usually
/// within one or two cache lines).
#[inline(always)]
pub(crate) fn prefetch_bytes(bytes: &[u8]) {
    prefetch(bytes.as_ptr());
    prefetch(bytes.as_ptr().wrapping_add(bytes.len().saturating_sub(1)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_on_any_address_change_nothing() {
        let data = [1u8, 2, 3];
        prefetch(data.as_ptr());
        prefetch_bytes(&data);
        prefetch_bytes(&[]);
        prefetch_value(&data);
        prefetch_value(&());
        prefetch(core::ptr::null::<u64>());
        prefetch(usize::MAX as *const u8);
        assert_eq!(data, [1, 2, 3]);
    }
}
