//! Hints to the CPU and the optimiser.
//!
//! Memory: encoding a large graph visits symbols in emission order, not in
//! the order they sit in memory, and resolves each edge endpoint through a
//! hash table: every such read is a likely cache miss. Asking for the memory
//! a few iterations ahead lets those misses overlap instead of being paid one
//! after the other.
//!
//! Floats: see [`float_of_this_branch`].

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

/// `f`, as a value the optimiser cannot compute with before the code that
/// holds it runs: float arithmetic on `f` stays in the branch that reads
/// `f`.
///
/// A cell or value enum keeps a float's bits where its other variants keep
/// an integer, a boolean or a pointer. LLVM treats float arithmetic as free
/// of side effects, so it may start a float variant's arithmetic before the
/// match has chosen that variant, on whatever bits the slot holds. Read as
/// a double, a small integer or a user-space pointer is subnormal, and a
/// multiply with a subnormal operand takes a microcode assist on Intel
/// cores: about 30 ns. It did: every `key=value` line whose value was not a
/// float paid one (a one-key object took 90 ns to encode where a float value
/// took 57; an object of ten scalar members 575 ns, 200 ns without the assists).
///
/// On x86-64 the fence is an empty `asm!` block that claims to change `f` in
/// its register: no instruction, and nothing that uses `f` may move above
/// it. Elsewhere `f` is returned as is (no such assist is known there, and
/// `core::hint::black_box` would cost a store and a load per float), and
/// under Miri, which runs no `asm!`.
#[inline(always)]
pub(crate) fn float_of_this_branch(f: f64) -> f64 {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let mut f = f;
        // SAFETY: the template is empty (a comment naming the register), so
        // nothing executes; the block neither reads nor writes memory nor
        // touches the stack or the flags, as its options declare. Not marked
        // `pure`, so the optimiser keeps it where it is.
        unsafe {
            core::arch::asm!(
                "/* {0} */",
                inout(xmm_reg) f,
                options(nomem, nostack, preserves_flags)
            );
        }
        f
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    f
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

    #[test]
    fn a_float_through_the_fence_is_the_same_float() {
        for f in [
            0.0,
            -0.0,
            1.5,
            -812.25,
            f64::MIN_POSITIVE / 4.0,
            f64::MAX,
            f64::INFINITY,
        ] {
            assert_eq!(float_of_this_branch(f).to_bits(), f.to_bits());
        }
        assert!(float_of_this_branch(f64::NAN).is_nan());
    }
}
