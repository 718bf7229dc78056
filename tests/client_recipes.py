"""The client recipes of docs/clients.md as data: every JSON block parsed, each server entry with
the command it starts (importable from tests/: the recipe tests here and in tests/images)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLIENTS_DOC = Path(__file__).resolve().parents[1] / "docs" / "clients.md"
LOCAL_INDEX = "/path/to/index"
OCI_INDEX = "oci://ghcr.io/acme/docs-index:v1"
HTTP_URL = "http://127.0.0.1:8000/mcp"
IMAGE = "docs-mcp-serve:dev"
_JSON_BLOCK = re.compile(r"^```json\n(.*?)^```", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Recipe:
    block: int  # 1-based, in the page's order
    name: str
    entry: dict[str, Any]

    @property
    def label(self) -> str:
        kind = self.entry.get("command") or self.entry.get("url")
        return f"block{self.block}-{self.name}-{kind}"


def json_blocks() -> list[Any]:
    """Every ```json block of the page, parsed (a block that is not JSON raises here)."""
    return [json.loads(text) for text in _JSON_BLOCK.findall(CLIENTS_DOC.read_text(encoding="utf-8"))]


def recipes() -> list[Recipe]:
    """Each server entry: ``mcpServers`` (Claude Desktop, Cursor) or ``servers`` (VS Code)."""
    found = []
    for number, block in enumerate(json_blocks(), start=1):
        servers = block.get("mcpServers") or block.get("servers") or {}
        found.extend(Recipe(number, name, entry) for name, entry in servers.items())
    return found
