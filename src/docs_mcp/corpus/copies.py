"""Copies: sections that say the same thing in several places, found at build time.

Generated SDK docs repeat themselves: a ``README-PYPI.md`` beside its ``README.md`` (only the link
targets differ), per-package copies (``packages/azure/docs/models/...``, ``packages/gcp/...``) of
the main client's pages, the same ``RetryConfig`` page in every SDK. Each copy would take its own
rank. Two sections are copies when their facet values are equal, their files have the same name
(a ``-pypi`` twin counted as its original) and their heading paths are equal, or their files sit at
one path once a ``packages/<name>/`` folder is taken out and their headings below the page title are
equal (a package's README has a title of its own), and their texts, with case, punctuation, link
targets and URLs taken out, share at least ``NEAR`` of their word pairs. A twin whose example calls
another operation stays a copy; two operations of one shape in different resources have different
headings or paths, so never are; one section in two languages is folding's, not a copy. Nothing is
removed: every copy stays in the index and readable with ``get_doc``; the groups are recorded in the
index manifest (``copies``), where search folds a group's hits into its best one (``also_in``), and
``validate`` counts them.
"""

from __future__ import annotations

import hashlib
import re
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import pairwise

from docs_mcp.chunk.chunks import Chunk

__all__ = ["CopyFinder", "copy_groups"]

_LINK_TARGET = re.compile(r"\]\([^)]*\)|\]\[[^\]]*\]|<?https?://[^\s)>]+>?")
_NOT_WORD = re.compile(r"[^\w]+")
_PACKAGE = re.compile(r"/packages/[^/]+/")


# Of the word pairs of two sections' texts, the share (Jaccard) they must have in common.
NEAR = 0.6


def _facets(chunk: Chunk) -> tuple[str, ...]:
    return tuple(f"{key}={value}" for key, value in sorted(chunk.metadata.items()))


def _by_name(chunk: Chunk) -> tuple[str, ...]:
    """Sections compared as copies: the same facet values (one section in several languages is
    folding's business, not a copy), file name and heading path."""
    name = chunk.file_path.rpartition("/")[2].lower().replace("-pypi", "")
    return (*_facets(chunk), name, *(heading.lower() for heading in (*chunk.breadcrumb, chunk.heading)))


def _by_place(chunk: Chunk) -> tuple[str, ...]:
    """Also compared: a per-package copy and its original, at the same path once ``packages/<name>/``
    is taken out, with the same headings below the page title (a package's README has its own)."""
    place = _PACKAGE.sub("/", "/" + chunk.file_path.lower()).replace("-pypi", "")
    headings = (*chunk.breadcrumb[1:], chunk.heading) if chunk.breadcrumb else (chunk.heading,)
    return (*_facets(chunk), place, *(heading.lower() for heading in headings))


def _pairs(chunk: Chunk) -> frozenset[tuple[str, str]]:
    words = _NOT_WORD.sub(" ", _LINK_TARGET.sub("]", chunk.markdown.lower())).split()
    return frozenset(pairwise(words)) or frozenset({(" ".join(words), "")})


def _near(one: frozenset[tuple[str, str]], other: frozenset[tuple[str, str]]) -> bool:
    return len(one & other) >= NEAR * len(one | other)


def _preference(chunk: Chunk) -> tuple[int, int, str]:
    # The main copy first: outside packages/ folders, not a -PYPI twin, shallowest, then by id.
    path = chunk.file_path.lower()
    return ("/packages/" in f"/{path}") + ("-pypi" in path), path.count("/"), chunk.id


def _clusters(chunks: Sequence[Chunk], block: Callable[[Chunk], tuple[str, ...]]) -> list[list[Chunk]]:
    """Copies among the chunks of each ``block``: each cluster's main copy first."""
    blocks: dict[tuple[str, ...], list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        blocks[block(chunk)].append(chunk)
    found: list[list[Chunk]] = []
    for members in blocks.values():
        if len(members) < 2:
            continue
        # A cluster: its main copy's word pairs, its files, its chunks. Parts of one cut section
        # share a file and a heading: they are one section, never copies of each other.
        clusters: list[tuple[frozenset[tuple[str, str]], set[str], list[Chunk]]] = []
        for chunk in sorted(members, key=_preference):
            pairs = _pairs(chunk)
            home = next((c for c in clusters if chunk.file_path not in c[1] and _near(pairs, c[0])), None)
            if home is None:
                clusters.append((pairs, {chunk.file_path}, [chunk]))
            else:
                home[1].add(chunk.file_path)
                home[2].append(chunk)
        found.extend(members for _, _, members in clusters if len(members) > 1)
    return found


def copy_groups(chunks: Iterable[Chunk]) -> list[list[str]]:
    """The chunk ids of each group of two or more copies, the main copy first; groups in id order.
    Copies found by name and by place are one group when they share a section."""
    usable = [chunk for chunk in chunks if chunk.text.strip()]
    found = (*_clusters(usable, _by_name), *_clusters(usable, _by_place))
    return _merged([_preference(chunk) for chunk in cluster] for cluster in found)


def _merged(clusters: Iterable[list[tuple[int, int, str]]]) -> list[list[str]]:
    """The groups of ``clusters`` (each its members' preference, which ends with the id) merged where
    they share a section: ids in preference order, groups in id order."""
    group_of: dict[str, list[tuple[int, int, str]]] = {}
    for found in clusters:
        merged = {member[2]: member for member in found}
        for member in found:
            merged.update((other[2], other) for other in group_of.get(member[2], ()))
        group = list(merged.values())
        for member in group:
            group_of[member[2]] = group
    unique = {id(group): group for group in group_of.values()}.values()
    return sorted([member[2] for member in sorted(group)] for group in unique)


# Sections read back at once by ``CopyFinder.groups``: bounds its memory.
FETCH_SECTIONS = 4096


def _hash(key: tuple[str, ...]) -> int:
    digest = hashlib.blake2b("\0".join(key).encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class CopyFinder:
    """``copy_groups`` over a corpus too large to hold (a build's): ``add`` keeps of each section
    only a hash of each of its two blocks and the caller's number for it (24 bytes); ``groups``
    reads back, through ``fetch``, the sections of blocks with two members or more, a few thousand at
    a time, and clusters them exactly as ``copy_groups`` (each block is checked by its full key, so a
    hash collision only costs a read)."""

    def __init__(self) -> None:
        self._refs = array("q")
        self._blocks = (array("q"), array("q"))  # by name, by place

    def add(self, ref: int, chunk: Chunk) -> None:
        """Count ``chunk`` under ``ref`` (what ``fetch`` is given to read it back)."""
        if chunk.text.strip():
            self._refs.append(ref)
            self._blocks[0].append(_hash(_by_name(chunk)))
            self._blocks[1].append(_hash(_by_place(chunk)))

    def groups(self, fetch: Callable[[Sequence[int]], Mapping[int, Chunk]]) -> list[list[str]]:
        """The groups ``copy_groups`` gives for the chunks added; ``fetch(refs)`` returns them by ref."""
        found: list[list[tuple[int, int, str]]] = []
        for block, hashes in zip((_by_name, _by_place), self._blocks, strict=True):
            batch: list[list[int]] = []
            for refs in self._shared(hashes):
                batch.append(refs)
                if sum(map(len, batch)) >= FETCH_SECTIONS:
                    found.extend(self._clustered(batch, block, fetch))
                    batch = []
            found.extend(self._clustered(batch, block, fetch))
        return _merged(found)

    def _shared(self, hashes: array[int]) -> Iterator[list[int]]:
        """The refs of each block hash held by two sections or more."""
        import numpy as np

        keys = np.frombuffer(hashes, dtype=np.int64) if len(hashes) else np.zeros(0, np.int64)
        refs = np.frombuffer(self._refs, dtype=np.int64) if len(self._refs) else np.zeros(0, np.int64)
        order = np.argsort(keys, kind="stable")
        ordered = keys[order]
        starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(ordered) else ordered
        ends = np.r_[starts[1:], len(ordered)] if len(ordered) else ordered
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            if end - start > 1:
                yield refs[order[start:end]].tolist()

    @staticmethod
    def _clustered(
        batch: list[list[int]],
        block: Callable[[Chunk], tuple[str, ...]],
        fetch: Callable[[Sequence[int]], Mapping[int, Chunk]],
    ) -> list[list[tuple[int, int, str]]]:
        if not batch:
            return []
        chunks = fetch(sorted(ref for refs in batch for ref in refs))
        clusters: list[list[tuple[int, int, str]]] = []
        for refs in batch:
            for cluster in _clusters([chunks[ref] for ref in refs], block):
                clusters.append([_preference(chunk) for chunk in cluster])
        return clusters
