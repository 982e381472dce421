"""Graph-profile encoding."""

from __future__ import annotations

from ._gcf import encode as _encode
from .types import Payload


def encode(p: Payload) -> str:
    """Encode a graph ``Payload`` as GCF text (byte-exact canonical form)."""
    return _encode(p)
