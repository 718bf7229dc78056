"""Packing atoms into parts that fit a size budget, cutting at the best seams.

An :class:`Atom` is a span of the document text that is never cut at this stage, plus how good a
place the seam just before it is (``strength``: between top-level blocks beats between list items
beats between lines beats between words) and the context a part needs when it starts or ends there
(a table's header rows, a code fence opener and closer). A part of atoms ``i..j`` renders as::

    atoms[i].before + text[atoms[i].start : atoms[j].end] + atoms[j].after

so the context of atoms inside a part is never repeated: the part holds the real lines.

``pack`` is greedy with a preference: a part takes as many atoms as fit, then ends at the strongest
seam among those that leave it at least ``MIN_FILL`` full (the latest of equals). Where every seam
is equal (whole blocks) that is plain greedy packing, as before in-block splitting existed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# A part may end early, at a stronger seam, if it is at least this full.
MIN_FILL = 0.5
GLUE = -1  # the strength of a seam that should never be cut (right after a heading)


@dataclass(frozen=True)
class Atom:
    """A span ``[start, end)`` of the document text that a part holds whole."""

    start: int
    end: int
    strength: int  # how good a cut just before this atom is; higher is better
    before: str = ""  # context a part starting with this atom opens with (ends with a newline)
    after: str = ""  # context a part ending with this atom closes with (starts with a newline)
    inside: bool = False  # the atom is a piece of a block, not a whole top-level block


def part_size(atoms: Sequence[Atom], first: int, last: int) -> int:
    """Characters of the part made of ``atoms[first..last]``, context included."""
    return len(atoms[first].before) + atoms[last].end - atoms[first].start + len(atoms[last].after)


def pack(atoms: Sequence[Atom], budget: int) -> list[tuple[int, int]]:
    """Index ranges ``(first, last)`` of consecutive atoms, in order, covering every atom once.

    Every part fits ``budget`` when every single atom does (the caller's guarantee).
    """
    parts: list[tuple[int, int]] = []
    first, count = 0, len(atoms)
    while first < count:
        last = first
        while last + 1 < count and part_size(atoms, first, last + 1) <= budget:
            last += 1
        if last + 1 >= count:
            parts.append((first, last))
            break
        cut = _best_cut(atoms, first, last, budget)
        parts.append((first, cut - 1))
        first = cut
    return parts


def _best_cut(atoms: Sequence[Atom], first: int, last: int, budget: int) -> int:
    """The atom the next part starts with: the strongest seam in ``(first, last + 1]`` that keeps
    the part at least ``MIN_FILL`` full; the latest of equals; ``last + 1`` when none is full enough."""
    floor = budget * MIN_FILL
    best, strength = last + 1, atoms[last + 1].strength
    for cut in range(last, first, -1):
        if part_size(atoms, first, cut - 1) < floor:
            break
        if atoms[cut].strength > strength:
            best, strength = cut, atoms[cut].strength
    return best
