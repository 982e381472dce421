#!/usr/bin/env bash
# Builds libgcf.a as a released Go module carries it, for one platform:
#   scripts/build-go-lib.sh OUT_DIR [RUST_TARGET]
# writes OUT_DIR/libgcf.a (release build, debug info stripped: the archive
# goes into every user's module cache) and OUT_DIR/ldflags, the system
# libraries the archive needs as rustc prints them for that target
# (`--print native-static-libs`), which scripts/package-go.sh puts in the
# platform's `#cgo LDFLAGS`. Without RUST_TARGET, the host's build in
# target/release. The release workflow (.github/workflows/go.yml) runs this
# once per platform; scripts/test-go-module.sh runs it for the host.
set -euo pipefail
out="${1:?usage: build-go-lib.sh OUT_DIR [RUST_TARGET]}"
target="${2:-}"
cd "$(dirname "$0")/.."
mkdir -p "$out"

dir=target/release
if [ -n "$target" ]; then dir="target/$target/release"; fi
flags="$(bash scripts/native-static-libs.sh "$target")"
printf '%s\n' "$flags" > "$out/ldflags"

# `strip -S` drops debug info with GNU, MinGW and Apple strip alike; an
# archive the host's strip cannot read is kept whole.
cp "$dir/libgcf.a" "$out/libgcf.a"
strip -S "$out/libgcf.a" 2>/dev/null || cp "$dir/libgcf.a" "$out/libgcf.a"
echo "libgcf.a ($(wc -c < "$out/libgcf.a") bytes), ldflags: $flags"
