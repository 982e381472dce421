#!/usr/bin/env bash
# Builds the Python wheels (bindings-python/, pyo3 + maturin) and runs its
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

# The two wheels a release ships per platform (bindings-python/Cargo.toml):
# cp39-abi3 (the default build) and cp310-abi3, which pip prefers on 3.10+.
wheels="$root/target/wheels-py"
rm -rf "$wheels"
(cd bindings-python && "$build/bin/maturin" build --release -q -o "$wheels")
(cd bindings-python && "$build/bin/maturin" build --release -q -o "$wheels" --no-default-features --features abi3-py310)

# Installs into venv $1 the wheel pip picks from the two (or wheel $2), and
# checks that pip picked the one built for its interpreter.
install_wheel() {
  if [ -n "${2:-}" ]; then
    "$1/bin/pip" install -q --disable-pip-version-check --no-deps --force-reinstall "$2"
    return
  fi
  "$1/bin/pip" install -q --disable-pip-version-check --no-index --find-links "$wheels" --no-deps --force-reinstall gcf-python
  "$1/bin/python" - <<'PY'
import sys
from importlib.metadata import distribution
tags = [l.split(": ", 1)[1] for l in distribution("gcf-python").read_text("WHEEL").splitlines() if l.startswith("Tag: ")]
want = "cp39-abi3" if sys.version_info < (3, 10) else "cp310-abi3"
if not all(t.startswith(want + "-") for t in tags):
    sys.exit(f"pip installed the {tags} wheel on {sys.version.split()[0]}, not {want}")
print(f"CPython {sys.version_info[0]}.{sys.version_info[1]}: installed the {want} wheel")
PY
}

venv="$root/target/py-test"
make_venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "fastmcp>=2.11.0" pytest mypy
install_wheel "$venv"

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

# gcf-python 2.8.0's own tests, against this package.
echo "gcf-python 2.8.0's own test suite against this package:"
bash "$root/scripts/python-reference-suite.sh" "$venv/bin/python"

# The API, conformance, route and stream tests of the cp39-abi3 wheel on the
# default interpreter too: what a source build makes there, and what a 3.10+
# machine runs when only that wheel is available.
cp39=$(ls "$wheels"/gcf_python-*-cp39-abi3-*.whl)
install_wheel "$venv" "$cp39"
echo "cp39-abi3 wheel on $("$venv/bin/python" -V):"
"$venv/bin/python" -m pytest -q -p no:cacheprovider test_api.py test_conformance.py test_utf8_routes.py test_generic_routes.py test_stream_rows.py test_graph_routes.py test_collector.py test_gil.py
install_wheel "$venv"

# The wheels on the oldest and the newest CPython this machine has beside
# the default (pyenv's, when present): 3.9 is the only version that reads
# strings through `bytes` objects (src/utf8.rs) and encodes generic values
# through the tree only (src/view.rs), and must load the module. The API,
# conformance and both route tests; skipped, and said so, when no other
# version is installed. The collector tests too: its pause goes through the
# `gc` module on every version (3.9's stable ABI has no `PyGC_Disable`).
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
  "$other/bin/pip" install -q --disable-pip-version-check pytest
  install_wheel "$other"
  echo "CPython $v:"
  "$other/bin/python" -m pytest -q -p no:cacheprovider test_api.py test_conformance.py test_utf8_routes.py test_generic_routes.py test_stream_rows.py test_graph_routes.py test_collector.py test_gil.py
done

# The source distribution: what pip builds where no wheel fits (musl, other
# architectures). It must carry every crate the extension needs and build in
# pip's isolated environment (maturin from PyPI, then cargo, in a target
# directory of its own). Installed into a fresh venv, it runs the API,
# conformance and README tests.
sdist="$root/target/sdist-py"
rm -rf "$sdist"
"$build/bin/maturin" sdist -m "$root/bindings-python/Cargo.toml" -o "$sdist"
src_venv="$root/target/py-sdist"
make_venv "$src_venv"
"$src_venv/bin/pip" install -q --disable-pip-version-check pytest
env -u CARGO_TARGET_DIR "$src_venv/bin/pip" install -q --disable-pip-version-check "$sdist"/gcf_python-*.tar.gz
echo "built from the sdist ($(basename "$sdist"/gcf_python-*.tar.gz)) on $("$src_venv/bin/python" -V):"
"$src_venv/bin/python" -m pytest -q -p no:cacheprovider test_api.py test_conformance.py test_readme.py

# The release's Linux tag: a wheel for glibc 2.17 (manylinux2014), which
# the wheels above (tagged with this machine's glibc) are not. Built as the
# release workflow's manylinux image would, here by cross-linking with zig
# (ziglang from PyPI), with maturin checking every symbol the module needs
# against manylinux2014's list; then the API, conformance and README tests.
"$build/bin/python" -c 'import ziglang' 2>/dev/null \
  || "$build/bin/pip" install -q --disable-pip-version-check "ziglang==0.17.1"
portable="$root/target/wheels-py-manylinux2014"
rm -rf "$portable"
(cd "$root/bindings-python" && PATH="$build/bin:$PATH" CARGO_TARGET_DIR="$root/target/zig" \
  "$build/bin/maturin" build --release -q --zig --compatibility manylinux2014 -o "$portable")
install_wheel "$src_venv" "$(ls "$portable"/gcf_python-*manylinux2014*.whl)"
echo "manylinux2014 wheel ($(basename "$portable"/gcf_python-*.whl)):"
"$src_venv/bin/python" -m pytest -q -p no:cacheprovider test_api.py test_conformance.py test_readme.py
