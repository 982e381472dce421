#!/usr/bin/env bash
# Prints the system libraries a program linking libgcf.a needs, as rustc
# reports them for the target (`--print native-static-libs`), and leaves
# the archive built in target/[RUST_TARGET/]release:
#   scripts/native-static-libs.sh [RUST_TARGET]
# scripts/build-go-lib.sh puts them in a Go module's #cgo LDFLAGS and
# scripts/install-c.sh in gcf.pc's Libs.private.
set -euo pipefail
cd "$(dirname "$0")/.."
args=(--release -p gcf-ffi --lib --crate-type staticlib)
if [ -n "${1:-}" ]; then args+=(--target "$1"); fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# rustc prints the note on stderr, and only when it builds the crate: the
# flag itself changes the build's fingerprint, so it does.
if ! cargo rustc "${args[@]}" -- --print native-static-libs 2> "$log"; then
  cat "$log" >&2
  exit 1
fi
flags="$(sed -n 's/^note: native-static-libs: //p' "$log" | tail -n 1)"
if [ -z "$flags" ]; then
  echo "rustc printed no native-static-libs line:" >&2
  cat "$log" >&2
  exit 1
fi
printf '%s\n' "$flags"
