//! A quick single-process timer for graph encode/decode, for profiling
//! (`perf record -g target/release/graph_probe encode 100000 20`): builds the
//! workload once, then runs the operation in a loop and prints the fastest
//! and median iteration. Criterion (`cargo bench`) is the real measurement.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// Counts allocations (and reallocations), so the probe can report how
/// many an operation makes per call.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

use gcf_benches::workload::{
    endpoints, floor, floor_shared, graph, oracle_from_owned, realistic_graph, SEED,
};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).map_or("encode", String::as_str);
    let n: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let iters: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(20);
    let w = graph(n, SEED);
    if op == "stream" {
        stream(&w, n, iters);
        return;
    }
    // `encode` and `crate-encode` keep the earlier reports' workload (borrowed,
    // generation order) for before/after comparisons; every other op uses the
    // headline workload (shuffled, four-decimal scores), owned as parsed from
    // JSON unless it says `borrowed`.
    let payload = w.payload();
    let real = realistic_graph(n, SEED);
    let real_borrowed = real.payload();
    let owned = real.owned_payload();
    let text = gcf_core::graph::encode(&owned).unwrap();
    if op == "dump" {
        print!("{text}");
        return;
    }
    let oracle = w.oracle_payload();
    let oracle_owned = oracle_from_owned(&owned);
    // What is profiled must be what the crate writes, byte for byte.
    assert_eq!(text, gcf_oracle::encode(&oracle_owned), "{n} symbols");
    let decoded = gcf_core::graph::decode(&text).unwrap();
    let ends = endpoints(&decoded);
    let encoder = gcf_core::graph::Encoder::new();
    let ctx = Ctx {
        payload: &payload,
        real_borrowed: &real_borrowed,
        owned: &owned,
        text: &text,
        oracle: &oracle,
        oracle_owned: &oracle_owned,
        decoded: &decoded,
        ends: &ends,
        encoder: std::cell::RefCell::new(encoder),
    };
    let mut times = Vec::with_capacity(iters);
    let allocations = ALLOCATIONS.load(Relaxed);
    for _ in 0..iters {
        let start = Instant::now();
        let size = run(op, &ctx);
        times.push(start.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(size);
    }
    let allocations = (ALLOCATIONS.load(Relaxed) - allocations) as f64 / iters.max(1) as f64;
    times.sort_by(f64::total_cmp);
    println!(
        "{op} n={n} bytes={} min={:.4} ms median={:.4} ms allocations/call={allocations:.1}",
        text.len(),
        times[0],
        times[times.len() / 2]
    );
}

/// Everything the timed operations read, built before timing.
struct Ctx<'a> {
    payload: &'a gcf_core::graph::Payload<&'a str>,
    real_borrowed: &'a gcf_core::graph::Payload<&'a str>,
    owned: &'a gcf_core::graph::Payload,
    text: &'a str,
    oracle: &'a gcf_oracle::Payload,
    oracle_owned: &'a gcf_oracle::Payload,
    decoded: &'a gcf_core::graph::Payload,
    ends: &'a [(usize, usize)],
    encoder: std::cell::RefCell<gcf_core::graph::Encoder>,
}

/// One timed operation. Never inlined, so that callgrind can count just
/// the operations (`--toggle-collect='graph_probe::run'`), not the setup.
#[inline(never)]
fn run(op: &str, c: &Ctx<'_>) -> usize {
    match op {
        "encode" => gcf_core::graph::encode(c.payload).unwrap().len(),
        "encode-owned" => gcf_core::graph::encode(c.owned).unwrap().len(),
        "encode-reused" => c.encoder.borrow_mut().encode(c.owned).unwrap().len(),
        "encode-borrowed" => gcf_core::graph::encode(c.real_borrowed).unwrap().len(),
        "decode" => gcf_core::graph::decode(c.text).unwrap().symbols.len(),
        "decode-borrowed" => gcf_core::graph::decode_borrowed(c.text)
            .unwrap()
            .symbols
            .len(),
        "decode-shared" => gcf_core::graph::decode_shared(c.text)
            .unwrap()
            .symbols
            .len(),
        "decode-indexed" => gcf_core::graph::decode_indexed(c.text)
            .unwrap()
            .symbols
            .len(),
        "crate-encode" => gcf_oracle::encode(c.oracle).len(),
        "crate-encode-owned" => gcf_oracle::encode(c.oracle_owned).len(),
        "crate-decode" => gcf_oracle::decode(c.text).unwrap().symbols.len(),
        "copy" => {
            let mut v = Vec::with_capacity(c.text.len());
            v.extend_from_slice(c.text.as_bytes());
            std::hint::black_box(&v);
            v.len()
        }
        // Floors: the cost of building (and dropping) a decoded payload's
        // vectors and strings alone, with no parsing.
        "floor-borrowed" => {
            let p: gcf_core::graph::Payload<std::borrow::Cow<str>> =
                floor(c.decoded, std::borrow::Cow::Borrowed);
            p.symbols.len()
        }
        "floor-owned" => floor(c.decoded, String::from).symbols.len(),
        "floor-shared" => floor_shared(c.decoded, c.ends).symbols.len(),
        other => panic!("unknown operation {other}"),
    }
}

/// The `stream_graph` criterion bench (benches/stream.rs) as a probe: `n`
/// symbols in breadth-first order, then `n` edges by id, into a discarding
/// sink. The rows are built first, so
/// `--toggle-collect='gcf_benches::workload::GraphStream::write_core'`
/// counts only the writer.
fn stream(w: &gcf_benches::workload::GraphWorkload, n: usize, iters: usize) {
    let rows = w.stream(n);
    let mut times = Vec::with_capacity(iters);
    let mut bytes = 0;
    for _ in 0..iters {
        let start = Instant::now();
        bytes = rows.write_core();
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "stream n={n} bytes={bytes} min={:.3} ms median={:.3} ms",
        times[0],
        times[times.len() / 2]
    );
}
