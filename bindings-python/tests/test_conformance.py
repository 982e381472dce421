"""Every official conformance fixture, through the public Python API.

Dispatch is on the fixture's ``operation`` field; an operation this module
does not know fails (nothing is skipped silently).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

import gcf
from conftest import conformance_dir, edge, payload, symbol, symbol_json, edge_json

FIXTURES: List[Path] = sorted(conformance_dir().rglob("*.json"))


def test_fixtures_found() -> None:
    # The suite has 281 fixtures; a wrong path must not pass vacuously.
    assert len(FIXTURES) >= 281, f"fixtures not found under {conformance_dir()}"


def is_graph(value: Any) -> bool:
    return isinstance(value, dict) and "symbols" in value


def fails_with(call: Any, want: str) -> bool:
    """Whether ``call`` raises with category ``want``, or, for the few
    fixtures whose expectedError is words of a message, with those words."""
    with pytest.raises(gcf.GcfError) as info:
        call()
    err = info.value
    assert str(err).startswith(err.category + ": ")
    if err.category == want:
        return True
    return " " in want and want.lower() in str(err).lower()


def decoded_text(fx: Dict[str, Any]) -> Any:
    if "inputBase64" in fx:
        return base64.b64decode(fx["inputBase64"])
    return fx["input"]


def snapshot_json(symbols: List[gcf.Symbol], edges: List[gcf.Edge]) -> Dict[str, Any]:
    return {
        "symbols": [symbol_json(s) for s in symbols],
        "edges": [{"source": e.source, "target": e.target, "edgeType": e.edge_type} for e in edges],
    }


def snapshot_expected(d: Dict[str, Any]) -> Dict[str, Any]:
    return snapshot_json(
        [symbol(s) for s in d.get("symbols", [])], [edge(e) for e in d.get("edges", [])]
    )


def generic_set(d: Dict[str, Any]) -> "gcf.GenericSet":
    rows = d.get("rows", [])
    fields = d.get("fields") or (list(rows[0].keys()) if rows else [])
    return gcf.GenericSet(key=d["key"], fields=fields, rows=rows, name=d.get("name") or "rows")


def run(fx: Dict[str, Any]) -> None:
    op = fx["operation"]
    if op == "encode":
        value = fx["input"]
        if is_graph(value):
            assert gcf.encode(payload(value)) == fx["expected"]
        else:
            out = gcf.encode_generic(value)
            assert out == fx["expected"]
            assert gcf.decode_generic(out) == value
    elif op == "decode":
        got = gcf.decode_generic(fx["input"])
        want = fx["expected"]
        if gcf.decode_generic(fx["input"]) is not None and isinstance(want, dict) and "symbols" in want:
            # Graph fixtures leave out header fields at their defaults.
            for k, v in got.items():
                assert want.get(k, v if not v else None) == v, k
        else:
            assert got == want
    elif op == "error":
        assert fails_with(lambda: gcf.decode_generic(decoded_text(fx)), fx["expectedError"])
    elif op == "encode-error":
        value = fx["input"]
        call = (lambda: gcf.encode(payload(value))) if is_graph(value) else (lambda: gcf.encode_generic(value))
        assert fails_with(call, fx["expectedError"])
    elif op == "roundtrip":
        out = gcf.encode_generic(fx["input"])
        assert out == fx["expected"]
        assert gcf.decode_generic(out) == fx["input"]
    elif op == "roundtrip-wire":
        assert gcf.encode_generic(gcf.decode_generic(fx["input"])) == fx["expected"]
    elif op == "pack-root":
        p = payload(fx["input"])
        assert gcf.pack_root(p.symbols, p.edges) == fx["expected"]
    elif op == "delta" and isinstance(fx["input"], dict):
        inp = fx["input"]
        d = gcf.DeltaPayload(
            tool=inp.get("tool", ""),
            base_root=inp.get("baseRoot", ""),
            new_root=inp.get("newRoot", ""),
            removed=[symbol(s) for s in inp.get("removed", [])],
            added=[symbol(s) for s in inp.get("added", [])],
            removed_edges=[edge(e) for e in inp.get("removedEdges", [])],
            added_edges=[edge(e) for e in inp.get("addedEdges", [])],
            delta_tokens=inp.get("deltaTokens", 0),
            full_tokens=inp.get("fullTokens", 0),
        )
        assert gcf.encode_delta(d) == fx["expected"]
    elif op == "delta":
        d = gcf.decode_delta(fx["input"])
        base = fx["base_snapshot"]
        base_p = payload(base)
        assert gcf.pack_root(base_p.symbols, base_p.edges) == fx["base_root"] == d.base_root
        syms, edges = gcf.verify_delta(
            base_p.symbols, base_p.edges, d.removed, d.added, d.removed_edges, d.added_edges, d.new_root
        )
        assert d.new_root == fx["new_root"]
        assert snapshot_json(syms, edges) == snapshot_expected(fx["expected_snapshot"])
    elif op == "delta-verify":
        d = gcf.decode_delta(fx["input"])
        base_p = payload(fx["base_snapshot"])
        call = lambda: gcf.verify_delta(  # noqa: E731
            base_p.symbols, base_p.edges, d.removed, d.added, d.removed_edges, d.added_edges, d.new_root
        )
        assert fails_with(call, fx["expectedError"])
    elif op == "session":
        sess = gcf.Session()
        for call in fx["calls"]:
            assert gcf.encode_with_session(payload(call["input"]), sess) == call["expected"]
    elif op == "graph-stream-encode":
        run_graph_stream(fx)
    elif op == "generic-pack-root":
        assert gcf.generic_pack_root(generic_set(fx["input"])) == fx["expected"]
    elif op == "generic-delta":
        run_generic_delta(fx)
    elif op == "generic-delta-decode":
        inp = fx["input"]
        base = generic_set(inp["base"])
        def apply() -> str:
            d = gcf.decode_generic_delta(inp["wire"])
            return gcf.generic_pack_root(gcf.verify_generic_delta(base, d, d.new_root))
        if "expectedError" in fx:
            assert fails_with(apply, fx["expectedError"])
        else:
            assert apply() == fx["expected"]
    elif op == "generic-delta-verify":
        run_generic_delta_verify(fx)
    elif op == "generic-delta-session":
        run_generic_delta_session(fx)
    else:
        pytest.fail(f"unknown operation {op!r}")


def run_graph_stream(fx: Dict[str, Any]) -> None:
    import io

    inp = fx["input"]
    opts = fx.get("options", {}) or {}
    buf = io.StringIO()
    enc = gcf.StreamEncoder(
        buf,
        tool=inp.get("tool", "") or "",
        token_budget=inp.get("tokenBudget", 0) or 0,
        labeled_trailer_counts=bool(opts.get("labeledTrailerCounts", False)),
    )
    for s in inp.get("symbols", []):
        enc.write_symbol(symbol(s))
    for e in inp.get("edges", []):
        enc.write_edge(edge(e))
    enc.close()
    assert buf.getvalue() == fx["expected"]


def run_generic_delta(fx: Dict[str, Any]) -> None:
    inp = fx["input"]
    d = gcf.GenericDeltaPayload(
        key=inp["key"],
        fields=inp["fields"],
        base_root=inp.get("baseRoot", ""),
        new_root=inp.get("newRoot", ""),
        added=inp.get("added", []),
        changed=inp.get("changed", []),
        removed=inp.get("removed", []),
        tool=inp.get("tool", ""),
        delta_tokens=inp.get("deltaTokens", 0),
        full_tokens=inp.get("fullTokens", 0),
    )
    assert gcf.encode_generic_delta(d) == fx["expected"]


def run_generic_delta_verify(fx: Dict[str, Any]) -> None:
    inp = fx["input"]
    base = generic_set(inp["base"])
    dj = inp["delta"]
    d = gcf.GenericDeltaPayload(
        key=dj.get("key", base.key),
        fields=dj.get("fields", base.fields),
        base_root=dj.get("baseRoot", ""),
        new_root=dj.get("newRoot", ""),
        added=dj.get("added", []),
        changed=dj.get("changed", []),
        removed=dj.get("removed", []),
    )
    expected_root = inp.get("expectedNewRoot", d.new_root)
    apply = lambda: gcf.generic_pack_root(gcf.verify_generic_delta(base, d, expected_root))  # noqa: E731
    if "expectedError" in fx:
        assert fails_with(apply, fx["expectedError"])
    else:
        assert apply() == fx["expected"]


def run_generic_delta_session(fx: Dict[str, Any]) -> None:
    inp = fx["input"]
    pol = inp["policy"]
    policy = gcf.fixed_n(pol.get("n", 0)) if pol["mode"] == "fixedN" else gcf.size_guard()
    sess = gcf.GenericDeltaSession(generic_set(inp["base"]), inp.get("tool", ""), policy)
    assert sess.current_full() == fx["expected"]["initialFull"]
    got = []
    for upd in inp["updates"]:
        text, full = sess.next(generic_set(upd))
        got.append({"isFull": full, "wire": text})
    assert sess.turn == len(inp["updates"])
    assert got == fx["expected"]["emissions"]


@pytest.mark.parametrize("route", ["lent", "bytes"])
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(conformance_dir())))
def test_fixture(path: Path, route: str) -> None:
    # Both ways of reading a str's text (see test_utf8_routes.py): lent by
    # the interpreter (3.10 and later) and through a bytes object (3.9).
    previous = gcf._gcf._lend_utf8(route == "lent")
    try:
        run(json.loads(path.read_text(encoding="utf-8")))
    finally:
        gcf._gcf._lend_utf8(previous)
