"""Folding copies: the sections the build found to be copies of one another (``docs_mcp.corpus.copies``;
each row names its group's main copy, ``store.columns.COPY_COLUMN``, read with the hits; older
indexes list the groups in their manifest's ``copies``) are one hit, the best-ranked copy, listing
the others in ``also_in`` as ``{"facet": "copy", "value": <file>, "chunk_id": <id>}``.

Runs after cross-language folding, on its hits: what folded into a copy moves with it, and a copy of
a section that folded into a hit (the Python ``README-PYPI.md`` twin of a Python README section
that folded into the TypeScript one) folds into that hit. A hit only
ever folds into a better one, so pages stay prefixes of one order, as with ``folding.py``.

In indexes whose rows say which copy leads its group (``store.columns.COPY_LEAD_COLUMN``), a search
ranks the leads only (``ranked``): one candidate per group and combination of facet values, however
many copies it has, so the ranking's depth does not follow the number of copies. The copies of a
page's hits (and of the variants folded into them) that the request's filter allows are then listed
with one lookup (``listed``). Older indexes rank every copy and list those ranked with the page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from docs_mcp.search.folding import FoldedHit
from docs_mcp.search.types import Variant
from docs_mcp.store.columns import COPY_LEAD_COLUMN

__all__ = ["COPY", "CopyFolder"]

COPY = "copy"  # the ``facet`` of a folded copy's ``also_in`` entry


MainCopies = Callable[[Sequence[str]], Mapping[str, str]]
# The members of groups (main copies' ids) under a filter, as (main copy, id), in id order.
Members = Callable[[Sequence[str], str | None], Sequence[tuple[str, str]]]


class CopyFolder:
    """Folds rankings of one index by its groups of copies: ``main_copies(ids)`` names the main copy
    (the group) of each of ``ids`` that has copies; None: the index has none. With ``members``, the
    index's rows say which copies lead their group: searches rank those only and list a page's
    copies with ``members``."""

    def __init__(
        self, main_copies: MainCopies | None = None, members: Members | None = None, others: int | None = None
    ) -> None:
        """``others``: how many rows lead no group, in an index that ranks leads (None: not counted)."""
        self._main_copies = main_copies
        self._members = members if main_copies is not None else None
        self.other_count = others if self._members is not None else None

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

    @property
    def ranks_leads(self) -> bool:
        """Whether the index says which copy leads its group (searches rank the leads)."""
        return self._members is not None

    def ranked(self, where: str | None) -> str | None:
        """The filter a search's legs rank under for the filter ``where``: the leads only, when the
        index says which they are."""
        if self._members is None:
            return where
        return f"({where}) AND {COPY_LEAD_COLUMN}" if where else COPY_LEAD_COLUMN

    def others(self, where: str | None) -> str:
        """The copies that lead nothing, under the filter ``where`` (an index that ranks leads)."""
        return f"({where}) AND NOT {COPY_LEAD_COLUMN}" if where else f"NOT {COPY_LEAD_COLUMN}"

    def listed(self, hits: Sequence[FoldedHit], where: str | None) -> None:
        """Add to each of ``hits`` (folded) the copies of it and of its variants that ``where``
        allows and it does not list yet, in ``also_in`` after what it holds, each group's in id
        order: one lookup for all of them. Nothing to do in an index that ranks every copy."""
        if self._members is None or self._main_copies is None or not hits:
            return
        shown = [[hit.chunk_id, *(variant.chunk_id for variant in hit.also_in)] for hit in hits]
        groups = self._main_copies([cid for ids in shown for cid in ids])
        wanted = list(dict.fromkeys(groups[cid] for ids in shown for cid in ids if cid in groups))
        members: dict[str, list[str]] = {}
        for main, cid in self._members(wanted, where) if wanted else ():
            members.setdefault(main, []).append(cid)
        for hit, ids in zip(hits, shown, strict=True):
            seen = set(ids)
            for main in dict.fromkeys(groups[cid] for cid in ids if cid in groups):
                for cid in members.get(main, ()):
                    if cid not in seen:
                        seen.add(cid)
                        hit.also_in.append(Variant(COPY, cid.partition("#")[0], cid))

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
