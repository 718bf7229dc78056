"""Requests and results of the read path: what ``DocsIndex.search`` and ``DocsIndex.get`` exchange.

Kept free of LanceDB and of build-time dependencies so the server and the eval harness can share them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

SearchMode = Literal["hybrid", "fulltext", "vector"]
SEARCH_MODES: tuple[str, ...] = get_args(SearchMode)
# Key of ``DocsIndex.suggest_filters``'s result present when the query matches with no filter at all.
UNFILTERED = "_unfiltered"


@dataclass(frozen=True)
class SearchRequest:
    """A search. ``filters`` maps a facet name (e.g. ``language``) to one value.

    ``scope`` is a facet like any other; when ``language`` is given and ``scope`` is not, the
    auto-include rule adds the global guides (``scope = 'global-guide'``).
    """

    query: str
    filters: Mapping[str, str] = field(default_factory=dict)
    limit: int = 10
    offset: int = 0
    mode: SearchMode | None = None  # None: hybrid when the index has vectors, else full text


@dataclass(frozen=True)
class SearchHit:
    chunk_id: str
    file_path: str
    heading: str
    breadcrumb: tuple[str, ...]
    snippet: str
    facets: Mapping[str, str]
    score: float


@dataclass(frozen=True)
class SearchPage:
    hits: list[SearchHit]
    offset: int
    limit: int
    has_more: bool
    mode: SearchMode  # what actually ran
    fallback_reason: str | None = None  # set when hybrid/vector was asked for but full text ran


@dataclass(frozen=True)
class ChunkView:
    """A chunk as ``get`` returns it, with its position in its file (``position`` of ``total``)."""

    chunk_id: str
    file_path: str
    heading: str
    breadcrumb: tuple[str, ...]
    markdown: str
    facets: Mapping[str, str]
    position: int  # 1-based
    total: int


@dataclass(frozen=True)
class ChunkWindow:
    """The requested chunk plus up to ``context`` neighbours before and after it, in file order."""

    chunk_id: str
    chunks: list[ChunkView]
