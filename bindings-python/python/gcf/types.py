"""Data types of graph payloads (the dataclasses of gcf-python 2.8.0)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Optional


@dataclass
class Components:
    """Score breakdown of a symbol (carried in memory only, never on the wire)."""

    blast_radius: float = 0.0
    confidence: float = 0.0
    recency: float = 0.0
    distance: float = 0.0


@dataclass
class Symbol:
    """A node of a graph payload."""

    qualified_name: str = ""
    kind: str = ""
    score: float = 0.0
    provenance: str = ""
    distance: int = 0
    signature: str = ""
    components: Components = field(default_factory=Components)


@dataclass
class Edge:
    """A directed relationship between two symbols, named by qualified name."""

    source: str = ""
    target: str = ""
    edge_type: str = ""
    status: str = ""


@dataclass
class Payload:
    """A graph payload: what encode() reads and decode() returns."""

    tool: str = ""
    tokens_used: int = 0
    token_budget: int = 0
    pack_root: str = ""
    symbols: List[Symbol] = field(default_factory=list)
    edges: List[Edge] = field(default_factory=list)


@dataclass
class Location:
    """Where a symbol is defined: a line of the ``## loc`` section (spec
    3.6.0; not in gcf-python 2.8.0). Lines and columns are 1-based; the end
    of the symbol's range is given by both end fields or neither."""

    qualified_name: str = ""
    file: str = ""
    line: int = 0
    column: int = 0
    end_line: Optional[int] = None
    end_column: Optional[int] = None


@dataclass
class LocatedPayload(Payload):
    """A ``Payload`` with its symbols' definition sites.

    ``decode`` returns one for text with a ``## loc`` section (gcf-python
    2.8.0 refuses such text), and a plain ``Payload`` otherwise, so payloads
    without locations keep 2.8.0's fields. ``encode`` writes the
    ``locations`` of any payload that has them."""

    locations: List[Location] = field(default_factory=list)


def _located(p: Payload, rows: List[Any]) -> LocatedPayload:
    """``p`` with the locations ``decode`` read, each a ``(qualified_name,
    file, line, column, end_line, end_column)`` tuple."""
    return LocatedPayload(
        p.tool,
        p.tokens_used,
        p.token_budget,
        p.pack_root,
        p.symbols,
        p.edges,
        [Location(*r) for r in rows],
    )


@dataclass
class DeltaPayload:
    """The difference between a prior context pack and the current one."""

    tool: str = ""
    base_root: str = ""
    new_root: str = ""
    removed: List[Symbol] = field(default_factory=list)
    added: List[Symbol] = field(default_factory=list)
    removed_edges: List[Edge] = field(default_factory=list)
    added_edges: List[Edge] = field(default_factory=list)
    delta_tokens: int = 0
    full_tokens: int = 0
