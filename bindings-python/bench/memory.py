"""Peak memory of one large ``encode_generic``, read in place and through
the core's value tree, each in a fresh interpreter (peak RSS only grows, so
one process per route).

    target/py-test/bin/python bindings-python/bench/memory.py [records]

Prints the growth of the process's peak RSS over the call and the size of
the output. Uses the benchmark's records (``bench.records``).
"""

from __future__ import annotations

import gc
import os
import resource
import subprocess
import sys

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


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--route":
        measure(sys.argv[2], int(sys.argv[3]))
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    for route in ("in place", "tree"):
        subprocess.run([sys.executable, __file__, "--route", route, str(n)], check=True)


if __name__ == "__main__":
    main()
