//! Buffered generic-profile encode and decode on three shapes (100,000 flat
//! records, 10,000 nested orders, a keyed map of 5,000 members): gcf-core
//! (feature `generic`), the reference crate `gcf` 3.1.0 and serde_json on
//! the same value. Throughput is the GCF text's byte count.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gcf_benches::workload::{generic, SEED};

fn sample_size(name: &str) -> usize {
    if name.starts_with("employees") {
        10
    } else {
        20
    }
}

/// The GCF text each codec's throughput is counted in: ours when the
/// generic encoder is built in, else the reference crate's.
fn gcf_text(json: &serde_json::Value) -> String {
    #[cfg(feature = "generic")]
    {
        let value = gcf_core::generic::from_json(json).unwrap();
        gcf_core::generic::encode(&value).unwrap()
    }
    #[cfg(not(feature = "generic"))]
    {
        gcf_oracle::encode_generic(json).unwrap()
    }
}

fn generic_encode(c: &mut Criterion) {
    let mut group = c.benchmark_group("generic_encode");
    for (name, json) in generic::all(SEED) {
        let text = gcf_text(&json);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(sample_size(name));
        #[cfg(feature = "generic")]
        {
            let value = gcf_core::generic::from_json(&json).unwrap();
            group.bench_with_input(BenchmarkId::new("gcf-core", name), &value, |b, v| {
                b.iter(|| {
                    let mut out = Vec::new();
                    gcf_core::generic::encode_to(black_box(v), &mut out).unwrap();
                    out
                })
            });
        }
        group.bench_with_input(BenchmarkId::new("gcf-3.1.0", name), &json, |b, j| {
            b.iter(|| gcf_oracle::encode_generic(black_box(j)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("serde_json", name), &json, |b, j| {
            b.iter(|| serde_json::to_vec(black_box(j)).unwrap())
        });
    }
    group.finish();
}

fn generic_decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("generic_decode");
    for (name, json) in generic::all(SEED) {
        let text = gcf_text(&json);
        let json_bytes = serde_json::to_vec(&json).unwrap();
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(sample_size(name));
        #[cfg(feature = "generic")]
        group.bench_with_input(BenchmarkId::new("gcf-core", name), &text, |b, t| {
            b.iter(|| gcf_core::generic::decode(black_box(t)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("gcf-3.1.0", name), &text, |b, t| {
            b.iter(|| gcf_oracle::decode_generic(black_box(t)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("serde_json", name), &json_bytes, |b, j| {
            b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(j)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, generic_encode, generic_decode);
criterion_main!(benches);
