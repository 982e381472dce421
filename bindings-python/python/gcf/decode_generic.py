"""Generic-profile decoding into Python objects."""

from __future__ import annotations

from typing import Any, Optional, Union

from ._gcf import decode_generic as _decode_generic
from .decode import decode  # noqa: F401  (the graph decode, as in 2.8.0)
from .limits import Limits, limits_json
from .scalar import (  # noqa: F401  (2.8.0 names here too)
    ATTACHMENT,
    MISSING,
    is_bare_key,
    parse_quoted_string,
    parse_scalar,
)


def decode_generic(input_text: Union[str, bytes], *, limits: Optional[Limits] = None) -> Any:
    """Decode GCF text into dicts, lists and scalars.

    Graph-profile text decodes to a dict with camelCase members, as in
    gcf-python 2.8.0. Raises ``DecodeError`` (a ``ValueError``), also for
    input past ``limits`` (not in 2.8.0; see ``gcf.Limits``), with category
    ``limit_exceeded``.
    """
    if limits is None:
        return _decode_generic(input_text)
    return _decode_generic(input_text, limits_json(limits))
