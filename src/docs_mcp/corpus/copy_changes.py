"""The copy groups of a corpus after a few files changed, from the last build's, without comparing
every section again (issue 34: an edit costs what it changes).

``CopyFinder.groups`` clusters the sections of each block (by name, by place: ``copies.py``) on their
own, then merges the clusters that share a section into groups. A block's clusters depend on its
members only. So after an edit, the clusters can change only in the blocks a changed file's sections
fall in, now or in the last build; and a group can change only if one of its members is in such a
block. ``regroup`` closes over that: the blocks touched, their members, the last build's groups those
members (or the changed files' old sections) belonged to, those groups' members' blocks, and so on
until nothing is added; it clusters the blocks so found again and keeps every other group as it was.
The result is what ``CopyFinder.groups`` gives (tests/corpus/test_copy_changes.py checks it against
it over random edits). Declared copies (manifests' ``copy_of``) are left to ``groups``.

What a build keeps for the next (``CopyState``): per section its two block hashes and the hashes of
its file path and id, as arrays (``numpy.savez``, no pickles), and its groups as JSON.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from docs_mcp.corpus.copies import CopyFinder, Rank, key_hash, merged_groups

__all__ = ["CopyState", "regroup"]

log = logging.getLogger(__name__)

_ARRAYS = ("name", "place", "files", "ids")


@dataclass(frozen=True)
class CopyState:
    """A build's sections' hashes (``CopyFinder.hashes``) and its copy groups, main copy first."""

    hashes: dict[str, Any]
    groups: list[list[str]]

    def save(self, path: Path) -> str:
        """Write to ``path`` (and ``path`` + ``.json``); returns a digest of both, for the build's
        record to name. Raises ``OSError``."""
        with path.open("wb") as handle:
            np.savez(handle, **{name: self.hashes[name] for name in _ARRAYS})
        groups = json.dumps(self.groups, separators=(",", ":")).encode()
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
                hashes = {name: np.asarray(read[name], dtype=np.int64) for name in _ARRAYS}
            found = json.loads(groups)
            return CopyState(hashes, [[str(member) for member in group] for group in found])
        except (OSError, ValueError, KeyError, TypeError) as error:
            log.info("%s does not read (%r): copy groups compared in full", path, error)
            return None


def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def regroup(finder: CopyFinder, previous: CopyState, changed: Iterable[str]) -> list[list[str]]:
    """The groups ``finder.groups()`` gives (no declared copies), from the ``previous`` build's, the
    files at the paths ``changed`` (edited, added or removed) being the only ones that changed."""
    now, before = finder.hashes(), previous.hashes
    paths = np.array([key_hash((path,)) for path in changed], dtype=np.int64)
    old = np.isin(before["files"], paths)
    touched = {"name": set(before["name"][old].tolist()), "place": set(before["place"][old].tolist())}
    fresh = np.isin(now["files"], paths)
    touched["name"].update(now["name"][fresh].tolist())
    touched["place"].update(now["place"][fresh].tolist())
    group_of = {
        key_hash((member,)): number for number, group in enumerate(previous.groups) for member in group
    }
    regrouped = {group_of[key] for key in before["ids"][old].tolist() if key in group_of}
    expanded: set[int] = set()  # groups whose members' blocks are touched already
    while True:
        members = _members(now, touched)
        regrouped |= {group_of[key] for key in now["ids"][members].tolist() if key in group_of}
        new = regrouped - expanded
        expanded |= new
        keys = np.array([key_hash((member,)) for number in new for member in previous.groups[number]])
        grown = members | np.isin(now["ids"], keys.astype(np.int64))
        added = {name: set(now[name][grown].tolist()) - touched[name] for name in ("name", "place")}
        if not any(added.values()):
            break
        for name, found in added.items():
            touched[name] |= found
    clusters = _clusters(finder, now, touched)
    kept = [group for number, group in enumerate(previous.groups) if number not in regrouped]
    return sorted([*kept, *merged_groups(clusters)])


def _members(now: dict[str, Any], touched: dict[str, set[int]]) -> Any:
    """The sections in a touched block of either blocking, as a boolean mask."""
    by_name = np.isin(now["name"], np.fromiter(touched["name"], dtype=np.int64))
    return by_name | np.isin(now["place"], np.fromiter(touched["place"], dtype=np.int64))


def _clusters(finder: CopyFinder, now: dict[str, Any], touched: dict[str, set[int]]) -> list[list[Rank]]:
    """The clusters of every touched block of two members or more, read a block at a time."""
    found: list[list[Rank]] = []
    for blocking in ("name", "place"):
        keys = now[blocking]
        for key in sorted(touched[blocking]):
            numbers: Sequence[int] = np.flatnonzero(keys == key).tolist()
            if len(numbers) > 1:
                found.extend(finder.block_clusters(numbers, by_place=blocking == "place"))
    return found
