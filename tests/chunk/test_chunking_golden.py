"""Golden cases: ``fixtures/chunking/NAME.md`` chunked must give ``NAME.chunks`` exactly.

A ``.chunks`` file starts with the strategy (``strategy: h2``), then one line per chunk
(``id<TAB>start-end<TAB>breadcrumb > heading<TAB>metadata``), then one line per finding (``! ...``).
Regenerate after an intended change with ``DOCS_MCP_UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from docs_mcp.chunk.chunking import chunk_file
from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.parse.strategy import ChunkBy, Strategy

FIXTURES = Path(__file__).with_name("fixtures") / "chunking"
CASES = sorted(FIXTURES.glob("*.md"))


def render(source: str, path: str, chunk_by: ChunkBy) -> str:
    result = chunk_file(source, path, FileSettings(strategy=Strategy(chunk_by=chunk_by)))
    lines = [f"strategy: {chunk_by}"]
    for chunk in result.chunks:
        where = " > ".join((*chunk.breadcrumb, chunk.heading))
        metadata = json.dumps(dict(chunk.metadata), sort_keys=True, ensure_ascii=False)
        lines.append(f"{chunk.id}\t{chunk.start_line}-{chunk.end_line}\t{where}\t{metadata}")
    lines.extend(f"! {finding.format()}" for finding in result.findings)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("case", CASES, ids=[case.stem for case in CASES])
def test_golden_chunking(case: Path) -> None:
    expected_file = case.with_suffix(".chunks")
    chunk_by: ChunkBy = "h2"
    if expected_file.exists():
        first_line = expected_file.read_text(encoding="utf-8").split("\n", 1)[0]
        chunk_by = first_line.removeprefix("strategy: ")  # type: ignore[assignment]
    actual = render(case.read_text(encoding="utf-8"), case.name, chunk_by)
    if os.environ.get("DOCS_MCP_UPDATE_GOLDEN"):
        expected_file.write_text(actual, encoding="utf-8")
    assert actual == expected_file.read_text(encoding="utf-8")
