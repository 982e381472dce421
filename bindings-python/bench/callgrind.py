"""Instructions per call of graph encode and decode (100 symbols), counted
by callgrind, which repeats on a loaded machine where wall-clock does not.

Usage: python callgrind.py PYTHON — runs PYTHON (an interpreter whose `gcf`
is the package to count) under valgrind once with 1 and once with 21 calls
of each operation, and prints JSON of (I21 - I1) / 20 per operation, which
leaves out start-up, imports and building the data.

"encode" encodes one payload again and again; "encode_new" encodes a newly
built payload each time (the usual use, where reading objects for the
first time may cost more), counted as building and encoding less building
alone.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile

# Run by the interpreter under test: the bench's own 100-symbol payload.
CASE = """
import sys
sys.path.insert(0, {bench!r})
import bench, gcf
p = bench.graph(100, 1)
text = gcf.encode(p)
op, n = sys.argv[1], int(sys.argv[2])
if op == "encode":
    for _ in range(n):
        gcf.encode(p)
elif op == "decode":
    for _ in range(n):
        gcf.decode(text)
elif op == "build":
    for _ in range(n):
        bench.graph(100, 1)
else:
    for _ in range(n):
        gcf.encode(bench.graph(100, 1))
"""


def instructions(python: str, script: str, op: str, n: int) -> int:
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", python, script, op, str(n)],
        capture_output=True, text=True, check=True, cwd="/",
        # A fixed string hash: dict layouts, and so probe counts, repeat.
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    m = re.search(r"Collected : (\d+)", out.stderr)
    if m is None:
        raise SystemExit(f"no callgrind total in: {out.stderr[-500:]}")
    return int(m.group(1))


def main() -> None:
    python = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "case.py")
        with open(script, "w") as f:
            f.write(CASE.format(bench=os.path.dirname(os.path.abspath(__file__))))
        per_call = {
            op: (instructions(python, script, op, 21) - instructions(python, script, op, 1)) // 20
            for op in ("encode", "decode", "build", "encode_new")
        }
        counts = {
            "encode": per_call["encode"],
            "encode_new": per_call["encode_new"] - per_call["build"],
            "decode": per_call["decode"],
        }
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
