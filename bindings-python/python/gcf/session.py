"""Session statefulness (spec section 9): stable ids across calls, and bare
references to symbols already delivered."""

from __future__ import annotations

import threading
from typing import List, Optional, Union

from . import _gcf
from .constants import KIND_ABBREV  # noqa: F401  (2.8.0 names here too)
from .encode import encode, gather, gather_locations
from .limits import Limits, limits_json
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
        if not isinstance(qname, str):
            return False  # 2.8.0 looks it up in a dict of names: never there
        with self._lock:
            return bool(self._native.get_id(qname) >= 0)

    def get_id(self, qname: str) -> int:
        """The session id of a delivered symbol, or -1."""
        if not isinstance(qname, str):
            return -1
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


class SessionDecoder:
    """The consumer side of a session (spec 9.2; not in gcf-python 2.8.0,
    whose ``decode`` refuses bare references). Thread-safe.

    Decode every payload of one session with the same decoder: a bare
    reference (``@N  # previously transmitted``) comes back as the full
    symbol an earlier payload delivered, and edges to it resolve. A
    reference to an id never delivered raises ``DecodeError`` with category
    ``unknown_edge_reference`` (spec 9.4: ask the producer for a full
    payload); a payload without ``session=true`` starts a new session. On
    error nothing is remembered.

    ``max_retained`` bounds the symbols remembered: past it the decoder
    forgets the session, and later references fail until a full payload.
    ``limits`` are the decode limits of every payload (``gcf.Limits``).
    """

    def __init__(self, *, max_retained: Optional[int] = None, limits: Optional[Limits] = None) -> None:
        if max_retained is not None and max_retained < 0:
            raise ValueError("max_retained must be at least 0")
        self._lock = threading.Lock()
        self._native = _gcf.NativeSessionDecoder(max_retained, limits_json(limits))

    def decode(self, input_text: Union[str, bytes]) -> Payload:
        """Decode one payload of the session: a ``Payload``, or a
        ``LocatedPayload`` when the text has locations."""
        with self._lock:
            out: Payload = self._native.decode(input_text)
            return out

    def size(self) -> int:
        """How many symbols are remembered."""
        with self._lock:
            return int(self._native.size())

    def reset(self) -> None:
        """Forget the session."""
        with self._lock:
            self._native.reset()
