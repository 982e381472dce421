"""Graph-profile encoding."""

from __future__ import annotations

from ._gcf import _encode_gathered
from .types import Payload


def encode(p: Payload) -> str:
    """Encode a graph ``Payload`` as GCF text (byte-exact canonical form)."""
    # The fields are gathered here and converted natively: bytecode reads an
    # attribute for a fraction of what getattr from C costs (src/graph_py.rs,
    # `gathered_texts`). The reads are in the order the native reader of
    # attributes keeps: the symbols, the edges, then the payload's own.
    symbols = p.symbols
    symbol_rows = (
        [] if symbols is None else [(s.qualified_name, s.kind, s.score, s.provenance, s.distance) for s in symbols]
    )
    edges = p.edges
    edge_rows = [] if edges is None else [(e.source, e.target, e.edge_type, e.status) for e in edges]
    return _encode_gathered(symbol_rows, edge_rows, p.tool, p.token_budget, p.tokens_used, p.pack_root)
