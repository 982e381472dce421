#!/usr/bin/env bash
# The npm packages as users install them: packs @blackwell-systems/gcf, this
# machine's platform package and @blackwell-systems/gcf-wasm as the publish
# workflow would, installs the tarballs into new projects (with and without the
# platform package), and checks require/import, the engine each gets, the bin,
# browser and Node bundles, Bun, Deno and the declarations there
# (bindings-node/test-install/installed.test.mjs). Needs the addon
# (scripts/test-node.sh) and the wasm package (scripts/build-wasm.sh) built.
#
# On a Linux glibc host the platform package holds an addon built as the
# release workflow builds it (.github/workflows/node.yml): cross-linked by zig
# against glibc 2.17 (zig from PyPI's `ziglang`, cargo-zigbuild from
# crates.io, both installed once), without debug info, symbols stripped.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

triple=$(cd bindings-node && node -p "require('./lib/engine/native.cjs').platformTriple()")
case "$triple" in
  linux-x64-gnu) rust_target=x86_64-unknown-linux-gnu ;;
  linux-arm64-gnu) rust_target=aarch64-unknown-linux-gnu ;;
  *) rust_target= ;;
esac
if [ -n "$rust_target" ]; then
  # zig from the venv scripts/test-python.sh made (it holds ziglang for the
  # manylinux2014 wheel), else from a venv of its own.
  zig_venv="$ROOT/target/py-build"
  [ -x "$zig_venv/bin/pip" ] || { zig_venv="$ROOT/target/zig-venv"; [ -x "$zig_venv/bin/pip" ] || python3 -m venv "$zig_venv"; }
  "$zig_venv/bin/python" -c 'import ziglang' 2>/dev/null \
    || "$zig_venv/bin/pip" install -q --disable-pip-version-check "ziglang==0.17.1"
  mkdir -p "$ROOT/target/zig-shim"
  printf '#!/bin/sh\nexec "%s/bin/python" -m ziglang "$@"\n' "$zig_venv" > "$ROOT/target/zig-shim/zig"
  chmod +x "$ROOT/target/zig-shim/zig"
  if ! command -v cargo-zigbuild >/dev/null || [ "$(cargo-zigbuild --version | awk '{print $2}')" != 0.24.1 ]; then
    cargo install -q --locked cargo-zigbuild --version 0.24.1
  fi
  out="$ROOT/target/napi-release/out"
  rm -rf "$out"
  (cd bindings-node && PATH="$ROOT/target/zig-shim:$PATH" CARGO_TARGET_DIR="$ROOT/target/napi-release" \
    CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=symbols \
    npx napi build --platform --release --no-js --cross-compile --target "$rust_target.2.17" -o "$out")
  export GCF_PLATFORM_ADDON="$out/gcf.$triple.node"
  export GCF_PLATFORM_GLIBC=2.17
fi

cd bindings-node
node --test test-install/*.test.mjs
