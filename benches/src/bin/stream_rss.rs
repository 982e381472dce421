//! Constant-memory check for the streaming writers, one process per size.
//!
//! `stream_rss <mode> <rows>` streams `rows` lines into a sink that discards
//! them, generating every row on the fly into reused buffers, and prints one
//! tab-separated line:
//!
//! `mode rows seconds rows_per_s allocs_after_header allocs_per_row peak_rss_kib bytes`
//!
//! Modes: `core-graph` and `crate-graph` write `rows / 2` symbols (grouped by
//! distance) then `rows / 2` edges (gcf-core by id, the crate by name, its
//! only form); `core-generic` and `crate-generic` write `rows` employee rows
//! into one `[?]` table. Peak RSS is `VmHWM` from `/proc/self/status`;
//! allocations are counted by a wrapping global allocator between the end of
//! the header and the start of the trailer.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use gcf_benches::workload::{
    distance, edge_type, employee, kind, provenance, qualified_name_into, Rng, EMPLOYEE_FIELDS,
    SEED,
};

/// Counts allocation calls (`alloc`, `alloc_zeroed`, `realloc`), then defers to `System`.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees carry over; the counter is a relaxed
// atomic and never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which we pass on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` through this allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: `ptr` came from `System` through this allocator with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

/// `VmHWM` (peak resident set) in KiB, or 0 where /proc is unavailable.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// What one run measured.
struct Run {
    allocs_in_rows: u64,
    bytes: u64,
}

fn core_graph(rows: u64) -> Run {
    use gcf_core::graph::{StreamOptions, StreamWriter, Symbol};
    let symbols = (rows / 2).max(1);
    let edges = rows - symbols;
    let mut rng = Rng::new(SEED);
    let mut name = String::with_capacity(128);
    let mut w = StreamWriter::new(gcf_core::CountingSink::default(), StreamOptions::default())
        .expect("header");
    let before = allocations();
    for i in 0..symbols {
        qualified_name_into(&mut name, i as usize, SEED);
        // Grouped by distance, as a breadth-first producer writes them.
        let d = (i * 4 / symbols) as u32;
        let _ = distance(&mut rng);
        let symbol = Symbol::new(
            name.as_str(),
            kind(&mut rng),
            rng.unit(),
            provenance(&mut rng),
            d,
        );
        w.write_symbol(&symbol).expect("symbol");
    }
    for i in 0..edges {
        let source = i % symbols;
        let target = (source * 7 + 3) % symbols;
        w.write_edge(source, target, edge_type(&mut rng), "")
            .expect("edge");
    }
    let allocs_in_rows = allocations() - before;
    let sink = w.finish().expect("trailer");
    Run {
        allocs_in_rows,
        bytes: sink.bytes,
    }
}

fn crate_graph(rows: u64) -> Run {
    use gcf_oracle::{Edge, StreamEncoder, StreamOptions, Symbol};
    let symbols = (rows / 2).max(1);
    let edges = rows - symbols;
    let mut rng = Rng::new(SEED);
    let mut name = String::with_capacity(128);
    let mut target_name = String::with_capacity(128);
    let out = Counter::default();
    let w = StreamEncoder::new(out.clone(), "bench", StreamOptions::default());
    let before = allocations();
    for i in 0..symbols {
        qualified_name_into(&mut name, i as usize, SEED);
        let _ = distance(&mut rng);
        // Its API takes owned strings: those allocations are part of its cost.
        w.write_symbol(&Symbol {
            qualified_name: name.clone(),
            kind: kind(&mut rng).into(),
            score: rng.unit(),
            provenance: provenance(&mut rng).into(),
            distance: (i * 4 / symbols) as i32,
            signature: String::new(),
            components: Default::default(),
        });
    }
    for i in 0..edges {
        let source = i % symbols;
        let target = (source * 7 + 3) % symbols;
        qualified_name_into(&mut name, source as usize, SEED);
        qualified_name_into(&mut target_name, target as usize, SEED);
        w.write_edge(&Edge {
            source: name.clone(),
            target: target_name.clone(),
            edge_type: edge_type(&mut rng).into(),
            status: String::new(),
        });
    }
    let allocs_in_rows = allocations() - before;
    w.close();
    Run {
        allocs_in_rows,
        bytes: out.bytes(),
    }
}

fn core_generic(rows: u64) -> Run {
    use gcf_core::generic::{StreamOptions, StreamWriter};
    let mut rng = Rng::new(SEED);
    let mut record = employee(0, &mut rng);
    let mut w =
        StreamWriter::new(gcf_core::CountingSink::default(), StreamOptions::new()).expect("header");
    w.begin_table(Some("employees"), &EMPLOYEE_FIELDS)
        .expect("table");
    let before = allocations();
    for i in 0..rows {
        record.refill(i as usize, &mut rng);
        w.row(&record.cells()).expect("row");
    }
    let allocs_in_rows = allocations() - before;
    w.end_table().expect("end");
    let sink = w.finish().expect("trailer");
    Run {
        allocs_in_rows,
        bytes: sink.bytes,
    }
}

fn crate_generic(rows: u64) -> Run {
    use gcf_oracle::GenericStreamEncoder;
    let mut rng = Rng::new(SEED);
    let mut record = employee(0, &mut rng);
    let out = Counter::default();
    let w = GenericStreamEncoder::new(out.clone());
    w.begin_array("employees", &EMPLOYEE_FIELDS);
    let before = allocations();
    for i in 0..rows {
        record.refill(i as usize, &mut rng);
        w.write_row(&record.oracle_row());
    }
    let allocs_in_rows = allocations() - before;
    w.end_array();
    w.close().expect("close");
    Run {
        allocs_in_rows,
        bytes: out.bytes(),
    }
}

/// An `io::Write` that discards bytes and counts them (shared, so the count
/// survives the encoder, which keeps its writer).
#[derive(Clone, Default)]
struct Counter(std::sync::Arc<AtomicU64>);

impl Counter {
    fn bytes(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.fetch_add(buf.len() as u64, Ordering::Relaxed);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: stream_rss <core-graph|crate-graph|core-generic|crate-generic> <rows>";
    let (Some(mode), Some(rows)) = (args.get(1), args.get(2).and_then(|r| r.parse::<u64>().ok()))
    else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let start = Instant::now();
    let run = match mode.as_str() {
        "core-graph" => core_graph(rows),
        "crate-graph" => crate_graph(rows),
        "core-generic" => core_generic(rows),
        "crate-generic" => crate_generic(rows),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{mode}\t{rows}\t{seconds:.6}\t{:.0}\t{}\t{:.4}\t{}\t{}",
        rows as f64 / seconds,
        run.allocs_in_rows,
        run.allocs_in_rows as f64 / rows as f64,
        peak_rss_kib(),
        run.bytes
    );
}
