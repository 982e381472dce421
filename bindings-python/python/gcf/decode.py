"""Graph-profile decoding."""

from __future__ import annotations

from ._errors import DecodeError
from ._gcf import decode as _decode
from .types import Payload

__all__ = ["DecodeError", "decode"]


def decode(input_text: str) -> Payload:
    """Decode graph-profile GCF text into a ``Payload``.

    Raises ``DecodeError`` (with ``category``, ``line`` and ``column``) on
    malformed input.
    """
    return _decode(input_text)
