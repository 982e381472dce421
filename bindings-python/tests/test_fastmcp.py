"""GcfResponseMiddleware on a real FastMCP server, called by a real FastMCP
client in-process."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

import pytest

fastmcp = pytest.importorskip("fastmcp")

import gcf  # noqa: E402
from gcf.fastmcp import GcfResponseMiddleware, gcf_response_enabled  # noqa: E402

ROWS = [{"id": i, "name": f"user{i}", "team": "core", "active": True} for i in range(40)]


def server(middleware: GcfResponseMiddleware) -> Any:
    mcp = fastmcp.FastMCP("gcf-test")

    @mcp.tool
    def users() -> List[Dict[str, Any]]:
        """Forty similar records: GCF is much smaller."""
        return ROWS

    @mcp.tool
    def tiny() -> Dict[str, int]:
        """Too small for GCF to pay off."""
        return {"a": 1}

    @mcp.tool
    def text() -> str:
        """Not JSON."""
        return "hello, world"

    mcp.add_middleware(middleware)
    return mcp


def call(mcp: Any, tool: str) -> Any:
    async def go() -> Any:
        async with fastmcp.Client(mcp) as client:
            return await client.call_tool(tool, {})

    return asyncio.run(go())


def test_json_result_becomes_gcf_and_decodes_back() -> None:
    r = call(server(GcfResponseMiddleware(enabled=True)), "users")
    wire = r.content[0].text
    assert wire.startswith("GCF profile=generic\n")
    # The structured content is what 2.8.0 encodes: a list comes wrapped.
    assert gcf.decode_generic(wire) == r.structured_content == {"result": ROWS}
    assert wire.startswith("GCF profile=generic\n## result [40]")
    assert len(wire) < len(json.dumps(ROWS)) // 2
    # Structured content stays JSON for schema validation and non-model clients.
    assert r.structured_content is not None


def test_never_grow_and_non_json_left_alone() -> None:
    mcp = server(GcfResponseMiddleware(enabled=True))
    assert json.loads(call(mcp, "tiny").content[0].text) == {"a": 1}
    assert call(mcp, "text").content[0].text == "hello, world"


def test_off_by_default_and_env_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RESPONSE_FORMAT", raising=False)
    mcp = server(GcfResponseMiddleware())
    assert json.loads(call(mcp, "users").content[0].text) == ROWS
    monkeypatch.setenv("RESPONSE_FORMAT", " GCF ")
    assert gcf_response_enabled()
    assert call(mcp, "users").content[0].text.startswith("GCF profile=generic")
    assert json.loads(call(server(GcfResponseMiddleware(enabled=False)), "users").content[0].text) == ROWS
