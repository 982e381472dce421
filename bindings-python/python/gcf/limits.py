"""Decode limits (spec §12): how much input a decode accepts.

gcf-python 2.8.0 has no limits; these are an addition. A service that
decodes GCF from a source it does not trust (an agent's tool output, a peer)
can bound what one payload may cost::

    from gcf import Limits, decode_generic
    value = decode_generic(text, limits=Limits(max_input_len=1 << 20, max_depth=32))

Input past a limit raises ``DecodeError`` with category ``limit_exceeded``
and the line where it was reached.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Optional

__all__ = ["Limits"]


@dataclass(frozen=True)
class Limits:
    """Decode limits; each ``None`` keeps the default.

    The values are checked by the native core, as in every binding: an
    out-of-range one (``max_depth`` outside 1-128, a count below 1) raises
    ``GcfError`` with category ``usage`` when a decode is called with it.
    """

    #: Nesting depth of objects and arrays, 1 to 128 (the default).
    max_depth: Optional[int] = None
    #: Elements of one array or object, rows of one table, symbols or edges
    #: of a graph (default 100,000,000).
    max_container_len: Optional[int] = None
    #: Bytes in one line (default 64 MiB).
    max_line_len: Optional[int] = None
    #: Fields in one field declaration, a table header or an inline schema (default 65,536).
    max_fields: Optional[int] = None
    #: Bytes of input (default: no limit).
    max_input_len: Optional[int] = None
    #: Bytes of values written once and decoded into every row (constant
    #: columns, groups): the fixed part of the budget (default 64 MiB).
    max_expansion: Optional[int] = None
    #: The same, per byte of input (default 64).
    max_expansion_ratio: Optional[int] = None


_I64_MAX = (1 << 63) - 1


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def limits_json(limits: Optional[Limits]) -> Optional[str]:
    """The JSON the native decoders read, or ``None`` for the defaults."""
    if limits is None:
        return None
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a gcf.Limits, not {type(limits).__name__}")
    members = {}
    for f in fields(limits):
        v = getattr(limits, f.name)
        if v is None:
            continue
        if type(v) is int and v > _I64_MAX:
            # No input reaches it: no limit, as the core reads any count
            # past the address space (JSON carries at most int64 here).
            v = _I64_MAX
        # Anything else (a bool, a float, a str) goes as it is, for the
        # core to refuse with the limit's name.
        members[_camel(f.name)] = v
    return json.dumps(members)
