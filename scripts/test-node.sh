#!/usr/bin/env bash
# The Node package (bindings-node/): installs its npm devDependencies (the
# napi-rs CLI, TypeScript, and the 2.5.2 reference package as
# `gcf-reference`), builds the napi addon, and runs `node --test`: the
# conformance fixtures through the public API, the differential against 2.5.2,
# ESM/CJS loading, the bin, and tsc over a sample program.
set -euo pipefail
cd "$(dirname "$0")/../bindings-node"

command -v node >/dev/null || { echo "node is required (Node 18+)"; exit 1; }
command -v npm >/dev/null || { echo "npm is required"; exit 1; }

# The per-platform optionalDependencies are the packages CI publishes
# (.github/workflows/node.yml); they are not on the registry for this version,
# so they are left out here (and `npm ci` would insist on them being locked).
npm install --no-audit --no-fund --omit=optional

# The shared JS layer (bindings-js/layer, ESM) bundled into lib/layer.cjs.
npm run build:layer

# `napi build` runs cargo for the host target and copies the addon next to
# package.json as gcf.<platform>.node, where lib/engine/native.cjs looks first.
npx napi build --platform --release --no-js --dts native.d.ts

node --test test/*.test.cjs
