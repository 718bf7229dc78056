"""Markdown file -> chunks, following the spec's "Chunk Identity Scheme" (see issue 2).

The steps of :func:`chunk_file`, in order:

1. ``parse``: markdown -> top-level blocks with source line ranges (``markdown.py``);
2. ``read_front_matter`` and ``collect_hints``: front matter keys and ``<!-- mcp_...-->`` comments
   (``front_matter.py``, ``hints.py``), then the file's effective strategy and metadata;
3. ``outline``: every heading's deduplicated slug path and breadcrumb (``sections.py``);
4. ``find_boundaries``: which headings start a chunk (the strategy, refined by section hints);
5. ``segment_file``: cut the file at those headings; a preamble or a shallower heading with no content of
   its own forms no chunk and its lines go to the chunk after it;
6. ``refine``: a chunk over ``max_chunk_size`` is cut at its next deeper heading level, and then
   between top-level blocks (``-part-N``);
7. ``merge_small``: chunks under ``min_chunk_size`` join the chunk before them;
8. ``render``: ids, plain text, embedding input and metadata of every chunk.

Every source line after the front matter ends up in exactly one chunk, or is blank between chunks.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from docs_mcp.authoring.front_matter import FrontMatterValues, read_front_matter
from docs_mcp.authoring.hints import FileHints, MetadataDeclaration, collect_hints, is_hint
from docs_mcp.authoring.markdown import Block, Document, parse
from docs_mcp.authoring.model import Chunk, FileSettings, Strategy
from docs_mcp.authoring.reporter import Reporter
from docs_mcp.authoring.sections import Scope, find_boundaries, outline
from docs_mcp.errors import Finding

__all__ = ["ChunkedFile", "MetadataDeclaration", "chunk_file"]

PREAMBLE = "_preamble"


@dataclass
class ChunkedFile:
    """The chunks of one file and everything validate needs to know about it."""

    path: str  # posix, relative to the docs root (given by the caller)
    chunks: list[Chunk]
    findings: list[Finding]  # errors and warnings with file line numbers
    metadata_declarations: list[MetadataDeclaration]
    strategy: Strategy  # the file's effective strategy after inline hint and front matter
    strategy_explicit: bool  # settings.strategy_explicit, or a hint / front matter set the strategy
    title: str  # front matter title, else the first h1's text, else ""


@dataclass
class _Piece:
    """A chunk in the making: a line range plus where its id comes from."""

    kind: Literal["preamble", "file", "heading"]
    heading: int | None  # block index of its own heading
    start_line: int
    end_line: int
    exclude: frozenset[int]  # heading blocks not counted as text: its own and absorbed ancestors
    scope: Scope
    part: int = 1


def chunk_file(source: str, path: str, settings: FileSettings) -> ChunkedFile:
    """Chunk one markdown file. ``source`` is decoded text (a BOM and CRLF/CR endings are handled).

    Never raises for bad content: problems become ``findings`` with source line numbers.
    """
    report = Reporter(path)
    doc = parse(source)
    front = read_front_matter(doc.front_matter, report) if doc.front_matter else FrontMatterValues()
    hints = collect_hints(doc, report)
    strategy, explicit = _resolve_strategy(settings, hints, front)
    title = front.title if front.title is not None else _first_h1(doc.blocks)
    file_scope = Scope(
        0,
        strategy.split_level,
        strategy.max_chunk_size,
        strategy.min_chunk_size,
        {**settings.metadata, **front.metadata},
    )
    chunker = _Chunker(doc, path, title, report)
    boundaries = find_boundaries(doc.blocks, file_scope, hints, report)
    pieces = [
        refined for piece in chunker.segment_file(boundaries, file_scope) for refined in chunker.refine(piece)
    ]
    chunks = chunker.render(chunker.merge_small(pieces))
    return ChunkedFile(
        path=path,
        chunks=chunks,
        findings=sorted(report.findings, key=lambda finding: finding.line),
        metadata_declarations=front.declarations + hints.declarations,
        strategy=strategy,
        strategy_explicit=explicit,
        title=title,
    )


def _resolve_strategy(
    settings: FileSettings, hints: FileHints, front: FrontMatterValues
) -> tuple[Strategy, bool]:
    """Precedence, lowest first: manifest settings, inline file hint, front matter."""
    strategy, explicit = settings.strategy, settings.strategy_explicit
    if hints.file_hint is not None:
        strategy, explicit = hints.file_hint.apply(strategy), True
    if front.strategy is not None:
        strategy, explicit = front.strategy, True
    if front.chunk_by is not None:
        strategy, explicit = replace(strategy, chunk_by=front.chunk_by), True
    return strategy, explicit


def _first_h1(blocks: Sequence[Block]) -> str:
    return next((block.text for block in blocks if block.is_heading and block.level == 1 and block.text), "")


class _Chunker:
    """Line arithmetic over one parsed document, and the steps that need it."""

    def __init__(self, doc: Document, path: str, title: str, report: Reporter) -> None:
        self.doc = doc
        self.blocks = doc.blocks
        self.lines = doc.lines
        self.path = path
        self.title = title
        self.report = report
        self.outline = outline(doc.blocks)
        self._block_starts = [block.start_line for block in doc.blocks]
        self._offsets = [0]  # character offset of the start of each line
        for line in doc.lines:
            self._offsets.append(self._offsets[-1] + len(line) + 1)

    # -- line arithmetic ------------------------------------------------------------------------

    def size(self, start: int, end: int) -> int:
        """Characters of lines ``start..end`` joined by newlines."""
        return max(0, self._offsets[end] - self._offsets[start - 1] - 1) if end >= start else 0

    def trim(self, start: int, end: int) -> int:
        """``end`` moved up past blank lines (``start - 1`` when the range is blank)."""
        end = min(end, len(self.lines))
        while end >= start and not self.lines[end - 1].strip():
            end -= 1
        return end

    def content(self, piece: _Piece) -> list[int]:
        lo = bisect_left(self._block_starts, piece.start_line)
        hi = bisect_right(self._block_starts, piece.end_line)
        return [index for index in range(lo, hi) if index not in piece.exclude]

    def has_content(self, piece: _Piece) -> bool:
        return any(not self.blocks[index].is_comment_only for index in self.content(piece))

    def _is_hint_block(self, index: int) -> bool:
        block = self.blocks[index]
        return block.is_comment_only and all(is_hint(comment) for comment in block.comments)

    # -- steps ----------------------------------------------------------------------------------

    def segment_file(self, boundaries: Mapping[int, Scope], file_scope: Scope) -> list[_Piece]:
        """The file cut at its chunk-starting headings; no chunk for a blank file."""
        first = next(
            (n for n in range(self.doc.body_start, len(self.lines) + 1) if self.lines[n - 1].strip()), 0
        )
        if not first:
            return []
        whole = _Piece("file", None, first, self.trim(first, len(self.lines)), frozenset(), file_scope)
        if not boundaries:
            return [whole]
        preamble = replace(whole, kind="preamble")
        return self._segment(
            preamble, list(range(len(self.blocks))), sorted(boundaries), boundaries.__getitem__
        )

    def _segment(
        self, region: _Piece, content: list[int], starts: list[int], scope_of: Callable[[int], Scope]
    ) -> list[_Piece]:
        """Cut ``region`` before each heading in ``starts``; the part before the first keeps its identity."""
        position = {index: n for n, index in enumerate(content)}
        pieces = [replace(region)]
        for heading in starts:
            first = position[heading]
            # Hint comments directly before a heading belong to that heading's chunk.
            while first > 0 and self._is_hint_block(content[first - 1]):
                first -= 1
            start_line = self.blocks[content[first]].start_line
            pieces[-1].end_line = start_line - 1
            pieces.append(
                _Piece(
                    "heading", heading, start_line, region.end_line, frozenset({heading}), scope_of(heading)
                )
            )
        for piece in pieces:
            piece.end_line = self.trim(piece.start_line, piece.end_line)
        return self._drop_contentless(pieces)

    def _drop_contentless(self, pieces: list[_Piece]) -> list[_Piece]:
        """A piece with no content of its own, followed by a piece inside it, hands its lines on."""
        kept: list[_Piece] = []
        carried: _Piece | None = None
        for n, piece in enumerate(pieces):
            if carried is not None:
                piece.start_line, piece.exclude = carried.start_line, piece.exclude | carried.exclude
                carried = None
            following = pieces[n + 1] if n + 1 < len(pieces) else None
            if following is not None and not self.has_content(piece) and self._contains(piece, following):
                carried = piece
                continue
            kept.append(piece)
        return kept

    def _contains(self, outer: _Piece, inner: _Piece) -> bool:
        if outer.heading is None:
            return True  # a preamble hands its comments and blank lines to the first chunk
        assert inner.heading is not None
        return self.blocks[inner.heading].level > self.blocks[outer.heading].level

    def refine(self, piece: _Piece) -> list[_Piece]:
        """Split an oversized piece at its next deeper heading level, then between top-level blocks."""
        if self.size(piece.start_line, piece.end_line) <= piece.scope.max_size:
            return [piece]
        content = self.content(piece)
        depths = [self.blocks[index].level for index in content if self.blocks[index].is_heading]
        if not depths:
            return self._parts(piece, content)
        depth = min(depths)
        starts = [
            index for index in content if self.blocks[index].is_heading and self.blocks[index].level == depth
        ]
        subpieces = self._segment(piece, content, starts, lambda _: piece.scope)
        return [refined for sub in subpieces for refined in self.refine(sub)]

    def _parts(self, piece: _Piece, content: list[int]) -> list[_Piece]:
        """Greedy split between top-level blocks; part 1 keeps the id, a block is never cut."""
        starts = [piece.start_line]
        filled = False
        for index in content:
            block = self.blocks[index]
            if filled and self.size(starts[-1], block.end_line) > piece.scope.max_size:
                starts.append(block.start_line)
            filled = True
        ends = [start - 1 for start in starts[1:]] + [piece.end_line]
        return [
            replace(piece, start_line=start, end_line=self.trim(start, end), part=n)
            for n, (start, end) in enumerate(zip(starts, ends, strict=True), start=1)
        ]

    def merge_small(self, pieces: list[_Piece]) -> list[_Piece]:
        """A piece under its ``min_chunk_size`` joins the piece before it (which keeps its id)."""
        merged: list[_Piece] = []
        for piece in pieces:
            minimum = piece.scope.min_size
            previous = merged[-1] if merged else None
            if (
                previous is not None
                and minimum is not None
                and self.size(piece.start_line, piece.end_line) < minimum
                and self.size(previous.start_line, piece.end_line) <= previous.scope.max_size
            ):
                previous.end_line = piece.end_line  # its heading now counts as text of the merged chunk
                continue
            merged.append(piece)
        return merged

    def render(self, pieces: list[_Piece]) -> list[Chunk]:
        """The final chunks: ids (unique), text, embedding input, metadata; oversized ones reported."""
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
            self._check_size(piece, chunk_id)
        return chunks

    def _chunk_id(self, piece: _Piece) -> str:
        if piece.kind == "file":
            base = self.path
        elif piece.kind == "preamble":
            base = f"{self.path}#{PREAMBLE}"
        else:
            assert piece.heading is not None
            base = f"{self.path}#{'/'.join(self.outline[piece.heading].slugs)}"
        return base if piece.part == 1 else f"{base}-part-{piece.part}"

    def _chunk(self, piece: _Piece, chunk_id: str, ordinal: int) -> Chunk:
        if piece.heading is not None:
            heading, level = self.blocks[piece.heading].text, self.blocks[piece.heading].level
            breadcrumb = self.outline[piece.heading].breadcrumb
        else:
            heading, level, breadcrumb = (self.title if piece.kind == "file" else ""), 0, ()
        text = "\n\n".join(self.blocks[i].text for i in self.content(piece) if self.blocks[i].text)
        return Chunk(
            id=chunk_id,
            file_path=self.path,
            heading=heading,
            level=level,
            breadcrumb=breadcrumb,
            ordinal=ordinal,
            markdown="\n".join(self.lines[piece.start_line - 1 : piece.end_line]),
            text=text,
            embedding_input=embedding_input(self.title, breadcrumb, heading, text),
            start_line=piece.start_line,
            end_line=piece.end_line,
            metadata=dict(piece.scope.metadata),
            title=self.title,
        )

    def _check_size(self, piece: _Piece, chunk_id: str) -> None:
        size = self.size(piece.start_line, piece.end_line)
        if size <= piece.scope.max_size:
            return
        content = self.content(piece)
        biggest = max(
            content, key=lambda i: self.size(self.blocks[i].start_line, self.blocks[i].end_line), default=None
        )
        where = (
            f"the {self.blocks[biggest].kind} at line {self.blocks[biggest].start_line}"
            if biggest is not None
            else "a single block"
        )
        self.report.error(
            piece.start_line,
            "oversized-chunk",
            f"chunk {chunk_id} has {size} characters, over max_chunk_size {piece.scope.max_size}, and "
            f"{where} cannot be split; shorten it, add headings, or raise max_chunk_size",
        )


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
