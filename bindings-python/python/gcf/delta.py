"""Graph deltas (spec section 10): encode, decode, verified apply."""

from __future__ import annotations

from typing import List, Optional, Tuple

from . import _gcf
from .constants import KIND_ABBREV, KIND_EXPAND  # noqa: F401  (2.8.0 names here too)
from .limits import Limits, limits_json
from .packroot import pack_root  # noqa: F401  (as in 2.8.0)
from .types import DeltaPayload, Edge, Symbol


def encode_delta(d: DeltaPayload) -> str:
    """Encode a ``DeltaPayload`` as a graph delta."""
    return _gcf.encode_delta(d)


def decode_delta(wire: str, *, limits: Optional[Limits] = None) -> DeltaPayload:
    """Decode graph delta text. Removed symbols carry only kind and name.

    ``limits`` (not in 2.8.0; see ``gcf.Limits``) bounds what the text may
    hold: past one, ``DecodeError`` with category ``limit_exceeded``.
    """
    if limits is None:
        return _gcf.decode_delta(wire)
    return _gcf.decode_delta(wire, limits_json(limits))


def verify_delta(
    base_symbols: List[Symbol],
    base_edges: List[Edge],
    removed: List[Symbol],
    added: List[Symbol],
    removed_edges: List[Edge],
    added_edges: List[Edge],
    expected_new_root: str,
) -> Tuple[List[Symbol], List[Edge]]:
    """Apply a delta to a base snapshot atomically and check the result's pack root.

    Raises ``GcfError`` with category ``delta_invalid`` when the delta
    removes something absent or adds something present (as 2.8.0 does), and
    ``root_mismatch`` when the applied snapshot's root is not
    ``expected_new_root``.
    """
    base_symbols, base_edges, added, added_edges = (
        x if isinstance(x, (list, tuple)) else list(x)
        for x in (base_symbols, base_edges, added, added_edges)
    )
    symbols, edges = _gcf.verify_delta(
        base_symbols, base_edges, removed, added, removed_edges, added_edges, expected_new_root
    )
    # The caller's own objects, as 2.8.0 returns them (signatures,
    # components and subclasses kept): each result item is one of the
    # base's or the delta's, an added one in the place of a base one.
    own_symbols = {_symbol_key(s): s for s in (*base_symbols, *added)}
    own_edges = {_edge_key(e): e for e in (*base_edges, *added_edges)}
    return (
        [own_symbols.get(_symbol_key(s), s) for s in symbols],
        [own_edges.get(_edge_key(e), e) for e in edges],
    )


def _symbol_key(s: object) -> tuple:
    return (getattr(s, "kind", None), getattr(s, "qualified_name", None))


def _edge_key(e: object) -> tuple:
    return (getattr(e, "source", None), getattr(e, "target", None), getattr(e, "edge_type", None))
