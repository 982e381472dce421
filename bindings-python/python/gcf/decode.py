"""Graph-profile decoding."""

from __future__ import annotations

from typing import Optional, Union

from ._errors import DecodeError
from ._gcf import decode as _decode
from .constants import KIND_EXPAND  # noqa: F401  (2.8.0 names here too)
from .limits import Limits, limits_json
from .types import Edge, Payload, Symbol  # noqa: F401  (Edge, Symbol: as in 2.8.0)

__all__ = ["DecodeError", "decode"]


def decode(input_text: Union[str, bytes], *, limits: Optional[Limits] = None) -> Payload:
    """Decode graph-profile GCF text into a ``Payload``.

    Raises ``DecodeError`` (with ``category``, ``line`` and ``column``) on
    malformed input, and on input past ``limits`` (not in 2.8.0; see
    ``gcf.Limits``) with category ``limit_exceeded``.
    """
    if limits is None:
        return _decode(input_text)
    return _decode(input_text, limits_json(limits))
