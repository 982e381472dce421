"""GCF (Graph Compact Format) for Python, backed by the native gcf-core.

A drop-in for gcf-python 2.8.0: the same names, submodules, dataclasses and
exception classes, with the format work done in Rust::

    from gcf import encode, decode, Payload, Symbol

    text = encode(Payload(tool="search", symbols=[Symbol("pkg.F", "function", 0.9, "lsp")]))
    assert decode(text).symbols[0].qualified_name == "pkg.F"
"""

from ._errors import DecodeError, GcfError
from .constant_grouping import encode_generic_grouped
from .constants import KIND_ABBREV, KIND_EXPAND
from .decode import decode
from .decode_generic import decode_generic
from .delta import decode_delta, encode_delta, verify_delta
from .encode import encode
from .generic import GenericOptions, encode_generic
from .generic_delta import (
    DEFAULT_REANCHOR_N,
    GenericDeltaPayload,
    GenericDeltaSession,
    GenericSet,
    ReanchorMode,
    ReanchorPolicy,
    decode_generic_delta,
    decode_generic_full,
    diff_generic_sets,
    encode_generic_delta,
    encode_generic_full,
    fixed_n,
    generic_pack_root,
    size_guard,
    verify_generic_delta,
)
from .limits import Limits
from .packroot import pack_root
from .session import Session, SessionDecoder, encode_with_session
from .stream import StreamEncoder
from .stream_generic import GenericStreamEncoder
from .types import Components, DeltaPayload, Edge, LocatedPayload, Location, Payload, Symbol

__all__ = [
    "Session",
    "SessionDecoder",
    "encode_with_session",
    "GenericStreamEncoder",
    "StreamEncoder",
    "DEFAULT_REANCHOR_N",
    "GenericDeltaPayload",
    "GenericDeltaSession",
    "GenericSet",
    "ReanchorMode",
    "ReanchorPolicy",
    "decode_generic_delta",
    "decode_generic_full",
    "diff_generic_sets",
    "encode_generic_delta",
    "encode_generic_full",
    "fixed_n",
    "generic_pack_root",
    "size_guard",
    "verify_generic_delta",
    "Components",
    "DecodeError",
    "DeltaPayload",
    "Edge",
    "GcfError",
    "GenericOptions",
    "KIND_ABBREV",
    "KIND_EXPAND",
    "Limits",
    "Payload",
    "LocatedPayload",
    "Location",
    "Symbol",
    "decode",
    "decode_delta",
    "decode_generic",
    "encode",
    "encode_generic",
    "encode_delta",
    "encode_generic_grouped",
    "pack_root",
    "verify_delta",
]

__version__ = "3.0.0"
