"""Seams inside one line of text: between sentences, between words, and at a character boundary.

The last resort of in-block splitting (``split_blocks.py``): a single line longer than the budget.
Sentences end at ``.``, ``!``, ``?`` or ``…`` (and closing quotes or brackets) before whitespace, or at
CJK full stops. A cut never falls inside a grapheme when the budget allows it: not before a combining
mark, a variation selector or a zero-width joiner, nor after a joiner. The whitespace at a cut
belongs to neither part.
"""

from __future__ import annotations

import re
import unicodedata

from docs_mcp.chunk.packing import Atom

SENTENCE = 4  # seam strengths, below every line seam
WORD = 2
CHARACTER = 0

# Sentence-final punctuation, closing quotes and brackets; CJK full stops need no space after them.
_FINAL = ".!?\u2026"
_CJK_FINAL = "\u3002\uff01\uff1f"
_CLOSERS = "\"'\u201d\u2019)\\]*_"
_SENTENCE_END = re.compile(f"[{_FINAL}][{_CLOSERS}]*(?=\\s+\\S)|[{_CJK_FINAL}](?=\\S)")
_LINE_END_SENTENCE = re.compile(f"[{_FINAL}{_CJK_FINAL}][{_CLOSERS}]*\\s*\\Z")
_SPACE = re.compile(r"\s+")
_JOINERS = {"\u200d", "\u034f"}  # zero-width joiner, combining grapheme joiner


def ends_sentence(text: str) -> bool:
    """True when ``text`` (a line, trailing blanks ignored) ends with sentence-final punctuation."""
    return _LINE_END_SENTENCE.search(text) is not None


def split_line(text: str, line: Atom, rest: str, budget: int, prose: bool) -> list[Atom]:
    """``line`` (an atom spanning one line of ``text`` that does not fit ``budget``) as atoms that do.

    The first keeps ``line``'s start, strength and context; later ones open with ``rest`` (the
    line's container context and prefix). Every atom closes with ``line.after``.
    """
    before, after = line.before, line.after
    if len(rest) + len(after) > budget // 2 or len(before) + len(after) > budget // 2:
        before, rest, after = "", "", ""  # context that would crowd out the content goes
    seams = _seams(text, line.start, line.end, prose)
    atoms: list[Atom] = []
    for n, (seam_start, strength) in enumerate(seams):
        seam_end = seams[n + 1][0] if n + 1 < len(seams) else line.end
        segment_end = seam_start + len(text[seam_start:seam_end].rstrip())
        first = (
            Atom(seam_start, segment_end, line.strength, before, after, line.inside)
            if n == 0
            else Atom(seam_start, segment_end, strength, rest, after, inside=True)
        )
        if len(first.before) + segment_end - seam_start + len(after) <= budget:
            atoms.append(first)
        else:
            atoms.extend(_characters(text, first, rest, budget))
    return atoms


def _seams(text: str, start: int, end: int, prose: bool) -> list[tuple[int, int]]:
    """``(position, strength)`` of every place a part may start, the line's start first."""
    seams = {start: CHARACTER}
    line = text[start:end]
    for match in _SPACE.finditer(line):
        if match.start() > 0 and match.end() < len(line):
            seams[start + match.end()] = WORD
    if prose:
        for match in _SENTENCE_END.finditer(line):
            position = start + match.end()
            while position < end and text[position].isspace():
                position += 1
            if start < position < end:
                seams[position] = SENTENCE
    return sorted(seams.items())


def _characters(text: str, first: Atom, rest: str, budget: int) -> list[Atom]:
    """``first``'s span cut into the longest pieces that fit, at grapheme boundaries if possible."""
    atoms: list[Atom] = []
    before, strength, inside = first.before, first.strength, first.inside
    position, end = first.start, first.end
    while position < end:
        room = max(1, budget - len(before) - len(first.after))
        cut = min(end, position + room)
        while position + 1 < cut < end and not is_grapheme_boundary(text, cut):
            cut -= 1
        atoms.append(Atom(position, cut, strength, before, first.after, inside))
        before, strength, inside, position = rest, CHARACTER, True, cut
    return atoms


def is_grapheme_boundary(text: str, position: int) -> bool:
    """False when a cut at ``position`` would separate a character from its combining marks or
    break a joined emoji sequence (a close approximation of Unicode grapheme clusters)."""
    if position <= 0 or position >= len(text):
        return True
    following, preceding = text[position], text[position - 1]
    if unicodedata.combining(following) or following in _JOINERS or preceding in _JOINERS:
        return False
    if "\ufe00" <= following <= "\ufe0f" or "\U0001f3fb" <= following <= "\U0001f3ff":
        return False  # variation selectors, skin-tone modifiers
    return unicodedata.category(following) not in ("Mn", "Me", "Mc")
