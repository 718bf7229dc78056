"""Requests and results of the read path: what ``DocsIndex.search`` and ``DocsIndex.get`` exchange.

A ``SearchRequest`` checks its own shape when it is made (the one definition of a valid request, whose
bounds the server's published schema reuses); only the facet values, which the index alone knows, are
checked by the index. Kept free of LanceDB and of build-time dependencies so the server, the CLI and the
eval harness share these types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from docs_mcp.errors import QueryError

# A ranked list: (chunk id, score; higher is better), best first. What each leg returns and fusion takes.
Ranked = list[tuple[str, float]]

__all__ = [
    "CONTEXT_MAX",
    "LIMIT_DEFAULT",
    "LIMIT_MAX",
    "OFFSET_MAX",
    "QUERY_MAX_LENGTH",
    "SEARCH_MODES",
    "UNFILTERED",
    "Ranked",
    "SearchMode",
    "SearchPage",
    "SearchPlan",
    "SearchRequest",
    "Section",
    "SectionWindow",
    "Variant",
]

SearchMode = Literal["hybrid", "fulltext", "vector"]
SEARCH_MODES: tuple[str, ...] = get_args(SearchMode)
# Key of ``DocsIndex.suggest_filters``'s result present when the query matches with no filter at all.
UNFILTERED = "_unfiltered"

LIMIT_DEFAULT, LIMIT_MAX = 10, 50  # hits per page
# Deepest page start: every page ranks all hits before it, so a deeper one costs a longer ranking.
OFFSET_MAX = 10_000
CONTEXT_MAX = 5  # neighbours each side that ``get`` may add
# Longer "queries" are pasted documents, not questions: every word costs query time.
QUERY_MAX_LENGTH = 1000


@dataclass(frozen=True)
class SearchRequest:
    """A search. ``filters`` maps a facet name (e.g. ``language``) to one value.

    ``scope`` is a facet like any other; when ``language`` is given and ``scope`` is not, the
    auto-include rule adds the global guides (see ``docs_mcp.search.facets``).

    Raises ``QueryError`` when made with a blank or overlong query, a limit outside 1..``LIMIT_MAX``,
    a negative offset, an unknown mode or a filter value that is not a string.
    """

    query: str
    filters: Mapping[str, str] = field(default_factory=dict)
    limit: int = LIMIT_DEFAULT
    offset: int = 0
    mode: SearchMode | None = None  # None: hybrid when the index has vectors, else full text

    def __post_init__(self) -> None:
        if not isinstance(self.query, str) or not self.query.strip():
            raise QueryError("query must not be blank: say what you are looking for")
        if len(self.query) > QUERY_MAX_LENGTH:
            raise QueryError(
                f"query has {len(self.query)} characters; at most {QUERY_MAX_LENGTH}: ask about one thing"
            )
        if _not_int(self.limit) or not 1 <= self.limit <= LIMIT_MAX:
            raise QueryError(f"limit must be an integer from 1 to {LIMIT_MAX} (got {self.limit!r})")
        if _not_int(self.offset) or not 0 <= self.offset <= OFFSET_MAX:
            raise QueryError(f"offset must be an integer from 0 to {OFFSET_MAX} (got {self.offset!r})")
        if self.mode is not None and self.mode not in SEARCH_MODES:
            raise QueryError(f"mode must be one of {', '.join(SEARCH_MODES)} (got {self.mode!r})")
        for name, value in self.filters.items():
            if not isinstance(name, str) or not isinstance(value, str):
                raise QueryError(f"filter {name!r} must map to one string value (got {value!r})")


def _not_int(value: object) -> bool:
    return not isinstance(value, int) or isinstance(value, bool)


@dataclass(frozen=True)
class Variant:
    """The same section under another value of a ``vector_collapse`` facet, folded into a hit."""

    facet: str
    value: str
    chunk_id: str

    def to_dict(self) -> dict[str, str]:
        return {"facet": self.facet, "value": self.value, "chunk_id": self.chunk_id}


@dataclass(frozen=True)
class Section:
    """One section of the docs, as a search hit or as a chunk ``get`` returns.

    ``position`` of ``total`` places it in its file. A hit carries ``snippet`` and ``score``, and
    ``also_in`` when the same section in other values of a ``vector_collapse`` facet was folded into
    it, and ``matched`` (how it matched: ``text``, ``meaning`` or ``both``); a chunk from ``get``
    carries ``markdown``.
    """

    chunk_id: str
    file_path: str
    heading: str
    breadcrumb: tuple[str, ...]
    facets: Mapping[str, str]
    position: int  # 1-based
    total: int
    snippet: str | None = None
    score: float | None = None
    markdown: str | None = None
    also_in: tuple[Variant, ...] = ()
    url: str | None = None  # the page URL with the section's anchor; None when the site is not known
    # How a hit matched: "text" (the full-text leg only), "meaning" (the vector leg only) or "both".
    matched: str | None = None

    @property
    def position_label(self) -> str:
        return f"{self.position} of {self.total}"

    def to_dict(self) -> dict[str, Any]:
        """The section as JSON-ready data (the shape of the MCP results); unset fields are left out."""
        data: dict[str, Any] = {
            "chunk_id": self.chunk_id,
            "file": self.file_path,
            "heading": self.heading,
            "breadcrumb": list(self.breadcrumb),
            "facets": dict(self.facets),
            "position": self.position,
            "total": self.total,
            "position_label": self.position_label,
        }
        if self.snippet is not None:
            data["snippet"] = self.snippet
        if self.score is not None:
            data["score"] = float(self.score)
        if self.markdown is not None:
            data["markdown"] = self.markdown
        if self.url is not None:
            data["url"] = self.url
        if self.also_in:
            data["also_in"] = [variant.to_dict() for variant in self.also_in]
        if self.matched is not None:
            data["matched"] = self.matched
        return data


@dataclass(frozen=True)
class SearchPage:
    hits: list[Section]
    offset: int
    limit: int
    has_more: bool
    mode: SearchMode  # what actually ran
    fallback_reason: str | None = None  # set when hybrid/vector was asked for but full text ran
    # Facet values the query named and the caller did not set: their hits are ranked first.
    inferred_filters: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hits": [hit.to_dict() for hit in self.hits],
            "offset": self.offset,
            "limit": self.limit,
            "has_more": self.has_more,
            "mode": self.mode,
            "fallback_reason": self.fallback_reason,
            "inferred_filters": dict(self.inferred_filters),
        }


@dataclass(frozen=True)
class SearchPlan:
    """What a search would do, known without running it (``DocsIndex.plan``): its ``mode`` and
    ``fallback_reason`` (as ``SearchPage``'s; a hybrid search may still fall back when it runs), the
    facet values the query names, and ``bound``, the highest score any hit can have (None: unknown,
    for a search with vectors or an index built without the ``impacts`` table)."""

    mode: SearchMode
    fallback_reason: str | None
    inferred_filters: Mapping[str, str]
    bound: float | None


@dataclass(frozen=True)
class SectionWindow:
    """The requested section plus up to ``context`` neighbours before and after it, in file order."""

    chunk_id: str
    chunks: list[Section]

    def to_dict(self) -> dict[str, Any]:
        return {"chunk_id": self.chunk_id, "chunks": [chunk.to_dict() for chunk in self.chunks]}
