"""The conversation as the agent loop keeps it, in no provider's wire format, and the contract a
provider meets: ``probe()`` before any scenario, ``turn(...)`` once per model call.

Each provider translates these few types to its API (chat completions, Messages) and back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from docs_mcp.eval.agent.workspace import ToolSpec

__all__ = ["Message", "Provider", "ToolCall", "ToolResult", "Turn"]


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model asked for. ``arguments`` is None when ``raw`` is not a JSON object."""

    id: str
    name: str
    raw: str
    arguments: dict[str, object] | None


@dataclass(frozen=True)
class ToolResult:
    """What a tool call gave back to the model."""

    call_id: str
    name: str
    text: str
    is_error: bool = False


@dataclass(frozen=True)
class Message:
    """One entry of the conversation: the user's prompt, a model turn, or tool results."""

    role: str  # "user", "assistant" or "tool"
    text: str = ""
    calls: tuple[ToolCall, ...] = ()
    results: tuple[ToolResult, ...] = ()


@dataclass(frozen=True)
class Turn:
    """One model call's answer: its text, the tool calls it wants, the tokens it cost."""

    text: str
    calls: tuple[ToolCall, ...] = ()
    input_tokens: int = 0
    output_tokens: int = 0
    stop_reason: str = ""
    retries: list[str] = field(default_factory=list)  # what each retried attempt failed with


class Provider(Protocol):
    """A model behind an API. Both methods block (the loop runs them in a worker thread)."""

    name: str
    model: str

    def probe(self) -> None:
        """Check key, endpoint and model with a cheap request; raise ``ConfigError`` naming what is wrong."""
        ...

    def turn(self, system: str | None, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Turn:
        """One model call (retried under the project's retry policy); raises ``ProviderError`` when
        it fails for good."""
        ...
