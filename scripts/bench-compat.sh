#!/usr/bin/env bash
# Benchmarks the `gcf` crate drop-in (bindings-rust, gcf-compat) against the
# crate itself and writes bindings-rust/BENCH.md (a few minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
rm -rf target/criterion-compat
cargo build --release -p gcf-benches --bin bench_report
CRITERION_HOME="$PWD/target/criterion-compat" \
  cargo bench -p gcf-benches --bench compat -- --warm-up-time 1 --measurement-time 3 --noplot
target/release/bench_report compat target/criterion-compat bindings-rust/BENCH.md
echo "wrote bindings-rust/BENCH.md"
