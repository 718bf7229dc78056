"""The data authoring produces: strategies, file settings and chunks (the hand-off to build)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from docs_mcp.errors import Finding

__all__ = ["DEFAULT_MAX_CHUNK_SIZE", "Chunk", "FileSettings", "HasFindings", "Strategy"]

ChunkBy = Literal["h1", "h2", "h3", "h4", "h5", "h6", "file"]
CHUNK_BY_VALUES: tuple[str, ...] = ("h1", "h2", "h3", "h4", "h5", "h6", "file")
DEFAULT_MAX_CHUNK_SIZE = 20_000


@dataclass(frozen=True)
class Strategy:
    """How a file is split. ``chunk_by`` hN: every heading of level <= N starts a chunk."""

    chunk_by: ChunkBy = "h2"
    max_chunk_size: int = DEFAULT_MAX_CHUNK_SIZE
    min_chunk_size: int | None = None

    @property
    def split_level(self) -> int:
        """The deepest heading level that starts a chunk; 0 for ``file`` (never split)."""
        return 0 if self.chunk_by == "file" else int(self.chunk_by[1])


@dataclass(frozen=True)
class Chunk:
    """One retrievable unit of documentation.

    ``markdown`` is the raw source slice (for display), ``text`` the plain text (for full-text
    search), ``embedding_input`` the breadcrumb context plus text (only embeddings get the prefix).
    Lines are 1-based and inclusive, counted in the source file after frontmatter is included.
    """

    id: str
    file_path: str
    heading: str
    level: int  # 0 for a preamble or a whole-file chunk
    breadcrumb: tuple[str, ...]  # ancestor headings, outermost first, excluding ``heading``
    ordinal: int  # position of the chunk in its file, from 0
    markdown: str
    text: str
    embedding_input: str
    start_line: int
    end_line: int
    metadata: Mapping[str, str] = field(default_factory=dict)
    title: str = ""  # the document's title: frontmatter ``title``, else its first h1, else ""


@dataclass(frozen=True)
class FileSettings:
    """What governs a file before its own hints: the nearest manifest's strategy and metadata.

    ``strategy_explicit`` is False when nothing but the built-in catch-all (``**/*.md -> h2``)
    applies; validate warns about such files.
    """

    strategy: Strategy = field(default_factory=Strategy)
    metadata: Mapping[str, str] = field(default_factory=dict)
    strategy_explicit: bool = False


class HasFindings:
    """``errors`` and ``warnings`` views of a ``findings`` list, for reports that carry findings."""

    findings: list[Finding]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]
