"""What chunking produces (``Chunk``, the hand-off to indexing) and what governs a file (``FileSettings``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from docs_mcp.parse.strategy import Strategy

__all__ = ["Chunk", "FileSettings"]


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
