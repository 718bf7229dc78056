"""Copies: sections that say the same thing in several places, found at build time.

Generated SDK docs repeat themselves: a ``README-PYPI.md`` beside its ``README.md`` (only the link
targets differ), per-package copies (``packages/azure/docs/models/...``, ``packages/gcp/...``) of
the main client's pages, the same ``RetryConfig`` page in every SDK. Each copy would take its own
rank. Two sections are copies when their files have the same name (a ``-pypi`` twin counted as its
original), their heading paths and facet values are equal, and their texts, with case,
punctuation, link targets and URLs taken out, share at least ``NEAR`` of their word pairs (a twin
whose example calls another operation stays a copy; two operations of one shape in different
resources have different headings, so never are; one section in two languages is folding's). Nothing is
removed: every copy stays in the index and readable with ``get_doc``; the groups are recorded in the
index manifest (``copies``), where search folds a group's hits into its best one (``also_in``), and
``validate`` counts them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from itertools import pairwise

from docs_mcp.chunk.chunks import Chunk

__all__ = ["copy_groups"]

_LINK_TARGET = re.compile(r"\]\([^)]*\)|\]\[[^\]]*\]|<?https?://[^\s)>]+>?")
_NOT_WORD = re.compile(r"[^\w]+")


# Of the word pairs of two sections' texts, the share (Jaccard) they must have in common.
NEAR = 0.6


def _block(chunk: Chunk) -> tuple[str, ...]:
    """Only sections of one block are compared: the same facet values (one section in several
    languages is folding's business, not a copy), file name and heading path."""
    name = chunk.file_path.rpartition("/")[2].lower().replace("-pypi", "")
    facets = tuple(f"{key}={value}" for key, value in sorted(chunk.metadata.items()))
    return (*facets, name, *(heading.lower() for heading in (*chunk.breadcrumb, chunk.heading)))


def _pairs(chunk: Chunk) -> frozenset[tuple[str, str]]:
    words = _NOT_WORD.sub(" ", _LINK_TARGET.sub("]", chunk.markdown.lower())).split()
    return frozenset(pairwise(words)) or frozenset({(" ".join(words), "")})


def _near(one: frozenset[tuple[str, str]], other: frozenset[tuple[str, str]]) -> bool:
    return len(one & other) >= NEAR * len(one | other)


def _preference(chunk: Chunk) -> tuple[int, int, str]:
    # The main copy first: outside packages/ folders, not a -PYPI twin, shallowest, then by id.
    path = chunk.file_path.lower()
    return ("/packages/" in f"/{path}") + ("-pypi" in path), path.count("/"), chunk.id


def copy_groups(chunks: Iterable[Chunk]) -> list[list[str]]:
    """The chunk ids of each group of two or more copies, the main copy first; groups in id order."""
    blocks: dict[tuple[str, ...], list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        if chunk.text.strip():
            blocks[_block(chunk)].append(chunk)
    groups: list[list[str]] = []
    for members in blocks.values():
        if len(members) < 2:
            continue
        # A cluster: its main copy's word pairs, its files, its ids. Parts of one cut section share
        # a file and a heading: they are one section, never copies of each other.
        clusters: list[tuple[frozenset[tuple[str, str]], set[str], list[str]]] = []
        for chunk in sorted(members, key=_preference):
            pairs = _pairs(chunk)
            home = next(
                (c for c in clusters if chunk.file_path not in c[1] and _near(pairs, c[0])),
                None,
            )
            if home is None:
                clusters.append((pairs, {chunk.file_path}, [chunk.id]))
            else:
                home[1].add(chunk.file_path)
                home[2].append(chunk.id)
        groups.extend(ids for _, _, ids in clusters if len(ids) > 1)
    return sorted(groups)
