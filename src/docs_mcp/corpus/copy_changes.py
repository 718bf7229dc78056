"""The copy groups of a corpus after a few files changed, from the last build's, without comparing
every section again (issue 34: an edit costs what it changes).

``CopyFinder.grouping`` clusters the sections of each block (by name, by place: ``copies.py``) on
their own, then joins the clusters that share a section into groups. A block's clusters depend on its
members only. So after an edit, the clusters can change only in the blocks a changed file's sections
fall in, now or in the last build; and a group can change only if one of its members is in such a
block. ``regroup`` closes over that: the blocks touched, their members, the last build's groups those
members (or the changed files' old sections) belonged to, those groups' members' blocks, and so on
until nothing is added; it clusters the blocks so found again and keeps every other group as it was,
its main copy and leads included. The result is what ``CopyFinder.grouping`` gives
(tests/corpus/test_copy_changes.py checks it against it over random edits). Declared copies
(manifests' ``copy_of``) are left to ``grouping``.

What a build keeps for the next (``CopyState``), in the compact form a build holds (``copy_map``):
per section its two block hashes, the hashes of its file path and id, its group's number and its id's
128-bit hash, as arrays (``numpy.savez``, no pickles); per group its main copy and other leads, as
JSON. About 45 bytes a section.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from docs_mcp.corpus.copies import CopyFinder, key_hash
from docs_mcp.corpus.copy_map import CopyUnion, Grouping

__all__ = ["CopyState", "file_digests", "regroup"]

log = logging.getLogger(__name__)

_HASHES = ("name", "place", "files", "ids")
_BLOCKINGS = ("name", "place")


@dataclass(frozen=True)
class CopyState:
    """A build's sections' hashes (``CopyFinder.hashes``) and its copy groups."""

    hashes: dict[str, Any]
    grouping: Grouping

    def save(self, path: Path) -> str:
        """Write to ``path`` (and ``path`` + ``.json``); returns a digest of both, for the build's
        record to name. Raises ``OSError``."""
        grouping = self.grouping
        with path.open("wb") as handle:
            arrays = {name: self.hashes[name] for name in _HASHES}
            np.savez(handle, **arrays, group=grouping.group, high=grouping.high, low=grouping.low)
        groups = json.dumps([grouping.mains, grouping.leads], separators=(",", ":")).encode()
        path.with_suffix(".json").write_bytes(groups)
        return _digest(path.read_bytes(), groups)

    @staticmethod
    def load(path: Path, digest: str) -> CopyState | None:
        """The state saved at ``path`` when its digest is ``digest``; None otherwise (logged)."""
        try:
            arrays, groups = path.read_bytes(), path.with_suffix(".json").read_bytes()
            if _digest(arrays, groups) != digest:
                log.info("%s is not the last build's: copy groups compared in full", path)
                return None
            with np.load(path, allow_pickle=False) as read:
                hashes = {name: np.asarray(read[name], dtype=np.int64) for name in _HASHES}
                group = np.asarray(read["group"], dtype=np.int32)
                high, low = (np.asarray(read[name], dtype=np.uint64) for name in ("high", "low"))
            mains, leads = json.loads(groups)
            grouping = Grouping(
                group,
                high,
                low,
                [str(main) for main in mains],
                [[str(lead) for lead in led] for led in leads],
            )
            return CopyState(hashes, grouping)
        except (OSError, ValueError, KeyError, TypeError) as error:
            log.info("%s does not read (%r): copy groups compared in full", path, error)
            return None


def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


class _Members:
    """The last build's copies, looked up by their id's hash: each one's group, and its number there."""

    def __init__(self, previous: CopyState) -> None:
        numbers = np.flatnonzero(previous.grouping.group >= 0)
        ids = previous.hashes["ids"][numbers]
        order = np.argsort(ids, kind="stable")
        self._ids, self._numbers = ids[order], numbers[order]
        self._group = previous.grouping.group

    def numbers(self, ids: np.ndarray) -> np.ndarray:
        """The last build's number of each of ``ids`` that was a copy there, -1 for the others."""
        if not len(self._ids):
            return np.full(len(ids), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self._ids, ids), len(self._ids) - 1)
        return np.where(self._ids[at] == ids, self._numbers[at], -1)

    def groups(self, ids: np.ndarray) -> np.ndarray:
        """The last build's group of each of ``ids``, -1 for one that was no copy."""
        numbers = self.numbers(ids)
        return np.where(numbers >= 0, self._group[numbers], -1)


def regroup(finder: CopyFinder, previous: CopyState, changed: Iterable[str]) -> Grouping:
    """The grouping ``finder.grouping()`` gives (no declared copies), from the ``previous`` build's, the
    files at the paths ``changed`` (edited, added or removed) being the only ones that changed."""
    now, before = finder.hashes(), previous.hashes
    members = _Members(previous)
    paths = np.array([key_hash((path,)) for path in changed], dtype=np.int64)
    old, fresh = np.isin(before["files"], paths), np.isin(now["files"], paths)
    touched = {
        blocking: set(before[blocking][old].tolist()) | set(now[blocking][fresh].tolist())
        for blocking in _BLOCKINGS
    }
    regrouped = set(previous.grouping.group[old].tolist()) - {-1}
    expanded: set[int] = set()  # groups whose members' blocks are touched already
    while True:
        in_blocks = _in_blocks(now, touched)
        regrouped |= set(members.groups(now["ids"][in_blocks]).tolist()) - {-1}
        new = regrouped - expanded
        expanded |= new
        their_ids = before["ids"][np.isin(previous.grouping.group, np.fromiter(new, dtype=np.int32))]
        grown = in_blocks | np.isin(now["ids"], their_ids)
        added = {blocking: set(now[blocking][grown].tolist()) - touched[blocking] for blocking in _BLOCKINGS}
        if not any(added.values()):
            break
        for blocking, found in added.items():
            touched[blocking] |= found
    union = CopyUnion(len(now["ids"]))
    for cluster in _clusters(finder, now, touched):
        union.add(cluster)
    return _with_kept(union.grouping(), previous, members.numbers(now["ids"]), regrouped)


def _in_blocks(now: dict[str, Any], touched: dict[str, set[int]]) -> Any:
    """The sections in a touched block of either blocking, as a boolean mask."""
    by_name = np.isin(now["name"], np.fromiter(touched["name"], dtype=np.int64))
    return by_name | np.isin(now["place"], np.fromiter(touched["place"], dtype=np.int64))


def _clusters(finder: CopyFinder, now: dict[str, Any], touched: dict[str, set[int]]) -> Iterator[Any]:
    """The clusters of every touched block of two members or more, read a block at a time."""
    for blocking in _BLOCKINGS:
        keys = now[blocking]
        numbers = np.flatnonzero(np.isin(keys, np.fromiter(touched[blocking], dtype=np.int64)))
        if not len(numbers):
            continue
        numbers = numbers[np.argsort(keys[numbers], kind="stable")]
        starts = np.flatnonzero(keys[numbers][1:] != keys[numbers][:-1]) + 1
        for block in np.split(numbers, starts):
            if len(block) > 1:
                yield from finder.block_clusters(block.tolist(), by_place=blocking == "place")


def _with_kept(fresh: Grouping, previous: CopyState, was: np.ndarray, regrouped: set[int]) -> Grouping:
    """``fresh`` (the groups found again) with the last build's groups not in ``regrouped``, as they
    were: ``was`` is each section's number in the last build (-1: none, or no copy there)."""
    old = previous.grouping
    before = np.where(was >= 0, old.group[np.maximum(was, 0)], -1)
    kept = (before >= 0) & ~np.isin(before, np.fromiter(regrouped, dtype=np.int32))
    numbers = np.unique(before[kept])  # the kept groups, renumbered after the fresh ones
    group, high, low = fresh.group.copy(), fresh.high.copy(), fresh.low.copy()
    group[kept] = len(fresh.mains) + np.searchsorted(numbers, before[kept])
    high[kept], low[kept] = old.high[was[kept]], old.low[was[kept]]
    kept_numbers = numbers.tolist()
    mains = [*fresh.mains, *(old.mains[number] for number in kept_numbers)]
    leads = [*fresh.leads, *(old.leads[number] for number in kept_numbers)]
    return Grouping(group, high, low, mains, leads)


def file_digests(state: CopyState) -> tuple[np.ndarray, np.ndarray]:
    """Per file holding a copy, a digest of its copies' ``copy_of`` and ``copy_lead`` values
    (``indexing.rows.copy_batches``): a file whose digest changed has rows to rewrite though it did
    not change itself. As two arrays, a few bytes a file: the files' path hashes
    (``key_hash((path,))``), sorted and distinct (int64), and their digests (uint64)."""
    grouping, hashes = state.grouping, state.hashes
    copies = np.flatnonzero(grouping.group >= 0)
    if not len(copies):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint64)
    mains = np.array([key_hash((main,)) for main in grouping.mains], dtype=np.int64)
    leads = np.array([key_hash((lead,)) for led in grouping.leads for lead in led], dtype=np.int64)
    ids = hashes["ids"][copies]
    lead = np.isin(ids, mains) | np.isin(ids, leads)
    # Each copy's (id, main copy, lead) mixed into 64 bits, summed per file: order does not matter.
    value = _mix(_mix(ids.view(np.uint64)) ^ mains[grouping.group[copies]].view(np.uint64)) + lead
    files = hashes["files"][copies]
    order = np.argsort(files, kind="stable")
    files, value = files[order], _mix(value[order])
    starts = np.flatnonzero(np.r_[True, files[1:] != files[:-1]])
    with np.errstate(over="ignore"):
        sums = np.add.reduceat(value, starts)
    return files[starts].astype(np.int64), sums.astype(np.uint64)


def _mix(values: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, element-wise: a 64-bit value's bits spread over all 64."""
    with np.errstate(over="ignore"):
        mixed: np.ndarray = values.astype(np.uint64)
        mixed = (mixed ^ (mixed >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        mixed = (mixed ^ (mixed >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        mixed = mixed ^ (mixed >> np.uint64(31))
        return mixed
