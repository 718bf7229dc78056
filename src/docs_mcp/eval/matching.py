"""Which retrieved hits answer a labelled query, and at which rank.

Sections (a relevant id with ``#``): a hit matches ``page.md#path`` when its chunk id is exactly
that, or is one of that section's ``-part-N`` parts (a section over ``max_chunk_size`` is split), or
its heading path ends with the relevant one (``page.md#title/path``: the same section under an
ancestor heading, e.g. a page's ``#`` title). Ranks count hits.

Pages (a relevant id without ``#``): a hit matches when it is a chunk of that file. Ranks count
unique pages: each page takes the rank of its best hit, and later hits of a page are skipped.

``exact`` matching (``--match exact``) credits a section only for its own chunk id: the rule the
project's recorded quality figures were measured with.

Either way a relevant id is credited once, at its best rank; a hit matching no uncredited relevant
id (a second part of a credited section, say) counts as not relevant, so no metric exceeds 1.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from docs_mcp.eval.queries import LabelledQuery

__all__ = ["MATCHINGS", "Hit", "Judged", "Matching", "judge", "section_matches", "units_of"]

Matching = Literal["sections", "exact"]
MATCHINGS: tuple[str, ...] = get_args(Matching)

_PART = re.compile(r"-part-\d+$")


@dataclass(frozen=True)
class Hit:
    """One search hit as the eval sees it: its chunk id and its file."""

    chunk_id: str
    file: str


@dataclass(frozen=True)
class Judged:
    """A query's ranking judged: ``units`` in rank order (chunk ids or pages), ``credited[i]`` the
    relevant id that rank ``i + 1`` answers (None: not relevant) and ``gains[i]`` its grade (or 0);
    ``grades`` holds the grade of every relevant id, credited or not (what a perfect ranking gains)."""

    units: tuple[str, ...]
    credited: tuple[str | None, ...]
    gains: tuple[float, ...]
    grades: tuple[float, ...]


def section_matches(relevant_id: str, chunk_id: str) -> bool:
    """True when the hit ``chunk_id`` is the section ``relevant_id``, one of its parts, or the same
    section under ancestor headings."""
    if chunk_id == relevant_id:
        return True
    page, _, path = relevant_id.partition("#")
    hit_page, hash_, hit_path = chunk_id.partition("#")
    if hit_page != page or not hash_:
        return False
    whole = _PART.sub("", hit_path)
    return whole == path or whole.endswith("/" + path)


def units_of(query: LabelledQuery, hits: Sequence[Hit]) -> list[str]:
    """The ranked units of ``hits`` for ``query``: chunk ids, or unique pages in first-seen order."""
    if query.unit == "section":
        return [hit.chunk_id for hit in hits]
    return list(dict.fromkeys(hit.file for hit in hits))


def judge(query: LabelledQuery, hits: Sequence[Hit], matching: Matching = "sections") -> Judged:
    """Credit each relevant id of ``query`` at the best rank of a hit that matches it."""
    units = units_of(query, hits)
    pending = list(query.relevant)
    credited: list[str | None] = []
    for unit in units:
        found = next((r for r in pending if _matches(query, r, unit, matching)), None)
        if found is not None:
            pending.remove(found)
        credited.append(found)
    gains = tuple(0.0 if found is None else query.grade(found) for found in credited)
    return Judged(tuple(units), tuple(credited), gains, tuple(query.grade(r) for r in query.relevant))


def _matches(query: LabelledQuery, relevant_id: str, unit: str, matching: Matching) -> bool:
    if query.unit == "section" and matching == "sections":
        return section_matches(relevant_id, unit)
    return unit == relevant_id
