#!/usr/bin/env bash
# A differential campaign over real JSON: every distinct `*.json` file (up
# to 3 MB) under the folders given, or by default under the folders any
# development machine has (the standard library and packages of python3,
# /usr/share, /usr/lib, the cargo registry, the Node package's
# node_modules, ../shared/conformance), generic-encoded by
#   - gcf-core against the `gcf` 3.1.0 crate  (benches/src/bin/corpus_diff.rs)
#   - the Node package against 2.5.2          (scripts/corpus/node.cjs)
#   - the Python package against gcf-python 2.8.0 (scripts/corpus/python.py)
# with the default options and with flattening off; and graph payloads made
# from real code (scripts/corpus/code_graphs.py over python3's standard
# library: real qualified names, about 740 payloads of 1 to 560 symbols,
# median 12), graph-encoded by all three against the same references.
# Package manifests, schemas, API descriptions and lock files have shapes no
# random generator is tuned to. Each side prints its counts by class; a
# difference the README does not list fails the script.
#
#   bash scripts/corpus-diff.sh              # the default folders
#   bash scripts/corpus-diff.sh DIR...       # these folders
#
# Needs the Node package built with its devDependencies (scripts/test-node.sh)
# and the Python test venv (scripts/test-python.sh); the reference venv is
# made here if missing (scripts/ref-python.sh). scripts/test.sh runs it on
# ../shared/conformance (the fixtures' own files) and the code graphs, data
# fixed for a given python3, so a red run is a regression; over the default
# folders it is a local campaign, whose findings depend on what the machine
# holds.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$#" -eq 0 ]; then
  set -- /usr/share /usr/lib "$HOME/.cargo/registry/src" bindings-node/node_modules ../shared/conformance
  while read -r dir; do set -- "$@" "$dir"; done < <(python3 -c '
import sysconfig
for key in ("stdlib", "purelib"):
    print(sysconfig.get_paths()[key])' | sort -u)
fi
listing="$(mktemp /tmp/gcf-corpus.XXXXXX)"
trap 'rm -rf "$listing" "$listing".*' EXIT
for dir in "$@"; do
  [ -d "$dir" ] && find "$dir" -name '*.json' -type f -size -3M -not -path '*/target/*' 2>/dev/null
done | sort -u > "$listing"
python3 scripts/corpus/code_graphs.py "$listing.graphs" >/dev/null
find "$listing.graphs" -name '*.json' | sort >> "$listing"
# /usr/lib/python3* and the stdlib can name the same files: sort -u keeps one.
echo "corpus-diff: $(wc -l < "$listing") JSON files under: $* (and the code graphs)"

[ -x target/py-test/bin/python ] || { echo "corpus-diff: run scripts/test-python.sh first (target/py-test)" >&2; exit 1; }
[ -d bindings-node/node_modules/gcf-reference ] && ls bindings-node/gcf.*.node >/dev/null 2>&1 \
  || { echo "corpus-diff: run scripts/test-node.sh first (the addon and gcf-reference)" >&2; exit 1; }

status=0
echo "== gcf-core against the gcf 3.1.0 crate"
cargo run -q -p gcf-benches --bin corpus_diff -- "$listing" || status=1
echo "== the Node package against @blackwell-systems/gcf 2.5.2"
node scripts/corpus/node.cjs "$listing" || status=1
echo "== the Python package against gcf-python 2.8.0"
ref_python="$(bash scripts/ref-python.sh)"
target/py-test/bin/python scripts/corpus/python.py encode "$listing" "$listing.ours"
"$ref_python" scripts/corpus/python.py encode "$listing" "$listing.ref"
python3 scripts/corpus/python.py compare "$listing.ours" "$listing.ref" || status=1
exit "$status"
