"""Run labelled queries through a connected MCP client, as an agent would call ``search_docs``.

Each query asks for ``max(k)`` hits (at most a page, 50) with its filters as the tool's facet
arguments, and follows ``next_cursor`` while it has fewer than ``max(k)`` ranks: sections need
``max(k)`` hits, pages need ``max(k)`` unique pages. Every ``search_docs`` round trip is timed.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp import Client

from docs_mcp.errors import ConfigError, QueryError
from docs_mcp.eval.matching import Hit, Matching, judge, units_of
from docs_mcp.eval.metrics import score
from docs_mcp.eval.queries import LabelledQuery
from docs_mcp.search.types import LIMIT_MAX
from docs_mcp.server.tools.tool_schema import RESERVED_ARGUMENTS, SEARCH_TOOL

__all__ = ["QueryRun", "Searched", "run_queries"]

MAX_CALLS_PER_QUERY = 20  # a ranking that never fills k pages still ends


@dataclass(frozen=True)
class QueryRun:
    """One query's outcome: the ranked units it got (up to max k), what they answer, its scores."""

    query: LabelledQuery
    units: tuple[str, ...]
    credited: tuple[str | None, ...]
    scores: Mapping[str, float]
    latency_ms: tuple[float, ...]  # one per search_docs call
    modes: frozenset[str]
    fallback_reason: str | None


@dataclass
class Searched:
    """What one query's calls returned: hits in rank order and what the server said about them."""

    hits: list[Hit]
    latency_ms: list[float]
    modes: set[str]
    fallback_reason: str | None


async def run_queries(
    client: Client, queries: Sequence[LabelledQuery], ks: Sequence[int], matching: Matching = "sections"
) -> list[QueryRun]:
    """Search every query through ``client`` and score it at each k of ``ks`` (hits judged by ``matching``).

    Raises ``ConfigError`` when a query's filters are not facets (or values) of the server's index,
    listing them all before any search runs, and ``QueryError`` when the server rejects a call.
    """
    schema = await _search_schema(client)
    check_filters(queries, schema)
    depth = max(ks)
    runs: list[QueryRun] = []
    for query in queries:
        searched = await search(client, query, depth)
        judged = judge(query, searched.hits, matching)
        runs.append(
            QueryRun(
                query=query,
                units=judged.units[:depth],
                credited=judged.credited[:depth],
                scores=score(judged, ks),
                latency_ms=tuple(searched.latency_ms),
                modes=frozenset(searched.modes),
                fallback_reason=searched.fallback_reason,
            )
        )
    return runs


async def search(client: Client, query: LabelledQuery, depth: int) -> Searched:
    """The hits of ``query`` until it has ``depth`` ranks (or the results end), following cursors."""
    arguments: dict[str, Any] = {"query": query.query, **query.filters, "limit": min(depth, LIMIT_MAX)}
    found = Searched([], [], set(), None)
    for _ in range(MAX_CALLS_PER_QUERY):
        started = time.perf_counter()
        result = await client.call_tool(SEARCH_TOOL, arguments)
        found.latency_ms.append((time.perf_counter() - started) * 1000)
        page = result.structured_content
        if result.is_error or not isinstance(page, dict):
            said = " ".join(getattr(part, "text", "") for part in result.content)
            raise QueryError(f"query {query.id!r}: {SEARCH_TOOL} failed: {said or 'no structured result'}")
        found.hits.extend(Hit(hit["chunk_id"], hit["file"]) for hit in page["hits"])
        found.modes.add(str(page["mode"]))
        found.fallback_reason = found.fallback_reason or page.get("fallback_reason")
        cursor = page.get("next_cursor")
        if cursor is None or len(units_of(query, found.hits)) >= depth:
            break
        arguments = {"query": query.query, **query.filters, "cursor": cursor}
    return found


async def _search_schema(client: Client) -> Mapping[str, Any]:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    if SEARCH_TOOL not in tools:
        raise ConfigError(f"the server has no {SEARCH_TOOL} tool (it lists: {', '.join(tools) or 'none'})")
    return tools[SEARCH_TOOL].input_schema


def check_filters(queries: Sequence[LabelledQuery], schema: Mapping[str, Any]) -> None:
    """Raise ``ConfigError`` listing every query whose filters the ``search_docs`` schema refuses."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    facets = {name: spec.get("enum") for name, spec in properties.items() if name not in RESERVED_ARGUMENTS}
    problems: list[str] = []
    for query in queries:
        for name, value in query.filters.items():
            if name not in facets:
                known = ", ".join(facets) or "none"
                problems.append(
                    f"query {query.id!r}: {name!r} is not a facet of this index (facets: {known})"
                )
            elif facets[name] is not None and value not in facets[name]:
                problems.append(
                    f"query {query.id!r}: {name}={value!r} is not in the index; values: "
                    + ", ".join(facets[name])
                )
    if problems:
        raise ConfigError("the query file does not fit the index: " + "; ".join(problems))
