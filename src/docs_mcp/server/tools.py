"""The ``search_docs`` and ``get_doc`` handlers: validate, call the index, shape the result.

Handlers are synchronous (the index is) and transport-agnostic: they return the structured result
as a plain dict, or raise a :class:`DocsMcpError` that the app turns into a tool error. The
readable text the agent sees is rendered from the same dict (:mod:`docs_mcp.server.render`).

Arguments are checked once, here at the edge, against the published schema (enums of the index's
facet values, the limit range); the ``SearchRequest`` made from them checks what a schema cannot
(a blank query).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docs_mcp.errors import ChunkNotFound, CursorError
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import UNFILTERED, SearchRequest
from docs_mcp.server.arguments import ArgumentValidator
from docs_mcp.server.cursor import CursorCodec
from docs_mcp.server.schema import (
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
        """Run ``search_docs``.

        Raises:
            InvalidArguments: arguments do not match the schema.
            CursorError: the cursor is tampered, foreign, stale or for another query or limit.
            QueryError: the query is blank.
        """
        values = self._search_arguments.validate(arguments)
        query = str(values["query"]).strip()
        filters = {name: str(values[name]) for name in self.facets if name in values}
        limit, offset = int(values["limit"]), 0
        cursor = values.get("cursor")
        if cursor is not None:
            position = self._codec.decode(str(cursor), query=query, filters=filters)
            if arguments and "limit" in arguments and limit != position.limit:
                raise CursorError(
                    f"The cursor was issued for limit={position.limit}; omit `limit` or pass "
                    f"{position.limit} when passing this cursor."
                )
            limit, offset = position.limit, position.offset
        page = self._index.search(SearchRequest(query=query, filters=filters, limit=limit, offset=offset))
        next_offset = offset + len(page.hits)
        next_cursor = (
            self._codec.encode(offset=next_offset, limit=limit, query=query, filters=filters)
            if page.has_more and page.hits
            else None
        )
        hint = self._hint(query, filters) if not page.hits and offset == 0 else None
        return {
            "query": query,
            "filters": filters,
            "hits": [hit.to_dict() for hit in page.hits],
            "offset": offset,
            "next_cursor": next_cursor,
            "mode": page.mode,
            "fallback_reason": page.fallback_reason,
            "hint": hint,
        }

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
