"""Streaming graph encoder: symbols and edges written as they are produced."""

from __future__ import annotations

from typing import Any, Protocol

from . import _gcf
from ._writer import is_binary
from .constants import KIND_ABBREV  # noqa: F401  (2.8.0 names here too)
from .types import Edge, Symbol


class StreamWriter(Protocol):
    """Any object with a ``write`` method (text or binary)."""

    def write(self, s: Any) -> Any: ...


class StreamEncoder:
    """Writes a graph payload incrementally, with a ``##! summary`` trailer.

    Output reaches ``writer.write`` in batches (``str`` for text writers,
    ``bytes`` for binary ones; the header at once, as 2.8.0 writes it);
    ``flush()`` hands over what is pending, and
    ``close()`` writes the trailer. Edges naming a symbol not yet written are
    dropped, as in gcf-python 2.8.0. Usable as a context manager.
    """

    def __init__(
        self,
        writer: StreamWriter,
        tool: str = "",
        *,
        token_budget: int = 0,
        tokens_used: int = 0,
        pack_root: str = "",
        session: bool = False,
        labeled_trailer_counts: bool = False,
    ) -> None:
        # Header values as 2.8.0's f-strings write them: `str()` of anything
        # but a str (a `None` tool is `tool=None`); a falsy pack root is
        # left out.
        if type(tool) is not str:
            tool = str(tool)
        if type(pack_root) is not str:
            pack_root = str(pack_root) if pack_root else ""
        self._native = _gcf.GraphStream(
            writer, is_binary(writer), tool, token_budget, tokens_used, labeled_trailer_counts,
            pack_root, session,
        )
        # The header now, as 2.8.0 writes it: a reader sees the stream begin.
        self._native.flush()

    def write_symbol(self, s: Symbol) -> None:
        """Write one symbol; its distance group header comes first when it changes."""
        # The fields are read here: bytecode reads attributes for less than
        # getattr from the extension (see gcf.encode).
        self._native.symbol_fields(s.qualified_name, s.kind, s.score, s.provenance, s.distance)

    def write_edge(self, e: Edge) -> None:
        """Write one edge between symbols already written."""
        self._native.edge_fields(e.source, e.target, e.edge_type, e.status)

    def write_bare_ref(self, qname: str, distance: int) -> None:
        """Write a bare reference (``@id  # previously transmitted``) for a
        symbol the reader already has (session mode): it takes the next id,
        counts in its distance group, and edges can name it by ``qname``."""
        self._native.write_bare_ref(qname, distance)

    @property
    def symbol_count(self) -> int:
        """Symbols written so far."""
        return int(self._native.symbol_count)

    @property
    def edge_count(self) -> int:
        """Edges written so far (dropped ones not counted)."""
        return int(self._native.edge_count)

    def flush(self) -> None:
        """Hand everything pending to the writer."""
        self._native.flush()

    def close(self) -> None:
        """Write the trailer and everything pending. Idempotent."""
        self._native.close()

    def __enter__(self) -> "StreamEncoder":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
