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
    """How a file is split. ``chunk_by`` hN: every heading of level <= N starts a chunk.

    A section over ``max_chunk_size`` is refined at deeper headings, then split between blocks, then
    inside a block (``split_blocks.py``); ``allow_block_splits`` says the last is expected (generated
    model tables, long listings), so validate does not warn about it.
    """

    chunk_by: ChunkBy = "h2"
    max_chunk_size: int = DEFAULT_MAX_CHUNK_SIZE
    min_chunk_size: int | None = None
    allow_block_splits: bool = False

    @property
    def split_level(self) -> int:
        """The deepest heading level that starts a chunk; 0 for ``file`` (never split)."""
        return 0 if self.chunk_by == "file" else int(self.chunk_by[1])


@dataclass(frozen=True)
class Chunk:
    """One retrievable unit of documentation.

    ``markdown`` is what a reader gets (for display), ``text`` its plain text (for full-text
    search), ``embedding_input`` the breadcrumb context plus text (only embeddings get the prefix).
    Lines are 1-based and inclusive, counted in the source file after frontmatter is included.

    The chunk *owns* the source from column ``start_column`` of ``start_line`` to column
    ``end_column`` (exclusive; None: the end of the line) of ``end_line``. Usually that is whole lines
    and ``markdown`` is exactly that slice. A part cut inside a block (a table between rows, a code
    block between lines) repeats lines it does not own so that it renders on its own: the table's
    header and delimiter rows, the code fence opener (and a closing fence), the parent list item's
    marker line. Those are ``context_before`` / ``context_after``, and ``markdown`` is
    ``context_before + owned source + context_after``. Owned spans never overlap, and every
    non-blank character of a file's body is owned by exactly one chunk: what lies between two chunks
    is whitespace.
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
    context_before: str = ""  # repeated lines at the start of ``markdown`` (ends with a newline)
    context_after: str = ""  # repeated lines at the end of ``markdown`` (starts with a newline)
    start_column: int = 0  # where the owned source starts in ``start_line``
    end_column: int | None = None  # where it ends in ``end_line`` (exclusive); None: the line's end

    @property
    def own_markdown(self) -> str:
        """The source this chunk owns: ``markdown`` without its repeated context."""
        return self.markdown[len(self.context_before) : len(self.markdown) - len(self.context_after)]


@dataclass(frozen=True)
class FileSettings:
    """What governs a file before its own hints: the nearest manifest's strategy and metadata.

    ``strategy_explicit`` is False when nothing but the built-in catch-all (``**/*.md -> h2``)
    applies; validate warns about such files.
    """

    strategy: Strategy = field(default_factory=Strategy)
    metadata: Mapping[str, str] = field(default_factory=dict)
    strategy_explicit: bool = False


@dataclass(frozen=True)
class SummaryFinding(Finding):
    """One finding standing for the same problem in many files (``path`` is "": the whole folder);
    ``paths`` lists every file, for ``--verbose`` and JSON output."""

    paths: tuple[str, ...] = ()


class HasFindings:
    """``errors`` and ``warnings`` views of a ``findings`` list, for reports that carry findings."""

    findings: list[Finding]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]
