"""Content-addressed identity of a graph (gcf-pack-root-v1)."""

from __future__ import annotations

from typing import List

from . import _gcf
from .constants import KIND_ABBREV  # noqa: F401  (2.8.0 names here too)
from .scalar import format_number  # noqa: F401  (as in 2.8.0)
from .types import Edge, Symbol


def pack_root(symbols: List[Symbol], edges: List[Edge]) -> str:
    """The ``sha256:...`` pack root of the snapshot; independent of order."""
    return _gcf.pack_root(symbols, edges)
