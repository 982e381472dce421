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

step "no_std and wasm32 builds of gcf-core"
bash scripts/check-nostd.sh

if [ -x scripts/test-ffi.sh ] || [ -f scripts/test-ffi.sh ]; then
  step "C ABI (libgcf) and Go bindings"
  bash scripts/test-ffi.sh
fi

if command -v node >/dev/null; then
  step "Node package (bindings-node): napi addon, conformance, differential vs 2.5.2"
  bash scripts/test-node.sh
fi

step "all tests passed"
