"""Folding copies: the sections the build found to be copies of one another (``docs_mcp.corpus.copies``;
each row names its group's main copy, ``store.columns.COPY_COLUMN``, read with the hits; older
indexes list the groups in their manifest's ``copies``) are one hit, the best-ranked copy, listing
the others in ``also_in`` as ``{"facet": "copy", "value": <file>, "chunk_id": <id>}``.

Runs after cross-language folding, on its hits: what folded into a copy moves with it, and a copy of
a section that folded into a hit (the Python ``README-PYPI.md`` twin of a Python README section
that folded into the TypeScript one) folds into that hit. A hit only
ever folds into a better one, so pages stay prefixes of one order, as with ``folding.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from docs_mcp.search.folding import FoldedHit
from docs_mcp.search.types import Variant

__all__ = ["COPY", "CopyFolder"]

COPY = "copy"  # the ``facet`` of a folded copy's ``also_in`` entry


MainCopies = Callable[[Sequence[str]], Mapping[str, str]]


class CopyFolder:
    """Folds rankings of one index by its groups of copies: ``main_copies(ids)`` names the main copy
    (the group) of each of ``ids`` that has copies; None: the index has none."""

    def __init__(self, main_copies: MainCopies | None = None) -> None:
        self._main_copies = main_copies

    @classmethod
    def of_groups(cls, groups: Sequence[Sequence[str]]) -> CopyFolder:
        """The folder of groups listed whole (each a sequence of chunk ids, the main copy first): an
        index manifest's ``copies``, from builds before each row named its group."""
        if not groups:
            return cls()
        main = {chunk_id: group[0] for group in groups for chunk_id in group}
        return cls(lambda ids: {cid: main[cid] for cid in ids if cid in main})

    def __bool__(self) -> bool:
        return self._main_copies is not None

    def fold(self, hits: list[FoldedHit]) -> list[FoldedHit]:
        """``hits`` (best first) with each copy folded into the best hit of its group."""
        if self._main_copies is None:
            return hits
        members = [cid for hit in hits for cid in (hit.chunk_id, *(v.chunk_id for v in hit.also_in))]
        groups = self._main_copies(members)
        kept: list[FoldedHit] = []
        best: dict[str, FoldedHit] = {}
        for hit in hits:
            group = groups.get(hit.chunk_id)
            into = best.get(group) if group is not None else None
            if into is None:
                # The hit stands for its group, and for the groups of what folded into it.
                for member in (hit.chunk_id, *(variant.chunk_id for variant in hit.also_in)):
                    if (main := groups.get(member)) is not None:
                        best.setdefault(main, hit)
                kept.append(hit)
                continue
            into.also_in.append(Variant(COPY, hit.chunk_id.partition("#")[0], hit.chunk_id))
            into.also_in.extend(hit.also_in)
        return kept
