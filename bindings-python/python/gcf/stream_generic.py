"""Streaming generic encoder: tables written row by row."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from . import _gcf
from ._errors import GcfError
from ._writer import is_binary
from .scalar import format_key, format_scalar  # noqa: F401  (2.8.0 names here too)


def _name(x: Any) -> str:
    """A table, section, key or inline-array name as 2.8.0's f-strings write
    it: ``str(x)`` for anything but a ``str`` (``None`` is ``None``, a
    ``(str, Enum)`` member ``Kind.FILE``)."""
    return x if type(x) is str else str(x)


class GenericStreamEncoder:
    """Writes generic-profile output incrementally: tables with deferred
    counts (``[?]``), key=value lines, sections and inline arrays, then a
    ``##! summary`` trailer on ``close()``.

    Output reaches ``writer.write`` in batches (``str`` or ``bytes`` to match
    the writer); the header and each table's header are handed over at once,
    as 2.8.0 writes them, so a reader sees a stream start before its first
    batch of rows. Usable as a context manager.

    A field name holding ``>`` (a flattened path, which a streamed row cannot
    carry) is reported by ``close()``, as 2.8.0 reports it: from then on no
    table is opened and their rows are dropped.
    """

    def __init__(self, writer: Any, *, tool: str = "") -> None:
        self._native = _gcf.GenericStream(writer, is_binary(writer), tool)
        self._table: Optional[str] = None  # "array" or "keyed" while one is open
        self._deferred: Optional[Exception] = None
        self._native.flush()

    def _begin(self, begin: Any, name: str, fields: list) -> bool:
        """Opens a table with ``begin``; False when it is not opened."""
        if self._deferred is not None:
            return False
        self._end_table()
        try:
            begin(name, fields)
        except GcfError as e:
            if not any(">" in f for f in fields):
                raise
            self._deferred = e
            return False
        self._native.flush()
        return True

    def _end_table(self) -> None:
        if self._table is not None:
            self._native.end_table()
            self._table = None
            # Back to the class's write_row, which ignores rows outside a table.
            self.__dict__.pop("write_row", None)

    def begin_array(self, name: str, fields: Sequence[str]) -> None:
        """Start a table section; closes an open one first."""
        if not self._begin(self._native.begin_table, _name(name), list(fields)):
            return
        self._table = "array"
        # Rows go straight to the native writer: no Python frame per row.
        self.write_row = self._native.row  # type: ignore[method-assign]

    def begin_keyed_map(self, name: str, key_label: str, value_fields: Sequence[str]) -> None:
        """Start a keyed-map section whose key column is ``key_label``; each
        row is ``[key, *values]``."""
        begin = lambda n, fields: self._native.begin_keyed_map(n, key_label, fields)  # noqa: E731
        if not self._begin(begin, _name(name), list(value_fields)):
            return
        self._table = "keyed"

    def write_row(self, values: Sequence[Any]) -> None:
        """Write one row of the open table (ignored when none is open, as in 2.8.0)."""
        if self._table == "keyed":
            # The key as given: a str, or a number written bare as 2.8.0
            # writes it (None and booleans are refused: no decoder reads
            # them back as the key they were).
            key, *rest = values
            self._native.keyed_row(key, rest)

    def end_array(self) -> None:
        """Close the open table."""
        self._end_table()

    def write_kv(self, key: str, value: Any) -> None:
        """Write a ``key=value`` line."""
        self._end_table()
        self._native.field(_name(key), value)

    def write_section(self, name: str) -> None:
        """Write a ``## name`` section line, as 2.8.0 writes it: what follows
        is not indented under it (so a reader sees an empty section, and the
        lines after it in the enclosing object), and an open table ends."""
        self._end_table()
        self._native.begin_section(_name(name))
        self._native.end_section()

    def write_inline_array(self, name: str, values: Sequence[Any]) -> None:
        """Write a primitive array on one line: ``name[N]: a,b,c``."""
        self._end_table()
        self._native.inline_array(_name(name), list(values))

    @property
    def row_count(self) -> int:
        """Rows written so far, over all tables."""
        return int(self._native.row_count)

    def flush(self) -> None:
        """Hand everything pending to the writer."""
        self._native.flush()

    def close(self) -> None:
        """Close what is open and write the trailer. Idempotent, but for a
        ``>`` field name, which it raises each time (as 2.8.0 does)."""
        if self._deferred is not None:
            raise self._deferred
        self._end_table()
        self._native.close()

    def __enter__(self) -> "GenericStreamEncoder":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
