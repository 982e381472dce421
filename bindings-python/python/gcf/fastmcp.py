"""FastMCP middleware that answers tool calls in GCF, opt-in (the
``[fastmcp]`` extra: ``pip install "gcf-python[fastmcp]"``)::

    from gcf.fastmcp import GcfResponseMiddleware

    mcp.add_middleware(GcfResponseMiddleware())

With ``RESPONSE_FORMAT=gcf`` in the environment (or ``enabled=True``), a
tool result whose content is one text block is replaced by the GCF generic
encoding of its structured content (or, without one, of the block's JSON),
as 2.8.0 chooses it, when that is smaller (never-grow), decodes back to the
same value (lossless), and encodes without error (fail-safe: anything else
leaves the result as it was). An error result is left as it is, and its
``is_error`` and ``meta`` kept (2.8.0 re-encodes it and drops both). ``structured_content`` is kept, so output-schema
validation and non-model clients still get JSON; a result with any other
block (an image, a second text) is left alone.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any, Optional

try:
    from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
    from mcp.types import TextContent

    try:  # fastmcp 2.x
        from fastmcp.tools.tool import ToolResult
    except ImportError:  # fastmcp 3+
        from fastmcp.tools.base import ToolResult  # type: ignore[no-redef]
except ImportError as exc:  # only without the extra
    raise ImportError(
        'gcf.fastmcp needs the optional fastmcp dependency: pip install "gcf-python[fastmcp]"'
    ) from exc

from .decode_generic import decode_generic
from .generic import encode_generic

logger = logging.getLogger(__name__)

DEFAULT_ENV_VAR = "RESPONSE_FORMAT"

_MISSING = object()


def gcf_response_enabled(env_var: str = DEFAULT_ENV_VAR) -> bool:
    """Whether ``env_var`` is ``gcf`` (any case, surrounding spaces ignored)."""
    return os.environ.get(env_var, "").strip().lower() == "gcf"


def _lone_json_text(result: Any) -> Any:
    """The value to encode of a result made of exactly one text block, else
    _MISSING: its structured content when it has one, as 2.8.0 prefers it (a
    tool returning a list has ``{"result": [...]}`` there, so the model reads
    ``## result [N]``, as from 2.8.0), else the block's JSON."""
    blocks = result.content or []
    if len(blocks) != 1 or not isinstance(blocks[0], TextContent):
        return _MISSING
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        return structured
    try:
        return json.loads(blocks[0].text)
    except ValueError:
        return _MISSING


class GcfResponseMiddleware(Middleware):  # type: ignore[misc]
    """Re-encodes JSON tool results as GCF when that is smaller and lossless.

    ``enabled`` forces encoding on or off; ``None`` (the default) reads
    ``env_var`` on every call, so a deployment can flip it without a restart.
    """

    def __init__(self, *, env_var: str = DEFAULT_ENV_VAR, enabled: Optional[bool] = None) -> None:
        self._env_var = env_var
        self._enabled = enabled

    def _on(self) -> bool:
        return self._enabled if self._enabled is not None else gcf_response_enabled(self._env_var)

    async def on_call_tool(self, context: "MiddlewareContext[Any]", call_next: "CallNext[Any, Any]") -> Any:
        result = await call_next(context)
        if not self._on() or getattr(result, "is_error", False):
            return result
        value = _lone_json_text(result)
        if value is _MISSING:
            return result
        original: str = result.content[0].text
        try:
            wire = encode_generic(value)
            # Never grow the answer, and never ship a text that reads back differently.
            if len(wire) >= len(original) or decode_generic(wire) != value:
                return result
        except Exception as exc:  # noqa: BLE001 - the call must succeed whatever the format does
            logger.debug("GCF encoding skipped: %s", exc)
            return result
        # A copy with only the content replaced: structured content, meta
        # and anything a later fastmcp adds stay as the tool produced them.
        replaced: ToolResult = result.model_copy(update={"content": [TextContent(type="text", text=wire)]})
        return replaced
