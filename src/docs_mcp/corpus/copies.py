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
Nothing is removed: every copy stays in the index and readable with ``get_doc``; the groups are
recorded in the index manifest (``copies``), where search folds a group's hits into its best one
(``also_in``), and ``validate`` counts them.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise

from docs_mcp.chunk.chunks import Chunk
from docs_mcp.chunk.kinds import KIND, OPERATION, TOPIC

__all__ = ["copy_groups", "declared_clusters"]

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


def _answers_alike(chunk: Chunk) -> bool:
    """A README topic or an operation: its per-package copies answer the same question."""
    return chunk.metadata.get(KIND) in (TOPIC, OPERATION)


def _preference(chunk: Chunk) -> tuple[int, int, str]:
    # The main copy first: outside packages/ folders, not a -PYPI twin, shallowest, then by id.
    path = chunk.file_path.lower()
    return ("/packages/" in f"/{path}") + ("-pypi" in path), path.count("/"), chunk.id


def _clusters(
    chunks: Sequence[Chunk], block: Callable[[Chunk], tuple[str, ...]], alike: Callable[[Chunk], bool]
) -> list[list[Chunk]]:
    """Copies among the chunks of each ``block``: near-identical texts, or any text when ``alike``
    holds of the chunk (the block already holds chunks of one kind); each cluster's main copy first."""
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
    usable = [chunk for chunk in chunks if chunk.text.strip()]
    declared = list(declared)
    group_of: dict[str, list[Chunk]] = {}
    for found in (
        *_clusters(usable, _by_name, lambda _: False),
        *_clusters(usable, _by_place, _answers_alike),
        *declared_clusters(usable, declared),
    ):
        merged = {chunk.id: chunk for chunk in found}
        for chunk in found:
            merged.update((other.id, other) for other in group_of.get(chunk.id, ()))
        group = list(merged.values())
        for chunk in group:
            group_of[chunk.id] = group
    unique = {id(group): group for group in group_of.values()}.values()
    copies = {copy for copy, _ in declared}
    return sorted(
        [chunk.id for chunk in sorted(group, key=lambda c: (c.file_path in copies, _preference(c)))]
        for group in unique
    )


# -- declared copies ------------------------------------------------------------------------------


def _section_keys(chunks: Iterable[Chunk]) -> dict[str, dict[tuple[str, ...], Chunk]]:
    """Each file's sections by their headings below the page title (a package's README titles
    itself) and their part (the parts of one cut section, in order)."""
    files: dict[str, dict[tuple[str, ...], Chunk]] = defaultdict(dict)
    parts: Counter[tuple[str, tuple[str, ...]]] = Counter()
    for chunk in chunks:
        headings = (*chunk.breadcrumb[1:], chunk.heading) if chunk.breadcrumb else (chunk.heading,)
        key = tuple(heading.lower() for heading in headings)
        part = parts[chunk.file_path, key]
        parts[chunk.file_path, key] += 1
        files[chunk.file_path][(*key, f"#{part}")] = chunk
    return files


def declared_clusters(chunks: Iterable[Chunk], declared: Iterable[tuple[str, str]]) -> list[list[Chunk]]:
    """For each ``(copy, original)`` pair of file paths, the pairs ``[original's section, copy's]``
    with the same headings below the page title and the same part; sections of the copy that its
    original lacks (a package's own page section) pair with nothing."""
    pairs = list(declared)
    if not pairs:
        return []
    files = _section_keys(chunks)
    found: list[list[Chunk]] = []
    for copy, original in pairs:
        sections = files.get(original, {})
        found.extend([sections[key], chunk] for key, chunk in files.get(copy, {}).items() if key in sections)
    return found
