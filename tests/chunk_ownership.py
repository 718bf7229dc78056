"""The ownership rule of chunks, checked on any chunked file (generated, golden or real).

Every non-blank character of a file's body is owned by exactly one chunk; what lies between two
chunks is whitespace; a chunk's ``markdown`` is ``context_before + owned source + context_after``;
no chunk is over its file's ``max_chunk_size``; ids are unique and ordinals run 0, 1, 2, ...
"""

from __future__ import annotations

from docs_mcp.chunk.chunking import ChunkedFile
from docs_mcp.chunk.chunks import Chunk
from docs_mcp.parse.markdown import normalise, parse


def owned_span(lines: list[str], chunk: Chunk) -> tuple[int, int]:
    """Character offsets ``[start, end)`` of what ``chunk`` owns in ``"\\n".join(lines)``."""
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    start = starts[chunk.start_line - 1] + chunk.start_column
    end_column = len(lines[chunk.end_line - 1]) if chunk.end_column is None else chunk.end_column
    return start, starts[chunk.end_line - 1] + end_column


def assert_ownership(source: str, result: ChunkedFile, max_size: int | None = None, where: str = "") -> None:
    """Raise AssertionError (naming ``where``) when ``result`` breaks the ownership rule."""
    where = where or result.path
    text = normalise(source)
    lines = text.split("\n")
    body = sum(len(line) + 1 for line in lines[: parse(source).body_start - 1])
    limit = max_size if max_size is not None else result.strategy.max_chunk_size
    position = body
    for ordinal, chunk in enumerate(result.chunks):
        assert chunk.ordinal == ordinal, f"{where}: {chunk.id} has ordinal {chunk.ordinal}"
        start, end = owned_span(lines, chunk)
        assert start < end, f"{where}: {chunk.id} owns nothing"
        gap = text[position:start]
        assert not gap.strip(), f"{where}: {gap.strip()[:60]!r} before {chunk.id} is in no chunk"
        assert chunk.own_markdown == text[start:end], f"{where}: {chunk.id} markdown is not its own source"
        assert chunk.markdown == chunk.context_before + text[start:end] + chunk.context_after
        assert len(chunk.markdown) <= limit, f"{where}: {chunk.id} has {len(chunk.markdown)} > {limit}"
        position = end
    rest = text[position:]
    assert not rest.strip(), f"{where}: {rest.strip()[:60]!r} at the end is in no chunk"
    ids = [chunk.id for chunk in result.chunks]
    assert len(ids) == len(set(ids)), f"{where}: duplicate chunk ids"
