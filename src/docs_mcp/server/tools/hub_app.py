"""The MCP server for several libraries: the same two tools, answered by :mod:`.hub_tools`.

Like :func:`docs_mcp.server.tools.app.create_server`: index calls run in worker threads, a tool failure is
an ``isError`` result, and the listing is rebuilt only when a served index swapped. Resources are
per library: ``docs://{library}/{chunk_id}``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from docs_mcp import __version__
from docs_mcp.limits import MAX_CONCURRENT_INDEX_CALLS
from docs_mcp.server.hub.libraries import Hub, HubView
from docs_mcp.server.tools.app import SERVER_NAME, feedback_entry, prompt_handlers, tool_result
from docs_mcp.server.tools.budget import MAX_TOKENS_DEFAULT
from docs_mcp.server.tools.docs_tools import Answer
from docs_mcp.server.tools.feedback import FEEDBACK_TOOL, FeedbackLog
from docs_mcp.server.tools.hub_resources import HubResources
from docs_mcp.server.tools.hub_schema import (
    LIBRARY,
    hub_get_description,
    hub_get_output_schema,
    hub_instructions,
    hub_search_description,
    hub_search_output_schema,
)
from docs_mcp.server.tools.hub_tools import HubTools
from docs_mcp.server.tools.listing import search_and_get
from docs_mcp.server.tools.prompts import DocsPrompts, hub_prompt_name
from docs_mcp.server.tools.tool_schema import GET_TOOL, SEARCH_TOOL
from docs_mcp.server.transport.protocol import NameInvalidParams

__all__ = ["HubState", "create_hub_server"]


@dataclass(frozen=True)
class HubState:
    """What the server derives from one :class:`HubView`: tools, listing, instructions, resources."""

    view: HubView
    tools: HubTools
    runs: dict[str, Callable[[Mapping[str, Any] | None], Answer]]
    listing: types.ListToolsResult
    instructions: str
    resources: HubResources
    prompts: DocsPrompts


def hub_state(
    view: HubView, max_tokens: int = MAX_TOKENS_DEFAULT, feedback_log: Path | None = None
) -> HubState:
    """The tools of ``view`` answering within ``max_tokens`` unless a call asks for another budget,
    and ``docs_feedback`` appending to ``feedback_log`` when one is given (each report names every
    served index: library, version and index identity)."""
    tools = HubTools(view, max_tokens=max_tokens)
    search, get = search_and_get(
        search=(hub_search_description(view), tools.search_schema, hub_search_output_schema()),
        get=(hub_get_description(), tools.get_schema, hub_get_output_schema()),
    )
    runs: dict[str, Callable[[Mapping[str, Any] | None], Answer]] = {
        SEARCH_TOOL: tools.search_docs,
        GET_TOOL: tools.get_doc,
    }
    listed = [search, get]
    if feedback_log is not None:
        served = " ".join(f"{s.name}@{s.version or ''}={s.identity}" for s in view.everything())
        log = FeedbackLog(feedback_log, served)
        runs[FEEDBACK_TOOL] = log.report
        listed.append(feedback_entry(log).tool)
    listing = types.ListToolsResult(tools=listed)
    prompts = DocsPrompts(
        {
            hub_prompt_name(served.name, template.name): template
            for served in view.defaults()
            for template in served.manifest.prompts
        }
    )
    return HubState(view, tools, runs, listing, hub_instructions(view), HubResources(view), prompts)


class HubStates:
    """The current :class:`HubState`, rebuilt when the hub's view changes (an index swapped)."""

    def __init__(
        self,
        hub: Hub,
        on_rebuild: Callable[[HubState], None] | None = None,
        *,
        max_tokens: int = MAX_TOKENS_DEFAULT,
        feedback_log: Path | None = None,
    ) -> None:
        self._hub = hub
        self._lock = threading.Lock()
        self._settings = (max_tokens, feedback_log)
        self._state = hub_state(hub.view(), *self._settings)
        self._on_rebuild = on_rebuild

    @property
    def current(self) -> HubState:
        return self._state

    @property
    def hub(self) -> Hub:
        return self._hub

    def acquire(self) -> HubState:
        view = self._hub.view()
        state = self._state
        if state.view is view:
            return state
        with self._lock:
            if self._state.view is not view:
                self._state = hub_state(view, *self._settings)
                if self._on_rebuild is not None:
                    self._on_rebuild(self._state)
            return self._state


def create_hub_server(
    hub: Hub, *, max_tokens: int = MAX_TOKENS_DEFAULT, feedback_log: Path | None = None
) -> tuple[Server[Any], HubStates]:
    """An MCP server answering ``search_docs`` and ``get_doc`` from every library of ``hub``, within
    ``max_tokens`` by default; ``feedback_log`` turns on ``docs_feedback``."""
    servers: list[Server[Any]] = []

    def rebuilt(state: HubState) -> None:
        for made in servers:
            made.instructions = state.instructions  # what the next initialize says

    states = HubStates(hub, rebuilt, max_tokens=max_tokens, feedback_log=feedback_log)
    # As on one index (docs_mcp.server.tools.app): each search in flight holds LanceDB's working memory,
    # so at most MAX_CONCURRENT_INDEX_CALLS run at once, whichever library they ask.
    index_calls = anyio.CapacityLimiter(MAX_CONCURRENT_INDEX_CALLS)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return (await anyio.to_thread.run_sync(states.acquire)).listing

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await _call_tool(states, params, index_calls)

    def input_schema(name: str) -> dict[str, Any] | None:
        return {tool.name: tool.input_schema for tool in states.current.listing.tools}.get(name)

    resources: dict[str, Any] = {}
    if states.current.resources.enabled:
        resources = _resource_handlers(states, index_calls)
    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        title="Documentation search",
        instructions=states.current.instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=input_schema,
        **resources,
        **prompt_handlers(lambda: states.acquire().prompts, states.current.prompts.enabled),
    )
    server.middleware.append(NameInvalidParams())
    servers.append(server)
    return server, states


def _resource_handlers(states: HubStates, index_calls: anyio.CapacityLimiter) -> dict[str, Any]:
    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        await anyio.to_thread.run_sync(states.hub.wait_open)  # as a tool call: outside the limit
        return await anyio.to_thread.run_sync(
            lambda: states.acquire().resources.list(cursor), limiter=index_calls
        )

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return HubResources.templates()

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        await anyio.to_thread.run_sync(states.hub.wait_open)
        return await anyio.to_thread.run_sync(
            lambda: states.acquire().resources.read(params.uri), limiter=index_calls
        )

    return {
        "on_list_resources": list_resources,
        "on_list_resource_templates": list_templates,
        "on_read_resource": read_resource,
    }


async def _call_tool(
    states: HubStates, params: types.CallToolRequestParams, index_calls: anyio.CapacityLimiter
) -> types.CallToolResult:
    runs = states.current.runs
    if params.name not in runs:
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"Unknown tool {params.name!r}; this server has: {', '.join(runs)}.",
        )

    def run() -> Answer:
        return states.acquire().runs[params.name](params.arguments)

    # The libraries it reads are waited for first, outside the index-call limit: a call waiting for
    # a library still loading never holds a turn a call to an open library could use.
    library = (params.arguments or {}).get(LIBRARY)
    await anyio.to_thread.run_sync(states.hub.wait_open, library)
    return await tool_result(params, run, index_calls)
