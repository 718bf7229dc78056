"""A merged search through the union index (``server.hub.union``): it routes, or it ranks.

Used for a full-text search without ``library`` when the union of exactly the indexes the request
sees is open; otherwise the search asks each library (``hub_merge``), as it does for hybrid and vector
searches (a union holds no vectors) and for fusions other than raw scores. Routing (:func:`routed`):
the union's best hits name the libraries whose own indexes are then searched and merged. Ranking
(:func:`union_page`): the union's ranking is the answer; it ranks as one index does: its BM25
statistics are every library's together, the facet values a query names rank their hits first, or,
when the query names libraries (``named_libraries``), those libraries' hits; copies and language
variants fold within a library. Its hits are the libraries' own sections: the
``NAME/`` prefix the union gave ids and paths is taken off.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docs_mcp.search.filters import build_where, sql_literal
from docs_mcp.search.reader import IndexReader
from docs_mcp.search.types import LIMIT_MAX, SearchPage, SearchRequest, Section, Variant
from docs_mcp.server.hub.libraries import HubView, Served
from docs_mcp.server.hub.union import UNION_MIN_LIBRARIES, union_mode
from docs_mcp.server.tools.hub_merge import own
from docs_mcp.server.tools.hub_schema import LIBRARY as LIBRARY_ARGUMENT
from docs_mcp.store.columns import LIBRARY_COLUMN

__all__ = [
    "OwnWords",
    "UnionPage",
    "own_words",
    "ranked",
    "rescored_page",
    "routed",
    "union_for",
    "union_page",
]

# How deep the union is read to choose the libraries a routed search asks: this many times the hits
# the page needs (its offset, its limit and one more), at most a page of LIMIT_MAX. Measured on the
# 100 distinct libraries (docs/scaling.md): 1 and 2 score the labelled sets alike (first pages equal
# to asking every library: 152 and 159 of 168), 2 asks more libraries.
_ROUTE_FACTOR = 1


def union_for(view: HubView, request: SearchRequest, exact_only: bool) -> IndexReader | None:
    """The union index to answer ``request`` from, or None: no union (off, too few libraries, a
    library still loading, not made yet for these indexes), a search that is not full text on every
    library, or ``exact_only`` (a fusion or setting that needs each library's own scores)."""
    union = view.union
    defaults = view.defaults()
    if union is None or exact_only or union_mode() == "off" or len(defaults) < UNION_MIN_LIBRARIES:
        return None
    libraries = []
    for served in defaults:
        if served.loaded is None:
            return None
        index = served.loaded.index
        asked = request.mode or index.config.mode
        if not (asked == "fulltext" or (asked is None and index.manifest.embedding is None)):
            return None  # it would rank by meaning too (or say why not): only its own index can
        libraries.append((served.name, index.identity, index.path))
    return union.current(libraries, sum(s.manifest.chunk_count for s in defaults))


@dataclass(frozen=True)
class UnionPage:
    """One page of a merged search from the union: each hit with its library, and what the union
    found the query to name."""

    hits: list[tuple[Served, Section]]
    has_more: bool
    inferred: dict[str, str]


def union_page(union: IndexReader, view: HubView, request: SearchRequest, first: Sequence[str]) -> UnionPage:
    """``request`` searched on ``union``, the hits of the libraries ``first`` ranked first."""
    page = union.search(
        SearchRequest(request.query, request.filters, request.limit, request.offset, request.mode),
        first=_among(first),
    )
    return _page(page, view, dict(page.inferred_filters))


@dataclass(frozen=True)
class OwnWords:
    """Per library, the facet values its own index finds a query to name, and the words it matches."""

    values_named: dict[str, dict[str, str]]
    terms: dict[str, str]


def own_words(targets: Sequence[Served], request: SearchRequest) -> OwnWords:
    """What each library of ``targets`` finds ``request`` to name and the words it matches (the query
    without those names, ``DocsIndex.query_words``), asked once per kind of vocabulary: libraries
    naming their facet values alike find the same."""
    found: dict[tuple[str, tuple[str, ...]], tuple[dict[str, str], str]] = {}
    values_named, terms = {}, {}
    for served in targets:
        asked = own(served, request, request.limit)
        index = served.state.index
        key = (index.vocabulary_key, tuple(sorted(asked.filters)))
        if key not in found:
            found[key] = index.query_words(asked)
        values_named[served.name], terms[served.name] = found[key]
    return OwnWords(values_named, terms)


def rescored_page(
    union: IndexReader,
    view: HubView,
    request: SearchRequest,
    first: Sequence[str],
    words: OwnWords,
) -> UnionPage:
    """:func:`union_page`, each hit scored as its own library's index scores it (``search.rescore``:
    on the words its library matches, ``words``, with its library's statistics)."""
    page = union.search(
        SearchRequest(request.query, request.filters, request.limit, request.offset, request.mode),
        first=_preferred(union, first, words),
        rescore=True,
        own_terms=lambda name: words.terms.get(name, request.query),
    )
    return _page(page, view, dict(page.inferred_filters))


def _preferred(union: IndexReader, first: Sequence[str], words: OwnWords) -> str | None:
    """The SQL condition of the rows a merged search of each library ranks first: the rows of the
    libraries ``first`` holding the facet values each finds the query to name (the hits its own
    search ranks first, its page then merged ahead of the others'); None: no library first."""
    groups: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for name in first:
        groups.setdefault(tuple(sorted(words.values_named.get(name, {}).items())), []).append(name)
    clauses = []
    for values, names in groups.items():
        among = _among(names)
        where = build_where(dict(values), union.facets, union.config.facets) if values else None
        clauses.append(f"({among} AND ({where}))" if where else f"({among})")
    return " OR ".join(clauses) or None


def _among(libraries: Sequence[str]) -> str | None:
    """The SQL condition of the rows of ``libraries`` (None: no library)."""
    if not libraries:
        return None
    return f"{LIBRARY_COLUMN} IN ({', '.join(map(sql_literal, libraries))})"


def _page(page: SearchPage, view: HubView, inferred: dict[str, str]) -> UnionPage:
    """A union's page as the libraries' own sections."""
    served = {s.name: s for s in view.defaults()}
    hits = []
    for section in page.hits:
        name, chunk_id = section.chunk_id.split("/", 1)
        hits.append((served[name], _own(section, chunk_id, len(name) + 1)))
    return UnionPage(hits, page.has_more, inferred)


def _own(section: Section, chunk_id: str, prefix: int) -> Section:
    """A union hit as its library's own index shows it: its id and path without the library."""
    also_in = tuple(Variant(v.facet, v.value, v.chunk_id[prefix:]) for v in section.also_in)
    return dataclasses.replace(
        section, chunk_id=chunk_id, file_path=section.file_path[prefix:], also_in=also_in
    )


def routed(
    union: IndexReader, request: SearchRequest, targets: list[Served], named: Sequence[str]
) -> list[Served]:
    """The libraries of ``targets`` a routed merged search asks: those holding the union's best hits
    (as many as the page needs, times ``_ROUTE_FACTOR``), and those the query names."""
    wanted = request.offset + request.limit + 1
    depth = min(LIMIT_MAX, max(1, round(_ROUTE_FACTOR * wanted)))
    page = union.search(SearchRequest(request.query, request.filters, depth, 0, request.mode))
    holding = {section.chunk_id.split("/", 1)[0] for section in page.hits} | set(named)
    return [served for served in targets if served.name in holding]


def ranked(
    request: SearchRequest,
    found: UnionPage,
    named: Sequence[str],
    hits: list[dict[str, Any]],
    hint: dict[str, Any] | None,
) -> dict[str, Any]:
    """A merged search's answer from the union's ranking ``found`` (its ``hits`` as the tool shows
    them): full text, no library's fallback, the libraries ``named`` among the inferred filters."""
    inferred = dict(found.inferred)
    if named:
        inferred[LIBRARY_ARGUMENT] = ", ".join(named)
    return {
        "query": request.query,
        "filters": dict(request.filters),
        LIBRARY_ARGUMENT: None,
        "inferred_filters": inferred,
        "hits": hits,
        "offset": request.offset,
        "mode": "fulltext",
        "fallback_reason": None,
        "hint": hint,
        "_has_more": found.has_more,
    }
