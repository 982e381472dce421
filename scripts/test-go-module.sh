#!/usr/bin/env bash
# The Go modules as a user gets them, with no checkout and no cargo: libgcf.a
# built for this platform as a release builds it (scripts/build-go-lib.sh),
# both modules packaged (scripts/package-go.sh) and served from a module
# proxy on disk (scripts/go-proxy.py), then, in new modules outside the
# repository with an empty module cache,
#   - `go get github.com/gcf-native/gcf-go-native@VERSION` and a program
#     that encodes and decodes through it;
#   - gcf-go's sample program (bindings-go/gcfgo/sample) with its one
#     replace line pointing at the published drop-in,
#     `replace github.com/blackwell-systems/gcf-go => github.com/gcf-native/gcf-go VERSION`;
#   - on a platform the module has no archive for, the build constraint
#     leaves the link file out and the unsupported-platform file in.
# GCF_GO_LIBS, when set, is a directory of archives built already (one
# GOOS_GOARCH directory each, as the release workflow collects them), used
# instead of building the host's.
# GO names the go command (default `go`): scripts/test-ffi.sh runs this with
# its Go and with Go 1.19, the version the modules' go.mod files name.
# Exits non-zero on any failure.
set -euo pipefail
go="${GO:-go}"
cd "$(dirname "$0")/.."
root="$(pwd)"
tmp="$(mktemp -d)"
cleanup() {
  # The module cache is read-only, as the go command leaves it.
  chmod -R u+w "$tmp" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

platform="$("$go" env GOOS)_$("$go" env GOARCH)"
version="v$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
libs="${GCF_GO_LIBS:-}"
if [ -z "$libs" ]; then
  libs="$tmp/libs"
  bash scripts/build-go-lib.sh "$libs/$platform"
fi
bash scripts/package-go.sh "$tmp/modules" "$libs"
python3 scripts/go-proxy.py "$tmp/proxy" "$version" \
  "github.com/gcf-native/gcf-go-native=$tmp/modules/gcf-go-native" \
  "github.com/gcf-native/gcf-go=$tmp/modules/gcf-go"
unformatted="$(gofmt -l "$tmp/modules")"
if [ -n "$unformatted" ]; then
  echo "packaged files not gofmt-formatted: $unformatted" >&2
  exit 1
fi
echo "module zips: $(du -ch "$tmp"/proxy/github.com/gcf-native/*/@v/*.zip | tail -n 1 | cut -f1) in all"

export GOPROXY="file://$tmp/proxy" GOSUMDB=off GOMODCACHE="$tmp/modcache" GOFLAGS=-mod=mod GOTOOLCHAIN=local
unset GOWORK

echo "== go get github.com/gcf-native/gcf-go-native@$version, and a program using it"
mkdir -p "$tmp/app"
cd "$tmp/app"
cat > go.mod <<'EOF'
module example.com/app

go 1.19
EOF
cat > main.go <<'EOF'
package main

import (
	"fmt"
	"os"

	gcf "github.com/gcf-native/gcf-go-native"
)

func main() {
	p := &gcf.Payload{
		Tool: "search",
		Symbols: []gcf.Symbol{
			{QualifiedName: "pkg.A", Kind: "function", Score: 0.9, Provenance: "lsp_resolved"},
			{QualifiedName: "pkg.B", Kind: "type", Score: 0.5, Provenance: "ast_inferred", Distance: 1},
		},
		Edges: []gcf.Edge{{Source: "pkg.A", Target: "pkg.B", EdgeType: "references"}},
	}
	text, err := gcf.EncodeChecked(p)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	back, err := gcf.Decode(text)
	if err != nil || len(back.Symbols) != 2 || back.Edges[0].Target != "pkg.B" {
		fmt.Fprintln(os.Stderr, "round trip failed:", err)
		os.Exit(1)
	}
	fmt.Printf("%s\n%s", gcf.Version(), text)
}
EOF
"$go" get "github.com/gcf-native/gcf-go-native@$version"
"$go" vet . github.com/gcf-native/gcf-go-native
"$go" run . > out.txt
cat out.txt
grep -q '^GCF profile=graph tool=search ' out.txt
grep -q '^@0<@1 references$' out.txt || grep -q '^@1<@0 references$' out.txt

echo "== gcf-go's sample program through a replace line to the published drop-in"
mkdir -p "$tmp/sample"
cd "$tmp/sample"
cp "$root/bindings-go/gcfgo/sample/main.go" .
cat > go.mod <<EOF
module example.com/gcf-go-sample

go 1.19

require github.com/blackwell-systems/gcf-go v1.7.1

replace github.com/blackwell-systems/gcf-go => github.com/gcf-native/gcf-go $version
EOF
"$go" run . > /dev/null
echo "sample: ok"

echo "== build constraints: the host's link file, and elsewhere the unsupported-platform file"
cd "$tmp/app"
dir="$("$go" list -f '{{.Dir}}' github.com/gcf-native/gcf-go-native)"
host="$("$go" list -f '{{join .CgoFiles " "}} {{join .GoFiles " "}}' github.com/gcf-native/gcf-go-native)"
case " $host " in *" link_$platform.go "*) ;; *) echo "host build lacks link_$platform.go: $host" >&2; exit 1 ;; esac
case " $host " in *" unsupported.go "*) echo "host build has unsupported.go" >&2; exit 1 ;; esac
other="$(GOOS=plan9 GOARCH=amd64 CGO_ENABLED=1 "$go" list -e -f '{{join .GoFiles " "}}' github.com/gcf-native/gcf-go-native)"
case " $other " in *" unsupported.go "*) ;; *) echo "plan9 build lacks unsupported.go: $other" >&2; exit 1 ;; esac
grep -q 'libgcf_is_not_prebuilt_for_this_platform' "$dir/unsupported.go"
[ -f "$dir/LICENSE" ] && [ -f "$dir/include/gcf.h" ]
echo "go module ($("$go" env GOVERSION)): ok"
