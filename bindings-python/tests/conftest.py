"""Shared test helpers: fixture location, graph JSON <-> dataclasses, and
running a call down both sides of a route switch."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Dict, List

import gcf

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def conformance_dir() -> Path:
    """The official fixtures: ../shared/conformance from the repository root."""
    override = os.environ.get("GCF_CONFORMANCE")
    return Path(override) if override else (REPO / ".." / "shared" / "conformance").resolve()


def under_both(switch: Callable[[bool], Any], call: Callable[[], Any]) -> List[Any]:
    """Runs ``call`` with a route switched on and then off (``switch(on)``,
    one of the extension's private test hooks) and returns both results, or
    the type and message of what each raised; leaves the switch on."""
    out: List[Any] = []
    for on in (True, False):
        switch(on)
        try:
            out.append(call())
        except Exception as e:  # compared by type and message
            out.append((type(e), str(e)))
    switch(True)
    return out


def symbol(d: Dict[str, Any]) -> gcf.Symbol:
    return gcf.Symbol(
        qualified_name=d.get("qualifiedName", ""),
        kind=d.get("kind", ""),
        score=d.get("score", 0.0),
        provenance=d.get("provenance", ""),
        distance=d.get("distance", 0),
    )


def edge(d: Dict[str, Any]) -> gcf.Edge:
    return gcf.Edge(
        source=d.get("source", ""),
        target=d.get("target", ""),
        edge_type=d.get("edgeType", ""),
        status=d.get("status", "") or "",
    )


def payload(d: Dict[str, Any]) -> gcf.Payload:
    return gcf.Payload(
        tool=d.get("tool", "") or "",
        tokens_used=d.get("tokensUsed", 0) or 0,
        token_budget=d.get("tokenBudget", 0) or 0,
        pack_root=d.get("packRoot", "") or "",
        symbols=[symbol(s) for s in d.get("symbols", []) or []],
        edges=[edge(e) for e in d.get("edges", []) or []],
    )


def symbol_json(s: gcf.Symbol) -> Dict[str, Any]:
    return {
        "qualifiedName": s.qualified_name,
        "kind": s.kind,
        "score": s.score,
        "provenance": s.provenance,
        "distance": s.distance,
    }


def edge_json(e: gcf.Edge) -> Dict[str, Any]:
    return {"source": e.source, "target": e.target, "edgeType": e.edge_type, "status": e.status}
