"""Type stubs of the gcf package (a drop-in for gcf-python 2.8.0, backed by gcf-core)."""

from typing import List

from ._errors import DecodeError as DecodeError
from ._errors import GcfError as GcfError
from .constant_grouping import encode_generic_grouped as encode_generic_grouped
from .constants import KIND_ABBREV as KIND_ABBREV
from .constants import KIND_EXPAND as KIND_EXPAND
from .decode import decode as decode
from .decode_generic import decode_generic as decode_generic
from .delta import decode_delta as decode_delta
from .delta import encode_delta as encode_delta
from .delta import verify_delta as verify_delta
from .encode import encode as encode
from .generic import GenericOptions as GenericOptions
from .limits import Limits as Limits
from .generic import encode_generic as encode_generic
from .generic_delta import DEFAULT_REANCHOR_N as DEFAULT_REANCHOR_N
from .generic_delta import GenericDeltaPayload as GenericDeltaPayload
from .generic_delta import GenericDeltaSession as GenericDeltaSession
from .generic_delta import GenericSet as GenericSet
from .generic_delta import ReanchorMode as ReanchorMode
from .generic_delta import ReanchorPolicy as ReanchorPolicy
from .generic_delta import decode_generic_delta as decode_generic_delta
from .generic_delta import decode_generic_full as decode_generic_full
from .generic_delta import diff_generic_sets as diff_generic_sets
from .generic_delta import encode_generic_delta as encode_generic_delta
from .generic_delta import encode_generic_full as encode_generic_full
from .generic_delta import fixed_n as fixed_n
from .generic_delta import generic_pack_root as generic_pack_root
from .generic_delta import size_guard as size_guard
from .generic_delta import verify_generic_delta as verify_generic_delta
from .packroot import pack_root as pack_root
from .session import Session as Session
from .session import SessionDecoder as SessionDecoder
from .session import encode_with_session as encode_with_session
from .stream import StreamEncoder as StreamEncoder
from .stream_generic import GenericStreamEncoder as GenericStreamEncoder
from .types import Components as Components
from .types import DeltaPayload as DeltaPayload
from .types import Edge as Edge
from .types import Payload as Payload
from .types import LocatedPayload as LocatedPayload
from .types import Location as Location
from .types import Symbol as Symbol

__version__: str
__all__: List[str]
