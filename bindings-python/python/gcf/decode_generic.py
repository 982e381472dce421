"""Generic-profile decoding into Python objects."""

from __future__ import annotations

from typing import Any

from ._gcf import decode_generic as _decode_generic


def decode_generic(input_text: str) -> Any:
    """Decode GCF text into dicts, lists and scalars.

    Graph-profile text decodes to a dict with camelCase members, as in
    gcf-python 2.8.0. Raises ``DecodeError`` (a ``ValueError``).
    """
    return _decode_generic(input_text)
