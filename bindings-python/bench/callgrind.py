"""Instructions per call of graph encode and decode (100 and 10 symbols),
and of their floors, counted by callgrind, which repeats on a loaded
machine where wall-clock does not.

Usage: python callgrind.py PYTHON — runs PYTHON (an interpreter whose `gcf`
is the package to count) under valgrind once with 1 and once with 21 calls
of each operation, and prints JSON of (I21 - I1) / 20 per operation, which
leaves out start-up, imports and building the data.

"encode" encodes one payload again and again; "encode_new" encodes a newly
built payload each time (the usual use, where reading objects for the
first time may cost more), counted as building and encoding less building
alone.

Two floors, run the same way under each interpreter, bound what any
implementation of 2.8.0's API can reach there. "attrs" reads every attribute
a graph encode reads, with no encoding at all and keeping nothing: a Python
function that loads each one, whose specialised `LOAD_ATTR`s are the
cheapest reads CPython offers (about a quarter of what the C-level
`getattr` of `operator.attrgetter` costs: earlier reports used that, and so
overstated this floor about fourfold). "construct" builds the
objects a graph decode returns from ready values, with no parsing at all:
each `Symbol` by its constructor (`itertools.starmap`; the native decode's
route, which measured cheaper than setting its attributes one by one) and
each `Edge` as a bare allocation (`object.__new__`, less than any way of
building one with its attributes). Both run with the garbage collector off.
"construct_native" builds the same objects by this package's own route,
cheaper than calling the classes: from the extension, `object.__new__`'s
slot and `PyObject_GenericSetAttr` (the calls its decode makes), from the
decoded payload's own strings and numbers, with no parsing; under 2.8.0's
interpreter it counts nothing.
"encode", "decode", "attrs" and "construct" are also counted for a
10-symbol payload ("..._10").

"stream" is per row of `bench.py`'s streaming loop (built in the loop and
written by `GenericStreamEncoder.write_row`), and "stream_floor" the same
loop handing each row to a builtin that does nothing (`id`): no
implementation's stream can beat 2.8.0's by more than 2.8.0's count over it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile

# Run by the interpreter under test: the bench's own payload of 100 symbols
# (10 for the "_10" operations).
CASE = """
import gc, itertools, sys
sys.path.insert(0, {bench!r})
import bench, gcf
op, n = sys.argv[1], int(sys.argv[2])
size = 10 if op.endswith("_10") else 100
op = op.removesuffix("_10")
p = bench.graph(size, 1)
text = gcf.encode(p)
if op in ("attrs", "construct"):
    # A floor is a lower bound: no collector passes, whose timing within
    # so few calls depends on what the interpreter allocated before.
    gc.disable()
if op == "attrs":
    def read_all(p):
        # Inside a function: locals are fast, and each LOAD_ATTR
        # specialises to the class's layout, the cheapest read CPython has.
        p.tool; p.token_budget; p.tokens_used; p.pack_root
        for s in p.symbols:
            s.qualified_name; s.kind; s.score; s.provenance; s.distance
        for e in p.edges:
            e.source; e.target; e.edge_type; e.status
    for _ in range(n):
        read_all(p)
elif op == "construct":
    d = gcf.decode(text)
    s_rows = [(s.qualified_name, s.kind, s.score, s.provenance, s.distance) for s in d.symbols]
    Symbol, Edge, Payload = gcf.Symbol, gcf.Edge, gcf.Payload
    edges = list(itertools.repeat(Edge, len(d.edges)))
    for _ in range(n):
        Payload(d.tool, d.tokens_used, d.token_budget, d.pack_root,
                list(itertools.starmap(Symbol, s_rows)), list(map(object.__new__, edges)))
elif op == "construct_native":
    # This package's own route to the objects (gcf._gcf._graph_objects_again:
    # `object.__new__`'s slot and `PyObject_GenericSetAttr` from the
    # extension, the same calls as its decode), made `n` times from the
    # decoded payload's own values in one call; nothing under 2.8.0.
    d = gcf.decode(text)
    gc.disable()
    again = getattr(getattr(gcf, "_gcf", None), "_graph_objects_again", None)
    if again is not None:
        again(d, n)
elif op == "encode":
    for _ in range(n):
        gcf.encode(p)
elif op == "decode":
    for _ in range(n):
        gcf.decode(text)
elif op in ("stream", "stream_floor"):
    # Per streamed row: bench.py's loop, 1,000 rows a call, into one open
    # table. The floor is the same loop handing each row to a builtin that
    # does nothing with it (`id`), the cheapest call any `write_row` can be.
    class Null:
        def __init__(self):
            self.n = 0
        def write(self, s):
            self.n += len(s)
    enc = gcf.GenericStreamEncoder(Null())
    enc.begin_array("events", ["id", "kind", "user", "value", "ok"])
    if op == "stream_floor":
        enc = type("Noop", (), {{}})()
        enc.write_row = id
    for _ in range(n):
        for i in range(1000):
            enc.write_row([i, "click", "u%d" % (i % 1000), i * 0.5, True])
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
            for op in ("encode", "decode", "build", "encode_new", "attrs", "construct",
                       "construct_native", "encode_10", "decode_10", "attrs_10", "construct_10",
                       "construct_native_10")
        }
        for op in ("stream", "stream_floor"):
            per_call[op] = (instructions(python, script, op, 21) - instructions(python, script, op, 1)) // 20_000
        counts = {op: count for op, count in per_call.items() if op != "build"}
        counts["encode_new"] = per_call["encode_new"] - per_call["build"]
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
