"""Session statefulness (spec section 9): stable ids across calls, and bare
references to symbols already delivered."""

from __future__ import annotations

import threading
from typing import List, Optional

from . import _gcf
from .encode import encode, gather, gather_locations
from .types import Payload, Symbol


class Session:
    """What one consumer has already received. Thread-safe.

    Scope a session to one principal and one conversation (spec 9.3).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._native = _gcf.NativeSession()

    def transmitted(self, qname: str) -> bool:
        """Whether a symbol of this name was delivered."""
        with self._lock:
            return bool(self._native.get_id(qname) >= 0)

    def get_id(self, qname: str) -> int:
        """The session id of a delivered symbol, or -1."""
        with self._lock:
            return int(self._native.get_id(qname))

    def record(self, symbols: List[Symbol]) -> None:
        """Mark symbols as delivered, giving new ones the next ids."""
        with self._lock:
            self._native.record(symbols)

    def size(self) -> int:
        """How many symbols were delivered."""
        with self._lock:
            return int(self._native.size())

    def reset(self) -> None:
        """Forget everything delivered."""
        with self._lock:
            self._native.reset()

    def _encode(self, p: Payload) -> str:
        with self._lock:
            out: str = self._native.encode_gathered(gather(p), gather_locations(p))
            return out


def encode_with_session(p: Payload, sess: Optional[Session] = None) -> str:
    """Encode ``p``, writing symbols ``sess`` already delivered as bare
    references (``@N  # previously transmitted``) and recording new ones.
    Without a session this is ``encode(p)``."""
    if sess is None:
        return encode(p)
    return sess._encode(p)
