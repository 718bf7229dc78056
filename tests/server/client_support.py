"""What tests ask of a real MCP client (``mcp.Client``) and check on every answer."""

from __future__ import annotations

from typing import Any

from mcp import Client


async def structured(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The structured content of a tool call that must succeed."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content
