//! Proves the streaming graph writer allocates nothing per symbol, edge or
//! location once the header is written. A test binary of its own, because it
//! installs a counting global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use gcf_core::graph::{StreamOptions, StreamWriter, Symbol, TrailerForm};
use gcf_core::{CountingSink, FnSink};

struct Counting;

thread_local! {
    // Per thread, so tests running in parallel don't count each other's
    // allocations. A const initializer: no lazy allocation inside the allocator.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    ALLOCATIONS.with(|c| c.set(c.get() + 1));
}

// SAFETY: defers every operation to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn the_counter_sees_allocations() {
    let before = allocations();
    let v: Vec<u8> = Vec::with_capacity(std::hint::black_box(64));
    drop(v);
    assert_eq!(allocations() - before, 1);
}

#[test]
fn zero_allocations_per_symbol_edge_and_location() {
    for trailer in [
        TrailerForm::Positional,
        TrailerForm::Labeled,
        TrailerForm::Legacy,
    ] {
        let names: Vec<String> = (0..1000)
            .map(|i| format!("github.com/org/repo/internal/auth.Server.Handle{i}"))
            .collect();
        let options = StreamOptions {
            tool: "bench",
            token_budget: 5000,
            trailer,
            ..Default::default()
        };
        let mut w = StreamWriter::new(CountingSink::default(), options).unwrap();
        const ROWS: u64 = 100_000;
        let before = allocations();
        for i in 0..ROWS {
            let s = Symbol::new(
                names[(i % 1000) as usize].as_str(),
                "function",
                (i % 100) as f64 / 100.0,
                "lsp_resolved",
                (i * 4 / ROWS) as u32,
            );
            w.write_symbol(&s).unwrap();
        }
        for i in 0..ROWS {
            w.write_edge(i, (i * 7 + 3) % ROWS, "calls", "").unwrap();
        }
        for i in 0..ROWS / 10 {
            w.write_location(i, "internal/auth/server.go", 10, 2, Some((20, 1)))
                .unwrap();
        }
        let during = allocations() - before;
        let sink = w.finish().unwrap();
        assert!(sink.bytes > 5_000_000);
        // Four distance groups fit the group list reserved up front.
        assert_eq!(
            during,
            0,
            "{during} allocations while streaming {} lines",
            ROWS * 2 + ROWS / 10
        );
    }
}

#[test]
fn zero_allocations_into_a_callback_sink() {
    let mut total = 0usize;
    let mut w = StreamWriter::new(
        FnSink(|b: &[u8]| {
            total += b.len();
            Ok(())
        }),
        StreamOptions::default(),
    )
    .unwrap();
    let before = allocations();
    for i in 0..50_000u64 {
        w.write_symbol(&Symbol::new("pkg.Name", "type", 0.5, "ast", 0))
            .unwrap();
        if i > 0 {
            w.flush().unwrap();
        }
    }
    assert_eq!(allocations() - before, 0);
    let _sink = w.finish().unwrap();
    assert!(total > 1_000_000);
}
