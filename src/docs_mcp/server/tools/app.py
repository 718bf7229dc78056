"""The MCP server over the served libraries: tool listing and calls, resources, prompts, instructions.

One index served alone is a hub of one unnamed library (:mod:`docs_mcp.server.hub.libraries`) and
is listed and answered as a single index: no ``library`` argument, ``docs://{chunk_id}`` resources,
its own instructions. Built on the low-level ``mcp`` server so the published schemas are exactly
ours (enums injected from the indexes). Index calls run in worker threads so one slow query never
blocks the event loop and concurrent clients are served in parallel. A tool failure is an
``isError`` result the agent can read and correct; only protocol faults (an unknown tool) become
JSON-RPC errors. While a library loads, what is published comes from its manifest
(:mod:`docs_mcp.server.hub.deferred`), and a call waits only for the libraries it reads.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from docs_mcp import __version__
from docs_mcp.errors import DocsMcpError, IndexUnavailable
from docs_mcp.limits import MAX_CONCURRENT_INDEX_CALLS
from docs_mcp.server.hub.deferred import DeferredIndex
from docs_mcp.server.hub.libraries import UNNAMED, Hub, HubView, Library, ServedIndex, served_index
from docs_mcp.server.hub.live import REPLACED_RUNS, LiveIndex
from docs_mcp.server.tools.budget import MAX_TOKENS_DEFAULT
from docs_mcp.server.tools.cursor import cursor_key
from docs_mcp.server.tools.feedback import FEEDBACK_TOOL, FeedbackLog
from docs_mcp.server.tools.hub_merge import ASK_EVERY_LIBRARY_ENV
from docs_mcp.server.tools.hub_schema import (
    hub_get_description,
    hub_get_output_schema,
    hub_instructions,
    hub_search_description,
    hub_search_output_schema,
)
from docs_mcp.server.tools.hub_tools import HubTools
from docs_mcp.server.tools.listing import feedback_tool, instructions_of, listed_tools, search_and_get
from docs_mcp.server.tools.prompts import DocsPrompts, hub_prompt_name
from docs_mcp.server.tools.resources import DocsResources
from docs_mcp.server.tools.shapes import Answer
from docs_mcp.server.tools.tool_schema import GET_TOOL, SEARCH_TOOL
from docs_mcp.server.transport.protocol import NameInvalidParams

if TYPE_CHECKING:
    from docs_mcp.search.reader import IndexReader  # an opened DocsIndex

__all__ = [
    "SERVER_NAME",
    "ServerState",
    "ServerStates",
    "create_hub_server",
    "create_server",
    "error_result",
    "index_state",
]

logger = logging.getLogger(__name__)

SERVER_NAME = "docs-mcp"
Run = Callable[[Mapping[str, Any] | None], Answer]
Result = TypeVar("Result")


@dataclass(frozen=True)
class ServerState:
    """What the server derives from one :class:`HubView`: tools, listing, instructions, resources,
    prompts; rebuilt whole when a served index swapped."""

    view: HubView
    tools: HubTools
    runs: dict[str, Run]
    listing: types.ListToolsResult
    instructions: str
    resources: DocsResources
    prompts: DocsPrompts


def server_state(
    view: HubView, max_tokens: int = MAX_TOKENS_DEFAULT, feedback_log: Path | None = None
) -> ServerState:
    """The tools of ``view`` answering within ``max_tokens`` unless a call asks for another budget,
    and ``docs_feedback`` appending to ``feedback_log`` when one is given (each report names the
    index served, or every served library: name, version and index identity)."""
    tools = HubTools(view, max_tokens=max_tokens, cutoff=not os.environ.get(ASK_EVERY_LIBRARY_ENV))
    if view.unnamed:
        sole = view.sole
        listed = list(listed_tools(sole.schemas, sole.manifest.description, feedback=False).values())
        served_as, instructions = sole.identity, instructions_of(sole.manifest, sole.schemas)
        prompts = DocsPrompts.of(sole.manifest.prompts, max_tokens)
    else:
        listed = list(
            search_and_get(
                search=(hub_search_description(view), tools.search_schema, hub_search_output_schema()),
                get=(hub_get_description(), tools.get_schema, hub_get_output_schema()),
            )
        )
        served_as = " ".join(f"{s.name}@{s.version or ''}={s.identity}" for s in view.everything())
        instructions = hub_instructions(view)
        prompts = DocsPrompts(
            {
                hub_prompt_name(served.name, template.name): template
                for served in view.defaults()
                for template in served.manifest.prompts
            },
            max_tokens,
        )
    runs: dict[str, Run] = {SEARCH_TOOL: tools.search_docs, GET_TOOL: tools.get_doc}
    if feedback_log is not None:
        runs[FEEDBACK_TOOL] = FeedbackLog(feedback_log, served_as).report
        listed.append(feedback_tool())
    listing = types.ListToolsResult(tools=listed)
    return ServerState(view, tools, runs, listing, instructions, DocsResources(view), prompts)


class ServerStates:
    """The current :class:`ServerState`, rebuilt when the hub's view changes (an index swapped)."""

    def __init__(
        self,
        hub: Hub,
        on_rebuild: Callable[[ServerState], None] | None = None,
        *,
        max_tokens: int = MAX_TOKENS_DEFAULT,
        feedback_log: Path | None = None,
    ) -> None:
        self._hub = hub
        self._lock = threading.Lock()
        self._settings = (max_tokens, feedback_log)
        self._state = server_state(hub.view(), *self._settings)
        self._on_rebuild = on_rebuild

    @property
    def current(self) -> ServerState:
        return self._state

    @property
    def hub(self) -> Hub:
        return self._hub

    def acquire(self) -> ServerState:
        """The state of the view a request works with (made anew when an index swapped)."""
        view = self._hub.view()
        state = self._state
        if state.view is view:
            return state
        with self._lock:
            if self._state.view is not view:
                self._state = server_state(view, *self._settings)
                if self._on_rebuild is not None:
                    self._on_rebuild(self._state)
            return self._state


def on_state(states: ServerStates, run: Callable[[ServerState], Result]) -> Result:
    """``run(state)`` on the state this request acquires. When it fails with a LanceDB read error
    (``IndexUnavailable``, or anything but another ``DocsMcpError``) and a watched folder has been
    rebuilt since, it runs again on the reopened index: its files were deleted under it mid-request
    (:mod:`docs_mcp.server.hub.live`). Again up to ``REPLACED_RUNS`` times in all, while the
    state keeps changing: builds landing one after the other can delete the reopened files too."""
    state = states.acquire()
    for _run in range(REPLACED_RUNS - 1):
        try:
            return run(state)
        except Exception as error:
            if isinstance(error, DocsMcpError) and not isinstance(error, IndexUnavailable):
                raise
            retried = states.acquire()
            if retried is state:
                raise
            logger.info("a request failed while an index was being replaced; running it on the new index")
            state = retried
    return run(state)


def error_result(message: str) -> types.CallToolResult:
    """A tool failure as MCP says to report it: an ``isError`` result the model can read."""
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def create_server(
    index: IndexReader | LiveIndex[ServedIndex] | DeferredIndex[ServedIndex],
    *,
    key: bytes | None = None,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    feedback_log: Path | None = None,
) -> Server[Any]:
    """An MCP server answering ``search_docs`` and ``get_doc`` from one ``index``, and listing and
    reading its ``mcp_resource`` sections as resources when its taxonomy marks any.

    ``index`` is one opened index, a :class:`LiveIndex` whose index may be swapped between requests
    (each request finishes on the index it started with), or a :class:`DeferredIndex` still
    loading: ``initialize`` and ``tools/list`` are answered from its manifest at once, calls wait for
    the load. ``key`` signs the pagination cursors; by default it comes from
    ``DOCS_MCP_CURSOR_SECRET`` or is generated (:func:`docs_mcp.server.tools.cursor.cursor_key`);
    ``max_tokens`` is the default answer budget; ``feedback_log`` turns on ``docs_feedback``. The
    openers of a folder are in :mod:`docs_mcp.server.hub.opening`.
    """
    hub = _hub_of_one(index, key if key is not None else cursor_key(), max_tokens)
    return create_hub_server(hub, max_tokens=max_tokens, feedback_log=feedback_log)[0]


def index_state(
    index: IndexReader, key: bytes, max_tokens: int = MAX_TOKENS_DEFAULT, feedback_log: Path | None = None
) -> ServerState:
    """What a server of the one opened ``index`` publishes and answers with (its ``tools``: the
    handlers of ``search_docs`` and ``get_doc``), cursors signed by ``key``."""
    return server_state(_hub_of_one(index, key, max_tokens).view(), max_tokens, feedback_log)


def _hub_of_one(
    index: IndexReader | LiveIndex[ServedIndex] | DeferredIndex[ServedIndex], key: bytes, max_tokens: int
) -> Hub:
    """``index`` as the one unnamed library of a hub."""
    if isinstance(index, DeferredIndex):
        deferred = index
    else:
        live = index if isinstance(index, LiveIndex) else LiveIndex(served_index(index, max_tokens))
        deferred = DeferredIndex.opened(live.current.index.manifest, live)
    return Hub([Library(UNNAMED, None, deferred, source="")], key, max_tokens=max_tokens)


def create_hub_server(
    hub: Hub, *, max_tokens: int = MAX_TOKENS_DEFAULT, feedback_log: Path | None = None
) -> tuple[Server[Any], ServerStates]:
    """An MCP server answering ``search_docs`` and ``get_doc`` from every library of ``hub``, within
    ``max_tokens`` by default; ``feedback_log`` turns on ``docs_feedback``. Resources and prompts are
    offered when the libraries' manifests hold any when it is made (a swap never adds them)."""
    servers: list[Server[Any]] = []

    def rebuilt(state: ServerState) -> None:
        for made in servers:
            made.instructions = state.instructions  # what the next initialize says

    states = ServerStates(hub, rebuilt, max_tokens=max_tokens, feedback_log=feedback_log)
    # Index work runs in threads, at most MAX_CONCURRENT_INDEX_CALLS at once whichever library they
    # ask (each holds LanceDB's files and its own native working memory; two cores run no more than
    # a few), the rest waiting their turn on the event loop, where a waiting request costs little.
    index_calls = anyio.CapacityLimiter(MAX_CONCURRENT_INDEX_CALLS)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        # acquire() may reopen a rebuilt index: never on the event loop.
        listing = (await anyio.to_thread.run_sync(states.acquire)).listing
        for library in states.hub.libraries:  # listed: the loads need not yield any longer
            library.index.opening_answered()
        return listing

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await _call_tool(states, params, index_calls)

    def input_schema(name: str) -> dict[str, Any] | None:
        return {tool.name: tool.input_schema for tool in states.current.listing.tools}.get(name)

    current = states.current
    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        title="Documentation search",
        instructions=current.instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=input_schema,
        **(_resource_handlers(states, index_calls) if current.resources.enabled else {}),
        **(_prompt_handlers(states) if current.prompts.enabled else {}),
    )
    server.middleware.append(NameInvalidParams())  # -32602 answers name the field at fault
    servers.append(server)
    return server, states


def _prompt_handlers(states: ServerStates) -> dict[str, Any]:
    """The prompt handlers over the prompts of the state a request acquires."""

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return (await anyio.to_thread.run_sync(states.acquire)).prompts.list()

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        return (await anyio.to_thread.run_sync(states.acquire)).prompts.get(params.name, params.arguments)

    return {"on_list_prompts": list_prompts, "on_get_prompt": get_prompt}


def _resource_handlers(states: ServerStates, index_calls: anyio.CapacityLimiter) -> dict[str, Any]:
    """The resource handlers; each waits (as a tool call, outside the limit) for the libraries."""

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        await anyio.to_thread.run_sync(states.hub.wait_open)
        return await anyio.to_thread.run_sync(
            lambda: on_state(states, lambda state: state.resources.list(cursor)), limiter=index_calls
        )

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return states.current.resources.templates()

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        await anyio.to_thread.run_sync(states.hub.wait_open)
        return await anyio.to_thread.run_sync(
            lambda: on_state(states, lambda state: state.resources.read(params.uri)), limiter=index_calls
        )

    return {
        "on_list_resources": list_resources,
        "on_list_resource_templates": list_templates,
        "on_read_resource": read_resource,
    }


async def _call_tool(
    states: ServerStates, params: types.CallToolRequestParams, index_calls: anyio.CapacityLimiter
) -> types.CallToolResult:
    """One tool call on the state the request acquires, off the event loop (the index is
    synchronous: LanceDB) and within ``index_calls``; a failure is an ``isError`` result."""
    runs = states.current.runs
    if params.name not in runs:
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"Unknown tool {params.name!r}; this server has: {', '.join(runs)}.",
        )

    def run() -> Answer:
        return on_state(states, lambda state: state.runs[params.name](params.arguments))

    # The libraries it reads are waited for first, outside the index-call limit: a call waiting for
    # a library still loading never holds a turn a call to an open library could use.
    await anyio.to_thread.run_sync(states.hub.wait_open, (params.arguments or {}).get("library"))
    try:
        result, text = await anyio.to_thread.run_sync(run, limiter=index_calls)
    except DocsMcpError as error:
        return error_result(str(error))
    except Exception:
        # Never let one bad request take the server down; the log keeps the traceback.
        logger.exception("%s failed with arguments %r", params.name, params.arguments)
        return error_result(f"{params.name} failed with an internal error; the server log has details.")
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=result)
