"""Markdown file -> chunks, following the spec's "Chunk Identity Scheme" (see issue 2).

The steps of :func:`chunk_file`, in order:

1. ``parse``: markdown -> top-level blocks with source line ranges (``markdown.py``);
2. ``read_front_matter`` and ``collect_hints``: front matter keys and ``<!-- mcp_...-->`` comments
   (``front_matter.py``, ``hints.py``), then the file's effective strategy and metadata;
3. ``outline``: every heading's deduplicated slug path and breadcrumb (``sections.py``);
4. ``find_boundaries``: which headings start a chunk (the strategy, refined by section hints);
5. ``segment_file``: cut the file at those headings; a preamble or a shallower heading with no content of
   its own (a preamble of only metadata lines counts as none) forms no chunk and its lines go to the
   chunk after it (``joining.py``);
6. ``refine``: a chunk over ``max_chunk_size`` is cut at its next deeper heading level; one with no
   deeper heading is packed into parts (``-part-N``) between top-level blocks, and inside a block
   that does not fit on its own, at the block's seams (``split_blocks.py``, ``packing.py``);
7. ``join_one_line_sections``: a section of one short line (or none) with no subsection after it joins
   the chunk before it, the first of a file the chunk after it (``joining.py``);
8. ``merge_small``: chunks under ``min_chunk_size`` join the chunk before them;
9. ``render``: ids, plain text, embedding input and metadata of every chunk.

Every non-blank character after the front matter is owned by exactly one chunk (see ``Chunk``), and
no chunk is over its ``max_chunk_size``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from docs_mcp.chunk.chunks import Chunk, FileSettings
from docs_mcp.chunk.joining import join_one_line_sections, metadata_only
from docs_mcp.chunk.kinds import is_example_heading
from docs_mcp.chunk.packing import pack
from docs_mcp.chunk.pieces import Piece, Source
from docs_mcp.chunk.rendering import PREAMBLE, Renderer, embedding_input
from docs_mcp.chunk.sections import Scope, find_boundaries, outline, repeated
from docs_mcp.chunk.split_blocks import BlockSplitter, Span
from docs_mcp.errors import Finding
from docs_mcp.parse.front_matter import FrontMatterValues, read_front_matter
from docs_mcp.parse.hints import FileHints, MetadataDeclaration, collect_hints, is_hint
from docs_mcp.parse.markdown import Block, parse
from docs_mcp.parse.reporter import Reporter
from docs_mcp.parse.strategy import Strategy

__all__ = ["PREAMBLE", "ChunkedFile", "MetadataDeclaration", "Oversized", "chunk_file", "embedding_input"]

How = Literal["headings", "blocks", "inside-block"]


@dataclass(frozen=True)
class Oversized:
    """A section over its ``max_chunk_size`` and how it was made to fit: ``headings`` (cut at its
    deeper headings), ``blocks`` (parts between top-level blocks) or ``inside-block`` (parts cut
    inside a block too big on its own)."""

    line: int  # where the section starts
    heading_line: int  # the line of its heading; 0 for a preamble or a whole file
    level: int  # its heading level; 0 for a preamble or a whole file
    size: int
    max_size: int
    how: How
    block: str = ""  # inside-block: the kind of the first block cut (``table``, ``fence``, ...)
    block_line: int = 0  # inside-block: that block's first line
    allowed: bool = False  # inside-block: the strategy says such cuts are expected
    depth: int = 0  # headings: the heading level it was cut at


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
    oversized: list[Oversized] = field(default_factory=list)  # sections made to fit, in order


def chunk_file(source: str, path: str, settings: FileSettings) -> ChunkedFile:
    """Chunk one markdown file. ``source`` is decoded text (a BOM and CRLF/CR endings are handled).

    Never raises for bad content: problems become ``findings`` with source line numbers.
    """
    report = Reporter(path)
    doc = parse(source)
    front = read_front_matter(doc.front_matter, report) if doc.front_matter else FrontMatterValues()
    hints = collect_hints(doc, report)
    strategy, explicit = _resolve_strategy(settings, hints, front)
    title = repeated(front.title if front.title is not None else _first_h1(doc.blocks))
    file_scope = Scope(
        0,
        strategy.split_level,
        strategy.max_chunk_size,
        strategy.min_chunk_size,
        {**settings.metadata, **front.metadata},
        strategy.allow_block_splits,
    )
    chunker = _Chunker(Source(doc))
    boundaries = find_boundaries(doc.blocks, file_scope, hints, report)
    pieces = [
        refined for piece in chunker.segment_file(boundaries, file_scope) for refined in chunker.refine(piece)
    ]
    pieces = chunker.merge_small(join_one_line_sections(pieces, chunker.source))
    chunks = Renderer(chunker.source, outline(doc.blocks), path, title).render(pieces)
    _report_block_splits(chunker.oversized, report)
    return ChunkedFile(
        path=path,
        chunks=chunks,
        findings=sorted(report.findings, key=lambda finding: finding.line),
        metadata_declarations=front.declarations + hints.declarations,
        strategy=strategy,
        strategy_explicit=explicit,
        title=title,
        oversized=chunker.oversized,
    )


def _report_block_splits(oversized: Sequence[Oversized], report: Reporter) -> None:
    """One warning per file whose sections had to be cut inside a block, unless that is expected."""
    inside = [o for o in oversized if o.how == "inside-block" and not o.allowed]
    if not inside:
        return
    first = inside[0]
    sections = f"{len(inside)} sections" if len(inside) > 1 else "1 section"
    report.warning(
        first.line,
        "split-inside-block",
        f"{sections} over max_chunk_size {first.max_size} had to be cut inside a block (first: the "
        f"{first.block} at line {first.block_line}, in a section of {first.size} characters); add "
        'headings, or set "allow_block_splits": true in the strategy if this is expected',
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
    """The steps that cut one parsed document into pieces."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.doc = source.doc
        self.blocks = source.blocks
        self.lines = source.lines
        self.oversized: list[Oversized] = []

    def has_content(self, piece: Piece) -> bool:
        return any(not self.blocks[index].is_comment_only for index in self.source.content(piece))

    def _metadata_only(self, piece: Piece) -> bool:
        """A preamble of ``Key: value`` lines, comments and anchors: nothing it could answer with."""
        blocks = [self.blocks[index] for index in self.source.content(piece)]
        return metadata_only(
            [line for block in blocks for line in self.lines[block.start_line - 1 : block.end_line]]
        )

    def _is_hint_block(self, index: int) -> bool:
        block = self.blocks[index]
        return block.is_comment_only and all(is_hint(comment) for comment in block.comments)

    # -- steps ----------------------------------------------------------------------------------

    def segment_file(self, boundaries: Mapping[int, Scope], file_scope: Scope) -> list[Piece]:
        """The file cut at its chunk-starting headings; no chunk for a blank file."""
        first = next(
            (n for n in range(self.doc.body_start, len(self.lines) + 1) if self.lines[n - 1].strip()), 0
        )
        if not first:
            return []
        whole = Piece("file", None, first, self.source.trim(first, len(self.lines)), frozenset(), file_scope)
        if not boundaries:
            return [whole]
        preamble = replace(whole, kind="preamble")
        return self._segment(
            preamble, list(range(len(self.blocks))), sorted(boundaries), boundaries.__getitem__
        )

    def _segment(
        self, region: Piece, content: list[int], starts: list[int], scope_of: Callable[[int], Scope]
    ) -> list[Piece]:
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
                Piece(
                    "heading", heading, start_line, region.end_line, frozenset({heading}), scope_of(heading)
                )
            )
        for piece in pieces:
            piece.end_line = self.source.trim(piece.start_line, piece.end_line)
        return self._drop_contentless(pieces)

    def _drop_contentless(self, pieces: list[Piece]) -> list[Piece]:
        """A piece with no content of its own, followed by a piece inside it, hands its lines on."""
        kept: list[Piece] = []
        carried: Piece | None = None
        for n, piece in enumerate(pieces):
            if carried is not None:
                piece.start_line, piece.exclude = carried.start_line, piece.exclude | carried.exclude
                carried = None
            following = pieces[n + 1] if n + 1 < len(pieces) else None
            empty = not self.has_content(piece) or (piece.kind == "preamble" and self._metadata_only(piece))
            if following is not None and empty and self._contains(piece, following):
                carried = piece
                continue
            kept.append(piece)
        return kept

    def _contains(self, outer: Piece, inner: Piece) -> bool:
        if outer.heading is None:
            return True  # a preamble hands its comments and blank lines to the first chunk
        assert inner.heading is not None
        return self.blocks[inner.heading].level > self.blocks[outer.heading].level

    def refine(self, piece: Piece) -> list[Piece]:
        """Split an oversized piece at its next deeper heading level, else into parts."""
        size = self.source.size(piece.start_line, piece.end_line)
        if size <= piece.scope.max_size:
            return [piece]
        content = self.source.content(piece)
        depths = [self.blocks[index].level for index in content if self.blocks[index].is_heading]
        if not depths:
            return self._parts(piece, size)
        depth = min(depths)
        self._record(piece, size, "headings", depth=depth)
        starts = [
            index for index in content if self.blocks[index].is_heading and self.blocks[index].level == depth
        ]
        subpieces = self._keep_example_with_name(
            piece, self._segment(piece, content, starts, lambda _: piece.scope)
        )
        return [refined for sub in subpieces for refined in self.refine(sub)]

    def _keep_example_with_name(self, piece: Piece, subpieces: list[Piece]) -> list[Piece]:
        """An operation cut at its subheadings keeps its name, description and first example in one
        chunk: the lead (the section's own heading and text) takes in the example subsection right
        after it when the two fit ``max_chunk_size`` together; else the example is a chunk of its own,
        as every other subsection."""
        if len(subpieces) < 2 or subpieces[0].heading != piece.heading:
            return subpieces
        lead, example = subpieces[0], subpieces[1]
        if example.heading is None or not is_example_heading(self.blocks[example.heading].text):
            return subpieces
        if not (lead.whole_lines and example.whole_lines):
            return subpieces
        if self.source.size(lead.start_line, example.end_line) > piece.scope.max_size:
            return subpieces
        lead.end_line = example.end_line  # the example's heading now counts as text of the lead
        return [lead, *subpieces[2:]]

    def _parts(self, piece: Piece, size: int) -> list[Piece]:
        """Parts that fit ``max_chunk_size``: between top-level blocks, and inside a block that does
        not fit on its own (``split_blocks.py``); part 1 keeps the id."""
        spans = [
            Span(
                block.start_line,
                min(block.end_line, piece.end_line),
                block.is_heading or block.is_comment_only,
                block.kind,
            )
            for block in (self.blocks[i] for i in self.source.blocks_in(piece.start_line, piece.end_line))
        ]
        budget = piece.scope.max_size
        atoms = BlockSplitter(self.lines, self.source.offsets, budget).section_atoms(
            spans, piece.start_line, piece.end_line
        )
        ranges = pack(atoms, budget)
        inside = next((atoms[last + 1] for _, last in ranges[:-1] if atoms[last + 1].inside), None)
        if inside is None:
            self._record(piece, size, "blocks")
        else:
            index = self.source.block_at(self.source.line_of(inside.start))
            block = self.blocks[index] if index >= 0 else None  # None: lines outside any block
            kind, line = (
                (block.kind, block.start_line) if block else ("line", self.source.line_of(inside.start))
            )
            self._record(piece, size, "inside-block", kind, line)
        parts = []
        for number, (first, last) in enumerate(ranges, start=1):
            start, end = atoms[first].start, atoms[last].end
            parts.append(
                replace(
                    piece,
                    start_line=self.source.line_of(start),
                    end_line=self.source.line_of(end - 1),
                    start=start,
                    end=end,
                    before=atoms[first].before,
                    after=atoms[last].after,
                    part=number,
                )
            )
        return parts

    def _record(
        self,
        piece: Piece,
        size: int,
        how: How,
        block: str = "",
        block_line: int = 0,
        depth: int = 0,
    ) -> None:
        heading = self.blocks[piece.heading] if piece.heading is not None else None
        self.oversized.append(
            Oversized(
                line=piece.start_line,
                heading_line=heading.start_line if heading else 0,
                level=heading.level if heading else 0,
                size=size,
                max_size=piece.scope.max_size,
                how=how,
                block=block,
                block_line=block_line,
                allowed=piece.scope.allow_block_splits,
                depth=depth,
            )
        )

    def merge_small(self, pieces: list[Piece]) -> list[Piece]:
        """A piece under its ``min_chunk_size`` joins the piece before it (which keeps its id)."""
        merged: list[Piece] = []
        for piece in pieces:
            minimum = piece.scope.min_size
            previous = merged[-1] if merged else None
            if (
                previous is not None
                and minimum is not None
                and self.source.piece_size(piece) < minimum
                and self._merged_size(previous, piece) <= previous.scope.max_size
            ):
                # Its heading now counts as text of the merged chunk.
                previous.end_line, previous.after = piece.end_line, piece.after
                if previous.start is not None or piece.start is not None:
                    previous.start, previous.end = self.source.span(previous)[0], self.source.span(piece)[1]
                continue
            merged.append(piece)
        return merged

    def _merged_size(self, first: Piece, second: Piece) -> int:
        return (
            len(first.before) + self.source.span(second)[1] - self.source.span(first)[0] + len(second.after)
        )
