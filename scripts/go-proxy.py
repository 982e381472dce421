#!/usr/bin/env python3
"""Serves module directories as a Go module proxy on disk (GOPROXY=file://...).

    go-proxy.py PROXY_DIR VERSION MODULE_PATH=DIR [MODULE_PATH=DIR ...]

Writes, for each module, what the GOPROXY protocol asks for: `@v/list`,
`@v/VERSION.info`, `@v/VERSION.mod` (the directory's go.mod) and
`@v/VERSION.zip` (every regular file under DIR, as `MODULE_PATH@VERSION/...`;
a subdirectory with a go.mod of its own is another module and is left out,
as the go command does). MODULE_PATH is the path the module is fetched by,
which for a module published for a `replace` line differs from its go.mod's.
scripts/test-go-module.sh uses it to `go get` the packaged modules the way a
user would, with no network.
"""

import json
import os
import sys
import zipfile


def escape(path: str) -> str:
    # The proxy protocol's case encoding: an upper-case letter is "!" and
    # the letter in lower case.
    return "".join("!" + c.lower() if c.isupper() else c for c in path)


def module_files(root: str):
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d for d in dirs if not os.path.exists(os.path.join(here, d, "go.mod"))
        )
        for name in sorted(files):
            full = os.path.join(here, name)
            if os.path.islink(full) or not os.path.isfile(full):
                raise SystemExit(f"{full}: not a regular file (a module zip holds none)")
            yield full, os.path.relpath(full, root).replace(os.sep, "/")


def main() -> None:
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    proxy, version = sys.argv[1], sys.argv[2]
    for spec in sys.argv[3:]:
        path, _, root = spec.partition("=")
        at = os.path.join(proxy, escape(path), "@v")
        os.makedirs(at, exist_ok=True)
        with open(os.path.join(at, "list"), "w") as f:
            f.write(version + "\n")
        with open(os.path.join(at, version + ".info"), "w") as f:
            json.dump({"Version": version, "Time": "2026-01-01T00:00:00Z"}, f)
        with open(os.path.join(root, "go.mod"), "rb") as src:
            mod = src.read()
        with open(os.path.join(at, version + ".mod"), "wb") as f:
            f.write(mod)
        with zipfile.ZipFile(os.path.join(at, version + ".zip"), "w", zipfile.ZIP_DEFLATED) as z:
            for full, rel in module_files(root):
                z.write(full, f"{path}@{version}/{rel}")


if __name__ == "__main__":
    main()
