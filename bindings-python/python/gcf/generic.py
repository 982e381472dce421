"""Generic-profile encoding of any JSON-shaped Python value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ._gcf import encode_generic as _encode_generic
from .scalar import format_key, format_scalar  # noqa: F401  (2.8.0 names here too)


@dataclass
class GenericOptions:
    """Options of ``encode_generic``."""

    no_flatten: bool = False
    """Write nested objects as attachments instead of ``a>b`` path columns."""


def encode_generic(data: Any, opts: Optional[GenericOptions] = None) -> str:
    """Encode ``data`` (dict/list/str/int/float/bool/None) in the generic profile.

    Tables factor constant columns, as gcf-python 2.8.0 does. Integers
    outside int64 raise ``GcfError`` with category ``out_of_range``.
    """
    if opts is None or not opts.no_flatten:
        return _encode_generic(data)
    return _encode_generic(data, True)
