"""Data types of graph payloads (the dataclasses of gcf-python 2.8.0)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List


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
