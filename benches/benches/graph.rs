//! Buffered graph encode and decode: gcf-core, the reference crate `gcf`
//! 3.1.0, and serde_json on the equivalent JSON, on 10 to 100,000 symbols;
//! plus the copy limit (encode time over the time to copy the output).
//!
//! The headline groups (`graph_encode`, `graph_decode`) use the input real
//! callers produce: [`realistic_graph`] (shuffled symbols, four-decimal
//! scores, about three edges per symbol) as an owned `Payload<String>` parsed
//! from JSON, so every string is its own allocation. `graph_encode_borrowed`
//! is the secondary form: the same workload as a `Payload<&str>` whose edges
//! reuse the symbols' own `&str` (found by address). Every gcf-core output
//! is checked byte for byte against the crate's before anything is timed.
//!
//! Throughput is always the GCF text's byte count, so MB/s ratios between
//! codecs equal time ratios.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gcf_benches::workload::{
    endpoints, floor, floor_shared, graph, oracle_from_owned, realistic_graph, repeats_a_name,
    GRAPH_SIZES, SEED,
};

fn sample_size(n: usize) -> usize {
    match n {
        0..=1_000 => 50,
        1_001..=10_000 => 20,
        _ => 10,
    }
}

fn graph_encode(c: &mut Criterion) {
    let mut group = c.benchmark_group("graph_encode");
    for n in GRAPH_SIZES {
        let w = realistic_graph(n, SEED);
        let owned = w.owned_payload();
        let theirs = oracle_from_owned(&owned);
        let json = gcf_core::graph::payload_to_json(&owned);
        let text = gcf_core::graph::encode(&owned).unwrap();
        assert_eq!(text, gcf_oracle::encode(&theirs), "{n} symbols");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(sample_size(n));
        // One-shot: what `gcf_core::graph::encode` costs a caller per call.
        group.bench_with_input(BenchmarkId::new("gcf-core", n), &owned, |b, p| {
            b.iter(|| gcf_core::graph::encode(black_box(p)).unwrap())
        });
        // One encoder kept across calls (a binding serving requests).
        let mut encoder = gcf_core::graph::Encoder::new();
        group.bench_with_input(BenchmarkId::new("gcf-core-reused", n), &owned, |b, p| {
            b.iter(|| encoder.encode(black_box(p)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("gcf-3.1.0", n), &theirs, |b, p| {
            b.iter(|| gcf_oracle::encode(black_box(p)))
        });
        group.bench_with_input(BenchmarkId::new("serde_json", n), &json, |b, j| {
            b.iter(|| serde_json::to_vec(black_box(j)).unwrap())
        });
    }
    group.finish();
}

/// The secondary form: `Payload<&str>` whose edges borrow the symbols' own
/// names (pointer-equal endpoints, the fast path of the name index).
fn graph_encode_borrowed(c: &mut Criterion) {
    let mut group = c.benchmark_group("graph_encode_borrowed");
    for n in GRAPH_SIZES {
        let w = realistic_graph(n, SEED);
        let borrowed = w.payload();
        let text = gcf_core::graph::encode(&borrowed).unwrap();
        assert_eq!(text, gcf_oracle::encode(&w.oracle_payload()), "{n}");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(sample_size(n));
        group.bench_with_input(BenchmarkId::new("gcf-core", n), &borrowed, |b, p| {
            b.iter(|| gcf_core::graph::encode(black_box(p)).unwrap())
        });
    }
    group.finish();
}

fn graph_decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("graph_decode");
    for n in GRAPH_SIZES {
        let w = realistic_graph(n, SEED);
        let owned = w.owned_payload();
        let text = gcf_core::graph::encode(&owned).unwrap();
        let json = serde_json::to_vec(&gcf_core::graph::payload_to_json(&owned)).unwrap();
        let decoded = gcf_core::graph::decode(&text).unwrap();
        let ends = endpoints(&decoded);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(sample_size(n));
        group.bench_with_input(BenchmarkId::new("gcf-core", n), &text, |b, t| {
            b.iter(|| gcf_core::graph::decode(black_box(t)).unwrap())
        });
        // Owned strings shared between a symbol and the edges naming it
        // (`Payload<Arc<str>>`): a decode API the reference crate lacks.
        group.bench_with_input(BenchmarkId::new("gcf-core-shared", n), &text, |b, t| {
            b.iter(|| gcf_core::graph::decode_shared(black_box(t)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("gcf-core-borrowed", n), &text, |b, t| {
            b.iter(|| gcf_core::graph::decode_borrowed(black_box(t)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("gcf-3.1.0", n), &text, |b, t| {
            b.iter(|| gcf_oracle::decode(black_box(t)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("serde_json", n), &json, |b, j| {
            b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(j)).unwrap())
        });
        // The floors: building and dropping the result's strings alone.
        group.bench_with_input(BenchmarkId::new("floor-owned", n), &decoded, |b, p| {
            b.iter(|| floor(black_box(p), String::from))
        });
        group.bench_with_input(BenchmarkId::new("floor-shared", n), &decoded, |b, p| {
            b.iter(|| floor_shared(black_box(p), &ends))
        });
    }
    group.finish();
}

/// The floor no encoder can beat: copying its finished output into a fresh
/// buffer. Measured in the same run as the encode it is compared with.
fn copy_limit(c: &mut Criterion) {
    let n = 100_000;
    let w = graph(n, SEED);
    let payload = w.payload();
    let text = gcf_core::graph::encode(&payload).unwrap();
    let mut group = c.benchmark_group("copy_limit");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(20);
    group.bench_with_input(BenchmarkId::new("encode", n), &payload, |b, p| {
        b.iter(|| gcf_core::graph::encode(black_box(p)).unwrap())
    });
    group.bench_with_input(BenchmarkId::new("copy", n), text.as_bytes(), |b, t| {
        b.iter(|| {
            let mut out = Vec::with_capacity(t.len());
            out.extend_from_slice(black_box(t));
            out
        })
    });
    group.finish();
}

/// Graph payloads made from real code (`scripts/corpus/code_graphs.py` over
/// python3's standard library, written by `scripts/bench.sh` to
/// `target/bench-inputs/code-graphs`, or the folder in `GCF_CODE_GRAPHS`):
/// real qualified names, mostly MCP-result sizes (median 12 symbols). One
/// iteration encodes (or decodes) every payload once, as owned
/// `Payload<String>`s parsed from their JSON. Payloads that name a symbol
/// twice are left out: the crate writes those differently (README, "Where
/// the spec and the references differ"); every other output is checked
/// byte for byte against the crate's first.
fn graph_code(c: &mut Criterion) {
    let Some(payloads) = code_graphs() else {
        eprintln!("graph_code: no code graphs (run scripts/bench.sh, or set GCF_CODE_GRAPHS)");
        return;
    };
    let theirs: Vec<gcf_oracle::Payload> = payloads.iter().map(oracle_from_owned).collect();
    let json: Vec<serde_json::Value> = payloads
        .iter()
        .map(gcf_core::graph::payload_to_json)
        .collect();
    let texts: Vec<String> = payloads
        .iter()
        .map(|p| gcf_core::graph::encode(p).unwrap())
        .collect();
    for ((text, p), q) in texts.iter().zip(&theirs).zip(&payloads) {
        assert_eq!(
            *text,
            gcf_oracle::encode(p),
            "{:?}",
            q.symbols.first().map(|s| &s.qualified_name)
        );
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    let n = payloads.len().to_string();
    let mut group = c.benchmark_group("graph_code_encode");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);
    group.bench_with_input(BenchmarkId::new("gcf-core", &n), &payloads, |b, ps| {
        b.iter(|| {
            ps.iter()
                .map(|p| gcf_core::graph::encode(black_box(p)).unwrap().len())
                .sum::<usize>()
        })
    });
    group.bench_with_input(BenchmarkId::new("gcf-3.1.0", &n), &theirs, |b, ps| {
        b.iter(|| {
            ps.iter()
                .map(|p| gcf_oracle::encode(black_box(p)).len())
                .sum::<usize>()
        })
    });
    group.bench_with_input(BenchmarkId::new("serde_json", &n), &json, |b, js| {
        b.iter(|| {
            js.iter()
                .map(|j| serde_json::to_vec(black_box(j)).unwrap().len())
                .sum::<usize>()
        })
    });
    group.finish();
    let mut group = c.benchmark_group("graph_code_decode");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);
    group.bench_with_input(BenchmarkId::new("gcf-core", &n), &texts, |b, ts| {
        b.iter(|| {
            ts.iter()
                .map(|t| gcf_core::graph::decode(black_box(t)).unwrap().symbols.len())
                .sum::<usize>()
        })
    });
    group.bench_with_input(BenchmarkId::new("gcf-core-shared", &n), &texts, |b, ts| {
        b.iter(|| {
            ts.iter()
                .map(|t| {
                    gcf_core::graph::decode_shared(black_box(t))
                        .unwrap()
                        .symbols
                        .len()
                })
                .sum::<usize>()
        })
    });
    group.bench_with_input(
        BenchmarkId::new("gcf-core-borrowed", &n),
        &texts,
        |b, ts| {
            b.iter(|| {
                ts.iter()
                    .map(|t| {
                        gcf_core::graph::decode_borrowed(black_box(t))
                            .unwrap()
                            .symbols
                            .len()
                    })
                    .sum::<usize>()
            })
        },
    );
    group.bench_with_input(BenchmarkId::new("gcf-3.1.0", &n), &texts, |b, ts| {
        b.iter(|| {
            ts.iter()
                .map(|t| gcf_oracle::decode(black_box(t)).unwrap().symbols.len())
                .sum::<usize>()
        })
    });
    group.finish();
}

/// The code graphs, without those naming a symbol twice; `None` when the
/// folder is missing or empty.
fn code_graphs() -> Option<Vec<gcf_core::graph::Payload<String>>> {
    let dir = std::env::var_os("GCF_CODE_GRAPHS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../target/bench-inputs/code-graphs")
        });
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    let payloads: Vec<_> = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "json"))
        .map(|f| {
            let bytes = std::fs::read(f).unwrap();
            gcf_bind::graph::payload_from_slice(&bytes)
                .unwrap()
                .to_owned_payload()
        })
        .filter(|p| !repeats_a_name(p))
        .collect();
    (!payloads.is_empty()).then_some(payloads)
}

criterion_group!(
    benches,
    graph_encode,
    graph_encode_borrowed,
    graph_decode,
    graph_code,
    copy_limit
);
criterion_main!(benches);
