//! Benchmarks of gcf-core against the reference crate (`gcf` 3.1.0) and
//! serde_json. The criterion benches live in `benches/`, the constant-memory
//! measurement in `src/bin/stream_rss.rs`, the report writer in
//! `src/bin/bench_report.rs`; `scripts/bench.sh` runs them all.

pub mod workload;
