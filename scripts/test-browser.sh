#!/usr/bin/env bash
# Real-browser tests (issue 19): headless Chromium, driven by puppeteer-core,
# runs every conformance fixture in a page through the browser package and
# drives the playground (GCF text, token counts and error positions read back
# from the DOM and checked against Node). Screenshots and the in-page
# conformance result go to target/browser-test/.
#
# The package under test is bindings-wasm/package; it is built here
# (scripts/build-wasm.sh) when its generated files are missing. Installs what a
# fresh machine lacks: Debian's chromium (apt) and the npm dependencies of
# bindings-wasm/playground (js-tiktoken) and bindings-wasm/test/browser
# (puppeteer-core).
# CHROMIUM=/path/to/chrome picks another browser binary.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v node >/dev/null || { echo "node is required (Node 18+)"; exit 1; }

if [ -z "${CHROMIUM:-}" ]; then
  for c in /usr/bin/chromium /usr/bin/chromium-browser; do
    if [ -x "$c" ]; then CHROMIUM=$c; break; fi
  done
fi
if [ -z "${CHROMIUM:-}" ]; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  CHROMIUM=/usr/bin/chromium
fi
export CHROMIUM

if [ ! -f bindings-wasm/package/wasm/web/gcf_wasm_bg.wasm ] || [ ! -f bindings-wasm/package/layer.mjs ]; then
  bash scripts/build-wasm.sh
fi

# The lockfiles pin js-tiktoken and puppeteer-core (24.x: 25.x wants Node 22).
(cd bindings-wasm/playground && npm ci --no-audit --no-fund --loglevel=error)
(cd bindings-wasm/test/browser && npm ci --no-audit --no-fund --loglevel=error)

GCF_BROWSER_TESTS=1 node --test --test-reporter=spec bindings-wasm/test/browser/run.mjs
