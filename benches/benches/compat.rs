//! The `gcf` crate's API on gcf-core (`gcf-compat`, `bindings-rust/`)
//! against the crate itself (`gcf` 3.1.0), each called the way a program
//! written for the crate calls it: the crate's own types in, its own types
//! out, so every conversion `gcf-compat` makes is inside the timed call.
//! Workloads are the headline ones of `graph.rs` and `generic.rs`; every
//! output is checked equal between the two before anything is timed.
//! `bench_report compat` writes `bindings-rust/BENCH.md` from the results.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gcf_benches::workload::{generic, oracle_from_owned, realistic_graph, SEED};

const SIZES: [usize; 4] = [10, 100, 1_000, 10_000];

/// The crate's payload as the drop-in's type, field by field, each string
/// copied in the order `oracle_from_owned` copied the crate's, so both sides
/// read strings laid out alike (name resolution is bound by cache misses).
fn compat_payload(p: &gcf_oracle::Payload) -> gcf_compat::Payload {
    gcf_compat::Payload {
        tool: p.tool.clone(),
        tokens_used: p.tokens_used,
        token_budget: p.token_budget,
        pack_root: p.pack_root.clone(),
        symbols: p
            .symbols
            .iter()
            .map(|s| gcf_compat::Symbol {
                qualified_name: s.qualified_name.clone(),
                kind: s.kind.clone(),
                score: s.score,
                provenance: s.provenance.clone(),
                distance: s.distance,
                signature: s.signature.clone(),
                components: gcf_compat::Components::default(),
            })
            .collect(),
        edges: p
            .edges
            .iter()
            .map(|e| gcf_compat::Edge {
                source: e.source.clone(),
                target: e.target.clone(),
                edge_type: e.edge_type.clone(),
                status: e.status.clone(),
            })
            .collect(),
    }
}

fn sample_size(n: usize) -> usize {
    if n >= 10_000 {
        20
    } else {
        50
    }
}

fn compat_graph(c: &mut Criterion) {
    let mut encode = c.benchmark_group("compat_graph_encode");
    for n in SIZES {
        let theirs = oracle_from_owned(&realistic_graph(n, SEED).owned_payload());
        let ours = compat_payload(&theirs);
        let text = gcf_compat::encode(&ours);
        assert_eq!(text, gcf_oracle::encode(&theirs), "{n} symbols");
        encode.throughput(Throughput::Bytes(text.len() as u64));
        encode.sample_size(sample_size(n));
        encode.bench_with_input(BenchmarkId::new("gcf-compat", n), &ours, |b, p| {
            b.iter(|| gcf_compat::encode(black_box(p)))
        });
        encode.bench_with_input(BenchmarkId::new("gcf-3.1.0", n), &theirs, |b, p| {
            b.iter(|| gcf_oracle::encode(black_box(p)))
        });
    }
    encode.finish();

    let mut decode = c.benchmark_group("compat_graph_decode");
    for n in SIZES {
        let theirs = oracle_from_owned(&realistic_graph(n, SEED).owned_payload());
        let text = gcf_oracle::encode(&theirs);
        assert_eq!(
            gcf_compat::decode(&text).unwrap(),
            compat_payload(&gcf_oracle::decode(&text).unwrap()),
            "{n} symbols"
        );
        decode.throughput(Throughput::Bytes(text.len() as u64));
        decode.sample_size(sample_size(n));
        decode.bench_with_input(BenchmarkId::new("gcf-compat", n), &text, |b, t| {
            b.iter(|| gcf_compat::decode(black_box(t)).unwrap())
        });
        decode.bench_with_input(BenchmarkId::new("gcf-3.1.0", n), &text, |b, t| {
            b.iter(|| gcf_oracle::decode(black_box(t)).unwrap())
        });
    }
    decode.finish();
}

fn compat_generic(c: &mut Criterion) {
    let mut encode = c.benchmark_group("compat_generic_encode");
    for (name, json) in generic::all(SEED) {
        let text = gcf_compat::encode_generic(&json).unwrap();
        assert_eq!(text, gcf_oracle::encode_generic(&json).unwrap(), "{name}");
        encode.throughput(Throughput::Bytes(text.len() as u64));
        encode.sample_size(10);
        encode.bench_with_input(BenchmarkId::new("gcf-compat", name), &json, |b, j| {
            b.iter(|| gcf_compat::encode_generic(black_box(j)).unwrap())
        });
        encode.bench_with_input(BenchmarkId::new("gcf-3.1.0", name), &json, |b, j| {
            b.iter(|| gcf_oracle::encode_generic(black_box(j)).unwrap())
        });
    }
    encode.finish();

    let mut decode = c.benchmark_group("compat_generic_decode");
    for (name, json) in generic::all(SEED) {
        let text = gcf_compat::encode_generic(&json).unwrap();
        assert_eq!(
            gcf_compat::decode_generic(&text).unwrap(),
            gcf_oracle::decode_generic(&text).unwrap(),
            "{name}"
        );
        decode.throughput(Throughput::Bytes(text.len() as u64));
        decode.sample_size(10);
        decode.bench_with_input(BenchmarkId::new("gcf-compat", name), &text, |b, t| {
            b.iter(|| gcf_compat::decode_generic(black_box(t)).unwrap())
        });
        decode.bench_with_input(BenchmarkId::new("gcf-3.1.0", name), &text, |b, t| {
            b.iter(|| gcf_oracle::decode_generic(black_box(t)).unwrap())
        });
    }
    decode.finish();
}

criterion_group!(benches, compat_graph, compat_generic);
criterion_main!(benches);
