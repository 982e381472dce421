#!/usr/bin/env bash
# Builds the Python wheel (bindings-python/, pyo3 + maturin) and runs its
# pytest suite in a fresh venv: every conformance fixture through the public
# API, the differential test against gcf-python 2.8.0 (its own venv, from
# scripts/ref-python.sh), the typing check, the console script, and the
# FastMCP middleware against a real FastMCP server (the [fastmcp] extra).
# Needs python3 and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

make_venv() {
  # Debian's python3 may lack ensurepip: fall back to its python3-venv package.
  if ! python3 -m venv --clear "$1" >/dev/null 2>&1; then
    if command -v apt-get >/dev/null; then
      ver=$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
      (apt-get update -qq && apt-get install -y -qq "python${ver}-venv" || apt-get install -y -qq python3-venv) >&2
    fi
    python3 -m venv --clear "$1"
  fi
}

build="$root/target/py-build"
if [ ! -x "$build/bin/maturin" ]; then
  make_venv "$build"
  "$build/bin/pip" install -q --disable-pip-version-check "maturin>=1.9,<2"
fi

wheels="$root/target/wheels-py"
rm -rf "$wheels"
(cd bindings-python && "$build/bin/maturin" build --release -q -o "$wheels")
wheel=$(ls "$wheels"/gcf_python-*.whl)

venv="$root/target/py-test"
make_venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "${wheel}[fastmcp]" pytest mypy

GCF_REF_PYTHON="$(bash scripts/ref-python.sh)"
export GCF_REF_PYTHON

# From the tests folder, so `import gcf` is the installed wheel.
cd bindings-python/tests
set +e
"$venv/bin/python" -m pytest -q -p no:cacheprovider -rs .
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
[ "$rc" -eq 0 ] || exit "$rc"

# The one abi3 wheel on the oldest and the newest CPython this machine has
# beside the default (pyenv's, when present): 3.9 is the only version that
# reads strings through `bytes` objects (src/utf8.rs) and encodes generic
# values through the tree only (src/view.rs), and must load the module. The
# API, conformance and both route tests; skipped, and said so, when no other
# version is installed.
others=()
for v in 3.9 3.13; do
  py=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/$v.*/bin/python 2>/dev/null | tail -1 || true)
  [ -n "$py" ] && [ -x "$py" ] && others+=("$py")
done
if [ "${#others[@]}" -eq 0 ]; then
  echo "no CPython 3.9 or 3.13 found: the wheel was tested on $("$venv/bin/python" -V) only"
fi
for py in "${others[@]}"; do
  v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  other="$root/target/py-test-$v"
  "$py" -m venv --clear "$other"
  "$other/bin/pip" install -q --disable-pip-version-check "$wheel" pytest
  echo "CPython $v:"
  "$other/bin/python" -m pytest -q -p no:cacheprovider test_api.py test_conformance.py test_utf8_routes.py test_generic_routes.py
done
