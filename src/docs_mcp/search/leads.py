"""One full-text query for a group's leads and the copies that lead nothing (``search.copies``).

An index whose rows say which copy leads its group ranks the leads only, and reads the copies that
lead nothing in a second full-text query, to keep those that score above their lead
(``Ranker._standouts``). Where the index holds few such copies (at most :data:`FEW_OTHERS`: a union
of a hundred libraries holds a few dozen), one query without the leads' filter reads both, as many
rows deeper as the index holds copies that lead nothing: whether it reads every match or not, it
holds every lead the leads' query would (the same first ``depth``, and whether there are more), and
every copy leading nothing that scores above the last of them. A LanceDB query costs about as much
again whatever it reads (docs/scaling.md, "Where a merged search's time goes"): one fewer a search.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docs_mcp.search.types import Ranked
from docs_mcp.store.columns import COPY_COLUMN, COPY_LEAD_COLUMN

__all__ = ["FEW_OTHERS", "OtherCopies"]

# At most this many copies leading nothing in an index: read with the leads (a query's depth costs
# little next to a second query); more, and they are read apart, as deep as a search needs.
FEW_OTHERS = 200


@dataclass
class OtherCopies:
    """What a leg read without the leads' filter hands over of the copies that lead nothing: the index
    holds ``count`` of them (the leg reads that many rows more); ``depth``: how many of the best are
    wanted (none when ``wanted`` is False: a leg of the leads only). ``found`` (best first, the
    leg's scores) and their groups (``groups``, main copy by id) are set by the leg."""

    count: int
    depth: int
    wanted: bool = True
    found: Ranked = field(default_factory=list)
    groups: dict[str, str | None] = field(default_factory=dict)

    def leads_only(self) -> OtherCopies:
        """The same index's split for a leg that ranks the leads only."""
        return OtherCopies(self.count, self.depth, wanted=False)

    def split(self, found: Ranked, read: Any) -> Ranked:
        """The leads of ``found`` (a leg's ranking, best first) read from ``read`` (its rows, an
        Arrow table with ``id``, ``COPY_LEAD_COLUMN`` and ``COPY_COLUMN``), in order; every copy that
        leads nothing goes into :attr:`found`, in order (the leg keeps the best :attr:`depth`), with
        its group."""
        ids = read["id"].to_pylist()
        leads = {cid for cid, lead in zip(ids, read[COPY_LEAD_COLUMN].to_pylist(), strict=True) if lead}
        if self.wanted:
            self.found = [hit for hit in found if hit[0] not in leads]
            groups = zip(ids, read[COPY_COLUMN].to_pylist(), strict=True)
            self.groups = {cid: group for cid, group in groups if cid not in leads}
        return [hit for hit in found if hit[0] in leads]
