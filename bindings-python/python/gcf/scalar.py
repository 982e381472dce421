"""The common scalar and key grammar (spec sections 2 and 2a) as helpers:
quoting, keys, canonical numbers and one token's value, for code that
writes or reads a GCF token of its own. gcf-python 2.8.0's ``gcf.scalar``
names; every answer comes from the core's grammar, the one the encoders
and decoders use, so a helper cannot spell a token differently from them.

Not provided: 2.8.0's ``split_respecting_quotes`` and ``split_field_decl``,
its splitting of rows and field declarations, which reads a quote in the
middle of a token otherwise than the spec and the decoders here do (see the
README's "Where the spec and the references differ").
"""

from __future__ import annotations

from typing import Any

from . import _gcf
from ._errors import DecodeError

__all__ = [
    "ATTACHMENT",
    "MISSING",
    "format_key",
    "format_number",
    "format_scalar",
    "is_bare_key",
    "needs_quote",
    "parse_quoted_string",
    "parse_scalar",
    "quote_string",
]


class _Missing:
    """``~``: a field absent from its record, in a table row cell."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "gcf.scalar.MISSING"


class _Attachment:
    """``^``: a nested value written beneath its row, in a table row cell."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "gcf.scalar.ATTACHMENT"


MISSING = _Missing()
ATTACHMENT = _Attachment()


def needs_quote(s: str) -> bool:
    """Whether ``s`` must be quoted to read back as this string (section 2.4)."""
    return _gcf.needs_quote(s)


def quote_string(s: str) -> str:
    """``s`` in its quoted, escaped form, whether or not it needs quotes."""
    return _gcf.quote_string(s)


def is_bare_key(s: str) -> bool:
    """Whether ``s`` can be written as a bare key (``[A-Za-z_][A-Za-z0-9_]*``)."""
    return _gcf.is_bare_key(s)


def format_key(s: str) -> str:
    """A key or field name: bare when it can be, else quoted."""
    return _gcf.format_key(s)


def format_number(f: float) -> str:
    """A float in the canonical number form (section 2.3.1): ``2.5``,
    ``1e-07`` is ``1e-7``, ``0`` for ``-0.0``. A NaN or infinity raises
    ``GcfError`` (``out_of_range``), as encoding one does (2.8.0 writes
    ``0``)."""
    return _gcf.format_number(float(f))


def format_scalar(v: Any, delimiter: str = "") -> str:
    """A value as a table cell or ``key=value`` line writes it: ``-``,
    ``true``/``false``, an integer (``out_of_range`` outside int64), a
    canonical number, or a string, quoted when it must be or when it holds
    ``delimiter``. Anything else is written as its ``str()``, as 2.8.0
    writes it."""
    if isinstance(v, (dict, list)):
        v = str(v)
    return _gcf.format_scalar(v, delimiter)


def parse_scalar(s: str, tabular_context: bool = False) -> Any:
    """The value of one token (section 2.1): a quoted string, ``None`` for
    ``-``, a bool, an ``int`` or ``float``, or a bare string, with ASCII
    spaces and tabs around it trimmed. In a table row cell
    (``tabular_context``) ``~`` is ``MISSING`` and ``^`` (or an inline schema
    ``^{...}``) is ``ATTACHMENT``; elsewhere they raise ``DecodeError``
    (``invalid_missing``, ``invalid_attachment_marker``), as do malformed
    quoted strings and integers outside int64 (``out_of_range``)."""
    if not tabular_context:
        return _gcf.parse_scalar(s)
    kind, value = _gcf.parse_cell(s)
    return value if kind == 0 else MISSING if kind == 1 else ATTACHMENT


def parse_quoted_string(s: str) -> str:
    """The string a quoted token (``"..."`` with JSON escapes) holds.
    Raises ``DecodeError``: ``unterminated_quote`` (also for a token that
    does not start with ``"``), ``invalid_escape``, ``invalid_surrogate`` or
    ``trailing_characters``."""
    if not s.startswith('"'):
        raise DecodeError(
            'unterminated_quote: a quoted string starts with `"`', "unterminated_quote", 1, 1
        )
    value: str = _gcf.parse_scalar(s)
    return value
