#!/usr/bin/env bash
# Proves gcf-core is really no_std: builds it without default features for the
# host and for wasm32-unknown-unknown (a target with no std at all).
# Route per ../shared/TOOLCHAIN.md: rustup's target if it can be added, else
# Debian's rustc with build-std.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -p gcf-core --no-default-features
if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
    || timeout 300 rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then
  cargo build -p gcf-core --no-default-features --target wasm32-unknown-unknown
else
  echo "rustup target unavailable; building wasm32 with Debian's rustc and build-std"
  need=""
  for p in rustc-web rust-web-src rust-web-llvm lld-22; do dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"; done
  if [ -n "$need" ]; then apt-get update -qq && apt-get install -y -qq $need; fi
  RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=target/wasm \
    cargo build -p gcf-core --no-default-features --target wasm32-unknown-unknown -Zbuild-std=core,alloc
fi
echo "no_std: host and wasm32-unknown-unknown builds ok"
