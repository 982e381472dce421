#!/usr/bin/env bash
# Runs every benchmark and writes benches/REPORT.md (< 15 minutes on 2 cores).
#
#   bash scripts/bench.sh                    # everything
#   FEATURES=... bash scripts/bench.sh       # extra cargo features for gcf-benches
#   QUICK=1 bash scripts/bench.sh            # shorter criterion runs, smaller stream_rss sizes
#
# Criterion results land in target/criterion; the report reads their medians.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

features=()
if [[ -n "${FEATURES:-}" ]]; then
  features=(--features "$FEATURES")
fi
if [[ -n "${QUICK:-}" ]]; then
  crit=(--warm-up-time 0.5 --measurement-time 1 --noplot)
  sizes=(10000 100000 1000000)
  crate_sizes=(10000 100000)
else
  crit=(--warm-up-time 1 --measurement-time 3 --noplot)
  sizes=(10000 100000 1000000 10000000)
  crate_sizes=(10000 100000 1000000)
fi

rm -rf target/criterion
# Graph payloads made from real code, for the `graph_code` groups.
rm -rf target/bench-inputs/code-graphs
python3 scripts/corpus/code_graphs.py target/bench-inputs/code-graphs
cargo build --release -p gcf-benches --bins "${features[@]}"
for bench in graph generic stream; do
  cargo bench -p gcf-benches --bench "$bench" "${features[@]}" -- "${crit[@]}"
done

rss=target/stream_rss.tsv
: > "$rss"
for n in "${sizes[@]}"; do
  target/release/stream_rss core-graph "$n" >> "$rss"
  target/release/stream_rss core-generic "$n" >> "$rss"
done
for n in "${crate_sizes[@]}"; do
  target/release/stream_rss crate-graph "$n" >> "$rss"
  target/release/stream_rss crate-generic "$n" >> "$rss"
done
cat "$rss"

# The Go bindings' benchmarks (needs go; the report includes them when present).
rm -f target/go-bench.txt
if command -v go >/dev/null; then
  cargo build --release -p gcf-ffi
  (cd bindings-go && go test -run '^$' -bench . -benchmem -count 1) > target/go-bench.txt || true
  cat target/go-bench.txt
fi

# JSON in through gcf-bind against serde_json on the same bytes (issue 15), and
# the CLI's time and peak RSS on the same files. Printed here; the numbers of
# a quiet run go into benches/report-notes.md by hand.
cargo run --release -q -p gcf-benches --bin json_inputs
cargo run --release -q -p gcf-bench-json | tee target/json-in.txt
cargo build --release -q -p gcf-cli
if [ -x /usr/bin/time ]; then
  for cmd in "encode target/bench-inputs/graph_100k.json" "encode-generic target/bench-inputs/records_10mb.json"; do
    # shellcheck disable=SC2086
    /usr/bin/time -v target/release/gcf $cmd -o target/json-in.gcf 2>&1 \
      | grep -E 'Elapsed|Maximum resident' | sed "s|^|gcf $cmd: |" | tee -a target/json-in.txt
  done
fi

target/release/bench_report target/criterion "$rss" benches/report-notes.md benches/REPORT.md
echo "wrote benches/REPORT.md"
