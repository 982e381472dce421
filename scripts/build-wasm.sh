#!/usr/bin/env bash
# Builds the WebAssembly engine (bindings-wasm, crate gcf-wasm) and the JS
# glue of bindings-wasm/package/, installing what a fresh machine lacks:
#   - rustup's wasm32-unknown-unknown target (../shared/TOOLCHAIN.md);
#   - wasm-bindgen-cli at exactly the wasm-bindgen crate's version (a one-off
#     `cargo install`, several minutes);
#   - binaryen's wasm-opt from npm (Debian's binaryen is too old for the
#     features rustc emits), pinned in bindings-wasm/package.json.
# Output: bindings-wasm/package/wasm/{web,nodejs}/ (wasm-bindgen's web and
# nodejs targets over one optimized module), and the sizes on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WB_VERSION=0.2.130
OUT=bindings-wasm/package/wasm
# A target dir of its own: other flags (stack size, size-tuned profile) than
# the workspace's host builds, so the two never invalidate each other.
export CARGO_TARGET_DIR="$ROOT/target/wasm"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

if ! command -v wasm-bindgen >/dev/null || [ "$(wasm-bindgen --version | awk '{print $2}')" != "$WB_VERSION" ]; then
  echo "installing wasm-bindgen-cli $WB_VERSION (one-off, several minutes)"
  # Not --locked: its lockfile wants a webpki-roots the registry lacks.
  cargo install wasm-bindgen-cli --version "=$WB_VERSION"
fi

if [ ! -x bindings-wasm/node_modules/.bin/wasm-opt ] || [ ! -d bindings-wasm/node_modules/esbuild-wasm ]; then
  (cd bindings-wasm && npm ci --no-audit --no-fund --loglevel=error)
fi

# The whole engine in one codegen unit, size-tuned, no unwinding (a panic
# is a bug and traps). The shadow stack is 1 MiB, a browser main thread's
# budget: tests/depth.test.mjs checks the default depth limit fits in it.
export CARGO_PROFILE_RELEASE_OPT_LEVEL="${GCF_WASM_OPT_LEVEL:-3}"
export CARGO_PROFILE_RELEASE_LTO=true
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
export CARGO_PROFILE_RELEASE_PANIC=abort
export CARGO_PROFILE_RELEASE_DEBUG=0
export CARGO_PROFILE_RELEASE_STRIP=false
export RUSTFLAGS="-C link-arg=-zstack-size=1048576"
cargo build --release -p gcf-wasm --target wasm32-unknown-unknown

RAW="$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/gcf_wasm.wasm"
TMP="$CARGO_TARGET_DIR/bindgen"
rm -rf "$TMP" && mkdir -p "$TMP"
for t in web nodejs; do
  wasm-bindgen --target "$t" --out-dir "$TMP/$t" --out-name gcf_wasm "$RAW"
done
# One optimized module, the same bytes under both glues.
bindings-wasm/node_modules/.bin/wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  "$TMP/web/gcf_wasm_bg.wasm" -o "$TMP/opt.wasm"
mkdir -p "$OUT"
for t in web nodejs; do
  rm -rf "${OUT:?}/$t" && mkdir -p "$OUT/$t"
  cp "$TMP/$t/gcf_wasm.js" "$TMP/$t/gcf_wasm.d.ts" "$OUT/$t/"
  cp "$TMP/opt.wasm" "$OUT/$t/gcf_wasm_bg.wasm"
done

# The nodejs glue is CommonJS inside an ESM ("type": "module") package.
printf '{"type":"commonjs"}\n' > "$OUT/nodejs/package.json"
# The shared JS layer, bundled into the package (package/layer.mjs), and
# the Node package's declarations of the same API (package/gcf.d.ts).
node bindings-wasm/tools/build-layer.mjs
cp bindings-node/index.d.ts bindings-wasm/package/gcf.d.ts

size() { stat -c %s "$1"; }
gz() { gzip -9 -c "$1" | wc -c; }
OPT=$(size "$TMP/opt.wasm")
GZ=$(gz "$TMP/opt.wasm")
printf 'gcf_wasm.wasm: %s B from rustc, %s B after wasm-bindgen, %s B after wasm-opt -Oz (%s B gzip -9)\n' \
  "$(size "$RAW")" "$(size "$TMP/web/gcf_wasm_bg.wasm")" "$OPT" "$GZ"
# The issue's budget: 250 KB, 100 KB gzipped. Reported, and enforced with
# GCF_WASM_SIZE_STRICT=1 (not by default: the build is over it today, see
# bindings-wasm/README.md).
if [ "$OPT" -gt 256000 ] || [ "$GZ" -gt 102400 ]; then
  echo "size budget (250 KB, 100 KB gzip): OVER"
  if [ "${GCF_WASM_SIZE_STRICT:-0}" = 1 ]; then exit 1; fi
else
  echo "size budget (250 KB, 100 KB gzip): met"
fi
