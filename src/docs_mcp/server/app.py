"""The MCP server for one opened index: tool listing, tool calls, initialize instructions.

Built on the low-level ``mcp`` server so the published schemas are exactly ours (enums injected
from the index). Index calls run in worker threads so one slow query never blocks the event loop
and concurrent clients are served in parallel. A tool failure is an ``isError`` result the agent
can read and correct; only protocol faults (an unknown tool) become JSON-RPC errors.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from docs_mcp import __version__
from docs_mcp.errors import DocsMcpError
from docs_mcp.limits import MAX_CONCURRENT_INDEX_CALLS
from docs_mcp.server.budget import MAX_TOKENS_DEFAULT
from docs_mcp.server.cursor import CursorCodec, cursor_key
from docs_mcp.server.deferred import DeferredIndex, Front
from docs_mcp.server.feedback import FEEDBACK_TOOL, FeedbackLog
from docs_mcp.server.listing import feedback_tool, instructions_of, listed_tools, manifest_front
from docs_mcp.server.live import LiveIndex
from docs_mcp.server.prompts import DocsPrompts
from docs_mcp.server.protocol import NameInvalidParams
from docs_mcp.server.resources import DocsResources
from docs_mcp.server.tool_schema import GET_TOOL, SEARCH_TOOL, ToolSchemas
from docs_mcp.server.tools import Answer, DocsTools

if TYPE_CHECKING:
    from docs_mcp.search.reader import IndexReader  # an opened DocsIndex

__all__ = [
    "SERVER_NAME",
    "ServedIndex",
    "build_tools",
    "create_server",
    "error_result",
    "feedback_entry",
    "front_of",
    "prompt_handlers",
    "served_index",
    "tool_result",
]

logger = logging.getLogger(__name__)

SERVER_NAME = "docs-mcp"


@dataclass(frozen=True)
class _ToolEntry:
    tool: types.Tool
    run: Callable[[dict[str, Any] | None], Answer]  # the structured result and its text


def build_tools(
    tools: DocsTools, description: str | None, feedback: FeedbackLog | None = None
) -> dict[str, _ToolEntry]:
    """The listed tools with their handlers, keyed by tool name; ``docs_feedback`` only with a log."""
    listed = listed_tools(tools.schemas, description, feedback is not None)
    runs: dict[str, Callable[[dict[str, Any] | None], Answer]] = {
        SEARCH_TOOL: tools.search_docs,
        GET_TOOL: tools.get_doc,
    }
    if feedback is not None:
        runs[FEEDBACK_TOOL] = feedback.report
    return {name: _ToolEntry(tool, runs[name]) for name, tool in listed.items()}


def feedback_entry(feedback: FeedbackLog) -> _ToolEntry:
    """The ``docs_feedback`` tool appending to ``feedback`` (a single index's and the hub's)."""
    return _ToolEntry(feedback_tool(), feedback.report)


def error_result(message: str) -> types.CallToolResult:
    """A tool failure as MCP says to report it: an ``isError`` result the model can read."""
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


async def tool_result(
    params: types.CallToolRequestParams, answer: Callable[[], Answer], index_calls: anyio.CapacityLimiter
) -> types.CallToolResult:
    """``answer()`` for one tool call, off the event loop (the index is synchronous: LanceDB) and
    within ``index_calls``; a failure is an ``isError`` result (a single index's and the hub's)."""
    try:
        result, text = await anyio.to_thread.run_sync(answer, limiter=index_calls)
    except DocsMcpError as error:
        return error_result(str(error))
    except Exception:
        # Never let one bad request take the server down; the log keeps the traceback.
        logger.exception("%s failed with arguments %r", params.name, params.arguments)
        return error_result(f"{params.name} failed with an internal error; the server log has details.")
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=result)


@dataclass(frozen=True)
class ServedIndex:
    """One opened index and everything the server derives from it; swapped whole (see ``live``)."""

    index: IndexReader
    tools: DocsTools
    entries: dict[str, _ToolEntry]
    listing: types.ListToolsResult
    instructions: str
    resources: DocsResources
    prompts: DocsPrompts


def served_index(
    index: IndexReader,
    key: bytes,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    feedback_log: Path | None = None,
    schemas: ToolSchemas | None = None,
) -> ServedIndex:
    """The tools, listing and instructions of ``index``, with cursors signed by ``key``, answers of at
    most ``max_tokens`` unless a call asks for another budget, and ``docs_feedback`` appending to
    ``feedback_log`` when one is given. ``schemas``: the published ones (by default made from the
    index, see :class:`DocsTools`)."""
    manifest = index.manifest
    codec = CursorCodec(key, index.identity)
    tools = DocsTools(index, codec, max_tokens, schemas)
    feedback = FeedbackLog(feedback_log, index.identity) if feedback_log is not None else None
    entries = build_tools(tools, manifest.description, feedback)
    instructions = instructions_of(manifest, tools.schemas)
    listing = types.ListToolsResult(tools=[e.tool for e in entries.values()])
    resources = DocsResources(index, codec)
    return ServedIndex(
        index, tools, entries, listing, instructions, resources, DocsPrompts.of(manifest.prompts)
    )


def front_of(served: ServedIndex) -> Front:
    """What a server of the opened ``served`` publishes."""
    tools = {name: entry.tool for name, entry in served.entries.items()}
    return Front(served.listing, tools, served.instructions, served.resources.enabled, served.prompts)


def create_server(
    index: IndexReader | LiveIndex[ServedIndex] | DeferredIndex[ServedIndex],
    *,
    key: bytes | None = None,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    feedback_log: Path | None = None,
) -> Server[Any]:
    """An MCP server answering ``search_docs`` and ``get_doc`` from ``index``, and listing and reading
    its ``mcp_resource`` sections as resources when its taxonomy marks any (:mod:`.resources`).

    ``index`` is one opened index, a :class:`LiveIndex` whose index may be swapped between
    requests (each request finishes on the index it started with), or a :class:`DeferredIndex` still
    loading: ``initialize`` and ``tools/list`` are answered from its manifest at once, calls wait for
    the load. ``key`` signs the pagination cursors of a single index; by default it comes from
    ``DOCS_MCP_CURSOR_SECRET`` or is generated (see :func:`docs_mcp.server.cursor.cursor_key`);
    ``max_tokens`` is the default answer budget. A ``LiveIndex`` brings its own of both; a
    ``DeferredIndex`` its own key, with ``max_tokens`` and ``feedback_log`` those its load opens with
    (the listing published meanwhile is made from them and its manifest).
    The openers of a folder are in :mod:`docs_mcp.server.opening`.
    """
    if isinstance(index, DeferredIndex):
        source = index
        front = manifest_front(index.manifest, max_tokens, feedback=feedback_log is not None)
    else:
        live = (
            index
            if isinstance(index, LiveIndex)
            else LiveIndex(
                served_index(index, key if key is not None else cursor_key(), max_tokens, feedback_log)
            )
        )
        source = DeferredIndex.opened(live.current.index.manifest, live)
        front = front_of(live.current)

    # Index work runs in threads, at most MAX_CONCURRENT_INDEX_CALLS at once (each holds LanceDB's
    # files and its own native working memory; two cores run no more than a few), the rest waiting
    # their turn on the event loop, where a waiting request costs little memory.
    index_calls = anyio.CapacityLimiter(MAX_CONCURRENT_INDEX_CALLS)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        loaded = source.loaded
        if loaded is None:  # still loading (or failed): the manifest's listing is the index's
            source.opening_answered()
            return front.listing
        # acquire() may reopen a rebuilt index: never on the event loop.
        return (await anyio.to_thread.run_sync(loaded.acquire, limiter=index_calls)).listing

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in front.tools:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Unknown tool {params.name!r}; this server has: {', '.join(front.tools)}.",
            )
        try:
            live = await _loaded(source)
        except DocsMcpError as error:
            return error_result(str(error))
        return await _call_tool(live, params, index_calls)

    def input_schema(name: str) -> dict[str, Any] | None:
        loaded = source.loaded
        tools = front.tools if loaded is None else {n: e.tool for n, e in loaded.current.entries.items()}
        return tools[name].input_schema if name in tools else None

    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        title="Documentation search",
        instructions=front.instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=input_schema,
        **_resource_handlers(source, front, index_calls),
        **prompt_handlers(lambda: _prompts(source, front), front.prompts.enabled),
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


async def _loaded(source: DeferredIndex[ServedIndex]) -> LiveIndex[ServedIndex]:
    """The opened index, waiting (off the event loop) while it loads. Raises its load's error."""
    loaded = source.loaded
    return loaded if loaded is not None else await anyio.to_thread.run_sync(source.wait)


def _prompts(source: DeferredIndex[ServedIndex], front: Front) -> DocsPrompts:
    """The prompts of the index a request acquires; the manifest's while it loads."""
    loaded = source.loaded
    return front.prompts if loaded is None else loaded.acquire().prompts


def _resource_handlers(
    source: DeferredIndex[ServedIndex], front: Front, index_calls: anyio.CapacityLimiter
) -> dict[str, Any]:
    """The resource handlers, when the served index marks any facet value ``mcp_resource``; none
    otherwise, so the server does not offer resources. Decided when the server is made: an index
    swapped in later that marks values the first one did not is served without resources until a
    restart (and one that marks none lists none)."""
    if not front.resources:
        return {}

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        live = await _loaded(source)
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
        live = await _loaded(source)
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

    def run(served: ServedIndex) -> Answer:
        return served.entries[params.name].run(params.arguments)

    return await tool_result(params, lambda: live.call(run), index_calls)
