//! A quick single-process timer for graph encode/decode, for profiling
//! (`perf record -g target/release/graph_probe encode 100000 20`): builds the
//! workload once, then runs the operation in a loop and prints the fastest
//! and median iteration. Criterion (`cargo bench`) is the real measurement.

use std::time::Instant;

use gcf_benches::workload::{graph, SEED};

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
    let payload = w.payload();
    let text = gcf_core::graph::encode(&payload).unwrap();
    if op == "dump" {
        print!("{text}");
        return;
    }
    let oracle = w.oracle_payload();
    let owned = payload.to_owned_payload();
    // For the shared floor: each edge's endpoints as symbol indexes.
    let index: std::collections::HashMap<&str, usize> = owned
        .symbols
        .iter()
        .enumerate()
        .map(|(i, s)| (s.qualified_name.as_str(), i))
        .collect();
    let endpoints: Vec<(usize, usize)> = owned
        .edges
        .iter()
        .map(|e| (index[e.source.as_str()], index[e.target.as_str()]))
        .collect();
    let mut times = Vec::with_capacity(iters);
    for _ in 0..iters {
        let start = Instant::now();
        let size = match op {
            "encode" => gcf_core::graph::encode(&payload).unwrap().len(),
            "encode-owned" => gcf_core::graph::encode(&owned).unwrap().len(),
            "decode" => gcf_core::graph::decode(&text).unwrap().symbols.len(),
            "decode-borrowed" => gcf_core::graph::decode_borrowed(&text)
                .unwrap()
                .symbols
                .len(),
            "decode-shared" => gcf_core::graph::decode_shared(&text).unwrap().symbols.len(),
            "crate-encode" => gcf_oracle::encode(&oracle).len(),
            "crate-decode" => gcf_oracle::decode(&text).unwrap().symbols.len(),
            "copy" => {
                let mut v = Vec::with_capacity(text.len());
                v.extend_from_slice(text.as_bytes());
                std::hint::black_box(&v);
                v.len()
            }
            // Floors: the cost of building (and dropping) a decoded payload's
            // vectors and strings alone, with no parsing.
            "floor-borrowed" => {
                let p: gcf_core::graph::Payload<std::borrow::Cow<str>> =
                    floor(&owned, std::borrow::Cow::Borrowed);
                p.symbols.len()
            }
            "floor-owned" => floor(&owned, String::from).symbols.len(),
            "floor-shared" => floor_shared(&owned, &endpoints).symbols.len(),
            other => panic!("unknown operation {other}"),
        };
        times.push(start.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(size);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{op} n={n} bytes={} min={:.3} ms median={:.3} ms",
        text.len(),
        times[0],
        times[times.len() / 2]
    );
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

/// Builds a payload shaped like `p` (same symbols and edges, same string
/// lengths) with strings made by `make`: what a decoder cannot avoid.
fn floor<'a, S: Default>(
    p: &'a gcf_core::graph::Payload,
    mut make: impl FnMut(&'a str) -> S,
) -> gcf_core::graph::Payload<S> {
    let mut symbols = Vec::with_capacity(p.symbols.len());
    for s in &p.symbols {
        symbols.push(gcf_core::graph::Symbol::new(
            make(std::hint::black_box(&s.qualified_name)),
            make(&s.kind),
            s.score,
            make(&s.provenance),
            s.distance,
        ));
    }
    let mut edges = Vec::with_capacity(p.edges.len());
    for e in &p.edges {
        edges.push(gcf_core::graph::Edge {
            source: make(std::hint::black_box(&e.source)),
            target: make(&e.target),
            edge_type: make(&e.edge_type),
            status: make(&e.status),
        });
    }
    gcf_core::graph::Payload {
        symbols,
        edges,
        ..gcf_core::graph::Payload::default()
    }
}

/// The shared-strings floor: one `Arc<str>` per name, cloned for each edge
/// endpoint, one per distinct label, with no parsing and no lookups.
fn floor_shared(
    p: &gcf_core::graph::Payload,
    endpoints: &[(usize, usize)],
) -> gcf_core::graph::Payload<std::sync::Arc<str>> {
    use std::sync::Arc;
    let label: Arc<str> = Arc::from("function");
    let mut symbols = Vec::with_capacity(p.symbols.len());
    for s in &p.symbols {
        symbols.push(gcf_core::graph::Symbol::new(
            Arc::from(std::hint::black_box(s.qualified_name.as_str())),
            Arc::clone(&label),
            s.score,
            Arc::clone(&label),
            s.distance,
        ));
    }
    let mut edges = Vec::with_capacity(endpoints.len());
    for &(source, target) in endpoints {
        let (source, target) = std::hint::black_box((source, target));
        edges.push(gcf_core::graph::Edge {
            source: Arc::clone(&symbols[source].qualified_name),
            target: Arc::clone(&symbols[target].qualified_name),
            edge_type: Arc::clone(&label),
            status: Arc::clone(&label),
        });
    }
    gcf_core::graph::Payload {
        symbols,
        edges,
        ..gcf_core::graph::Payload::default()
    }
}
