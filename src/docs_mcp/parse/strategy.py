"""How a file is to be chunked: the strategy an author declares in a manifest, front matter or hint."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["CHUNK_BY_VALUES", "DEFAULT_MAX_CHUNK_SIZE", "ChunkBy", "Strategy"]

ChunkBy = Literal["h1", "h2", "h3", "h4", "h5", "h6", "file"]
CHUNK_BY_VALUES: tuple[str, ...] = ("h1", "h2", "h3", "h4", "h5", "h6", "file")
DEFAULT_MAX_CHUNK_SIZE = 20_000


@dataclass(frozen=True)
class Strategy:
    """How a file is split. ``chunk_by`` hN: every heading of level <= N starts a chunk.

    A section over ``max_chunk_size`` is refined at deeper headings, then split between blocks, then
    inside a block (``docs_mcp.chunk.split_blocks``); ``allow_block_splits`` says the last is
    expected (generated model tables, long listings), so validate does not warn about it.
    """

    chunk_by: ChunkBy = "h2"
    max_chunk_size: int = DEFAULT_MAX_CHUNK_SIZE
    min_chunk_size: int | None = None
    allow_block_splits: bool = False

    @property
    def split_level(self) -> int:
        """The deepest heading level that starts a chunk; 0 for ``file`` (never split)."""
        return 0 if self.chunk_by == "file" else int(self.chunk_by[1])
