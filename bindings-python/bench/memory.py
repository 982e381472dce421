"""Peak memory of one large ``encode_generic``, read in place and through
the core's value tree, and of one large ``decode_generic`` against
``json.loads`` of the same records as JSON, each in a fresh interpreter
(peak RSS only grows, so one process per measurement; a decode's process
reads its text from a file, so no freed memory of building the records
hides its growth).

    target/py-test/bin/python bindings-python/bench/memory.py [records]

Prints the growth of the process's peak RSS over the call and the size of
the text. Uses the benchmark's records (``bench.records``).
"""

from __future__ import annotations

import gc
import os
import resource
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def measure(route: str, n: int) -> None:
    sys.path.insert(0, HERE)
    import bench  # noqa: E402 (the benchmark's data, next to this file)

    import gcf

    gcf._gcf._view_generic(route == "in place")
    records = bench.records(n, 1)
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    text = gcf.encode_generic(records)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{route}: peak RSS +{(after - before) / 1024:.0f} MiB for {len(text) / 2**20:.1f} MiB of GCF ({n:,} records)")


def write_texts(n: int, gcf_path: str, json_path: str) -> None:
    sys.path.insert(0, HERE)
    import json

    import bench  # noqa: E402

    import gcf

    records = {"rows": bench.records(n, 1)}
    with open(gcf_path, "w", encoding="utf-8") as f:
        f.write(gcf.encode_generic(records))
    with open(json_path, "w", encoding="utf-8") as f:
        f.write(json.dumps(records))


def measure_decode(kind: str, path: str) -> None:
    import json

    import gcf

    with open(path, encoding="utf-8") as f:
        text = f.read()
    decode = gcf.decode_generic if kind == "decode_generic" else json.loads
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    value = decode(text)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rows = len(value["rows"])
    print(f"{kind}: peak RSS +{(after - before) / 1024:.0f} MiB for {len(text) / 2**20:.1f} MiB of text ({rows:,} records)")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--route":
        measure(sys.argv[2], int(sys.argv[3]))
        return
    if len(sys.argv) > 4 and sys.argv[1] == "--texts":
        write_texts(int(sys.argv[2]), sys.argv[3], sys.argv[4])
        return
    if len(sys.argv) > 2 and sys.argv[1] == "--decode":
        measure_decode(sys.argv[2], sys.argv[3])
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    for route in ("in place", "tree"):
        subprocess.run([sys.executable, __file__, "--route", route, str(n)], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        gcf_path, json_path = os.path.join(tmp, "records.gcf"), os.path.join(tmp, "records.json")
        subprocess.run([sys.executable, __file__, "--texts", str(n), gcf_path, json_path], check=True)
        for kind, path in (("decode_generic", gcf_path), ("json.loads", json_path)):
            subprocess.run([sys.executable, __file__, "--decode", kind, path], check=True)


if __name__ == "__main__":
    main()
