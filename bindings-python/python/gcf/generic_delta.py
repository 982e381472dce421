"""Generic-profile deltas (spec section 10a): keyed sets, their pack roots,
full and delta payloads, verified apply, and the re-anchoring session."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Dict, List, Optional, Tuple

from . import _gcf
from .limits import Limits, limits_json
from .scalar import (  # noqa: F401  (2.8.0 names here too)
    format_key,
    format_number,
    format_scalar,
    parse_scalar,
    quote_string,
)

DEFAULT_REANCHOR_N = 15


def _canonical_cell(v: Any) -> str:
    """One cell in its pack-root hashing form (spec 10a.3): ``-``, ``true`` or
    ``false``, a canonical number, or an always-quoted string; anything else is
    hashed as its ``str``, as 2.8.0 hashes it. 2.8.0's private helper, kept for
    code (such as its own tests) that imports it."""
    if v is not None and not isinstance(v, (bool, int, float, str)):
        v = str(v)
    return _gcf.canonical_cell(v)


@dataclass
class GenericSet:
    """A keyed record set: rows identified by the value of ``key``."""

    key: str
    fields: List[str]
    rows: List[Dict[str, Any]]
    name: str = "rows"


@dataclass
class GenericDeltaPayload:
    """What changed between two keyed sets (whole-row replacement)."""

    key: str
    fields: List[str]
    base_root: str = ""
    new_root: str = ""
    added: List[Dict[str, Any]] = field(default_factory=list)
    changed: List[Dict[str, Any]] = field(default_factory=list)
    removed: List[Any] = field(default_factory=list)
    tool: str = ""
    delta_tokens: int = 0
    full_tokens: int = 0


def generic_pack_root(s: GenericSet) -> str:
    """The ``sha256:...`` pack root of a keyed set; independent of row order."""
    return _gcf.generic_pack_root(s)


def diff_generic_sets(base: GenericSet, nxt: GenericSet) -> GenericDeltaPayload:
    """The delta from ``base`` to ``nxt``, sorted by identity. A schema change
    (other key or fields) raises: send a full payload instead."""
    return _gcf.diff_generic_sets(base, nxt)


def _tool(tool: Any) -> str:
    """A header's ``tool`` as 2.8.0's truthiness check and f-string write it:
    left out when falsy (``None`` too), else ``str(tool)``."""
    return str(tool) if tool else ""


def encode_generic_full(s: GenericSet, tool: str = "") -> str:
    """A full keyed payload, with ``key=`` and ``pack_root=`` in its header."""
    return _gcf.encode_generic_full(s, _tool(tool))


def encode_generic_delta(d: GenericDeltaPayload) -> str:
    """A generic delta payload (added, changed, removed sections)."""
    return _gcf.encode_generic_delta(d)


def decode_generic_delta(text: str, *, limits: Optional[Limits] = None) -> GenericDeltaPayload:
    """Decode a generic delta payload (under ``limits``, not in 2.8.0: see
    ``gcf.Limits``)."""
    if limits is None:
        return _gcf.decode_generic_delta(text)
    return _gcf.decode_generic_delta(text, limits_json(limits))


def verify_generic_delta(base: GenericSet, d: GenericDeltaPayload, expected_new_root: str) -> GenericSet:
    """Apply ``d`` to ``base`` atomically and check the result's pack root.

    ``base`` must have ``d.base_root`` as its root (else ``base_mismatch``);
    the result must have ``expected_new_root`` (else ``root_mismatch``); an
    operation ``base`` contradicts is ``delta_invalid``, as in 2.8.0. ``base``
    is never changed.
    """
    return _gcf.verify_generic_delta(base, d, expected_new_root)


def decode_generic_full(text: str, *, limits: Optional[Limits] = None) -> Tuple[GenericSet, str]:
    """Decode a full keyed payload into ``(GenericSet, pack_root)``: the
    fields are the table's declaration, as in 2.8.0; a repeated identity
    raises ``DecodeError`` (``duplicate_key``, spec §10a.1). ``limits`` (not
    in 2.8.0) as ``gcf.Limits``."""
    out: Tuple[GenericSet, str] = _gcf.decode_generic_full(text, limits_json(limits))
    return out


class ReanchorMode(Enum):
    """When a ``GenericDeltaSession`` sends a full payload again."""

    FIXED_N = 0
    SIZE_GUARD = 1


@dataclass
class ReanchorPolicy:
    """A re-anchor policy; build it with ``fixed_n`` or ``size_guard``."""

    mode: ReanchorMode = ReanchorMode.FIXED_N
    n: int = 0


def fixed_n(n: int) -> ReanchorPolicy:
    """Re-anchor every ``n`` turns (``n <= 0`` means ``DEFAULT_REANCHOR_N``)."""
    return ReanchorPolicy(ReanchorMode.FIXED_N, n if n > 0 else DEFAULT_REANCHOR_N)


def size_guard() -> ReanchorPolicy:
    """Re-anchor once the deltas sent since the last full payload reach its size."""
    return ReanchorPolicy(ReanchorMode.SIZE_GUARD)


class GenericDeltaSession:
    """A producer loop over keyed sets: ``current_full()`` first, then
    ``next(set)`` per turn, which returns ``(wire, is_full)``. Thread-safe:
    calls from several threads take turns (gcf-python 2.8.0 says its session
    is not safe for concurrent use; the native one refused a call made while
    another thread's ran, with ``RuntimeError: Already borrowed``)."""

    FIXED_N = ReanchorMode.FIXED_N
    SIZE_GUARD = ReanchorMode.SIZE_GUARD

    def __init__(self, base: GenericSet, tool: str, policy: ReanchorPolicy) -> None:
        n = None
        if policy.mode == ReanchorMode.FIXED_N:
            n = policy.n if policy.n > 0 else DEFAULT_REANCHOR_N
        self._lock = threading.Lock()
        self._native = _gcf.NativeDeltaSession(base, _tool(tool), n)

    @property
    def turn(self) -> int:
        """How many times ``next`` was called, failed calls included (the
        native session counts them)."""
        with self._lock:
            turn: int = self._native.turn
            return turn

    def current_full(self) -> str:
        """The full payload of the held set."""
        with self._lock:
            out: str = self._native.initial_full()
            return out

    def next(self, nxt: GenericSet) -> Tuple[str, bool]:
        """Advance to ``nxt``: a delta, or a full payload when the policy
        re-anchors or the schema changed. The held set becomes ``nxt``."""
        with self._lock:
            # A failed call counts too, as in 2.8.0: the native session
            # counts a set it cannot read as it counts one it refuses.
            out: Tuple[str, bool] = self._native.next(nxt)
            return out
