"""Content-addressed identity of a graph (gcf-pack-root-v1)."""

from __future__ import annotations

from typing import List

from . import _gcf
from .types import Edge, Symbol


def pack_root(symbols: List[Symbol], edges: List[Edge]) -> str:
    """The ``sha256:...`` pack root of the snapshot; independent of order."""
    return _gcf.pack_root(symbols, edges)
