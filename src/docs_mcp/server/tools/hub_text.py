"""Readable text of the hub's answers: the single-index text (:mod:`.text_content`) naming each
hit's library (and version), so an agent passes it back to ``get_doc``."""

from __future__ import annotations

from typing import Any

from docs_mcp.server.tools.hub_schema import LIBRARY, VERSION
from docs_mcp.server.tools.text_content import render_get, render_search


def _where(item: dict[str, Any]) -> str:
    return str(item[LIBRARY]) + (f"@{item[VERSION]}" if VERSION in item else "")


def render_hub_search(result: dict[str, Any]) -> str:
    """The single-index text, each hit's ``chunk_id`` line naming its library (and version) first."""
    lines = render_search(result).split("\n")
    position = 0
    for hit in result["hits"]:
        marker = f"   {hit['chunk_id']} | "  # the line of the hit's id (see render_search)
        position = next(i for i in range(position, len(lines)) if lines[i].startswith(marker))
        lines[position] = f"   library: {_where(hit)} | {lines[position].strip()}"
    return "\n".join(lines)


def render_hub_get(result: dict[str, Any]) -> str:
    return f"library: {_where(result)}\n" + render_get(result)
