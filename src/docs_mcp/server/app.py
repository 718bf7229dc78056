"""The MCP server for one opened index: tool listing, tool calls, initialize instructions.

Built on the low-level ``mcp`` server so the published schemas are exactly ours (enums injected
from the index). Index calls run in worker threads so one slow query never blocks the event loop
and concurrent clients are served in parallel. A tool failure is an ``isError`` result the agent
can read and correct; only protocol faults (an unknown tool) become JSON-RPC errors.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from docs_mcp import __version__
from docs_mcp.errors import DocsMcpError
from docs_mcp.limits import MAX_CONCURRENT_INDEX_CALLS
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.server.budget import MAX_TOKENS_DEFAULT
from docs_mcp.server.cursor import CursorCodec, cursor_key
from docs_mcp.server.feedback import (
    FEEDBACK_DESCRIPTION,
    FEEDBACK_TOOL,
    FeedbackLog,
    feedback_input_schema,
    feedback_output_schema,
)
from docs_mcp.server.instructions import get_description, search_description, server_instructions
from docs_mcp.server.live import LiveIndex
from docs_mcp.server.prompts import DocsPrompts
from docs_mcp.server.protocol import NameInvalidParams
from docs_mcp.server.resources import DocsResources
from docs_mcp.server.tool_schema import GET_TOOL, SEARCH_TOOL, get_output_schema, search_output_schema
from docs_mcp.server.tools import Answer, DocsTools

__all__ = [
    "SERVER_NAME",
    "ReadyServer",
    "ServedIndex",
    "build_tools",
    "create_server",
    "feedback_entry",
    "open_server",
    "open_warm",
    "prompt_handlers",
    "served_index",
]

logger = logging.getLogger(__name__)

SERVER_NAME = "docs-mcp"
_READ_ONLY = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


@dataclass(frozen=True)
class _ToolEntry:
    tool: types.Tool
    run: Callable[[dict[str, Any] | None], Answer]  # the structured result and its text


def build_tools(
    tools: DocsTools, description: str | None, feedback: FeedbackLog | None = None
) -> dict[str, _ToolEntry]:
    """The listed tools with their handlers, keyed by tool name; ``docs_feedback`` only with a log."""
    search = types.Tool(
        name=SEARCH_TOOL,
        title="Search the documentation",
        description=search_description(description, tools.facets, tools.conventions),
        input_schema=tools.search_schema,
        output_schema=search_output_schema(),
        annotations=_READ_ONLY,
    )
    get = types.Tool(
        name=GET_TOOL,
        title="Read a documentation section",
        description=get_description(),
        input_schema=tools.get_schema,
        output_schema=get_output_schema(),
        annotations=_READ_ONLY,
    )
    entries = {
        SEARCH_TOOL: _ToolEntry(search, tools.search_docs),
        GET_TOOL: _ToolEntry(get, tools.get_doc),
    }
    if feedback is not None:
        entries[FEEDBACK_TOOL] = feedback_entry(feedback)
    return entries


def feedback_entry(feedback: FeedbackLog) -> _ToolEntry:
    """The ``docs_feedback`` tool appending to ``feedback`` (a single index's and the hub's)."""
    report = types.Tool(
        name=FEEDBACK_TOOL,
        title="Report whether the docs answered",
        description=FEEDBACK_DESCRIPTION,
        input_schema=feedback_input_schema(),
        output_schema=feedback_output_schema(),
        annotations=types.ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
        ),
    )
    return _ToolEntry(report, feedback.report)


def _error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


@dataclass(frozen=True)
class ServedIndex:
    """One opened index and everything the server derives from it; swapped whole (see ``live``)."""

    index: DocsIndex
    tools: DocsTools
    entries: dict[str, _ToolEntry]
    listing: types.ListToolsResult
    instructions: str
    resources: DocsResources
    prompts: DocsPrompts


def served_index(
    index: DocsIndex, key: bytes, max_tokens: int = MAX_TOKENS_DEFAULT, feedback_log: Path | None = None
) -> ServedIndex:
    """The tools, listing and instructions of ``index``, with cursors signed by ``key``, answers of at
    most ``max_tokens`` unless a call asks for another budget, and ``docs_feedback`` appending to
    ``feedback_log`` when one is given."""
    manifest = index.manifest
    codec = CursorCodec(key, index.identity)
    tools = DocsTools(index, codec, max_tokens)
    feedback = FeedbackLog(feedback_log, index.identity) if feedback_log is not None else None
    entries = build_tools(tools, manifest.description, feedback)
    instructions = server_instructions(
        manifest.description,
        manifest.instructions,
        tools.facets,
        chunk_count=manifest.chunk_count,
        conventions=tools.conventions,
    )
    listing = types.ListToolsResult(tools=[e.tool for e in entries.values()])
    resources = DocsResources(index, codec)
    return ServedIndex(
        index, tools, entries, listing, instructions, resources, DocsPrompts.of(manifest.prompts)
    )


def create_server(
    index: DocsIndex | LiveIndex[ServedIndex],
    *,
    key: bytes | None = None,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    feedback_log: Path | None = None,
) -> Server[Any]:
    """An MCP server answering ``search_docs`` and ``get_doc`` from ``index``, and listing and reading
    its ``mcp_resource`` sections as resources when its taxonomy marks any (:mod:`.resources`).

    ``index`` is one opened index, or a :class:`LiveIndex` whose index may be swapped between
    requests (each request finishes on the index it started with). ``key`` signs the pagination
    cursors of a single index; by default it comes from ``DOCS_MCP_CURSOR_SECRET`` or is generated
    (see :func:`docs_mcp.server.cursor.cursor_key`); ``max_tokens`` is the default answer budget. A
    ``LiveIndex`` brings its own of both.
    """
    live = (
        index
        if isinstance(index, LiveIndex)
        else LiveIndex(
            served_index(index, key if key is not None else cursor_key(), max_tokens, feedback_log)
        )
    )

    # Index work runs in threads, at most MAX_CONCURRENT_INDEX_CALLS at once (each holds LanceDB's
    # files open; two cores run no more than a few), the rest waiting their turn on the event loop.
    index_calls = anyio.CapacityLimiter(MAX_CONCURRENT_INDEX_CALLS)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        # acquire() may reopen a rebuilt index: never on the event loop.
        return (await anyio.to_thread.run_sync(live.acquire, limiter=index_calls)).listing

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await _call_tool(live, params, index_calls)

    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        title="Documentation search",
        instructions=live.current.instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=lambda name: (
            live.current.entries[name].tool.input_schema if name in live.current.entries else None
        ),
        **_resource_handlers(live, index_calls),
        **prompt_handlers(lambda: live.acquire().prompts, live.current.prompts.enabled),
    )
    server.middleware.append(NameInvalidParams())  # -32602 answers name the field at fault
    return server


def prompt_handlers(current: Callable[[], DocsPrompts], enabled: bool) -> dict[str, Any]:
    """The prompt handlers over the prompts ``current()`` gives (the index a request acquires), when
    the server offers prompts at all (``enabled``: its index held templates when it was made; like
    resources, the capability is decided then)."""
    if not enabled:
        return {}

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return (await anyio.to_thread.run_sync(current)).list()

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        return (await anyio.to_thread.run_sync(current)).get(params.name, params.arguments)

    return {"on_list_prompts": list_prompts, "on_get_prompt": get_prompt}


def _resource_handlers(live: LiveIndex[ServedIndex], index_calls: anyio.CapacityLimiter) -> dict[str, Any]:
    """The resource handlers, when the served index marks any facet value ``mcp_resource``; none
    otherwise, so the server does not offer resources. Decided when the server is made: an index
    swapped in later that marks values the first one did not is served without resources until a
    restart (and one that marks none lists none)."""
    if not live.current.resources.enabled:
        return {}

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        return await anyio.to_thread.run_sync(
            lambda: live.call(lambda s: s.resources.list(cursor)), limiter=index_calls
        )

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return DocsResources.templates()

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await anyio.to_thread.run_sync(
            lambda: live.call(lambda s: s.resources.read(params.uri)), limiter=index_calls
        )

    return {
        "on_list_resources": list_resources,
        "on_list_resource_templates": list_templates,
        "on_read_resource": read_resource,
    }


async def _call_tool(
    live: LiveIndex[ServedIndex], params: types.CallToolRequestParams, index_calls: anyio.CapacityLimiter
) -> types.CallToolResult:
    """Run one tool call on the index the request acquires; a tool failure is an ``isError`` result."""
    names = live.current.entries
    if params.name not in names:
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"Unknown tool {params.name!r}; this server has: {', '.join(names)}.",
        )

    def run(served: ServedIndex) -> Answer:
        return served.entries[params.name].run(params.arguments)

    try:
        # The index is synchronous (LanceDB): keep it off the event loop.
        result, text = await anyio.to_thread.run_sync(live.call, run, limiter=index_calls)
    except DocsMcpError as error:
        return _error_result(str(error))
    except Exception:
        # Never let one bad request take the server down; the log keeps the traceback.
        logger.exception("%s failed with arguments %r", params.name, params.arguments)
        return _error_result(f"{params.name} failed with an internal error; the server log has details.")
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=result)


@dataclass(frozen=True)
class ReadyServer:
    """An opened, warmed index and its MCP server; ``startup_seconds`` is open + warm-up time.
    ``live`` holds the index being served (``index`` is the first one)."""

    index: DocsIndex
    server: Server[Any]
    startup_seconds: float
    live: LiveIndex[ServedIndex]


def open_warm(index_path: Path) -> DocsIndex:
    """Open the index at ``index_path`` and run one query, so the first agent request does not pay for
    loading it. Raises ``IndexUnavailable`` or ``IndexCompatibilityError``."""
    index = DocsIndex.open(index_path)
    index.search(SearchRequest(query="getting started", limit=1))
    return index


def open_server(
    index_path: Path,
    *,
    key: bytes | None = None,
    watch: bool = False,
    on_swap: Callable[[ServedIndex, Path], None] | None = None,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    feedback_log: Path | None = None,
) -> ReadyServer:
    """Open the index at ``index_path`` (an output folder of ``docs-mcp build``), warm it, build the server.

    ``watch``: reopen the folder when a build replaces it (see :mod:`docs_mcp.server.live`);
    ``on_swap`` runs after each swap; ``max_tokens`` is the default answer budget; ``feedback_log``
    turns on ``docs_feedback``.

    Raises:
        IndexUnavailable: the index is missing or unreadable.
        IndexCompatibilityError: the index was built by an incompatible version or provider.
    """
    started = time.perf_counter()
    signing_key = key if key is not None else cursor_key()
    servers: list[Server[Any]] = []

    def swapped(served: ServedIndex, path: Path) -> None:
        for server in servers:
            server.instructions = served.instructions  # what the next initialize says
        if on_swap is not None:
            on_swap(served, path)

    live = LiveIndex.open(
        Path(index_path),
        lambda path: served_index(open_warm(path), signing_key, max_tokens, feedback_log),
        watch=watch,
        on_swap=swapped,
    )
    servers.append(create_server(live))
    return ReadyServer(live.current.index, servers[0], time.perf_counter() - started, live)
