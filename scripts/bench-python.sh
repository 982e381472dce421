#!/usr/bin/env bash
# Benchmarks the gcf Python package against gcf-python 2.8.0 in the same run
# (each in its own interpreter: both import as `gcf`) and writes
# bindings-python/BENCH.md. Builds and installs the wheel like
# scripts/test-python.sh (set GCF_BENCH_SKIP_BUILD=1 to reuse target/py-test),
# and counts instructions per graph call of both under callgrind when
# valgrind is installed (bindings-python/bench/callgrind.py).
# Usage: bash scripts/bench-python.sh [rows to stream, default 1000000]
set -euo pipefail
cd "$(dirname "$0")/.."
rows="${1:-1000000}"
if [ -z "${GCF_BENCH_SKIP_BUILD:-}" ]; then
  build="$PWD/target/py-build"
  [ -x "$build/bin/maturin" ] || { python3 -m venv "$build" && "$build/bin/pip" install -q "maturin>=1.9,<2"; }
  rm -rf target/wheels-py
  # The wheel pip installs on CPython 3.10 and later (scripts/test-python.sh builds both).
  (cd bindings-python && "$build/bin/maturin" build --release -q -o ../target/wheels-py --no-default-features --features abi3-py310)
  [ -x target/py-test/bin/python ] || python3 -m venv target/py-test
  target/py-test/bin/pip install -q --force-reinstall --no-deps target/wheels-py/gcf_python-*.whl
fi
ref="$(bash scripts/ref-python.sh)"
# Graph payloads made from real code (bench.py's "code graphs" cases).
[ -d target/bench-inputs/code-graphs ] || python3 scripts/corpus/code_graphs.py target/bench-inputs/code-graphs
ours_json="$(cd / && "$OLDPWD/target/py-test/bin/python" "$OLDPWD/bindings-python/bench/bench.py" "$rows")"
ref_json="$(cd / && "$ref" "$OLDPWD/bindings-python/bench/bench.py" "$rows")"
# Instructions per call under callgrind, for the table that repeats on a
# loaded machine: both packages, plus (optional) GCF_BENCH_BEFORE, the
# native counts of an earlier build as callgrind.py printed them, and
# GCF_BENCH_NOTE, a paragraph printed under that table.
cg=()
if command -v valgrind >/dev/null; then
  ours_cg="$(python3 bindings-python/bench/callgrind.py "$PWD/target/py-test/bin/python")"
  ref_cg="$(python3 bindings-python/bench/callgrind.py "$ref")"
  cg=("$(python3 -c '
import json, os, sys
out = {"native": json.loads(sys.argv[1]), "2.8.0": json.loads(sys.argv[2])}
if os.environ.get("GCF_BENCH_BEFORE"):
    out["before"] = json.loads(os.environ["GCF_BENCH_BEFORE"])
if os.environ.get("GCF_BENCH_NOTE"):
    out["note"] = os.environ["GCF_BENCH_NOTE"]
print(json.dumps(out))
' "$ours_cg" "$ref_cg")")
else
  echo "valgrind not found: BENCH.md gets no instruction counts" >&2
fi
# The measurements as measured, so the report can be rewritten (a new note)
# without measuring again: python3 bindings-python/bench/report.py $(cat ...).
printf '%s\n' "$ours_json" > target/bench-python-native.json
printf '%s\n' "$ref_json" > target/bench-python-2.8.0.json
[ "${#cg[@]}" -eq 0 ] || printf '%s\n' "${cg[0]}" > target/bench-python-callgrind.json
python3 bindings-python/bench/report.py "$ours_json" "$ref_json" "${cg[@]}" > bindings-python/BENCH.md
cat bindings-python/BENCH.md
