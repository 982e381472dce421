"""One side of the Python benchmark: times the gcf package this interpreter
imports (ours or gcf-python 2.8.0) on fixed, seeded data and prints JSON.

Run by scripts/bench-python.sh for both packages in the same run, which
writes bindings-python/BENCH.md.
"""

from __future__ import annotations

import gc
import json
import random
import resource
import sys
import time
from typing import Any, Callable, Dict, List

import gcf


def best(fn: Callable[[], Any], min_time: float = 0.3, repeat: int = 5) -> float:
    """Seconds per call: the best of `repeat` batches, each long enough to time."""
    n = 1
    while True:
        t = time.process_time()
        for _ in range(n):
            fn()
        dt = time.process_time() - t
        if dt >= min_time / repeat or n >= 1 << 20:
            break
        n *= 2
    times = []
    for _ in range(repeat):
        gc.collect()
        t = time.process_time()
        for _ in range(n):
            fn()
        times.append((time.process_time() - t) / n)
    return min(times)


def graph(n: int, seed: int) -> "gcf.Payload":
    r = random.Random(seed)
    kinds = ["function", "method", "type", "interface", "var"]
    syms = [
        gcf.Symbol(f"github.com/org/repo/pkg{i % 7}.Type{i}.Method", r.choice(kinds),
                   round(r.random(), 3), "lsp_resolved", r.choice([0, 1, 1, 2, 2, 3]))
        for i in range(n)
    ]
    edges = [gcf.Edge(syms[r.randrange(n)].qualified_name, syms[r.randrange(n)].qualified_name,
                      r.choice(["calls", "imports", "implements"])) for _ in range(2 * n)]
    return gcf.Payload(tool="context_for_task", token_budget=5000, tokens_used=1847, symbols=syms, edges=edges)


def records(n: int, seed: int) -> List[Dict[str, Any]]:
    r = random.Random(seed)
    depts = ["Engineering", "Sales", "Marketing", "Support"]
    return [
        {"id": i, "name": f"Employee {i}", "email": f"e{i}@example.com", "department": r.choice(depts),
         "salary": r.randrange(50000, 150000), "active": r.random() < 0.9, "rating": round(r.random() * 5, 2),
         "office": "HQ", "address": {"city": r.choice(["Paris", "Oslo", "Lima"]), "zip": f"{r.randrange(10000, 99999)}"}}
        for i in range(n)
    ]


class Null:
    def __init__(self) -> None:
        self.n = 0

    def write(self, s: Any) -> None:
        self.n += len(s)


def stream_rows(n: int) -> Dict[str, float]:
    out = Null()
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.process_time()
    enc = gcf.GenericStreamEncoder(out)
    enc.begin_array("events", ["id", "kind", "user", "value", "ok"])
    for i in range(n):
        enc.write_row([i, "click", "u%d" % (i % 1000), i * 0.5, True])
    enc.end_array()
    enc.close()
    dt = time.process_time() - t
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": dt, "rss_growth_kib": float(after - before), "bytes": float(out.n)}


def code_graphs() -> List["gcf.Payload"]:
    """Graph payloads made from real code (scripts/corpus/code_graphs.py over
    python3's standard library, mostly MCP-result sizes, median 12 symbols),
    from GCF_CODE_GRAPHS or target/bench-inputs/code-graphs (which
    scripts/bench-python.sh makes); those naming a symbol twice left out, as
    2.8.0 writes them differently (README). Empty when there are none."""
    import os
    from pathlib import Path

    # The payload JSON's reader lives with the script that makes them.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "corpus"))
    from code_graphs import to_payload

    folder = Path(os.environ.get("GCF_CODE_GRAPHS") or Path(__file__).resolve().parents[2] / "target/bench-inputs/code-graphs")
    payloads = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        v = json.loads(path.read_text(encoding="utf-8"))
        if len({s["qualifiedName"] for s in v["symbols"]}) < len(v["symbols"]):
            continue
        payloads.append(to_payload(gcf, v))
    return payloads


def main() -> None:
    results: Dict[str, Any] = {"version": getattr(gcf, "__version__", "?")}
    for n in (10, 100, 1000):
        p = graph(n, n)
        text = gcf.encode(p)
        results[f"graph_encode_{n}"] = best(lambda: gcf.encode(p))
        results[f"graph_decode_{n}"] = best(lambda: gcf.decode(text))
    code = code_graphs()
    if code:
        texts = [gcf.encode(p) for p in code]
        results["code_graphs"] = len(code)

        # Each result dropped before the next call, as a server drops it:
        # kept in a list, the collector would visit them all again and again.
        def encode_each() -> None:
            for p in code:
                gcf.encode(p)

        def decode_each() -> None:
            for t in texts:
                gcf.decode(t)

        results["graph_encode_code"] = best(encode_each)
        results["graph_decode_code"] = best(decode_each)
    for n in (10, 1000):
        rows = records(n, n)
        text = gcf.encode_generic(rows)
        as_json = json.dumps(rows)
        results[f"generic_encode_{n}"] = best(lambda: gcf.encode_generic(rows))
        results[f"generic_decode_{n}"] = best(lambda: gcf.decode_generic(text))
        results[f"json_loads_{n}"] = best(lambda: json.loads(as_json))
        results[f"json_dumps_{n}"] = best(lambda: json.dumps(rows))
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    results["stream_rows"] = rows
    results["stream"] = stream_rows(rows)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
