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

import contextlib
import hashlib
import os
import pickle
import re
import tempfile
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

from docs_mcp.chunk.chunks import Chunk

__all__ = ["CopyFinder", "copy_groups"]

_LINK_TARGET = re.compile(r"\]\([^)]*\)|\]\[[^\]]*\]|<?https?://[^\s)>]+>?")
_NOT_WORD = re.compile(r"[^\w]+")
_PACKAGE = re.compile(r"/packages/[^/]+/")


# Of the word pairs of two sections' texts, the share (Jaccard) they must have in common.
NEAR = 0.6


class Section(NamedTuple):
    """What comparing a chunk as a copy reads of it."""

    id: str
    file_path: str
    heading: str
    breadcrumb: tuple[str, ...]
    metadata: dict[str, str]
    markdown: str


def _section(chunk: Chunk) -> Section:
    return Section(
        chunk.id,
        chunk.file_path,
        chunk.heading,
        tuple(chunk.breadcrumb),
        dict(chunk.metadata),
        chunk.markdown,
    )


def _facets(chunk: Section) -> tuple[str, ...]:
    return tuple(f"{key}={value}" for key, value in sorted(chunk.metadata.items()))


def _by_name(chunk: Section) -> tuple[str, ...]:
    """Sections compared as copies: the same facet values (one section in several languages is
    folding's business, not a copy), file name and heading path."""
    name = chunk.file_path.rpartition("/")[2].lower().replace("-pypi", "")
    return (*_facets(chunk), name, *(heading.lower() for heading in (*chunk.breadcrumb, chunk.heading)))


def _by_place(chunk: Section) -> tuple[str, ...]:
    """Also compared: a per-package copy and its original, at the same path once ``packages/<name>/``
    is taken out, with the same headings below the page title (a package's README has its own)."""
    place = _PACKAGE.sub("/", "/" + chunk.file_path.lower()).replace("-pypi", "")
    headings = (*chunk.breadcrumb[1:], chunk.heading) if chunk.breadcrumb else (chunk.heading,)
    return (*_facets(chunk), place, *(heading.lower() for heading in headings))


def _pairs(chunk: Section) -> frozenset[tuple[str, str]]:
    words = _NOT_WORD.sub(" ", _LINK_TARGET.sub("]", chunk.markdown.lower())).split()
    return frozenset(pairwise(words)) or frozenset({(" ".join(words), "")})


def _near(one: frozenset[tuple[str, str]], other: frozenset[tuple[str, str]]) -> bool:
    return len(one & other) >= NEAR * len(one | other)


def _preference(chunk: Section) -> tuple[int, int, str]:
    # The main copy first: outside packages/ folders, not a -PYPI twin, shallowest, then by id.
    path = chunk.file_path.lower()
    return ("/packages/" in f"/{path}") + ("-pypi" in path), path.count("/"), chunk.id


def _clusters(chunks: Sequence[Section], block: Callable[[Section], tuple[str, ...]]) -> list[list[Section]]:
    """Copies among the chunks of each ``block``: each cluster's main copy first."""
    blocks: dict[tuple[str, ...], list[Section]] = defaultdict(list)
    for chunk in chunks:
        blocks[block(chunk)].append(chunk)
    found: list[list[Section]] = []
    for members in blocks.values():
        if len(members) < 2:
            continue
        # A cluster: its main copy's word pairs, its files, its chunks. Parts of one cut section
        # share a file and a heading: they are one section, never copies of each other.
        clusters: list[tuple[frozenset[tuple[str, str]], set[str], list[Section]]] = []
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
    usable = [_section(chunk) for chunk in chunks if chunk.text.strip()]
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
    """``copy_groups`` over a corpus too large to hold (a build's). ``add`` keeps of each section a
    hash of each of its two blocks (16 bytes) and sets the section aside in a temporary file in
    ``directory`` (what comparing reads of it: ids, headings, facets, markdown); ``groups`` reads
    back the sections of blocks with two members or more, a few thousand at a time, and clusters them
    exactly as ``copy_groups`` (each block is checked by its full key, so a hash collision only costs
    a read). ``close`` (or the end of a ``with`` block) deletes the file. Raises ``OSError``."""

    def __init__(self, directory: Path) -> None:
        self._file = tempfile.TemporaryFile(dir=directory, prefix="copies-")  # noqa: SIM115 (closed by close)
        self._offsets = array("q", [0])  # where each section set aside starts, and the end
        self._blocks = (array("q"), array("q"))  # by name, by place

    def __enter__(self) -> CopyFinder:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Delete the sections set aside. Raises nothing."""
        with contextlib.suppress(OSError):
            self._file.close()

    def add(self, chunk: Chunk) -> None:
        """Count ``chunk`` (chunks without text are never copies)."""
        if not chunk.text.strip():
            return
        section = _section(chunk)
        data = pickle.dumps(tuple(section), protocol=pickle.HIGHEST_PROTOCOL)
        self._file.write(data)
        self._offsets.append(self._offsets[-1] + len(data))
        self._blocks[0].append(_hash(_by_name(section)))
        self._blocks[1].append(_hash(_by_place(section)))

    def groups(self) -> list[list[str]]:
        """The groups ``copy_groups`` gives for the chunks added."""
        self._file.flush()
        found: list[list[tuple[int, int, str]]] = []
        for block, hashes in zip((_by_name, _by_place), self._blocks, strict=True):
            batch: list[list[int]] = []
            size = 0
            for numbers in _shared(hashes):
                batch.append(numbers)
                size += len(numbers)
                if size >= FETCH_SECTIONS:
                    found.extend(self._clustered(batch, block))
                    batch, size = [], 0
            found.extend(self._clustered(batch, block))
        return _merged(found)

    def _read(self, number: int) -> Section:
        start, end = self._offsets[number], self._offsets[number + 1]
        # Written by this object into its own unnamed temporary file: nothing else supplies the bytes.
        return Section(*pickle.loads(os.pread(self._file.fileno(), end - start, start)))

    def _clustered(
        self, batch: list[list[int]], block: Callable[[Section], tuple[str, ...]]
    ) -> list[list[tuple[int, int, str]]]:
        clusters: list[list[tuple[int, int, str]]] = []
        for numbers in batch:
            for cluster in _clusters([self._read(number) for number in numbers], block):
                clusters.append([_preference(section) for section in cluster])
        return clusters


def _shared(hashes: array[int]) -> Iterator[list[int]]:
    """The numbers of the sections of each block hash held by two sections or more."""
    import numpy as np

    if not len(hashes):
        return
    keys = np.frombuffer(hashes, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], len(ordered)]
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        if end - start > 1:
            yield order[start:end].tolist()
