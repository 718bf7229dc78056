"""Folding copies: the sections the build found to be copies of one another (the index manifest's
``copies``, see ``docs_mcp.corpus.copies``) are one hit, the best-ranked copy, listing the others
in ``also_in`` as ``{"facet": "copy", "value": <file>, "chunk_id": <id>}``.

Runs after cross-language folding, on its hits: what folded into a copy moves with it, and a copy of
a section that folded into a hit (the Python ``README-PYPI.md`` twin of a Python README section
that folded into the TypeScript one) folds into that hit. A hit only
ever folds into a better one, so pages stay prefixes of one order, as with ``folding.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

from docs_mcp.search.folding import FoldedHit
from docs_mcp.search.types import Variant

__all__ = ["COPY", "CopyFolder"]

COPY = "copy"  # the ``facet`` of a folded copy's ``also_in`` entry


class CopyFolder:
    """Folds rankings of one index by its groups of copies (each a sequence of chunk ids)."""

    def __init__(self, groups: Sequence[Sequence[str]]) -> None:
        self._group = {chunk_id: number for number, group in enumerate(groups) for chunk_id in group}

    def __bool__(self) -> bool:
        return bool(self._group)

    def fold(self, hits: list[FoldedHit]) -> list[FoldedHit]:
        """``hits`` (best first) with each copy folded into the best hit of its group."""
        kept: list[FoldedHit] = []
        best: dict[int, FoldedHit] = {}
        for hit in hits:
            group = self._group.get(hit.chunk_id)
            into = best.get(group) if group is not None else None
            if into is None:
                # The hit stands for its group, and for the groups of what folded into it.
                for member in (hit.chunk_id, *(variant.chunk_id for variant in hit.also_in)):
                    if (number := self._group.get(member)) is not None:
                        best.setdefault(number, hit)
                kept.append(hit)
                continue
            into.also_in.append(Variant(COPY, hit.chunk_id.partition("#")[0], hit.chunk_id))
            into.also_in.extend(hit.also_in)
        return kept
