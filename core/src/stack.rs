//! How much of this thread's stack is left, for the recursive walks of
//! nested values.
//!
//! The generic decoder and encoder recurse once or twice per level of
//! nesting, and [`Limits::max_depth`](crate::Limits::max_depth) bounds the
//! levels: the default 128 needs up to about 170 KiB of stack for a decode
//! into a host's objects (measured from the Python package: some shapes
//! take 1.3 KiB a level). Every thread of a glibc process has 8 MiB, but a
//! musl thread starts with 128 KiB (Alpine Linux), a Python program may
//! set `threading.stack_size(...)` lower, and C callers make threads of
//! any size: there, a deep document overflowed the stack, which kills the
//! process. With `std` (and not on WebAssembly, whose stack the module
//! fixes), the walks therefore also ask, every [`EVERY`] levels from
//! [`FIRST`] on, how much stack is left, and stop with `limit_exceeded`
//! when it falls below [`RESERVE`], which covers the levels until the next
//! check and whatever runs past the last one (a host's object
//! constructors, error messages).
//! `stacker` reads the thread's stack bounds from the OS, once per thread.

/// The stack a walk must still have at a check to go deeper: in optimized
/// builds three times what the tests needed (16 KiB held every shape they
/// try on threads of 32-256 KiB, from Rust, C and Python), in debug builds,
/// whose frames are several times larger, 128 KiB (32 KiB overflowed).
pub const RESERVE: usize = if cfg!(debug_assertions) { 128 } else { 48 } * 1024;

/// The walks check the stack at every depth that is a multiple of this,
/// from [`FIRST`] on.
pub const EVERY: usize = 4;

/// The first depth checked: real data rarely nests so deep that it pays
/// for a check at all (checking from depth 4 on cost 1.25 % more
/// instructions on an encode of nested orders, two checks an order), and
/// eight levels take at most about 21 KiB of stack.
pub const FIRST: usize = 8;

/// Whether a walk at nesting `depth` (the root container is 1) has too
/// little stack left to go deeper: at every [`EVERY`]th level from
/// [`FIRST`] on, fewer than [`RESERVE`] bytes remain. Always `false` where
/// the stack's bounds are unknown (`no_std` builds, WebAssembly, an OS
/// `stacker` cannot ask).
///
/// Bindings that walk nested host values themselves (before the core's
/// encoder or after its decoder) use it to stop where the core would.
#[inline]
pub fn exhausted(depth: usize) -> bool {
    depth >= FIRST && depth % EVERY == 0 && below_reserve()
}

#[cfg(all(feature = "std", not(target_family = "wasm"), not(miri)))]
std::thread_local! {
    /// The lowest address of this thread's stack, as `stacker` finds it on
    /// the first check (0 until then; `usize::MAX` when it cannot tell).
    static LOWEST: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

/// Whether fewer than [`RESERVE`] bytes of this thread's stack are left
/// below the caller. The address of a local stands for the stack pointer
/// and the stack's bound is asked of `stacker` once per thread: asking it
/// every time (an assembly call for the stack pointer, its own lazily made
/// thread-local) cost 1.5 % more instructions on an encode of nested orders
/// (`generic_probe orders`), this costs nothing measurable. The stack grows
/// down on every target `stacker` knows. An address outside the thread's
/// stack (a fiber on a stack of its own) is not judged: as before, the
/// caller's stack must hold the depth limit there.
#[cfg(all(feature = "std", not(target_family = "wasm"), not(miri)))]
#[inline(never)]
fn below_reserve() -> bool {
    let marker = 0u8;
    let here = core::hint::black_box(core::ptr::addr_of!(marker)) as usize;
    let lowest = LOWEST.with(|lowest| match lowest.get() {
        0 => {
            let found = stacker::remaining_stack()
                .map_or(usize::MAX, |left| here.saturating_sub(left).max(1));
            lowest.set(found);
            found
        }
        known => known,
    });
    here >= lowest && here - lowest < RESERVE
}

#[cfg(not(all(feature = "std", not(target_family = "wasm"), not(miri))))]
#[inline(always)]
fn below_reserve() -> bool {
    false
}

/// The message of a walk stopped by [`exhausted`] at `depth` (its error is
/// `limit_exceeded`).
pub fn message(depth: usize) -> alloc::string::String {
    alloc::format!(
        "nesting deeper than {depth} levels needs more stack than this thread has left \
         (fewer than {} KiB): decode or encode it on a thread with a larger stack",
        RESERVE / 1024
    )
}

/// [`exhausted`] as the core's error, for walks that report no position.
pub(crate) fn check(depth: usize) -> Result<(), crate::Error> {
    if exhausted(depth) {
        return Err(crate::Error::new(
            crate::ErrorKind::LimitExceeded,
            message(depth),
        ));
    }
    Ok(())
}

#[cfg(all(test, feature = "std", not(target_family = "wasm"), not(miri)))]
mod tests {
    use super::*;

    #[test]
    fn a_thread_with_room_is_never_exhausted() {
        assert!(stacker::remaining_stack().is_some_and(|left| left > RESERVE));
        assert!((0..256).all(|depth| !exhausted(depth)));
    }

    /// Recurses until `exhausted` says stop, with frames of `N` bytes.
    fn descend<const N: usize>(depth: usize) -> usize {
        if exhausted(depth) {
            return depth;
        }
        // A frame of N bytes the optimizer cannot drop, alive across the call.
        let frame = core::hint::black_box([1u8; N]);
        let stopped = descend::<N>(depth + 1);
        core::hint::black_box(&frame);
        stopped
    }

    #[test]
    fn a_small_stack_stops_the_walk_before_it_overflows() {
        let mut before = 0;
        for size in [64, 128, 256, 1024].map(|kib| RESERVE + kib * 1024) {
            let stopped = std::thread::Builder::new()
                .stack_size(size)
                .spawn(|| descend::<2048>(1))
                .map(|t| t.join().ok())
                .ok()
                .flatten()
                .unwrap_or_default();
            // It stopped at a check, and a larger stack went deeper: the
            // walk ran until the reserve, not into the guard page.
            assert!(
                stopped > before && stopped >= FIRST && stopped % EVERY == 0,
                "{size}: {stopped}"
            );
            before = stopped;
        }
    }
}
