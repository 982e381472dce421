"""Value-grouped tables (constant columns and group clauses)."""

from __future__ import annotations

from typing import Any

from ._gcf import encode_generic_grouped as _grouped
from .scalar import (  # noqa: F401  (2.8.0 names here too)
    MISSING,
    format_key,
    format_scalar,
    is_bare_key,
    needs_quote,
    parse_quoted_string,
    parse_scalar,
    quote_string,
)


def encode_generic_grouped(data: Any, key_field: str, group_field: str) -> str:
    """Encode a list of flat records as a table grouped by ``group_field``,
    with ``key_field`` as the unique record identity."""
    return _grouped(data, key_field, group_field)
