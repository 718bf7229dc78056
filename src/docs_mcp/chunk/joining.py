"""Pieces too thin to answer anything on their own join a neighbour (two steps of ``chunk_file``).

- A **metadata preamble** (the text before the first chunk-starting heading holds only ``Key: value``
  lines, HTML comments, anchors, attribute lists or link reference definitions: an RFC's ``Start
  Date:`` / ``RFC PR:`` header, a changelog's link list, a page's ``<a id>``) is no answer of its own:
  its lines go to the first section, as a contentless preamble's do (``metadata_only``).
- A **one-line section** (a heading whose own text is one line of at most ``ONE_LINE_CHARS``
  characters: ``## Drawbacks`` / ``None.``, ``## Status`` / ``Accepted``) with no subsection after
  it joins the chunk before it in its parent section, which keeps its id; the first section of a
  file joins its next sibling instead. Its heading becomes text of that chunk, so a search for it
  still finds the chunk (``join_one_line_sections``).

Left alone: a section followed by its own subsections however short its lead (it names a group, an
SDK operation's ``## create`` or a page's title, and its id is that group's anchor); a heading with
no text at all before a sibling (it most often titles the sections after it, written at its level:
the chunk before is the wrong home and the chunk after would lose its id; a site's pages drop it as
a stub); two one-liners side by side (joined they would still say nothing: a glossary or a
changelog of one-line entries keeps its entries); a section whose scope (metadata, strategy) differs
from its neighbour's, as a hint put there on purpose makes it; a section whose heading names an
SDK role (an operation's ``### Response``, a README's ``## Pagination``, a type's ``## Values``:
``kinds.names_sdk_role``), which SDK questions are answered with and search ranks by kind; and any
join over ``max_chunk_size``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docs_mcp.chunk.kinds import names_sdk_role
from docs_mcp.chunk.pieces import Piece, Source

__all__ = ["CONTENT_FREE_LINE", "METADATA_LINE", "ONE_LINE_CHARS", "join_one_line_sections", "metadata_only"]

# The longest single line of text a section may hold and still join a neighbour.
ONE_LINE_CHARS = 80
# ``Start Date: 2020-01-01``, ``- RFC PR: [#1](...)``, ``**Status:** Accepted``: a capitalised key of
# at most 31 characters, a colon and a short value.
METADATA_LINE = re.compile(r"^\s*[-*]?\s*\**[A-Z][\w -]{0,30}\**:\**\s+\S.{0,120}$")
# Lines that say nothing to a reader: headings, comments, HTML anchors, attribute lists, blank quotes,
# link reference definitions.
CONTENT_FREE_LINE = re.compile(
    r"^\s*(?:#{1,6}(?:\s.*)?|<!--.*-->|<a\s+(?:id|name)=[^>]*>\s*(?:</a>)?|\{\s*[#.][^{}]*\}|>?\s*"
    r"|\[[^\]]+\]:\s*\S+(?:\s+\"[^\"]*\")?)$"
)


def metadata_only(lines: Sequence[str]) -> bool:
    """Whether every line is metadata (``Key: value``) or says nothing (see ``CONTENT_FREE_LINE``)."""
    return all(CONTENT_FREE_LINE.match(line) or METADATA_LINE.match(line) for line in lines)


def join_one_line_sections(pieces: list[Piece], source: Source) -> list[Piece]:
    """``pieces`` with every one-line section that has no subsection after it joined to the piece
    before it in its parent section (the first piece of a file: to its next sibling), where the two
    share a scope and fit its ``max_chunk_size`` and the other says more than one line. The piece
    that takes it in keeps its id."""
    joined: list[Piece] = []
    carried: Piece | None = None
    for n, piece in enumerate(pieces):
        if carried is not None:
            _take_before(piece, carried, source)
            carried = None
        following = pieces[n + 1] if n + 1 < len(pieces) else None
        if not _one_line_leaf(piece, following, source):
            joined.append(piece)
        elif joined and _own_section(piece) and _can_join(joined[-1], piece, source):
            _take_after(joined[-1], piece, source)
        elif not joined and following is not None and _siblings(piece, following, source):
            carried = piece
        else:
            joined.append(piece)
    return joined


def _own_section(piece: Piece) -> bool:
    """Whether ``piece`` holds no ancestor heading (one with no text of its own, handed on to it):
    then the piece before it lies in its parent section."""
    return piece.exclude == {piece.heading}


def _siblings(piece: Piece, following: Piece, source: Source) -> bool:
    """Whether ``following`` is the next section at ``piece``'s level under the same parent, and
    may take ``piece`` in."""
    assert piece.heading is not None
    if following.heading is None or not _own_section(following):
        return False
    same_level = source.blocks[following.heading].level == source.blocks[piece.heading].level
    return same_level and _can_join(piece, following, source)


def _one_line_leaf(piece: Piece, following: Piece | None, source: Source) -> bool:
    """A whole section whose own text is one short line and whose next piece is no subsection of it."""
    if piece.kind != "heading" or piece.heading is None or not piece.whole_lines or piece.part != 1:
        return False
    if names_sdk_role(source.blocks[piece.heading].text):
        return False
    level = source.blocks[piece.heading].level
    if (
        following is not None
        and following.heading is not None
        and source.blocks[following.heading].level > level
    ):
        return False  # a lead of its subsections
    return _text_lines(piece, source) == 1


def _text_lines(piece: Piece, source: Source) -> int:
    """The non-blank lines of the piece's own text (comments aside): 0, 1 (if at most
    ``ONE_LINE_CHARS`` long) or 2 for anything more."""
    lines = []
    for index in source.content(piece):
        block = source.blocks[index]
        if block.is_comment_only:
            continue
        lines += [line for line in source.lines[block.start_line - 1 : block.end_line] if line.strip()]
        if len(lines) > 1:
            return 2
    return 2 if lines and len(lines[0].strip()) > ONE_LINE_CHARS else len(lines)


def _has_more(piece: Piece, source: Source) -> bool:
    """Whether ``piece`` says more than one short line: one-line sections join only such a
    neighbour, never each other (a glossary or a changelog of one-line entries keeps its entries)."""
    return not piece.whole_lines or _text_lines(piece, source) > 1


def _can_join(first: Piece, second: Piece, source: Source) -> bool:
    """Whether ``first`` and ``second`` (next to each other) may become one chunk."""
    if first.scope != second.scope or first.after or second.before:
        return False
    if not (_has_more(first, source) or _has_more(second, source)):
        return False  # two one-liners stay apart: a glossary or changelog keeps its entries
    size = len(first.before) + source.span(second)[1] - source.span(first)[0] + len(second.after)
    return size <= first.scope.max_size


def _take_after(piece: Piece, later: Piece, source: Source) -> None:
    """``piece`` extended over ``later``: its heading now counts as text of ``piece``."""
    if not piece.whole_lines:
        piece.start, piece.end = source.span(piece)[0], source.span(later)[1]
    piece.end_line, piece.after = later.end_line, later.after


def _take_before(piece: Piece, earlier: Piece, source: Source) -> None:
    """``piece`` extended back over ``earlier``: its heading now counts as text of ``piece``."""
    if not piece.whole_lines:
        piece.start, piece.end = source.span(earlier)[0], source.span(piece)[1]
    piece.start_line = earlier.start_line
