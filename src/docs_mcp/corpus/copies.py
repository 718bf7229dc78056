"""Copies: sections that say the same thing in several places, found at build time.

Generated SDK docs repeat themselves: a ``README-PYPI.md`` beside its ``README.md`` (only the link
targets differ), per-package copies (``packages/azure/docs/models/...``, ``packages/gcp/...``) of
the main client's pages, the same ``RetryConfig`` page in every SDK. Each copy would take its own
rank. Two sections are copies when their facet values are equal, their files have the same name
(a ``-pypi`` twin counted as its original) and their heading paths are equal, or their files sit at
one path once a ``packages/<name>/`` folder is taken out and their headings below the page title are
equal (a package's README has a title of its own), and their texts, with case, punctuation, link
targets and URLs taken out, share at least ``NEAR`` of their word pairs. A package's own copy of a
README topic or an operation (the same ``kind``, ``topic`` or ``operation``, at the same place) is a
copy whatever its text: it answers the same question for another client of the same SDK (its own
client class, endpoint and model names in the examples, error classes of its own), which is what a
package folder is. A twin whose example calls
another operation stays a copy; two operations of one shape in different resources have different
headings or paths, so never are; one section in two languages is folding's, not a copy. Files a
manifest declares copies of others (an override's ``copy_of``: ``declared``) add their sections
of the same headings as their original's, whatever the texts and facets (``declared_clusters``).
Nothing is removed: every copy stays in the index and readable with ``get_doc``; each row names its
group's main copy, search folds a group's hits into one (``also_in``), and ``validate`` counts them.

A group's leads are what a search ranks of it (``CopyGroups.leads``): its main copy, and the first
member (in the group's order) of each other combination of facet values its members hold (only a
declared copy can differ from its original in them). A search filter on facet values that lets a copy
through lets its combination's lead through, so ranking the leads finds every group the filter allows.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import re
import tempfile
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar

from docs_mcp.chunk.chunks import Chunk
from docs_mcp.chunk.kinds import KIND, OPERATION, TOPIC
from docs_mcp.corpus.copy_map import CopyUnion, Grouping, MainCopies

__all__ = [
    "CopyFinder",
    "CopyGroups",
    "FileLoader",
    "Rank",
    "SectionHashes",
    "copy_groups",
    "declared_clusters",
    "key_hash",
    "section_hashes",
]

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


def _answers_alike(chunk: Section) -> bool:
    """A README topic or an operation: its per-package copies answer the same question."""
    return chunk.metadata.get(KIND) in (TOPIC, OPERATION)


def _never(_: Section) -> bool:
    return False


# A group member's rank: a declared copy (10) or one in a package or a -PYPI twin (1 each) last,
# then the shallowest, then by id (the third element, which names the member); the fourth, a hash of
# its facet values, tells the group's leads (ids are unique, so it never decides an order).
Rank = tuple[int, int, str, int]


class CopyGroups(NamedTuple):
    """The groups of copies (chunk ids, each group's main copy first; groups in id order) and, of
    their leads, those that are not a main copy (usually none: see the module's docstring)."""

    groups: list[list[str]]
    other_leads: frozenset[str]


def _preference(chunk: Section, declared: frozenset[str] = frozenset()) -> Rank:
    # The main copy first: not declared a copy, outside packages/ folders, not a -PYPI twin,
    # shallowest, then by id.
    path = chunk.file_path.lower()
    flags = 10 * (chunk.file_path in declared) + ("/packages/" in f"/{path}") + ("-pypi" in path)
    return flags, path.count("/"), chunk.id, key_hash(_facets(chunk))


def _clusters(
    chunks: Sequence[Section], block: Callable[[Section], tuple[str, ...]], alike: Callable[[Section], bool]
) -> list[list[Section]]:
    """Copies among the chunks of each ``block``: near-identical texts, or any text when ``alike``
    holds of the chunk (the block already holds chunks of one kind); each cluster's main copy first."""
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
            home = next(
                (c for c in clusters if chunk.file_path not in c[1] and (alike(chunk) or _near(pairs, c[0]))),
                None,
            )
            if home is None:
                clusters.append((pairs, {chunk.file_path}, [chunk]))
            else:
                home[1].add(chunk.file_path)
                home[2].append(chunk)
        found.extend(members for _, _, members in clusters if len(members) > 1)
    return found


def copy_groups(chunks: Iterable[Chunk], declared: Iterable[tuple[str, str]] = ()) -> list[list[str]]:
    """The chunk ids of each group of two or more copies, the main copy first; groups in id order.
    Copies found by name and by place are one group when they share a section. ``declared``: the
    ``(copy, original)`` file paths manifests declare (``copy_rules.py``); their sections join the
    groups too, a declared copy never first."""
    usable = [_section(chunk) for chunk in chunks if chunk.text.strip()]
    declared = list(declared)
    copies = frozenset(copy for copy, _ in declared)
    found = (
        *_clusters(usable, _by_name, _never),
        *_clusters(usable, _by_place, _answers_alike),
        *declared_clusters(usable, declared),
    )
    return _merged([_preference(chunk, copies) for chunk in cluster] for cluster in found).groups


def _merged(clusters: Iterable[list[Rank]]) -> CopyGroups:
    """The groups of ``clusters`` (each its members' rank, the id third) merged where they share a
    section: ids in rank order, groups in id order; with the leads that are not a main copy."""
    group_of: dict[str, list[Rank]] = {}
    for found in clusters:
        merged = {member[2]: member for member in found}
        for member in found:
            merged.update((other[2], other) for other in group_of.get(member[2], ()))
        group = list(merged.values())
        for member in group:
            group_of[member[2]] = group
    unique = {id(group): group for group in group_of.values()}.values()
    groups: list[list[str]] = []
    leads: set[str] = set()
    for group in unique:
        ranked = sorted(group)
        groups.append([member[2] for member in ranked])
        seen = {ranked[0][3]}
        for member in ranked[1:]:
            if member[3] not in seen:  # the first of another combination of facet values
                seen.add(member[3])
                leads.add(member[2])
    return CopyGroups(sorted(groups), frozenset(leads))


# Sections read back at once by ``CopyFinder.groups``: bounds its memory.
FETCH_SECTIONS = 4096


def key_hash(key: tuple[str, ...]) -> int:
    """A stable signed 64-bit hash of ``key`` (a block's, a path's or an id's)."""
    digest = hashlib.blake2b("\0".join(key).encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


# What ``CopyFinder`` keeps of a section: its two block hashes (by name, by place) and its id's hash.
SectionHashes = tuple[int, int, int]


def section_hashes(chunk: Chunk) -> SectionHashes | None:
    """The hashes ``CopyFinder`` keeps of ``chunk``; None for a chunk without text (never a copy)."""
    if not chunk.text.strip():
        return None
    section = _section(chunk)
    return key_hash(_by_name(section)), key_hash(_by_place(section)), key_hash((section.id,))


# Reads the chunks of a file set aside by reference (``CopyFinder.add_known``): its number -> chunks.
FileLoader = Callable[[int], Sequence[Chunk]]


class CopyFinder:
    """``copy_groups`` over a corpus too large to hold (a build's). ``add`` keeps of each section a
    hash of each of its two blocks, of its file path and of its id (32 bytes) and sets the section
    aside in a temporary file in ``directory`` (what comparing reads of it: ids, headings, facets,
    markdown); ``add_known`` keeps the hashes of an unchanged file's sections and only a reference to
    them, read through ``loader`` when a block holding them is compared. ``groups`` reads back the
    sections of blocks with two members or more, a few thousand at a time, and clusters them exactly
    as ``copy_groups`` (each block is checked by its full key, so a hash collision only costs a read).
    ``close`` (or the end of a ``with`` block) deletes the file. Raises ``OSError``."""

    def __init__(self, directory: Path, loader: FileLoader | None = None) -> None:
        self._file = tempfile.TemporaryFile(dir=directory, prefix="copies-")  # noqa: SIM115 (closed by close)
        # Per section: where it starts in the file and its length, or (by reference) -1 - the number
        # of its file and its chunk's place in that file.
        self._starts, self._lengths = array("q"), array("q")
        self._end = 0
        self._blocks = (array("q"), array("q"))  # by name, by place
        self._files = array("q")  # each section's file path, hashed: finds the declared ones
        self._ids = array("q")  # each section's id, hashed: an update's sections against the last build's
        self._declared: tuple[tuple[str, str], ...] = ()  # set by ``groups``
        self._copies: frozenset[str] = frozenset()
        self._loader = loader
        self._loaded: tuple[int, Sequence[Chunk]] | None = None  # the last file read by reference

    def __enter__(self) -> CopyFinder:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Delete the sections set aside. Raises nothing."""
        with contextlib.suppress(OSError):
            self._file.close()

    def add(self, chunk: Chunk, hashes: SectionHashes | None = None) -> None:
        """Count ``chunk`` (chunks without text are never copies); ``hashes``: its ``section_hashes``
        when the caller has them."""
        hashes = hashes or section_hashes(chunk)
        if hashes is None:
            return
        data = pickle.dumps(tuple(_section(chunk)), protocol=pickle.HIGHEST_PROTOCOL)
        self._file.write(data)
        self._starts.append(self._end)
        self._lengths.append(len(data))
        self._end += len(data)
        self._keep(hashes, chunk.file_path)

    def add_known(self, number: int, path: str, sections: Iterable[tuple[int, int, int, int]]) -> None:
        """Count the sections of file ``number`` (at ``path``) by their hashes, each ``(place of its
        chunk in the file, *section_hashes)``, in order: read through the loader only when needed."""
        for place, name, where, ident in sections:
            self._starts.append(-1 - number)
            self._lengths.append(place)
            self._keep((name, where, ident), path)

    def _keep(self, hashes: SectionHashes, path: str) -> None:
        self._blocks[0].append(hashes[0])
        self._blocks[1].append(hashes[1])
        self._files.append(key_hash((path,)))
        self._ids.append(hashes[2])

    def groups(self, declared: Iterable[tuple[str, str]] = ()) -> CopyGroups:
        """The groups ``copy_groups`` gives for the chunks added and the ``declared`` copies, with
        their other leads."""
        return _merged([rank for _, rank in cluster] for cluster in self._found(declared))

    def main_copies(self, declared: Iterable[tuple[str, str]] = ()) -> MainCopies:
        """Each copy's main copy (the first of its group in ``groups``), the groups' other leads and
        number, without the groups' lists of ids: what a build writes (``copy_map``)."""
        return self.grouping(declared).main_copies()

    def grouping(self, declared: Iterable[tuple[str, str]] = ()) -> Grouping:
        """The groups of ``main_copies`` per section added, numbered as added."""
        union = CopyUnion(len(self._starts))
        for cluster in self._found(declared):
            union.add(cluster)
        return union.grouping()

    def hashes(self) -> dict[str, Any]:
        """Per section added, in order, its block hashes (``name``, ``place``) and the hashes of its
        file path (``files``) and id (``ids``), as int64 arrays: what ``copy_changes`` keeps."""
        import numpy as np

        named = zip(("name", "place", "files", "ids"), (*self._blocks, self._files, self._ids), strict=True)
        return {name: np.frombuffer(values, dtype=np.int64).copy() for name, values in named}

    def block_clusters(self, numbers: Sequence[int], by_place: bool) -> Iterator[list[tuple[int, Rank]]]:
        """The clusters ``grouping`` finds among the sections ``numbers`` (one block of one blocking:
        ``by_place`` or by name), each member its number and rank; no declared copies."""
        block, alike = (_by_place, _answers_alike) if by_place else (_by_name, _never)
        self._file.flush()
        return self._clustered([sorted(numbers)], block, alike)  # a file's sections read together

    def _found(self, declared: Iterable[tuple[str, str]]) -> Iterator[list[tuple[int, Rank]]]:
        """Every cluster of copies, each member its section's number and its rank."""
        self._declared = tuple(declared)
        self._copies = frozenset(copy for copy, _ in self._declared)
        self._set_aside()
        blocks = ((_by_name, _never), (_by_place, _answers_alike))
        for (block, alike), hashes in zip(blocks, self._blocks, strict=True):
            batch: list[list[int]] = []
            size = 0
            for numbers in _shared(hashes):
                batch.append(numbers)
                size += len(numbers)
                if size >= FETCH_SECTIONS:
                    yield from self._clustered(batch, block, alike)
                    batch, size = [], 0
            yield from self._clustered(batch, block, alike)
        yield from self._declared_clusters()

    def _set_aside(self) -> None:
        """Every section added by reference set aside in the file, a file read once (comparing them
        all would read each file once per block otherwise)."""
        for number, start in enumerate(self._starts):
            if start < 0:
                section = self._read(number)
                data = pickle.dumps(tuple(section), protocol=pickle.HIGHEST_PROTOCOL)
                self._file.write(data)
                self._starts[number], self._lengths[number] = self._end, len(data)
                self._end += len(data)
        self._loaded = None
        self._file.flush()

    def _declared_clusters(self) -> list[list[tuple[int, Rank]]]:
        """The declared copies' pairs, from the sections of the files the rules name (read back
        together: a handful of files' sections, not the corpus)."""
        if not self._declared:
            return []
        import numpy as np

        paths = {path for pair in self._declared for path in pair}
        wanted = np.array([key_hash((path,)) for path in sorted(paths)], dtype=np.int64)
        files = np.frombuffer(self._files, dtype=np.int64) if len(self._files) else np.zeros(0, np.int64)
        wanted_numbers = np.flatnonzero(np.isin(files, wanted)).tolist()
        numbered = [(number, self._read(number)) for number in wanted_numbers]
        numbered = [(n, section) for n, section in numbered if section.file_path in paths]  # a hash collision
        number_of = {id(section): n for n, section in numbered}
        pairs = declared_clusters([section for _, section in numbered], self._declared)
        return [[(number_of[id(s)], _preference(s, self._copies)) for s in pair] for pair in pairs]

    def _read(self, number: int) -> Section:
        start, length = self._starts[number], self._lengths[number]
        if start < 0:
            return _section(self._chunks(-1 - start)[length])
        # Written by this object into its own unnamed temporary file: nothing else supplies the bytes.
        return Section(*pickle.loads(os.pread(self._file.fileno(), length, start)))

    def _chunks(self, file: int) -> Sequence[Chunk]:
        if self._loaded is None or self._loaded[0] != file:
            if self._loader is None:
                raise ValueError("sections added by reference need a loader")
            self._loaded = (file, self._loader(file))
        return self._loaded[1]

    def _clustered(
        self,
        batch: list[list[int]],
        block: Callable[[Section], tuple[str, ...]],
        alike: Callable[[Section], bool],
    ) -> Iterator[list[tuple[int, Rank]]]:
        for numbers in batch:
            sections = [self._read(number) for number in numbers]
            number_of = {id(section): number for section, number in zip(sections, numbers, strict=True)}
            for cluster in _clusters(sections, block, alike):
                yield [(number_of[id(s)], _preference(s, self._copies)) for s in cluster]


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


# -- declared copies ------------------------------------------------------------------------------


class _Placed(Protocol):
    """What pairing a declared copy's sections reads: a ``Chunk`` or a ``Section``."""

    @property
    def file_path(self) -> str: ...
    @property
    def heading(self) -> str: ...
    @property
    def breadcrumb(self) -> Sequence[str]: ...


PlacedT = TypeVar("PlacedT", bound=_Placed)


def _section_keys(chunks: Iterable[PlacedT]) -> dict[str, dict[tuple[str, ...], PlacedT]]:
    """Each file's sections by their headings below the page title (a package's README titles
    itself) and their part (the parts of one cut section, in order)."""
    files: dict[str, dict[tuple[str, ...], PlacedT]] = defaultdict(dict)
    parts: Counter[tuple[str, tuple[str, ...]]] = Counter()
    for chunk in chunks:
        headings = (*chunk.breadcrumb[1:], chunk.heading) if chunk.breadcrumb else (chunk.heading,)
        key = tuple(heading.lower() for heading in headings)
        part = parts[chunk.file_path, key]
        parts[chunk.file_path, key] += 1
        files[chunk.file_path][(*key, f"#{part}")] = chunk
    return files


def declared_clusters(chunks: Iterable[PlacedT], declared: Iterable[tuple[str, str]]) -> list[list[PlacedT]]:
    """For each ``(copy, original)`` pair of file paths, the pairs ``[original's section, copy's]``
    with the same headings below the page title and the same part; sections of the copy that its
    original lacks (a package's own page section) pair with nothing."""
    pairs = list(declared)
    if not pairs:
        return []
    files = _section_keys(chunks)
    found: list[list[PlacedT]] = []
    for copy, original in pairs:
        sections = files.get(original, {})
        found.extend([sections[key], chunk] for key, chunk in files.get(copy, {}).items() if key in sections)
    return found
