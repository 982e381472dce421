#!/usr/bin/env bash
# Builds and tests everything in the workspace on a fresh machine: the Rust
# crates (unit, integration, property, doc tests), the official conformance
# suite, the no_std/wasm32 builds, and the C ABI + Go bindings when present.
# Installs what is missing (rustup components, Debian packages, Go, and the
# pinned gcf-python reference in its own venv, target/ref-venv).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

step() { printf '\n==> %s\n' "$*"; }

# Disk: a full run builds the workspace a dozen ways (debug, release, the
# portable cfg, Miri, fuzzing, WebAssembly, napi, wheels). Debug builds keep
# line tables only (backtraces keep their lines; full debug info tripled
# target/debug) and nothing is built incrementally (a run builds each thing
# once). Either stays yours to set.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}"
export CARGO_PROFILE_TEST_DEBUG="${CARGO_PROFILE_TEST_DEBUG:-line-tables-only}"
# With GCF_RECLAIM_DISK=1 (.ci/run sets it) each build directory is deleted
# once no later step reads it, so a machine with a few GB free runs it all.
reclaim() {
  [ "${GCF_RECLAIM_DISK:-0}" = 1 ] || return 0
  local d
  for d in "$@"; do
    [ -e "$d" ] || continue
    echo "(reclaimed $(du -sh "$d" | cut -f1) of $d: no later step reads it)"
    rm -rf "$d"
  done
}

command -v cargo >/dev/null || { echo "cargo is required (install Rust with rustup)"; exit 1; }

step "cargo build (workspace, all targets)"
cargo build --workspace --all-targets

step "reference gcf-python venv (target/ref-venv, for the interop tests)"
GCF_REF_PYTHON="$(bash scripts/ref-python.sh)"
export GCF_REF_PYTHON

step "cargo test (workspace; includes the differential interop tests in interop/)"
cargo test --workspace

step "conformance suite (../shared/conformance)"
cargo run -q -p gcf-spec-tests --bin gcf-conformance

# The same program built against gcf-compat (one dependency line) and
# against the gcf 3.1.0 crate must print the same bytes.
step "Rust drop-in (bindings-rust): a program for the gcf crate, built both ways"
cargo run -q -p gcf-compat-sample > target/gcf-compat-sample.out
cargo run -q -p gcf-compat-sample-reference > target/gcf-compat-sample-reference.out
diff -u target/gcf-compat-sample-reference.out target/gcf-compat-sample.out
echo "same output ($(wc -l < target/gcf-compat-sample.out) lines)"

step "Rust crates as crates.io would serve them: packaged, then used outside the workspace (the sample by its version line, the CLI by cargo install)"
bash scripts/test-crates.sh

# Broken and private intra-doc links are errors: the crates' docs are part
# of what users read.
step "rustdoc (workspace, no warnings)"
RUSTDOCFLAGS="-D warnings" cargo doc -q --workspace --no-deps

step "no_std and wasm32 builds of gcf-core"
bash scripts/check-nostd.sh

# The portable fallbacks of the SSE2 scans, compiled on x86-64 by a cfg and
# tested directly (their own target directory: different flags).
step "gcf-core unit tests on the portable (non-SSE2) paths"
RUSTFLAGS="--cfg gcf_portable" cargo test -q -p gcf-core --lib --target-dir target/portable
reclaim target/portable

step "Miri on the unit tests that reach unsafe code"
bash scripts/miri.sh
reclaim target/miri

# A short run of every fuzz target (seeded from the conformance suite) with
# a fixed libFuzzer seed, so that a red run is a regression rather than a
# random find; the long campaign is `bash scripts/fuzz.sh` (see
# fuzz/README.md).
step "fuzz smoke (every cargo-fuzz target, ${FUZZ_SMOKE_SECONDS:-20} s each)"
FUZZ_SECONDS="${FUZZ_SMOKE_SECONDS:-20}" FUZZ_SEED="${FUZZ_SMOKE_SEED:-1}" bash scripts/fuzz.sh
reclaim fuzz/target

if [ -x scripts/test-ffi.sh ] || [ -f scripts/test-ffi.sh ]; then
  step "C ABI (libgcf) and Go bindings"
  bash scripts/test-ffi.sh
  # The Windows archive's cross build (scripts/test-windows.sh).
  reclaim target/x86_64-pc-windows-gnu
fi

step "Python package (bindings-python: wheel, pytest in a fresh venv)"
bash scripts/test-python.sh
# The manylinux2014 wheel's build (its own target triple); the venvs stay.
reclaim target/x86_64-unknown-linux-gnu

step "Node package (bindings-node): napi addon, conformance, differential vs 2.5.2"
bash scripts/test-node.sh
# Native release builds end here: the C library, the wheels and the addon
# are built, and later steps use what they left beside the packages.
reclaim target/release

step "Real JSON (the conformance fixtures' files) and graphs of real code through the core, Node and Python against their references"
bash scripts/corpus-diff.sh ../shared/conformance
reclaim target/debug

step "WebAssembly (bindings-wasm): build, package tests, Bun, Deno and workerd, the Node suite on wasm, core tests on wasm32"
bash scripts/test-wasm.sh
# The package holds the module; the browser test rebuilds it only if gone.
reclaim target/wasm target/wasm-std target/wasip1

step "npm packages as installed: packed, installed into new projects with and without the platform package, loaded, bundled for the browser, type-checked"
bash scripts/test-npm-install.sh
reclaim target/napi-release

step "Node 18, 22 and 24 (official binaries from npm): the Node suite on the addon; on 24 the WebAssembly tests too"
bash scripts/test-node-versions.sh

step "Browser (headless Chromium): every conformance fixture in a page, the playground driven and checked"
bash scripts/test-browser.sh

step "all tests passed"
