#!/usr/bin/env bash
# Creates (once) the reference Python environment the interop tests drive:
# a venv at target/ref-venv holding gcf-python pinned to the version the
# differential tests compare against, and prints its interpreter's path.
# Idempotent and quiet when the venv is already in place; needs only
# python3 (with its venv module) and PyPI. Set GCF_REF_PYTHON to use another
# interpreter that already has gcf-python installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PIN="gcf-python==2.8.0"
if [ -n "${GCF_REF_PYTHON:-}" ]; then
  echo "$GCF_REF_PYTHON"
  exit 0
fi
venv="$PWD/target/ref-venv"
py="$venv/bin/python"
stamp="$venv/.installed-$PIN"
if [ ! -f "$stamp" ]; then
  mkdir -p target
  # Debian's python3 may lack ensurepip: fall back to its python3-venv package.
  if ! python3 -m venv --clear "$venv" >/dev/null 2>&1; then
    if command -v apt-get >/dev/null; then
      ver=$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
      (apt-get update -qq && apt-get install -y -qq "python${ver}-venv" || apt-get install -y -qq python3-venv) >&2
    fi
    python3 -m venv --clear "$venv" >&2
  fi
  "$py" -m pip install -q --disable-pip-version-check --no-input "$PIN" >&2
  "$py" -c 'import gcf' >&2
  touch "$stamp"
fi
echo "$py"
