"""The agent loop: the model is called with the tools on offer (the docs server's, over a real MCP
client session, and the workspace's), its tool calls are run and answered, until it answers without
calling a tool or a limit of the scenario (turns, tokens, dollars) is reached.

A tool call that cannot run (arguments that are not a JSON object, an unknown tool, a path outside
the folder, a server tool error) goes back to the model as an error result: the run goes on.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp import Client
from mcp.types import TextContent

from docs_mcp.eval.agent.conversation import Message, Provider, ToolCall, ToolResult
from docs_mcp.eval.agent.prices import Price
from docs_mcp.eval.agent.scenarios import Scenario
from docs_mcp.eval.agent.workspace import WORKSPACE_TOOLS, ToolSpec, Workspace, WorkspaceRefused

__all__ = ["SEARCH_TOOL", "Finished", "ServerTools", "activated", "run_agent"]

SEARCH_TOOL = "search_docs"  # the call that counts as the agent using the docs (activation)
MAX_TOOL_RESULT_CHARS = 40_000  # what one tool result may put into the model's context


@dataclass(frozen=True)
class ServerTools:
    """The docs server's tools, reached through ``client``."""

    client: Client
    specs: tuple[ToolSpec, ...]

    @classmethod
    async def listed(cls, client: Client) -> ServerTools:
        """The tools ``client``'s server lists."""
        listed = (await client.list_tools()).tools
        return cls(client, tuple(ToolSpec(t.name, t.description or "", t.input_schema) for t in listed))


@dataclass
class Finished:
    """How a run ended: the final answer, why it stopped, what it used."""

    answer: str = ""
    stop: str = ""
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    tool_calls: Counter[str] = field(default_factory=Counter)
    tool_errors: int = 0
    retries: int = 0


async def run_agent(
    scenario: Scenario,
    provider: Provider,
    server: ServerTools | None,
    workspace: Workspace,
    price: Price | None,
) -> Finished:
    """Run ``scenario``'s conversation to its end; raises ``ModelError`` when the model's API fails
    for good (the caller records it)."""
    tools = [*WORKSPACE_TOOLS, *(server.specs if server else ())]
    messages: list[Message] = [Message("user", scenario.prompt)]
    done = Finished(cost=0.0 if price else None)
    limits = scenario.limits
    while True:
        if done.turns >= limits.turns:
            done.stop = "turn_limit"
            break
        turn = await anyio.to_thread.run_sync(provider.turn, scenario.system, list(messages), tools)
        done.turns += 1
        done.retries += len(turn.retries)
        done.input_tokens += turn.input_tokens
        done.output_tokens += turn.output_tokens
        if price is not None:
            done.cost = price.cost(done.input_tokens, done.output_tokens)
        done.answer = turn.text or done.answer
        messages.append(Message("assistant", turn.text, turn.calls))
        if not turn.calls:
            done.stop = "stopped"
            break
        results = [await _answer(call, server, workspace, done) for call in turn.calls]
        messages.append(Message("tool", results=tuple(results)))
        if limits.tokens is not None and done.input_tokens + done.output_tokens >= limits.tokens:
            done.stop = "token_limit"
            break
        if limits.budget is not None and done.cost is not None and done.cost >= limits.budget:
            done.stop = "budget_limit"
            break
    return done


async def _answer(
    call: ToolCall, server: ServerTools | None, workspace: Workspace, done: Finished
) -> ToolResult:
    done.tool_calls[call.name] += 1
    result = await _dispatch(call, server, workspace)
    if result.is_error:
        done.tool_errors += 1
    if len(result.text) > MAX_TOOL_RESULT_CHARS:
        cut = result.text[:MAX_TOOL_RESULT_CHARS] + "\n[... cut: ask for less]"
        result = ToolResult(result.call_id, result.name, cut, result.is_error)
    return result


async def _dispatch(call: ToolCall, server: ServerTools | None, workspace: Workspace) -> ToolResult:
    def error(text: str) -> ToolResult:
        return ToolResult(call.id, call.name, text, is_error=True)

    if call.arguments is None:
        return error(
            f"the arguments of {call.name} are not a JSON object ({call.raw[:200]!r}); "
            "call it again with a JSON object that fits its schema"
        )
    if any(call.name == tool.name for tool in WORKSPACE_TOOLS):
        try:
            return ToolResult(call.id, call.name, workspace.call(call.name, call.arguments))
        except WorkspaceRefused as refused:
            return error(str(refused))
    if server is not None and any(call.name == tool.name for tool in server.specs):
        return await _call_server(call, call.arguments, server.client)
    offered = [tool.name for tool in WORKSPACE_TOOLS] + [
        tool.name for tool in (server.specs if server else ())
    ]
    return error(f"there is no tool {call.name!r}; the tools are: {', '.join(offered)}")


async def _call_server(call: ToolCall, arguments: dict[str, Any], client: Client) -> ToolResult:
    try:
        result = await client.call_tool(call.name, arguments)
    except Exception as failure:  # a protocol error the SDK raises: the model hears of it, the run goes on
        return ToolResult(call.id, call.name, f"the tool call failed: {failure}", is_error=True)
    texts = [part.text for part in result.content if isinstance(part, TextContent)]
    text = "\n".join(texts) if texts else json.dumps(result.structured_content or {}, ensure_ascii=False)
    return ToolResult(call.id, call.name, text, is_error=bool(result.is_error))


def activated(tool_calls: Counter[str], server: ServerTools | None) -> bool:
    """True when the docs server was on offer and the agent searched it."""
    return server is not None and tool_calls[SEARCH_TOOL] > 0
