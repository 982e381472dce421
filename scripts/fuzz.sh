#!/usr/bin/env bash
# Runs every cargo-fuzz target (or those named) for a bounded time with
# memory and time limits, seeded from ../shared/conformance (built into a
# temporary corpus, never copied into the repository), with the GCF token
# dictionary. A crash leaves its input under fuzz/artifacts/<target>/ and
# fails the script.
#
#   bash scripts/fuzz.sh                 # every target, 600 s each
#   FUZZ_SECONDS=20 bash scripts/fuzz.sh # the CI smoke
#   bash scripts/fuzz.sh graph_decode    # one target
#
# FUZZ_SEED fixes libFuzzer's seed (the CI smoke sets it; a campaign
# leaves it unset for a random one). FUZZ_JOBS (default 1) runs that many
# targets at once; FUZZ_LOG_DIR keeps
# the logs (default a temporary directory); FUZZ_CORPUS_DIR keeps the corpus
# between runs. Needs cargo-fuzz (installed here if missing) and a nightly
# toolchain (or RUSTC_BOOTSTRAP=1 on stable).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${FUZZ_SECONDS:-600}"
JOBS="${FUZZ_JOBS:-1}"
LOG_DIR="${FUZZ_LOG_DIR:-$(mktemp -d /tmp/gcf-fuzz-logs.XXXXXX)}"
CORPUS="${FUZZ_CORPUS_DIR:-$(mktemp -d /tmp/gcf-fuzz-corpus.XXXXXX)}"
mkdir -p "$LOG_DIR" "$CORPUS"

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  FUZZ=(cargo +nightly fuzz)
else
  export RUSTC_BOOTSTRAP=1
  FUZZ=(cargo fuzz)
fi

if [ ! -d ../shared/conformance ]; then
  echo "fuzz.sh: ../shared/conformance is missing; seeds are needed" >&2
  exit 1
fi
python3 scripts/fuzz-seeds.py ../shared/conformance "$CORPUS"
# The conformance suite has no constant columns or value groups: the
# encoder writes those seeds (a test that also checks them).
GCF_FUZZ_SEEDS_DIR="$CORPUS/constants_groups" \
  cargo test -q -p gcf-core --test constant_group_seeds >/dev/null

TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  mapfile -t TARGETS < <(cd fuzz && "${FUZZ[@]}" list)
fi
(cd fuzz && "${FUZZ[@]}" build -O)

run_one() {
  local t="$1"
  local log="$LOG_DIR/$t.log"
  local status=0
  (cd fuzz && "${FUZZ[@]}" run -O "$t" "$CORPUS/$t" -- \
      -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -dict=gcf.dict -print_final_stats=1 ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
      >"$log" 2>&1) || status=$?
  local runs rate
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  rate=$(grep -o 'exec/s: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
  if [ $status -eq 0 ]; then
    echo "fuzz $t: ok, ${runs:-?} executions in ${SECONDS_PER_TARGET}s (${rate:-?} exec/s); log $log"
  else
    echo "fuzz $t: FAILED (see $log and fuzz/artifacts/$t/)"
    tail -30 "$log"
  fi
  return $status
}

failed=0
pids=()
for t in "${TARGETS[@]}"; do
  run_one "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$JOBS" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do
  wait "$p" || failed=1
done
exit $failed
