"""Whether a writer takes str or bytes."""

from __future__ import annotations

import io
from typing import Any


def is_binary(writer: Any) -> bool:
    """True for binary files (``open(..., "wb")``, ``io.BytesIO``, raw and
    buffered streams); False for text files and anything else with ``write``."""
    if isinstance(writer, io.TextIOBase):
        return False
    if isinstance(writer, (io.RawIOBase, io.BufferedIOBase)):
        return True
    mode = getattr(writer, "mode", "")
    return isinstance(mode, str) and "b" in mode
