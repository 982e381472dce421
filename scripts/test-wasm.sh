#!/usr/bin/env bash
# The WebAssembly build (bindings-wasm/), on a machine with Rust and Node:
#   1. scripts/build-wasm.sh: the engine module (1 MiB stack), wasm-bindgen's
#      web and nodejs glue, wasm-opt -Oz, sizes (installs what is missing);
#   2. the package's own tests (bindings-wasm/test: the entries, init paths,
#      the Node package's engine choice, the depth limit within the 1 MiB
#      stack);
#   3. the package in Bun, Deno and Cloudflare's workerd (bindings-wasm/test/
#      runtimes: npm-pinned binaries installed by npm ci; every entry runs
#      all conformance fixtures and an API smoke, and a Worker importing the
#      .wasm as a module answers fixtures over HTTP on 127.0.0.1);
#   4. the Node package's whole test suite (bindings-node/test: every
#      conformance fixture through the API, the differential against 2.5.2,
#      streams, ESM/CJS) with the engine forced to wasm (GCF_ENGINE=wasm);
#   5. gcf-core's unit tests compiled to wasm32 (wasm32-wasip1, run by Node's
#      WASI through bindings-wasm/tools/wasi-run.mjs): the portable paths the
#      wasm build ships (no SSE2 there) run as WebAssembly.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
step() { printf '\n==> %s\n' "$*"; }

command -v node >/dev/null || { echo "node is required (Node 18+)"; exit 1; }

step "build the wasm engine and package (scripts/build-wasm.sh)"
bash scripts/build-wasm.sh

step "bindings-node's JS layer (its npm devDependencies, lib/layer.cjs)"
(
  cd bindings-node
  [ -d node_modules/gcf-reference ] && [ -d node_modules/esbuild-wasm ] \
    || npm install --no-audit --no-fund --omit=optional --loglevel=error
  npm run -s build:layer
)

step "bindings-wasm tests (entries, init, the Node package's engine choice, depth limit in a 1 MiB stack)"
(cd bindings-wasm && node --test test/*.test.mjs)

step "the package in Bun, Deno and workerd (bindings-wasm/test/runtimes)"
(cd bindings-wasm/test/runtimes && npm ci --no-audit --no-fund --loglevel=error)
GCF_RUNTIME_TESTS=1 node --test --test-reporter=spec bindings-wasm/test/runtimes/run.mjs

step "bindings-node's test suite on the wasm engine (GCF_ENGINE=wasm)"
(cd bindings-node && GCF_ENGINE=wasm node --test test/*.test.cjs)

step "gcf-core unit tests compiled to wasm32 (wasm32-wasip1 under Node's WASI)"
rustup target list --installed | grep -qx wasm32-wasip1 || rustup target add wasm32-wasip1
CARGO_TARGET_WASM32_WASIP1_RUNNER="node --no-warnings $ROOT/bindings-wasm/tools/wasi-run.mjs" \
  cargo test -q -p gcf-core --lib --target wasm32-wasip1 --target-dir target/wasip1

step "wasm: all tests passed"
