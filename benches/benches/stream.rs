//! Streaming throughput: 1,000,000 symbols + 1,000,000 edges (graph, edges
//! by id) and 1,000,000 generic rows into a sink that discards bytes, with
//! gcf-core's writers and the reference crate's stream encoders (into
//! `std::io::sink()`). Throughput is in rows (lines) per second.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gcf_benches::workload::{employees, graph, oracle_edge, oracle_symbol, EMPLOYEE_FIELDS, SEED};
use gcf_core::CountingSink;

const ROWS: usize = 1_000_000;

fn stream_graph(c: &mut Criterion) {
    let w = graph(ROWS, SEED);
    let rows = w.stream(ROWS);
    let mut group = c.benchmark_group("stream_graph");
    group.throughput(Throughput::Elements(2 * ROWS as u64));
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("gcf-core", ROWS), |b| {
        b.iter(|| rows.write_core())
    });
    // The crate's encoder takes owned symbols and names edges by name.
    let theirs: Vec<gcf_oracle::Symbol> = rows
        .order
        .iter()
        .map(|&i| oracle_symbol(&w.symbols[i as usize]))
        .collect();
    drop(rows);
    let their_edges: Vec<gcf_oracle::Edge> = w.edges[..ROWS]
        .iter()
        .map(|&(s, t, ty)| {
            oracle_edge(
                &w.symbols[s as usize].qualified_name,
                &w.symbols[t as usize].qualified_name,
                ty,
            )
        })
        .collect();
    group.bench_function(BenchmarkId::new("gcf-3.1.0", ROWS), |b| {
        b.iter(|| {
            let enc = gcf_oracle::StreamEncoder::new(
                std::io::sink(),
                "bench",
                gcf_oracle::StreamOptions::default(),
            );
            for s in &theirs {
                enc.write_symbol(black_box(s));
            }
            for e in &their_edges {
                enc.write_edge(black_box(e));
            }
            enc.close();
            enc.edge_count()
        })
    });
    group.finish();
}

fn stream_generic(c: &mut Criterion) {
    let records = employees(ROWS, SEED);
    let mut group = c.benchmark_group("stream_generic");
    group.throughput(Throughput::Elements(ROWS as u64));
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("gcf-core", ROWS), |b| {
        b.iter(|| {
            use gcf_core::generic::{StreamOptions, StreamWriter};
            let mut out = StreamWriter::new(CountingSink::default(), StreamOptions::new()).unwrap();
            out.begin_table(Some("employees"), &EMPLOYEE_FIELDS)
                .unwrap();
            for r in &records {
                out.row(&r.cells()).unwrap();
            }
            out.end_table().unwrap();
            out.finish().unwrap().bytes
        })
    });
    // The crate's rows are owned values: build them outside the timed loop.
    let rows: Vec<_> = records.iter().map(|r| r.oracle_row()).collect();
    drop(records);
    group.bench_function(BenchmarkId::new("gcf-3.1.0", ROWS), |b| {
        b.iter(|| {
            let enc = gcf_oracle::GenericStreamEncoder::new(std::io::sink());
            enc.begin_array("employees", &EMPLOYEE_FIELDS);
            for r in &rows {
                enc.write_row(black_box(r));
            }
            enc.end_array();
            enc.close().unwrap();
        })
    });
    group.finish();
}

criterion_group!(benches, stream_graph, stream_generic);
criterion_main!(benches);
