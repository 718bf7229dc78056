"""The ``search_docs`` and ``get_doc`` handlers: validate, call the index, shape the result.

Handlers are synchronous (the index is) and transport-agnostic: they return the structured result
as a plain dict, or raise a :class:`DocsMcpError` that the app turns into a tool error. The
readable text the agent sees is rendered from the same dict (:mod:`docs_mcp.server.text_content`).

Arguments are checked once, here at the edge, against the published schema (enums of the index's
facet values, the limit range); the ``SearchRequest`` made from them checks what a schema cannot
(a blank query). A ``cursor`` alone continues the search it carries (query, filters, limit, offset).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docs_mcp.errors import ChunkNotFound, CursorError
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import UNFILTERED, SearchRequest
from docs_mcp.server.arguments import ArgumentValidator
from docs_mcp.server.cursor import CursorCodec, SearchCursor
from docs_mcp.server.tool_schema import (
    GET_TOOL,
    SEARCH_TOOL,
    get_input_schema,
    search_input_schema,
    searchable_facets,
)


class DocsTools:
    """The two tools of one index, with the argument validators built from its taxonomy."""

    def __init__(self, index: DocsIndex, codec: CursorCodec) -> None:
        self._index = index
        self._codec = codec
        self.conventions = index.config.facets
        self.facets = searchable_facets(index.facets)
        self.search_schema = search_input_schema(self.facets, self.conventions)
        self.get_schema = get_input_schema()
        self._search_arguments = ArgumentValidator(SEARCH_TOOL, self.search_schema)
        self._get_arguments = ArgumentValidator(GET_TOOL, self.get_schema)

    def search_docs(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Run ``search_docs``: a new search, or the next page of the search a ``cursor`` carries.

        Raises:
            InvalidArguments: arguments do not match the schema (which needs a query or a cursor).
            CursorError: the cursor is malformed, tampered, foreign or stale, or the request repeats
                a query, filters or limit other than the cursor's.
            QueryError: the query is blank.
        """
        values = self._search_arguments.validate(arguments)
        given = {name: str(values[name]) for name in self.facets if name in values}
        query = str(values["query"]).strip() if "query" in values else None
        cursor = values.get("cursor")
        if cursor is None:
            assert query is not None  # the schema requires one of them
            request = SearchRequest(query=query, filters=given, limit=int(values["limit"]))
        else:
            limit = int(values["limit"]) if arguments and "limit" in arguments else None
            request = self._continued(self._codec.decode(str(cursor)), query, given, limit)
        page = self._index.search(request)
        next_offset = request.offset + len(page.hits)
        next_cursor = (
            self._codec.encode(
                offset=next_offset,
                limit=request.limit,
                query=request.query,
                filters=request.filters,
                mode=request.mode,
            )
            if page.has_more and page.hits
            else None
        )
        filters = dict(request.filters)
        hint = self._hint(request.query, filters) if not page.hits and request.offset == 0 else None
        return {
            "query": request.query,
            "filters": filters,
            "inferred_filters": dict(page.inferred_filters),
            "hits": [hit.to_dict() for hit in page.hits],
            "offset": request.offset,
            "next_cursor": next_cursor,
            "mode": page.mode,
            "fallback_reason": page.fallback_reason,
            "hint": hint,
        }

    @staticmethod
    def _continued(
        cursor: SearchCursor, query: str | None, filters: dict[str, str], limit: int | None
    ) -> SearchRequest:
        """The request a verified cursor continues. What the caller repeats (query, filters, limit)
        must be the cursor's; a query or filter given means the filters are given in full."""
        if query is None and cursor.query is None:
            raise CursorError(
                "This cursor does not carry its query (it was too long): pass the same query and "
                "filters with it."
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

    def get_doc(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Run ``get_doc``.

        Raises:
            InvalidArguments: arguments do not match the schema.
            ChunkNotFound: the index holds no such chunk; the message points to search_docs.
        """
        values = self._get_arguments.validate(arguments)
        chunk_id = str(values["chunk_id"])
        try:
            window = self._index.get(chunk_id, int(values["context"]))
        except ChunkNotFound as error:
            raise ChunkNotFound(
                _not_found_message(chunk_id, error.close_ids), chunk_id, error.close_ids
            ) from error
        return window.to_dict()

    def _hint(self, query: str, filters: Mapping[str, str]) -> dict[str, Any]:
        suggestions = self._index.suggest_filters(query, filters)
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


def _not_found_message(chunk_id: str, close_ids: list[str]) -> str:
    message = (
        f"No section has chunk_id {chunk_id!r}. Chunk ids come from {SEARCH_TOOL} results: call "
        f"{SEARCH_TOOL} to find the section, then pass its chunk_id exactly."
    )
    if close_ids:
        message += " Similar ids in this index: " + ", ".join(close_ids[:5]) + "."
    return message
