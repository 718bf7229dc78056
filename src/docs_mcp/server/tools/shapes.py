"""What ``search_docs`` and ``get_doc`` answer, shaped from the index's sections (:mod:`.hub_tools`
validates, picks the library and calls these).

A search page and a ``get_doc`` window are fitted within ``max_tokens`` (the argument, else the
server's default), counted as :mod:`docs_mcp.server.tools.budget` says, by
:mod:`docs_mcp.server.tools.answers`; each answer is the structured result and its text rendering
together (:mod:`docs_mcp.server.tools.text_content`): the budget counts both. A ``cursor`` alone
continues the search it carries (query, filters, limit, offset): :func:`continued`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from docs_mcp.errors import CursorError
from docs_mcp.search.types import UNFILTERED, SearchPage, SearchRequest, Section
from docs_mcp.server.tools.answers import BudgetTooSmall, Render, Window, fit_hits, fit_window, fits
from docs_mcp.server.tools.cursor import SearchCursor
from docs_mcp.server.tools.tool_schema import SEARCH_TOOL

if TYPE_CHECKING:
    from docs_mcp.search.reader import IndexReader  # an opened DocsIndex

Answer = tuple[dict[str, Any], str]  # the structured result and its text
SCORE_DIGITS = 3


def continued(
    cursor: SearchCursor, query: str | None, filters: dict[str, str], limit: int | None
) -> SearchRequest:
    """The request a verified cursor continues. What the caller repeats (query, filters, limit)
    must be the cursor's; a query or filter given means the filters are given in full."""
    if query is None and cursor.query is None:
        raise CursorError(
            "This cursor does not carry its query (it was too long): pass the same query and filters with it."
        )
    repeated = query is not None or bool(filters)
    if repeated and not cursor.matches(query if query is not None else str(cursor.query), filters):
        raise CursorError(
            "The cursor belongs to a different query or different filters. Pass only the cursor, or "
            "repeat exactly the query and filters of the search that returned it. Call search_docs "
            "without `cursor` to start a new search."
        )
    if limit is not None and limit != cursor.limit:
        raise CursorError(
            f"The cursor was issued for limit={cursor.limit}; omit `limit` or pass "
            f"{cursor.limit} when passing this cursor."
        )
    return SearchRequest(
        query=query if query is not None else str(cursor.query),
        filters=filters if repeated else cursor.filters,
        limit=cursor.limit,
        offset=cursor.offset,
        mode=cursor.mode,
    )


def one_index_hint(index: IndexReader, query: str, filters: Mapping[str, str]) -> dict[str, Any]:
    """Where the query does match in ``index``: other values of the filters given, or no filters."""
    suggestions = index.suggest_filters(query, filters)
    unfiltered = UNFILTERED in suggestions
    suggested = {k: list(v) for k, v in suggestions.items() if k != UNFILTERED and v}
    applied = ", ".join(f"{k}={v}" for k, v in filters.items())
    if suggested:
        options = "; ".join(f"{k}: {', '.join(v)}" for k, v in suggested.items())
        message = (
            f"No results with {applied}, but the query matches with other filter values ({options}). "
            "Retry with one of those values if it fits the user's situation, or drop the filter."
        )
    elif unfiltered:
        message = f"No results with {applied}, but the query matches without filters: retry without them."
    else:
        message = (
            "Nothing matches this query"
            + (f" with {applied} or without filters" if filters else "")
            + ". Broaden it: use fewer or more general words, synonyms, the feature's or "
            "operation's name, "
            "or an exact error message."
        )
    return {"message": message, "suggested_filters": suggested, "matches_without_filters": unfiltered}


def fitted_page(
    result: dict[str, Any],
    hits: list[dict[str, Any]],
    has_more: bool,
    next_cursor: Callable[[int], str],
    render: Render,
    max_tokens: int,
) -> Answer:
    """A search answer within ``max_tokens``: ``result`` (every field but the page's) holding as many
    of ``hits`` as fit, the rest ``held_back`` for the cursor (``next_cursor(count)`` continues after
    ``count`` hits; ``has_more``: the index holds hits beyond this page). Shared by the single-index
    tools and the hub, each with its own renderer and cursors.

    Raises ``BudgetTooSmall`` when not one hit fits."""

    def shown(count: int) -> dict[str, Any]:
        more = count < len(hits) or has_more
        return {
            **result,
            "hits": hits[:count],
            "held_back": len(hits) - count,
            "next_cursor": next_cursor(count) if more and count else None,
        }

    try:
        fitted = fit_hits(shown, len(hits), render, max_tokens)
    except BudgetTooSmall:
        # A hit folding many variants and copies can outgrow the smallest budget by its also_in
        # alone: the first hit then keeps as many of them as fit (get_doc reads any one of them).
        first = hits[0] if hits else {}
        variants = first.get("also_in", [])
        for keep in reversed(range(len(variants))):
            hits[0] = {**first, "also_in": variants[:keep]} if keep else _without(first, "also_in")
            if fits(shown(1), render, max_tokens):
                return shown(1), render(shown(1))
        raise
    return fitted, render(fitted)


def _without(data: dict[str, Any], field: str) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key != field}


def fitted_window(
    index: IndexReader,
    chunk_id: str,
    context: int,
    resume: tuple[int, int],
    next_cursor: Callable[[int, int], str],
    render: Render,
    max_tokens: int,
    extra: Mapping[str, Any] | None = None,
) -> Answer:
    """A ``get_doc`` answer within ``max_tokens``: section ``chunk_id`` with ``context`` neighbours, or
    a window of it. ``resume`` is (start, length) of a window cursor ((0, 0): from the start);
    ``next_cursor(end, length)`` is the cursor of the window after ``end``; ``extra`` adds fields to
    the answer (a hub's library). Shared by the single-index tools and the hub.

    Raises ``ChunkNotFound`` (the caller words it), ``CursorError`` when the section changed since the
    cursor, ``BudgetTooSmall``."""
    start, length = resume
    window = index.get(chunk_id, 0 if start else context)
    chunks = [chunk_data(section) for section in window.chunks]
    requested = next(i for i, section in enumerate(window.chunks) if section.chunk_id == chunk_id)
    whole: str = chunks[requested]["markdown"]
    if start and len(whole) != length:
        raise CursorError(
            "The cursor is stale: the section has changed since it was issued. "
            "Call get_doc with the chunk_id (no cursor) to read the section from its start."
        )
    more = dict(extra or {})

    def answer(part: Window) -> dict[str, Any]:
        if part.end is None:
            return {"chunk_id": chunk_id, "chunks": part.chunks, **more, "next_cursor": None}
        cut = {
            **chunks[requested],
            "markdown": whole[part.start : part.end],
            "part": {"start": part.start, "end": part.end, "length": len(whole)},
        }
        following = next_cursor(part.end, len(whole)) if part.end < len(whole) else None
        return {"chunk_id": chunk_id, "chunks": [cut], **more, "next_cursor": following}

    result = fit_window(chunks, requested, start, answer, render, max_tokens)
    return result, render(result)


def not_found_message(chunk_id: str, close_ids: list[str]) -> str:
    message = (
        f"No section has chunk_id {chunk_id!r}. Chunk ids come from {SEARCH_TOOL} results: call "
        f"{SEARCH_TOOL} to find the section, then pass its chunk_id exactly."
    )
    if close_ids:
        message += " Similar ids in this index: " + ", ".join(close_ids[:5]) + "."
    return message


def search_result(request: SearchRequest, page: SearchPage, hint: dict[str, Any] | None) -> dict[str, Any]:
    """Every field of a search answer; the page's own (hits, held_back, next_cursor) are set by
    :func:`fitted_page`."""
    return {
        "query": request.query,
        "filters": dict(request.filters),
        "inferred_filters": dict(page.inferred_filters),
        "hits": [],
        "offset": request.offset,
        "held_back": 0,
        "next_cursor": None,
        "mode": page.mode,
        "fallback_reason": page.fallback_reason,
        "hint": hint,
    }


def _section_fields(section: Section) -> dict[str, Any]:
    """What a hit and a ``get_doc`` chunk both say of a section (facets only when it has any)."""
    data: dict[str, Any] = {
        "chunk_id": section.chunk_id,
        "heading": section.heading,
        "breadcrumb": list(section.breadcrumb),
        "file": section.file_path,
    }
    if section.facets:
        data["facets"] = dict(section.facets)
    return data


def hit_data(section: Section) -> dict[str, Any]:
    """A search hit as the tool returns it: what an agent picks a section by, nothing twice."""
    data = _section_fields(section)
    data["score"] = round(float(section.score or 0.0), SCORE_DIGITS)
    if section.matched:
        data["matched"] = section.matched
    data["snippet"] = section.snippet or ""
    if section.url:  # set when the index knows the section's published page
        data["url"] = section.url
    if section.also_in:
        data["also_in"] = [variant.to_dict() for variant in section.also_in]
    return data


def chunk_data(section: Section) -> dict[str, Any]:
    """A section as ``get_doc`` returns it."""
    data = _section_fields(section)
    data["position"], data["total"] = section.position, section.total
    if section.url:
        data["url"] = section.url
    data["markdown"] = section.markdown or ""
    return data
