#!/usr/bin/env bash
# Builds libgcf, checks the committed header is fresh, runs the C tests under
# valgrind and against an installed libgcf (scripts/test-c-install.sh), the
# Go tests (plain and -race, Go 1.19 too), then the Go modules as a release
# publishes them (scripts/test-go-module.sh). Installs cbindgen, valgrind,
# pkg-config and go with apt when missing. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
export CARGO_TERM_COLOR=never

apt_install() {
  if [ -z "${GCF_APT_UPDATED:-}" ]; then apt-get update -qq >/dev/null; GCF_APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
command -v cbindgen >/dev/null || apt_install cbindgen-web || cargo install cbindgen --version 0.29.4 --locked
command -v valgrind >/dev/null || apt_install valgrind
command -v go >/dev/null || apt_install golang-go
command -v cc >/dev/null || apt_install gcc
command -v pkg-config >/dev/null || apt_install pkgconf

echo "== cargo build --release -p gcf-ffi"
cargo build --release -p gcf-ffi

echo "== header freshness (include/gcf.h)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cbindgen --quiet --config ffi-c/cbindgen.toml --crate gcf-ffi --output "$tmp/gcf.h" ffi-c
if ! diff -u include/gcf.h "$tmp/gcf.h"; then
  echo "include/gcf.h is stale: regenerate it with" >&2
  echo "  cbindgen --config ffi-c/cbindgen.toml --crate gcf-ffi --output include/gcf.h ffi-c" >&2
  exit 1
fi
echo "include/gcf.h is up to date"

echo "== C tests under valgrind"
cc -Wall -Wextra -Werror -std=c11 -Iinclude ffi-c/tests/c/test_gcf.c target/release/libgcf.a \
  -lpthread -ldl -lm -o "$tmp/test_gcf"
valgrind --quiet --leak-check=full --errors-for-leak-kinds=all --error-exitcode=1 "$tmp/test_gcf"

echo "== libgcf installed (scripts/install-c.sh) and linked through pkg-config, shared and static"
bash scripts/test-c-install.sh

echo "== gofmt (bindings-go)"
cd bindings-go
unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
  echo "not gofmt-formatted (run gofmt -w):" >&2
  echo "$unformatted" >&2
  exit 1
fi
echo "== go test (bindings-go)"
export GOFLAGS="${GOFLAGS:-} -count=1"
# pipefail: a failing go test fails the script; tail keeps the closing lines.
go test -v ./... 2>&1 | grep -v '^=== RUN' | tail -n 40
echo "== go test -race (bindings-go)"
go test -race ./... 2>&1 | tail -n 40

# gcf-go drop-in (bindings-go/gcfgo, module github.com/blackwell-systems/gcf-go):
# vet, tests with cgo's full pointer checks, -race, and the sample program
# written against gcf-go's API, built through its one replace line.
# cgo's full pointer checks: GODEBUG=cgocheck=2 until Go 1.20, the cgocheck2
# experiment (a build setting) from Go 1.21.
go_minor="$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')"
if [ "${go_minor:-0}" -ge 21 ] 2>/dev/null; then cgocheck=(env GOEXPERIMENT=cgocheck2)
else cgocheck=(env GODEBUG=cgocheck=2); fi
cd gcfgo
echo "== go vet (bindings-go/gcfgo)"
go vet ./...
echo "== go test, full cgo pointer checks (bindings-go/gcfgo)"
"${cgocheck[@]}" go test ./... 2>&1 | tail -n 20
echo "== go test -race (bindings-go/gcfgo)"
go test -race ./... 2>&1 | tail -n 20
echo "== gcf-go sample program through the replace line (bindings-go/gcfgo/sample)"
(cd sample && go vet ./... && go run . >/dev/null && echo "sample: ok")

# The module's go.mod says go 1.19 for users on older toolchains: build and
# test it, the native package and the sample with Go 1.19 itself (Debian's
# golang-1.19-go, installed with apt when missing), with cgo's full pointer
# checks (GODEBUG=cgocheck=2 needs no rebuild before Go 1.21).
go119=/usr/lib/go-1.19/bin/go
[ -x "$go119" ] || apt_install golang-1.19-go || true
if [ ! -x "$go119" ]; then
  echo "Go 1.19 is not available ($go119 missing, apt could not install golang-1.19-go)" >&2
  exit 1
fi
echo "== Go 1.19: go vet and go test (bindings-go, bindings-go/gcfgo), the sample program"
(cd .. && GOTOOLCHAIN=local GODEBUG=cgocheck=2 "$go119" test ./... 2>&1 | tail -n 5)
GOTOOLCHAIN=local "$go119" vet ./...
GOTOOLCHAIN=local GODEBUG=cgocheck=2 "$go119" test ./... 2>&1 | tail -n 5
(cd sample && GOTOOLCHAIN=local "$go119" vet ./... && GOTOOLCHAIN=local "$go119" run . >/dev/null && echo "sample (Go 1.19): ok")

echo "== the Go modules as released: packaged with a prebuilt libgcf.a, served by a module proxy on disk, fetched with go get"
bash "$root/scripts/test-go-module.sh"
GO="$go119" bash "$root/scripts/test-go-module.sh"

echo "== windows/amd64: libgcf.a cross-built with MinGW, the C tests and the Go packages' tests run under Wine"
bash "$root/scripts/test-windows.sh"
