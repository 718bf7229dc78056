"""Chunks in the making (:class:`Piece`) and the line arithmetic over one parsed document
(:class:`Source`) that the chunking steps and the renderer share."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Literal

from docs_mcp.chunk.sections import Scope
from docs_mcp.parse.markdown import Document


@dataclass
class Piece:
    """A chunk in the making: a line range plus where its id comes from."""

    kind: Literal["preamble", "file", "heading"]
    heading: int | None  # block index of its own heading
    start_line: int
    end_line: int
    exclude: frozenset[int]  # heading blocks not counted as text: its own and absorbed ancestors
    scope: Scope
    part: int = 1
    # A part of a split section owns characters start..end of the text (None: whole lines), and
    # renders with the context it repeats (split_blocks.py).
    start: int | None = None
    end: int | None = None
    before: str = ""
    after: str = ""

    @property
    def whole_lines(self) -> bool:
        return self.start is None and self.end is None


class Source:
    """Offsets, sizes and block lookups over the lines of one parsed document."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.lines = doc.lines
        self.blocks = doc.blocks
        self.block_starts = [block.start_line for block in doc.blocks]
        self.offsets = [0]  # character offset of the start of each line, and one past the end
        for line in doc.lines:
            self.offsets.append(self.offsets[-1] + len(line) + 1)
        self._text: str | None = None

    @property
    def text(self) -> str:
        """The normalised source (lines joined by newlines), made when a part needs it."""
        if self._text is None:
            self._text = "\n".join(self.lines)
        return self._text

    def size(self, start: int, end: int) -> int:
        """Characters of lines ``start..end`` joined by newlines."""
        return max(0, self.offsets[end] - self.offsets[start - 1] - 1) if end >= start else 0

    def span(self, piece: Piece) -> tuple[int, int]:
        """The character offsets ``[start, end)`` of what ``piece`` owns."""
        start = piece.start if piece.start is not None else self.offsets[piece.start_line - 1]
        end = piece.end if piece.end is not None else self.line_end(piece.end_line)
        return start, end

    def piece_size(self, piece: Piece) -> int:
        """Characters of the piece's markdown, repeated context included."""
        start, end = self.span(piece)
        return len(piece.before) + max(0, end - start) + len(piece.after)

    def line_of(self, offset: int) -> int:
        """The 1-based line holding character ``offset``."""
        return bisect_right(self.offsets, offset)

    def line_end(self, line: int) -> int:
        """The offset just past the last character of ``line``."""
        return self.offsets[line] - 1

    def trim(self, start: int, end: int) -> int:
        """``end`` moved up past blank lines (``start - 1`` when the range is blank)."""
        end = min(end, len(self.lines))
        while end >= start and not self.lines[end - 1].strip():
            end -= 1
        return end

    def blocks_in(self, start_line: int, end_line: int) -> range:
        """Indices of the blocks that start on lines ``start_line..end_line``."""
        return range(bisect_left(self.block_starts, start_line), bisect_right(self.block_starts, end_line))

    def block_at(self, line: int) -> int:
        """Index of the last block starting at or before ``line``; -1 when there is none."""
        return bisect_right(self.block_starts, line) - 1

    def content(self, piece: Piece) -> list[int]:
        """The blocks of a whole-line piece that count as its content (not its own heading)."""
        return [
            index for index in self.blocks_in(piece.start_line, piece.end_line) if index not in piece.exclude
        ]
