"""The last chunking step: pieces -> :class:`Chunk` values (ids, markdown, text, embedding input).

A whole-line piece's markdown is its lines and its text its blocks' texts. A part cut inside a block
renders as ``before + owned source + after`` (the repeated context, see ``model.Chunk``); its text is
that of the whole blocks it holds plus, for a block cut at its edge, the text of the piece it holds
shown with the context (a table's header and rows, a fence's code lines, else the piece parsed alone).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from docs_mcp.chunk.chunks import Chunk
from docs_mcp.chunk.pieces import Piece, Source
from docs_mcp.chunk.sections import HeadingInfo, repeated
from docs_mcp.parse.markdown import Block, fragment_text

PREAMBLE = "_preamble"
_FENCE_CLOSER = re.compile(r"[ \t]*(?:`{3,}|~{3,})[ \t]*")


class Renderer:
    """Renders the pieces of one file (``path``, its ``title`` and heading ``outline``)."""

    def __init__(self, source: Source, outline: Mapping[int, HeadingInfo], path: str, title: str) -> None:
        self.source = source
        self.blocks = source.blocks
        self.outline = outline
        self.path = path
        self.title = title

    def render(self, pieces: Sequence[Piece]) -> list[Chunk]:
        """The final chunks, in order, with unique ids."""
        chunks: list[Chunk] = []
        used: set[str] = set()
        for ordinal, piece in enumerate(pieces):
            chunk_id = base = self._chunk_id(piece)
            suffix = 1
            while chunk_id in used:  # "-part-2" of one section may meet a heading named "... part 2"
                suffix += 1
                chunk_id = f"{base}-{suffix}"
            used.add(chunk_id)
            chunks.append(self._chunk(piece, chunk_id, ordinal))
        return chunks

    def _chunk_id(self, piece: Piece) -> str:
        if piece.kind == "file":
            base = self.path
        elif piece.kind == "preamble":
            base = f"{self.path}#{PREAMBLE}"
        else:
            assert piece.heading is not None
            base = f"{self.path}#{'/'.join(self.outline[piece.heading].slugs)}"
        return base if piece.part == 1 else f"{base}-part-{piece.part}"

    def _chunk(self, piece: Piece, chunk_id: str, ordinal: int) -> Chunk:
        source = self.source
        if piece.heading is not None:
            heading, level = repeated(self.blocks[piece.heading].text), self.blocks[piece.heading].level
            breadcrumb = self.outline[piece.heading].breadcrumb
        else:
            heading, level, breadcrumb = (self.title if piece.kind == "file" else ""), 0, ()
        start_column, end_column = 0, None
        if piece.whole_lines:
            markdown = "\n".join(source.lines[piece.start_line - 1 : piece.end_line])
            text = "\n\n".join(self.blocks[i].text for i in source.content(piece) if self.blocks[i].text)
        else:
            start, end = source.span(piece)
            markdown = piece.before + source.text[start:end] + piece.after
            text = self._part_text(piece, start, end)
            start_column = start - source.offsets[piece.start_line - 1]
            if end != source.line_end(piece.end_line):
                end_column = end - source.offsets[piece.end_line - 1]
        return Chunk(
            id=chunk_id,
            file_path=self.path,
            heading=heading,
            level=level,
            breadcrumb=breadcrumb,
            ordinal=ordinal,
            markdown=markdown,
            text=text,
            embedding_input=embedding_input(self.title, breadcrumb, heading, text),
            start_line=piece.start_line,
            end_line=piece.end_line,
            metadata=dict(piece.scope.metadata),
            title=self.title,
            context_before=piece.before,
            context_after=piece.after,
            start_column=start_column,
            end_column=end_column,
        )

    def _part_text(self, piece: Piece, start: int, end: int) -> str:
        """Whole blocks' texts, and the text of the piece of a block cut at the part's edge."""
        source = self.source
        texts: list[str] = []
        first_block = max(0, source.block_at(source.line_of(start)))
        for index in range(first_block, source.block_at(source.line_of(max(start, end - 1))) + 1):
            block = self.blocks[index]
            block_start = source.offsets[block.start_line - 1]
            block_end = source.line_end(source.trim(block.start_line, block.end_line))
            if block_end <= start or block_start >= end or index in piece.exclude:
                continue
            if start <= block_start and block_end <= end:
                texts.append(block.text)
                continue
            lo, hi = max(start, block_start), min(end, block_end)
            before = piece.before if lo == start else ""
            texts.append(self._cut_block_text(block, lo, hi, before, piece.after if hi == end else ""))
        return "\n\n".join(text for text in texts if text)

    def _cut_block_text(self, block: Block, lo: int, hi: int, before: str, after: str) -> str:
        """The plain text of the piece ``[lo, hi)`` of ``block`` with the part's context. Cut
        between lines, a table's text is its header's and its rows', a fence's its code lines;
        anything else is parsed again, alone (rare: tables are most of the big blocks)."""
        source = self.source
        first, last = source.line_of(lo), source.line_of(hi - 1)
        whole_lines = lo == source.offsets[first - 1] and hi == source.line_end(last)
        if whole_lines and block.kind == "table" and block.rows:
            numbers = [0] if before and first > block.start_line + 1 else []  # the repeated header
            numbers += [_table_row(block, line) for line in range(first, last + 1)]
            rows = [block.rows[n] for n in numbers if 0 <= n < len(block.rows)]
            return "\n".join(row.rstrip() for row in rows).strip()
        if whole_lines and block.kind == "fence":
            code = [
                source.lines[n - 1].rstrip()
                for n in range(first, last + 1)
                if n != block.start_line
                and not (n == block.end_line and _FENCE_CLOSER.fullmatch(source.lines[n - 1]))
            ]
            return "\n".join(code).strip("\n")
        return fragment_text(before + source.text[lo:hi] + after, source.doc.references)


def _table_row(table: Block, line: int) -> int:
    """The row of ``table`` on ``line``: 0 for the header, -1 for the delimiter row, k for body row k."""
    offset = line - table.start_line
    return {0: 0, 1: -1}.get(offset, offset - 1)


def embedding_input(title: str, breadcrumb: Sequence[str], heading: str, text: str) -> str:
    """``{title} > {ancestors} > {heading}`` then a blank line and the text (spec: Hierarchical Context).

    The spec's example wraps this as ``Document: ... Content: ...``; without the two label words
    (noise to a sentence-embedding model, and tokens out of a 128-token input) the local model ranked
    better on claude-docs and the SDK question set (docs/ranking.md, "Embedding input").
    """
    context: list[str] = []
    for part in (title, *breadcrumb, heading):
        if part and (not context or context[-1] != part):
            context.append(part)
    return f"{' > '.join(context)}\n\n{text}" if context else text
