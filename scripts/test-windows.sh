#!/usr/bin/env bash
# libgcf and the Go modules on Windows (windows/amd64), as a release ships
# them: libgcf.a cross-built for x86_64-pc-windows-gnu (scripts/build-go-lib.sh,
# MinGW-w64's gcc being the C toolchain cgo and most C builds use there),
# then, under Wine,
#   - the C test program (ffi-c/tests/c/test_gcf.c), built with MinGW's gcc
#     against the archive with -Wall -Wextra -Werror (LLP64: `long` is 32
#     bits there) and run;
#   - both Go modules packaged with that archive alone (scripts/package-go.sh),
#     each package's own test suite cross-compiled against the packaged
#     files (`GOOS=windows go test -c`) and run from the repository's
#     package directories, where the tests find the conformance fixtures
#     (../shared/conformance) as they do on Linux. Every test runs except
#     TestNativeLinks, which checks this repository's symbolic links (Wine
#     does not report them).
#
# Go's runtime and Rust's standard library import ProcessPrng from
# bcryptprimitives.dll (Windows 10 and later); Wine before 9 lacks that DLL,
# so a stand-in built from scripts/wine/bcryptprimitives.c sits beside the
# test programs.
#
# Without the fixtures beside the repository (a release workflow's checkout),
# GCF_GO_WINDOWS_NO_FIXTURES=1 skips the Go tests that read them, and says
# so; otherwise their absence fails the script.
#
# Installs, when missing: the Rust target (rustup), MinGW-w64's gcc and Wine
# (apt). GCF_GO_LIBS, when set, receives the archive (GCF_GO_LIBS/windows_amd64,
# as the release workflow collects it). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
target=x86_64-pc-windows-gnu
cc=x86_64-w64-mingw32-gcc

apt_install() {
  if [ -z "${GCF_APT_UPDATED:-}" ]; then apt-get update -qq >/dev/null; GCF_APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
# What cannot be installed stops the script, loudly: outside CI an error,
# in CI (CI set) a warning, so a machine without the Rust target's download
# or Debian's Wine still runs the rest of the suite (as scripts/miri.sh does).
unavailable() {
  printf '\n!!!!!!!!\n!!! %s: libgcf and the Go modules were NOT tested on Windows\n!!!!!!!!\n\n' "$1" >&2
  if [ -n "${CI:-}" ]; then
    echo "warning: continuing because CI is set" >&2
    exit 0
  fi
  exit 1
}
installed_targets="$(rustup target list --installed)"
case $'\n'"$installed_targets"$'\n' in
  *$'\n'"$target"$'\n'*) ;;
  *) rustup target add "$target" || unavailable "rustup could not add $target" ;;
esac
command -v "$cc" >/dev/null || apt_install gcc-mingw-w64-x86-64 || unavailable "apt could not install MinGW-w64"
command -v wine >/dev/null || apt_install wine64 wine || unavailable "apt could not install Wine"
command -v go >/dev/null || apt_install golang-go

tmp="$(mktemp -d)"
cleanup() {
  chmod -R u+w "$tmp" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
libs="${GCF_GO_LIBS:-$tmp/libs}"

echo "== libgcf.a for $target"
# (Binutils' LTO plugin complains of the bitcode sections in Rust's objects;
# those lines are noise.)
if ! bash scripts/build-go-lib.sh "$libs/windows_amd64" "$target" > "$tmp/lib.log" 2>&1; then
  grep -v '^bfd plugin: ' "$tmp/lib.log" >&2
  exit 1
fi
grep -v '^bfd plugin: ' "$tmp/lib.log" | tail -n 1
# Only this platform's archive: the packaged modules must build on Windows
# from their own files.
mkdir -p "$tmp/only"
cp -r "$libs/windows_amd64" "$tmp/only/"
bash scripts/package-go.sh "$tmp/modules" "$tmp/only"

echo "== the packages' tests, cross-compiled for windows/amd64"
export GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC="$cc" GOFLAGS=-mod=mod GOTOOLCHAIN=local
# module dir, its tests in the repository, the test program
cp bindings-go/*_test.go "$tmp/modules/gcf-go-native/"
(cd "$tmp/modules/gcf-go-native" && go test -c -o "$tmp/bin/native.test.exe" .)
cp bindings-go/gcfgo/*_test.go "$tmp/modules/gcf-go/"
(cd "$tmp/modules/gcf-go" && go test -c -o "$tmp/bin/gcfgo.test.exe" .)
unset GOOS GOARCH CC
format="$(x86_64-w64-mingw32-objdump -f "$tmp/bin/native.test.exe" 2>/dev/null)"
case "$format" in
  *"file format pei-x86-64"*) ;;
  *) echo "the test program is not a Windows executable: $format" >&2; exit 1 ;;
esac
"$cc" -shared -O2 -o "$tmp/bin/bcryptprimitives.dll" scripts/wine/bcryptprimitives.c -ladvapi32

skip='^TestNativeLinks$'
if [ ! -d ../shared/conformance ]; then
  if [ "${GCF_GO_WINDOWS_NO_FIXTURES:-0}" != 1 ]; then
    echo "../shared/conformance is missing (GCF_GO_WINDOWS_NO_FIXTURES=1 skips the tests that read it)" >&2
    exit 1
  fi
  echo "!!! ../shared/conformance is missing: the conformance tests are SKIPPED on windows/amd64"
  skip='^TestNativeLinks$|Conformance'
fi

echo "== under Wine ($(wine --version 2>/dev/null))"
export WINEPREFIX="$tmp/wine" WINEDEBUG=-all

echo "== C tests (ffi-c/tests/c/test_gcf.c), linked with the archive"
# shellcheck disable=SC2046 # the ldflags are words
"$cc" -std=c11 -Wall -Wextra -Werror -Iinclude ffi-c/tests/c/test_gcf.c "$libs/windows_amd64/libgcf.a" \
  $(cat "$libs/windows_amd64/ldflags") -o "$tmp/bin/test_gcf.exe" 2> "$tmp/cc.log" || {
  grep -v '^bfd plugin: ' "$tmp/cc.log" >&2
  exit 1
}
(cd ffi-c && wine "$tmp/bin/test_gcf.exe") > "$tmp/c.log" 2>&1 || {
  tail -n 40 "$tmp/c.log" >&2
  exit 1
}
tail -n 1 "$tmp/c.log"
grep -q '^[0-9]* passed, 0 failed' "$tmp/c.log"

echo "== Go tests"
run() {
  local dir="$1" exe="$2" log="$tmp/$2.log" status=0
  (cd "$root/$dir" && wine "$tmp/bin/$exe" -test.v -test.count=1 -test.skip "$skip" > "$log" 2>&1) || status=$?
  grep -E '^(--- FAIL|FAIL|PASS|ok)|conformance: ' "$log" | sed 's/^/  /' || true
  if [ "$status" -ne 0 ] || ! grep -q '^PASS$' "$log"; then
    echo "$dir: the Windows test program failed (exit $status):" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
  echo "$dir: $(grep -c -- '--- PASS' "$log") tests passed on windows/amd64"
}
run bindings-go native.test.exe
run bindings-go/gcfgo gcfgo.test.exe
echo "libgcf and go on windows: ok"
