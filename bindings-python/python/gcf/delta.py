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
    return _gcf.verify_delta(
        base_symbols, base_edges, removed, added, removed_edges, added_edges, expected_new_root
    )
