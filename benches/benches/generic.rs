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

/// A caller's own serde type (`Vec<EmployeeRecord>`, owned strings) to
/// text and back: gcf-core's `generic::to_string`/`from_str`, the crate
/// through `serde_json::to_value`/`from_value` (its API takes and gives a
/// `serde_json::Value`), and serde_json's own `to_string`/`from_str`; then
/// both `from_str`s into records that borrow their strings.
#[cfg(feature = "generic")]
fn generic_serde(c: &mut Criterion) {
    use gcf_benches::workload::{employee_records, EmployeeRecord, EmployeeRecordRef};
    for (name, n) in [("employees_1k", 1_000), ("employees_100k", 100_000)] {
        let rows = employee_records(n, SEED);
        let text = gcf_core::generic::to_string(&rows).unwrap();
        assert_eq!(
            text,
            gcf_oracle::encode_generic(&serde_json::to_value(&rows).unwrap()).unwrap()
        );
        let json = serde_json::to_string(&rows).unwrap();
        let samples = if n > 10_000 { 10 } else { 30 };

        let mut group = c.benchmark_group("generic_serde_encode");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(samples);
        group.bench_with_input(BenchmarkId::new("gcf-core", name), &rows, |b, r| {
            b.iter(|| gcf_core::generic::to_string(black_box(r)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("gcf-3.1.0", name), &rows, |b, r| {
            b.iter(|| {
                gcf_oracle::encode_generic(&serde_json::to_value(black_box(r)).unwrap()).unwrap()
            })
        });
        group.bench_with_input(BenchmarkId::new("serde_json", name), &rows, |b, r| {
            b.iter(|| serde_json::to_string(black_box(r)).unwrap())
        });
        group.finish();

        let mut group = c.benchmark_group("generic_serde_decode");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(samples);
        group.bench_with_input(BenchmarkId::new("gcf-core", name), &text, |b, t| {
            b.iter(|| gcf_core::generic::from_str::<Vec<EmployeeRecord>>(black_box(t)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("gcf-3.1.0", name), &text, |b, t| {
            b.iter(|| {
                serde_json::from_value::<Vec<EmployeeRecord>>(
                    gcf_oracle::decode_generic(black_box(t)).unwrap(),
                )
                .unwrap()
            })
        });
        group.bench_with_input(BenchmarkId::new("serde_json", name), &json, |b, j| {
            b.iter(|| serde_json::from_str::<Vec<EmployeeRecord>>(black_box(j)).unwrap())
        });
        group.finish();

        // The same records with `&str` fields, borrowed from the text by
        // both (no allocation per field).
        let back: Vec<EmployeeRecordRef<'_>> = gcf_core::generic::from_str(&text).unwrap();
        assert!(back
            .iter()
            .map(EmployeeRecordRef::to_owned_record)
            .eq(rows.iter().cloned()));
        let mut group = c.benchmark_group("generic_serde_decode_borrowed");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(samples);
        group.bench_with_input(BenchmarkId::new("gcf-core", name), &text, |b, t| {
            b.iter(|| {
                gcf_core::generic::from_str::<Vec<EmployeeRecordRef<'_>>>(black_box(t)).unwrap()
            })
        });
        group.bench_with_input(BenchmarkId::new("serde_json", name), &json, |b, j| {
            b.iter(|| serde_json::from_str::<Vec<EmployeeRecordRef<'_>>>(black_box(j)).unwrap())
        });
        group.finish();
    }
}

#[cfg(not(feature = "generic"))]
fn generic_serde(_: &mut Criterion) {}

criterion_group!(benches, generic_encode, generic_decode, generic_serde);
criterion_main!(benches);
