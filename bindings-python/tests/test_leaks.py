"""No call leaks: the extension counts references by hand in places (strings
lent to the core, stream rows held while written, attributes set from C,
exceptions built with extra attributes), and a missed decrement shows only
as memory that grows with every call. Each case runs a call many times and
checks that the memory Python allocates (``tracemalloc``, which sees the
extension's objects too) does not grow with the count, and that the
reference counts of its inputs come back to where they were.

A leak of one small object per call is 2,000 x 30 bytes or more here, far
past the slack allowed for the interpreter's own caches."""

from __future__ import annotations

import gc
import io
import sys
import tracemalloc
from typing import Any, Callable, List

import pytest

import gcf
from conftest import under_both
from gcf import Edge, Payload, Symbol

CALLS = 2000
# Bytes the interpreter may settle into between two measurements (free
# lists, method caches, tracemalloc's own frames): one leaked object per
# call is well past it.
SLACK = 12_000


def fresh(text: str) -> str:
    """A new `str` object (not interned, not shared with a literal), so its
    reference count is this test's alone."""
    return "".join(list(text))


def graph(n: int) -> Payload:
    names = [fresh(f"pkg/mod.Sym{i}") for i in range(n)]
    symbols = [Symbol(qualified_name=names[i], kind="function", score=i / (n + 1), provenance="lsp", distance=i % 3) for i in range(n)]
    edges = [Edge(source=names[i], target=names[(i * 7 + 1) % n], edge_type="calls") for i in range(n)]
    return Payload(tool="t", token_budget=100, tokens_used=50, symbols=symbols, edges=edges)


PAYLOAD = graph(30)
TEXT = gcf.encode(PAYLOAD)
RECORDS = [
    {"id": i, "name": fresh(f"user {i}"), "tags": ["a", fresh("b")], "nested": {"x": i, "y": None}, "big": 2**40 + i, "f": i / 3}
    for i in range(20)
]
GENERIC_TEXT = gcf.encode_generic(RECORDS)
FLAT = [{"id": i, "g": i % 3, "n": fresh(f"x{i}")} for i in range(20)]


def deep_list(depth: int) -> List[Any]:
    root: List[Any] = []
    cur = root
    for _ in range(depth):
        nxt: List[Any] = []
        cur.append(nxt)
        cur = nxt
    return root


DEEP = deep_list(400)


class Sink:
    """A writer that only counts what it is given."""

    def __init__(self) -> None:
        self.n = 0

    def write(self, s: str) -> None:
        self.n += len(s)


def stream_graph() -> None:
    enc = gcf.StreamEncoder(Sink(), "t")
    for s in PAYLOAD.symbols:
        enc.write_symbol(s)
    for e in PAYLOAD.edges:
        enc.write_edge(e)
    enc.close()


def stream_generic() -> None:
    enc = gcf.GenericStreamEncoder(io.StringIO())
    enc.write_kv("k", RECORDS[0]["name"])
    enc.begin_array("rows", ["id", "name", "score", "more"])
    for r in RECORDS:
        enc.write_row([r["id"], r["name"], r["f"], r["tags"][1]])
        enc.write_row((r["id"], r["name"], None, True))
    enc.end_array()
    enc.close()


def keyed(rows: int, bump: int) -> Any:
    return gcf.GenericSet(key="id", fields=["id", "v", "n"], rows=[{"id": i, "v": i + (i % 3 == 0) * bump, "n": FLAT[i % 20]["n"]} for i in range(rows)])


BASE = keyed(20, 0)
NEXT = keyed(22, 1)
DELTA = gcf.diff_generic_sets(BASE, NEXT)
DELTA_TEXT = gcf.encode_generic_delta(DELTA)
FULL_TEXT = gcf.encode_generic_full(BASE, "t")
GRAPH_DELTA = gcf.encode_delta(
    gcf.DeltaPayload(
        tool="t",
        base_root="sha256:" + "a" * 64,
        new_root="sha256:" + "b" * 64,
        removed=[PAYLOAD.symbols[0]],
        added=[PAYLOAD.symbols[1]],
        added_edges=[PAYLOAD.edges[2]],
    )
)


def raises(call: Callable[[], Any]) -> Callable[[], None]:
    """`call`, which must raise, with its error read as callers read it."""

    def run() -> None:
        try:
            call()
        except Exception as e:  # noqa: BLE001 - every error class is exercised
            str(e)
            getattr(e, "category", None)
            getattr(e, "line", None)
            getattr(e, "column", None)
        else:
            raise AssertionError("expected an error")

    return run


CASES = {
    "encode": lambda: gcf.encode(PAYLOAD),
    "encode, strings copied": lambda: under_both(gcf._gcf._lend_utf8, lambda: gcf.encode(PAYLOAD)),
    "encode from C": lambda: gcf._gcf.encode(PAYLOAD),
    "decode": lambda: gcf.decode(TEXT),
    "encode_with_session": lambda: gcf.encode_with_session(PAYLOAD, gcf.Session()),
    "a session decoder": lambda: session_decode(),
    "error: a session decoder's unknown reference": raises(lambda: gcf.SessionDecoder().decode(SESSION_TEXTS[1])),
    "pack_root": lambda: gcf.pack_root(PAYLOAD.symbols, PAYLOAD.edges),
    "encode_generic": lambda: gcf.encode_generic(RECORDS),
    "encode_generic through the tree": lambda: under_both(gcf._gcf._view_generic, lambda: gcf.encode_generic(RECORDS)),
    "encode_generic no_flatten": lambda: gcf.encode_generic(RECORDS, gcf.GenericOptions(no_flatten=True)),
    "encode_generic_grouped": lambda: gcf.encode_generic_grouped(FLAT, "id", "g"),
    "decode_generic": lambda: gcf.decode_generic(GENERIC_TEXT),
    "decode_generic bytes": lambda: gcf.decode_generic(GENERIC_TEXT.encode()),
    "graph stream": stream_graph,
    "generic stream": stream_generic,
    "generic pack root": lambda: gcf.generic_pack_root(BASE),
    "diff and encode a generic delta": lambda: gcf.encode_generic_delta(gcf.diff_generic_sets(BASE, NEXT)),
    "decode a generic delta": lambda: gcf.decode_generic_delta(DELTA_TEXT),
    "decode a full keyed payload": lambda: gcf.decode_generic_full(FULL_TEXT),
    "error: graph decode": raises(lambda: gcf.decode("GCF profile=graph\n@x bad\n")),
    "error: generic decode": raises(lambda: gcf.decode_generic("GCF profile=generic\n## [2]{a}\n1\n")),
    "error: generic decode, bad UTF-8": raises(lambda: gcf.decode_generic(b"GCF profile=generic\nx=\xff\n")),
    "error: generic decode, too deep": raises(lambda: gcf.decode_generic("GCF profile=generic\n" + "".join("  " * i + "## a\n" for i in range(300)))),
    "error: int beyond int64": raises(lambda: gcf.encode_generic({"a": [1, 2**70]})),
    "error: NaN": raises(lambda: gcf.encode_generic({"a": [float("nan")]})),
    "error: too deep to encode": raises(lambda: gcf.encode_generic(DEEP)),
    "error: a score that is not a number": raises(
        lambda: gcf.encode(Payload(tool="t", symbols=[Symbol(qualified_name=RECORDS[0]["name"], kind="f", score="x", provenance="p", distance=0)]))  # type: ignore[arg-type]
    ),
    "error: a score that is not finite": raises(
        lambda: gcf.encode(Payload(tool="t", symbols=[Symbol(qualified_name=RECORDS[0]["name"], kind="f", score=float("nan"), provenance="p", distance=0)]))
    ),
    "error: a line in a closed stream": raises(lambda: closed_stream().write_kv("k", RECORDS[0]["name"])),
    "error: a closed graph stream": raises(lambda: closed_graph_stream().write_symbol(PAYLOAD.symbols[0])),
    "encode a graph delta": lambda: gcf.encode_delta(gcf.decode_delta(GRAPH_DELTA)),
}


def session_texts() -> List[str]:
    producer = gcf.Session()
    return [gcf.encode_with_session(PAYLOAD, producer) for _ in range(2)]


SESSION_TEXTS = session_texts()


def session_decode() -> None:
    """Both payloads of a session, the second all bare references."""
    consumer = gcf.SessionDecoder()
    for t in SESSION_TEXTS:
        consumer.decode(t)


def closed_stream() -> Any:
    enc = gcf.GenericStreamEncoder(io.StringIO())
    enc.begin_array("rows", ["a", "b"])
    enc.close()
    return enc


def closed_graph_stream() -> Any:
    enc = gcf.StreamEncoder(Sink(), "t")
    enc.close()
    return enc


def traced_growth(call: Callable[[], Any], calls: int) -> int:
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(calls):
        call()
    gc.collect()
    return tracemalloc.get_traced_memory()[0] - before


# Objects every case reads: their counts must come back after each call.
WATCHED = [PAYLOAD, PAYLOAD.symbols[0], PAYLOAD.symbols[0].qualified_name, PAYLOAD.edges[0], RECORDS, RECORDS[0], RECORDS[0]["name"], RECORDS[0]["tags"][1], FLAT[0]["n"], BASE, TEXT, GENERIC_TEXT, DEEP]


@pytest.mark.parametrize("name", list(CASES))
def test_no_growth_with_the_number_of_calls(name: str) -> None:
    call = CASES[name]
    for _ in range(200):  # warm caches and free lists
        call()
    gc.collect()  # what an earlier case's frames still held
    counts = [sys.getrefcount(o) for o in WATCHED]
    tracemalloc.start()
    try:
        growth = traced_growth(call, CALLS)
    finally:
        tracemalloc.stop()
    assert growth < SLACK, f"{name}: {growth} bytes more after {CALLS} calls"
    assert [sys.getrefcount(o) for o in WATCHED] == counts, f"{name}: an input's reference count changed"


def test_the_check_sees_a_leak() -> None:
    """The measure itself: one kept object per call is caught."""
    kept: List[Any] = []
    tracemalloc.start()
    try:
        growth = traced_growth(lambda: kept.append(fresh("leaked")), CALLS)
    finally:
        tracemalloc.stop()
    assert growth >= SLACK
