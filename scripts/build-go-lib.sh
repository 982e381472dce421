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

# `strip -S` drops debug info with GNU, MinGW and Apple strip alike; a
# Windows archive cross-built on Linux needs MinGW's strip (the host's reads
# ELF only); an archive no strip here can read is kept whole.
# The prebuilt standard library for windows-gnu carries split-DWARF
# members (`*.dwo`) with no sections, which MinGW's strip refuses: they
# hold nothing a link reads, so they go first.
strip_tool=strip ar_tool=ar
case "$target" in
  *-pc-windows-gnu*)
    if command -v x86_64-w64-mingw32-strip >/dev/null; then
      strip_tool=x86_64-w64-mingw32-strip ar_tool=x86_64-w64-mingw32-ar
    fi ;;
esac
cp "$dir/libgcf.a" "$out/libgcf.a"
mapfile -t dwo < <("$ar_tool" t "$out/libgcf.a" 2>/dev/null | grep '\.dwo$' || true)
if [ "${#dwo[@]}" -gt 0 ]; then
  "$ar_tool" d "$out/libgcf.a" "${dwo[@]}" 2>/dev/null
fi
"$strip_tool" -S "$out/libgcf.a" 2>/dev/null || cp "$dir/libgcf.a" "$out/libgcf.a"
echo "libgcf.a ($(wc -c < "$out/libgcf.a") bytes), ldflags: $flags"
