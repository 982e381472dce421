"""A program using the gcf API as a typical MCP server would; checked with
``mypy --strict`` against the installed stubs (test_typing.py)."""

from __future__ import annotations

import io
from typing import Any, Dict, List, Tuple

import gcf
from gcf import DecodeError, Edge, GenericOptions, Limits, Payload, Symbol
from gcf.generic_delta import GenericSet


def graph_answer(names: List[str]) -> str:
    symbols = [Symbol(qualified_name=n, kind="function", score=0.5, provenance="lsp") for n in names]
    edges = [Edge(source=names[0], target=n, edge_type="calls") for n in names[1:]]
    return gcf.encode(Payload(tool="search", symbols=symbols, edges=edges))


def read_back(text: str) -> Tuple[int, str]:
    try:
        p: Payload = gcf.decode(text, limits=Limits(max_input_len=1 << 20, max_depth=32))
    except DecodeError as e:
        cat: str = e.category
        line: int | None = e.line
        return (line or 0), cat
    return len(p.symbols), p.tool


def records(rows: List[Dict[str, Any]]) -> str:
    text: str = gcf.encode_generic(rows, GenericOptions())
    back: Any = gcf.decode_generic(text, limits=Limits(max_container_len=max(len(rows), 16)))
    assert back == rows
    return gcf.encode_generic_grouped(rows, "id", "state")


def stream(n: int) -> str:
    out = io.StringIO()
    enc = gcf.StreamEncoder(out, "t", token_budget=100)
    for i in range(n):
        enc.write_symbol(Symbol(f"pkg.S{i}", "function", 0.5, "lsp"))
    count: int = enc.symbol_count
    enc.close()
    return out.getvalue() + str(count)


def session_and_delta() -> bool:
    sess = gcf.Session()
    p = Payload(tool="t", symbols=[Symbol("a", "function", 0.1, "x")])
    first: str = gcf.encode_with_session(p, sess)
    base = GenericSet(key="id", fields=["id"], rows=[{"id": 1}])
    s = gcf.GenericDeltaSession(base, "t", gcf.size_guard())
    wire, full = s.next(GenericSet(key="id", fields=["id"], rows=[{"id": 2}]))
    root: str = gcf.pack_root(p.symbols, p.edges)
    return bool(first) and bool(wire) and full in (True, False) and root.startswith("sha256:")


def scalars(name: str) -> str:
    from gcf.scalar import MISSING, format_key, format_scalar, parse_scalar

    cell = parse_scalar("~", True)
    quoted: bool = gcf.scalar.needs_quote(name)
    return format_key(name) + "=" + format_scalar(1.5, "|") + str(cell is MISSING) + str(quoted)


if __name__ == "__main__":
    print(graph_answer(["a", "b"]), read_back("GCF x"), records([{"id": 1, "state": "open"}]), stream(2))
    print(session_and_delta(), scalars("a b"))
