#!/usr/bin/env bash
# The npm packages as users install them: packs @blackwell-systems/gcf, this
# machine's platform package and @blackwell-systems/gcf-wasm as the publish
# workflow would, installs the tarballs into new projects (with and without the
# platform package), and checks require/import, the engine each gets, the bin,
# a browser bundle and the declarations there
# (bindings-node/test-install/installed.test.mjs). Needs the addon
# (scripts/test-node.sh) and the wasm package (scripts/build-wasm.sh) built.
set -euo pipefail
cd "$(dirname "$0")/../bindings-node"
node --test test-install/
