"""Writes BENCH.md from the two JSON results of bench.py (ours, then 2.8.0),
and, when given a third argument (scripts/bench-python.sh passes it when
valgrind is installed), a JSON object {"native": ..., "2.8.0": ...} of
callgrind.py's counts for each package (and optionally "before", the
native counts of an earlier build, for a before/after column, and "note",
a paragraph printed under the table)."""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys

ours, ref = json.loads(sys.argv[1]), json.loads(sys.argv[2])


def us(s: float) -> str:
    return f"{s * 1e6:,.1f} µs"


rows = [
    ("graph encode, 10 symbols", "graph_encode_10", 20),
    ("graph encode, 100 symbols", "graph_encode_100", 20),
    ("graph encode, 1,000 symbols", "graph_encode_1000", 20),
    ("graph decode, 10 symbols", "graph_decode_10", 10),
    ("graph decode, 100 symbols", "graph_decode_100", 10),
    ("graph decode, 1,000 symbols", "graph_decode_1000", 10),
    ("generic encode, 10 records", "generic_encode_10", 20),
    ("generic encode, 1,000 records", "generic_encode_1000", 20),
    ("generic decode, 10 records", "generic_decode_10", 10),
    ("generic decode, 1,000 records", "generic_decode_1000", 10),
]
print("# Python benchmark: gcf (native) vs gcf-python 2.8.0\n")
print("Written by `bash scripts/bench-python.sh`: both packages timed in the same run, each in its own")
print("interpreter, on the same seeded data (`bindings-python/bench/bench.py`); best of 5 batches of CPU time (`time.process_time`) per case.")
print(f"CPython {platform.python_version()}, {platform.machine()}; a shared 2-core machine, so absolute times are")
print("noisy (ratios less so).")
load = os.getloadavg()
print(f"This run: load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1, 5, 15 min) on {os.cpu_count()} cores"
      f" at its end, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC.\n")
if "code_graphs" in ours and "code_graphs" in ref:
    n = ours["code_graphs"]
    rows[6:6] = [
        (f"graph encode, {n} code graphs (a call each)", "graph_encode_code", 20),
        (f"graph decode, {n} code graphs (a call each)", "graph_decode_code", 10),
    ]
print("| case | native | 2.8.0 | speed-up | target |")
print("|---|---:|---:|---:|---:|")
for label, key, target in rows:
    ratio = ref[key] / ours[key]
    mark = "met" if ratio >= target else "**missed**"
    print(f"| {label} | {us(ours[key])} | {us(ref[key])} | {ratio:.1f}x | {target}x ({mark}) |")
print("\nDecode against `json.loads` of the same records as JSON text (target: within 1.5x):\n")
print("| records | native decode_generic | json.loads | ratio |")
print("|---|---:|---:|---:|")
for n in (10, 1000):
    d, j = ours[f"generic_decode_{n}"], ours[f"json_loads_{n}"]
    print(f"| {n:,} | {us(d)} | {us(j)} | {d / j:.2f}x |")
if "code_graphs" in ours:
    print("\nThe code graphs are graph payloads made from real code (`scripts/corpus/code_graphs.py` over python3's"
          " standard library: real qualified names, mostly the size of an MCP tool result, median 12 symbols),"
          " each encoded or decoded by its own call; those naming a symbol twice, which 2.8.0 writes differently,"
          " are left out.")
s, r = ours["stream"], ref["stream"]
print(f"\nStreaming {ours['stream_rows']:,} rows through `GenericStreamEncoder` to a writer that counts bytes"
      " (target: 20x, flat memory):\n")
print("| | native | 2.8.0 |")
print("|---|---:|---:|")
print(f"| time | {s['seconds']:.2f} s | {r['seconds']:.2f} s |")
print(f"| speed-up | {r['seconds'] / s['seconds']:.1f}x | |")
print(f"| peak RSS growth | {s['rss_growth_kib']:,.0f} KiB | {r['rss_growth_kib']:,.0f} KiB |")
print(f"| bytes written | {s['bytes']:,.0f} | {r['bytes']:,.0f} |")
print("\nBoth times include the benchmark's own Python loop, which builds each row as a list and calls"
      " `write_row`: the instruction counts below put a floor under any implementation's time per row.")

if len(sys.argv) > 3:
    cg = json.loads(sys.argv[3])
    print("\nInstructions per call under callgrind (`bindings-python/bench/callgrind.py`, 100 symbols,"
          " `PYTHONHASHSEED=0`), which repeat to within about half a percent between runs on a loaded machine, where the times above do not:\n")
    # "before": the native counts of the commit this round started from, if given.
    before = cg.get("before")
    print("| case |" + (" native before |" if before else "") + " native | 2.8.0 | ratio |")
    print("|---|" + ("---:|" if before else "") + "---:|---:|---:|")
    for op, label in (("encode", "graph encode"), ("encode_new", "graph encode, newly built payload"),
                      ("decode", "graph decode")):
        if op not in cg["native"] or op not in cg["2.8.0"]:
            continue
        n, r = cg["native"][op], cg["2.8.0"][op]
        b = (f" {before[op]:,} |" if op in before else " |") if before else ""
        print(f"| {label} |{b} {n:,} | {r:,} | {r / n:.1f}x |")
    if all(k in cg[side] for side in ("native", "2.8.0") for k in ("attrs", "construct", "attrs_10")):
        print("\nFloors (same counts, `callgrind.py`): reading every attribute a graph encode reads, with no"
              " encoding and keeping nothing (a Python function loading each one: specialised `LOAD_ATTR`s,"
              " the cheapest reads CPython has), and building the objects a"
              " graph decode returns from ready values, with no parsing (each `Symbol` by its constructor,"
              " each `Edge` a bare `object.__new__`), through Python's own attribute protocol and"
              " constructors, garbage collector off. No implementation of 2.8.0's API, native or not, can"
              " beat 2.8.0 by more than 2.8.0's count over the floor (\"at most\"); counted under 2.8.0's"
              " interpreter (the same CPython):\n")
        print("| case | symbols | 2.8.0 | floor | at most | native | native vs 2.8.0 | target |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for label, op, floor, target in (("graph encode", "encode", "attrs", 20),
                                         ("graph decode", "decode", "construct", 10)):
            for suffix, symbols in (("_10", 10), ("", 100)):
                n, r, f = cg["native"][op + suffix], cg["2.8.0"][op + suffix], cg["2.8.0"][floor + suffix]
                print(f"| {label} | {symbols} | {r:,} | {f:,} | {r / f:.1f}x | {n:,} | {r / n:.1f}x |"
                      f" {target}x |")
    if all(cg["native"].get(k) for k in ("decode", "construct_native", "decode_10", "construct_native_10")):
        print("\nWhere a native graph decode's instructions go (same counts): making its objects alone, from"
              " the decoded payload's own strings and numbers by the calls the decode makes (`object.__new__`'s"
              " slot and `PyObject_GenericSetAttr` from the extension, every attribute set, each `Symbol` with"
              " its own `Components`, the previous result freed; `construct_native`), and the rest (parsing,"
              " making the strings):\n")
        print("| symbols | native decode | making the objects | the rest | 2.8.0 |")
        print("|---:|---:|---:|---:|---:|")
        for suffix, symbols in (("_10", 10), ("", 100)):
            d, c = cg["native"]["decode" + suffix], cg["native"]["construct_native" + suffix]
            print(f"| {symbols} | {d:,} | {c:,} | {d - c:,} | {cg['2.8.0']['decode' + suffix]:,} |")
    if all(k in cg[side] for side in ("native", "2.8.0") for k in ("stream", "stream_floor")):
        n, r, f = cg["native"]["stream"], cg["2.8.0"]["stream"], cg["2.8.0"]["stream_floor"]
        print("\nStreaming, instructions per row (same counts, `callgrind.py`): the benchmark's loop writing"
              " its rows, and the floor, the same loop handing each row to a builtin that does nothing"
              " (`id`), the cheapest call a `write_row` can be. No implementation of 2.8.0's API beats 2.8.0"
              " by more than its count over the floor:\n")
        b = f" {before['stream']:,} |" if before and "stream" in before else ""
        print("| case |" + (" native before |" if b else "") + " native | 2.8.0 | floor | at most | native vs 2.8.0 | target |")
        print("|---|" + ("---:|" if b else "") + "---:|---:|---:|---:|---:|---:|")
        print(f"| streamed row |{b} {n:,} | {r:,} | {f:,} | {r / f:.1f}x | {r / n:.1f}x | 20x |")
    if "note" in cg:
        print(f"\n{cg['note']}")
