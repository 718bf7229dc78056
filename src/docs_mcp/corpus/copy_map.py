"""Each copy's main copy, by chunk id, in about 20 bytes a copy: what a build writes in each row's
``copy_of`` column (``store.columns.COPY_COLUMN``) without holding the copy groups as lists of ids.

``CopyUnion`` joins the clusters ``corpus.copies.CopyFinder`` finds, each member numbered by its
place among the sections set aside, into groups (union-find over the numbers, so clusters sharing a
section are one group, as ``copies.copy_groups`` merges them) and keeps each group's best rank: its
main copy. ``MainCopies`` answers a batch of chunk ids from sorted 128-bit hashes of the members'
ids (a hash names one id among a million with a chance of about 1e-27 of another), and the group's
other leads (``copies.CopyGroups.other_leads``): per group, the best rank of each combination of facet
values its members hold, so usually one rank a group. ``Grouping`` is the same per section set aside
(its group's number), which an update keeps for the next build (``copy_changes``).
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["CopyUnion", "Grouping", "MainCopies", "id_hash"]

# As copies.Rank: the member first in a group has the least, the id third, its facet values' hash last.
Rank = tuple[int, int, str, int]


def id_hash(chunk_id: str) -> tuple[int, int]:
    """The 128-bit hash of ``chunk_id``, as its high and low 64 bits."""
    digest = hashlib.blake2b(chunk_id.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    return int.from_bytes(digest[:8], "big"), int.from_bytes(digest[8:], "big")


class MainCopies:
    """The main copy of each copy (its group's first member), looked up by chunk id; ``groups`` counts
    the groups, ``other_leads`` are the leads that are not a main copy."""

    def __init__(
        self,
        high: np.ndarray,
        low: np.ndarray,
        group: np.ndarray,
        mains: Sequence[str],
        other_leads: frozenset[str] = frozenset(),
    ) -> None:
        order = np.lexsort((low, high))
        self._high, self._low, self._group = high[order], low[order], group[order]
        self._mains = list(mains)
        self.groups = len(self._mains)
        self.other_leads = other_leads

    def column(self, ids: Sequence[str]) -> list[str | None]:
        """The main copy of each of ``ids``, None for a chunk that is no copy."""
        if not ids or not len(self._high):
            return [None] * len(ids)
        hashes = [id_hash(chunk_id) for chunk_id in ids]
        highs = np.array([high for high, _ in hashes], dtype=np.uint64)
        starts = np.searchsorted(self._high, highs).tolist()
        found: list[str | None] = []
        for (high, low), start in zip(hashes, starts, strict=True):
            main = None
            at = start
            while at < len(self._high) and int(self._high[at]) == high:
                if int(self._low[at]) == low:
                    main = self._mains[int(self._group[at])]
                    break
                at += 1
            found.append(main)
        return found


@dataclass(frozen=True)
class Grouping:
    """The copy groups over the sections set aside, numbered: per section its group's number (-1 for a
    section that is no copy) and, for a copy, the 128-bit hash of its id (``id_hash``); per group its
    main copy and its other leads."""

    group: np.ndarray  # int32, per section
    high: np.ndarray  # uint64, per section (0 for no copy)
    low: np.ndarray
    mains: list[str]
    leads: list[list[str]]

    def main_copies(self) -> MainCopies:
        """Each copy's main copy, by chunk id."""
        copies = self.group >= 0
        other_leads = frozenset(lead for leads in self.leads for lead in leads)
        return MainCopies(self.high[copies], self.low[copies], self.group[copies], self.mains, other_leads)


class CopyUnion:
    """The groups of the clusters ``add``-ed, over ``sections`` numbered sections; ``result`` gives
    their ``MainCopies``."""

    def __init__(self, sections: int) -> None:
        self._parent = array("q", range(sections))
        self._high = np.zeros(sections, dtype=np.uint64)
        self._low = np.zeros(sections, dtype=np.uint64)
        self._member = np.zeros(sections, dtype=np.bool_)
        # Per group's root, per hash of facet values: the least rank (the least of all: the main copy's).
        self._best: dict[int, dict[int, Rank]] = {}

    def _root(self, number: int) -> int:
        parent = self._parent
        while parent[number] != number:
            parent[number] = parent[parent[number]]  # path halving
            number = parent[number]
        return number

    def add(self, cluster: Iterable[tuple[int, Rank]]) -> None:
        """Join the members of ``cluster`` (each its section's number and rank) into one group."""
        best = self._best
        joined: int | None = None
        for number, rank in cluster:
            if not self._member[number]:
                self._member[number] = True
                self._high[number], self._low[number] = id_hash(rank[2])
            root = self._root(number)
            here = best.pop(root, {})
            if joined is None:
                joined = root
            elif root != joined:
                self._parent[root] = joined
                here = _least(here, best.pop(joined, {}))
            best[joined] = _least(here, {rank[3]: rank})

    def result(self) -> MainCopies:
        """Each member's main copy; the union is spent."""
        return self.grouping().main_copies()

    def grouping(self) -> Grouping:
        """The groups, numbered in the order of their first section; the union is spent."""
        numbers = np.flatnonzero(self._member)
        groups: dict[int, int] = {}
        mains: list[str] = []
        leads: list[list[str]] = []
        group = np.full(len(self._member), -1, dtype=np.int32)
        for number in numbers.tolist():
            root = self._root(number)
            index = groups.get(root)
            if index is None:
                index = groups[root] = len(mains)
                ranks = sorted(self._best[root].values())
                mains.append(ranks[0][2])
                leads.append([rank[2] for rank in ranks[1:]])
            group[number] = index
        found = Grouping(group, self._high, self._low, mains, leads)
        self._parent, self._best = array("q"), {}
        return found


def _least(one: dict[int, Rank], other: dict[int, Rank]) -> dict[int, Rank]:
    """Per hash of facet values, the least rank of either (``one`` updated and returned)."""
    for facets, rank in other.items():
        if facets not in one or rank < one[facets]:
            one[facets] = rank
    return one
