"""Golden cases of in-block splitting: ``fixtures/splitting/NAME.md`` chunked under a small
``max_chunk_size`` must give ``NAME.parts`` exactly.

A ``.parts`` file starts with ``max_chunk_size: N``, then every chunk: a ``=== id`` line with its
owned range (``line:column-line:column``) and size, then its markdown, one line each, marked
``~`` for repeated context and ``|`` for the chunk's own source. Regenerate after an intended
change with ``DOCS_MCP_UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from chunk_ownership import assert_ownership

from docs_mcp.chunk.chunking import ChunkedFile, chunk_file
from docs_mcp.chunk.chunks import Chunk, FileSettings
from docs_mcp.parse.markdown import parse
from docs_mcp.parse.strategy import Strategy

FIXTURES = Path(__file__).with_name("fixtures") / "splitting"
CASES = sorted(FIXTURES.glob("*.md"))
DEFAULT_LIMIT = 200


def render_chunk(chunk: Chunk) -> list[str]:
    end = "end" if chunk.end_column is None else str(chunk.end_column)
    out = [
        f"=== {chunk.id}  {chunk.start_line}:{chunk.start_column}-{chunk.end_line}:{end}  "
        f"{len(chunk.markdown)} chars"
    ]
    before = chunk.context_before.split("\n")[:-1] if chunk.context_before else []
    after = chunk.context_after.split("\n")[1:] if chunk.context_after else []
    out.extend(f"~ {line}" for line in before)
    out.extend(f"| {line}" for line in chunk.own_markdown.split("\n"))
    out.extend(f"~ {line}" for line in after)
    return out


def render(result: ChunkedFile, limit: int) -> str:
    lines = [f"max_chunk_size: {limit}"]
    for chunk in result.chunks:
        lines.extend(render_chunk(chunk))
    lines.extend(f"! {finding.format()}" for finding in result.findings)
    return "\n".join(lines) + "\n"


def chunked(case: Path) -> tuple[str, ChunkedFile, int]:
    expected = case.with_suffix(".parts")
    limit = DEFAULT_LIMIT
    if expected.exists():
        limit = int(expected.read_text(encoding="utf-8").split("\n", 1)[0].removeprefix("max_chunk_size: "))
    source = case.read_text(encoding="utf-8")
    return source, chunk_file(source, case.name, FileSettings(strategy=Strategy(max_chunk_size=limit))), limit


@pytest.mark.parametrize("case", CASES, ids=[case.stem for case in CASES])
def test_golden_splitting(case: Path) -> None:
    _, result, limit = chunked(case)
    actual = render(result, limit)
    expected_file = case.with_suffix(".parts")
    if os.environ.get("DOCS_MCP_UPDATE_GOLDEN"):
        expected_file.write_text(actual, encoding="utf-8")
    assert actual == expected_file.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=[case.stem for case in CASES])
def test_every_part_owns_its_own_bytes_and_fits(case: Path) -> None:
    source, result, limit = chunked(case)
    assert_ownership(source, result, limit)
    assert len(result.chunks) > 1
    assert [finding.rule for finding in result.findings] == ["split-inside-block"]


@pytest.mark.parametrize("case", CASES, ids=[case.stem for case in CASES])
def test_every_part_of_a_cut_block_renders_as_that_kind_of_block(case: Path) -> None:
    _, result, _ = chunked(case)
    [cut] = [o for o in result.oversized if o.how == "inside-block"]
    kinds = [{block.kind for block in parse(chunk.markdown).blocks} for chunk in result.chunks]
    if cut.block in ("paragraph", "line"):
        return  # a paragraph's pieces are paragraphs; a long line's pieces are whatever is left
    assert all(cut.block in found for found in kinds), (cut.block, kinds)
