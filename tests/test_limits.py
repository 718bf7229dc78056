"""The limits of ``docs_mcp/limits.py`` are the ones docs/authoring.md documents, name and default."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import docs_mcp.limits as limits

DOCS = Path(__file__).resolve().parents[1] / "docs" / "authoring.md"


def _shown(value: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= size and value % size == 0:
            return f"{value // size} {unit}"
    return f"{value:,}"


def test_every_limit_is_documented_with_its_default() -> None:
    section = DOCS.read_text(encoding="utf-8").split("### Limits", 1)[1].split("\n## ", 1)[0]
    documented = dict(re.findall(r"^\| `(MAX_[A-Z_]+)` \| ([^|]+?) \|", section, flags=re.MULTILINE))
    defined = {name: _shown(getattr(limits, name)) for name in limits.__all__ if name.startswith("MAX_")}
    assert documented == defined


def test_the_manifest_schema_floors_max_chunk_size_at_the_named_limit() -> None:
    schema = json.loads((DOCS.parents[1] / "schemas" / "docs-mcp.schema.json").read_text(encoding="utf-8"))
    found = [
        node["max_chunk_size"]["minimum"]
        for node in _objects(schema)
        if isinstance(node.get("max_chunk_size"), dict) and "minimum" in node["max_chunk_size"]
    ]
    assert found and set(found) == {limits.MIN_MAX_CHUNK_SIZE}


def _objects(value: object) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        return [value, *(o for child in value.values() for o in _objects(child))]
    if isinstance(value, list):
        return [o for child in value for o in _objects(child)]
    return []
