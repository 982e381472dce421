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

# Profile wasm-release (root Cargo.toml): the whole engine in one codegen
# unit, fat LTO, no unwinding, opt-level 3. The shadow stack is
# 1 MiB, a browser main thread's budget: tests/depth.test.mjs checks the
# default depth limit fits in it. GCF_WASM_OPT_LEVEL overrides the profile's
# opt-level (for measuring, see bindings-wasm/README.md).
if [ -n "${GCF_WASM_OPT_LEVEL:-}" ]; then
  export CARGO_PROFILE_WASM_RELEASE_OPT_LEVEL="$GCF_WASM_OPT_LEVEL"
fi
export RUSTFLAGS="-C link-arg=-zstack-size=1048576"
# The standard library rebuilt with the module (nightly -Zbuild-std) and its
# optimize_for_size feature (small sort and float-formatting paths), and
# panic=immediate-abort (no panic formatting; a panic traps either way):
# 117 KB smaller (Rust's core library 166 KB -> 67 KB) at the same measured
# engine speed (bindings-wasm/README.md, "Size"). Nightly flags change: if
# the toolchain lacks them, or GCF_WASM_STD=prebuilt, the prebuilt std of
# the default toolchain is used instead (a larger module, the same tests).
std_build() {
  [ "${GCF_WASM_STD:-build}" = build ] || return 1
  rustup run nightly rustc --version >/dev/null 2>&1 || return 1
  rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^rust-src' \
    || rustup component add rust-src --toolchain nightly || return 1
  rustup target list --toolchain nightly --installed | grep -qx wasm32-unknown-unknown \
    || rustup target add wasm32-unknown-unknown --toolchain nightly || return 1
  CARGO_TARGET_DIR="$ROOT/target/wasm-std" cargo +nightly build \
    -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size \
    -Zpanic-immediate-abort --config 'profile.wasm-release.panic="immediate-abort"' \
    --profile wasm-release -p gcf-wasm --target wasm32-unknown-unknown
}
if std_build; then
  RAW="$ROOT/target/wasm-std/wasm32-unknown-unknown/wasm-release/gcf_wasm.wasm"
  STD="std rebuilt for size (nightly)"
else
  [ "${GCF_WASM_STD:-build}" = build ] && echo "note: nightly -Zbuild-std unavailable; building with the prebuilt std"
  cargo build --profile wasm-release -p gcf-wasm --target wasm32-unknown-unknown
  RAW="$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm-release/gcf_wasm.wasm"
  STD="prebuilt std"
fi

TMP="$CARGO_TARGET_DIR/bindgen"
rm -rf "$TMP" && mkdir -p "$TMP"
for t in web nodejs; do
  wasm-bindgen --target "$t" --out-dir "$TMP/$t" --out-name gcf_wasm "$RAW"
done
# One optimized module, the same bytes under both glues. -Oz: 6-8 KB
# smaller than -Os and -O3, and -O3 measured no faster; --converge would
# save 0.5 KB for twice the time (bindings-wasm/README.md, "Size").
bindings-wasm/node_modules/.bin/wasm-opt -Oz --strip-debug --strip-producers --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  "$TMP/web/gcf_wasm_bg.wasm" -o "$TMP/opt.wasm"
mkdir -p "$OUT"
for t in web nodejs; do
  rm -rf "${OUT:?}/$t" && mkdir -p "$OUT/$t"
  cp "$TMP/$t/gcf_wasm.js" "$TMP/$t/gcf_wasm.d.ts" "$OUT/$t/"
done
# The module once, in web/: the nodejs glue reads that copy, so the package
# (which every install of @blackwell-systems/gcf fetches) holds it once.
cp "$TMP/opt.wasm" "$OUT/web/gcf_wasm_bg.wasm"
NODE_GLUE="$OUT/nodejs/gcf_wasm.js"
grep -qF 'const wasmPath = `${__dirname}/gcf_wasm_bg.wasm`;' "$NODE_GLUE" \
  || { echo "wasm-bindgen's nodejs glue no longer reads \${__dirname}/gcf_wasm_bg.wasm: update build-wasm.sh"; exit 1; }
sed -i 's#const wasmPath = `${__dirname}/gcf_wasm_bg.wasm`;#const wasmPath = `${__dirname}/../web/gcf_wasm_bg.wasm`;#' "$NODE_GLUE"

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
printf 'gcf_wasm.wasm (%s): %s B from rustc, %s B after wasm-bindgen, %s B after wasm-opt -Oz (%s B gzip -9)\n' \
  "$STD" "$(size "$RAW")" "$(size "$TMP/web/gcf_wasm_bg.wasm")" "$OPT" "$GZ"
# The issue's budget: 250 KB, 100 KB gzipped. Reported, and enforced with
# GCF_WASM_SIZE_STRICT=1 (not by default: the build is over it today, see
# bindings-wasm/README.md).
if [ "$OPT" -gt 256000 ] || [ "$GZ" -gt 102400 ]; then
  echo "size budget (250 KB, 100 KB gzip): OVER"
  if [ "${GCF_WASM_SIZE_STRICT:-0}" = 1 ]; then exit 1; fi
else
  echo "size budget (250 KB, 100 KB gzip): met"
fi
