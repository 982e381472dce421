"""Graph-profile encoding."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from ._gcf import _encode_gathered
from .constants import KIND_ABBREV  # noqa: F401  (2.8.0 names here too)
from .types import Payload, Symbol  # noqa: F401  (Symbol: as in 2.8.0)


def gather(p: Payload) -> Tuple[List[Tuple[Any, ...]], List[Tuple[Any, ...]], Any, Any, Any, Any]:
    """The payload's fields as the extension reads them: one tuple per
    symbol and per edge, then ``tool``, ``token_budget``, ``tokens_used`` and
    ``pack_root``.

    Gathered here because bytecode reads an attribute for a fraction of what
    getattr from the extension costs (src/graph_py.rs, `gathered_texts`). The
    reads keep the order of the extension's own attribute reader: the
    symbols, the edges, then the payload's fields."""
    symbols = p.symbols
    symbol_rows = (
        [] if symbols is None else [(s.qualified_name, s.kind, s.score, s.provenance, s.distance) for s in symbols]
    )
    edges = p.edges
    edge_rows = [] if edges is None else [(e.source, e.target, e.edge_type, e.status) for e in edges]
    return symbol_rows, edge_rows, p.tool, p.token_budget, p.tokens_used, p.pack_root


def gather_locations(p: Payload) -> Optional[List[Tuple[Any, ...]]]:
    """The payload's ``locations`` (a ``LocatedPayload``'s, or any object's
    with that attribute) as ``(qualified_name, file, line, column, end_line,
    end_column)`` tuples, or ``None`` when it has none."""
    locations = getattr(p, "locations", None)
    if not locations:
        return None
    return [(l.qualified_name, l.file, l.line, l.column, l.end_line, l.end_column) for l in locations]


def encode(p: Payload) -> str:
    """Encode a graph ``Payload`` as GCF text (byte-exact canonical form).

    A payload with ``locations`` (a ``LocatedPayload``, or any object with
    that attribute) gets a ``## loc`` section (spec 3.6.0; gcf-python 2.8.0
    writes none)."""
    return _encode_gathered(gather(p), gather_locations(p))
