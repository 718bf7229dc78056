"""Any OpenAI-compatible chat-completions endpoint with tool calling (OpenAI, vLLM, llama.cpp's
server, Ollama, LiteLLM) through the ``openai`` package, retried under the project's one policy
(``docs_mcp.openai_api``: 429, 5xx, timeouts; ``Retry-After`` honoured)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import openai

from docs_mcp.errors import ConfigError, ModelError
from docs_mcp.eval.agent.conversation import Message, ToolCall, Turn
from docs_mcp.eval.agent.workspace import ToolSpec
from docs_mcp.openai_api import RetryPolicy, api_key, describe, is_retryable
from docs_mcp.redact import redact

__all__ = ["OpenAIChat", "parse_arguments"]

MAX_OUTPUT_TOKENS = 4096


def parse_arguments(raw: str) -> dict[str, object] | None:
    """``raw`` as a JSON object, or None when it is not one (the loop tells the model so)."""
    try:
        value = json.loads(raw) if raw.strip() else {}
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


class OpenAIChat:
    """A model behind ``/chat/completions``; the key from ``OPENAI_API_KEY`` (none needed on loopback)."""

    name = "openai"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: float = 300.0,
    ) -> None:
        key = api_key(None, base_url)
        if key is None:
            raise ConfigError(
                "agent-eval --provider openai needs an API key: set OPENAI_API_KEY "
                "(or point --base-url at a server on this machine, which needs none)"
            )
        self.model = model
        self.where = redact(base_url) if base_url else "the OpenAI API"
        self.retry = retry or RetryPolicy()
        self._client = openai.OpenAI(api_key=key, base_url=base_url, timeout=timeout, max_retries=0)

    def probe(self) -> None:
        """List the endpoint's models and check ``model`` is among them (an empty list passes)."""
        try:
            served = [model.id for model in self.retry.retrying()(self._client.models.list)]
        except openai.AuthenticationError:
            raise ConfigError(f"{self.where} rejected the API key (HTTP 401): check OPENAI_API_KEY") from None
        except openai.OpenAIError as error:
            raise ConfigError(
                f"cannot list the models of {self.where}: {describe(error)}; check --base-url"
            ) from None
        if served and self.model not in served:
            raise ConfigError(
                f"{self.where} serves no model {self.model!r}; it serves: {', '.join(served[:20])}"
            )

    def turn(self, system: str | None, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Turn:
        """One chat completion with ``tools`` offered."""
        failures: list[str] = []

        def note(state: Any) -> None:
            failures.append(describe(state.outcome.exception() if state.outcome else None))

        request: dict[str, Any] = {
            "model": self.model,
            "messages": _wire_messages(system, messages),
            "max_tokens": MAX_OUTPUT_TOKENS,
        }
        if tools:
            request["tools"] = [_wire_tool(tool) for tool in tools]
        try:
            response = self.retry.retrying(before_sleep=note)(self._client.chat.completions.create, **request)
        except openai.OpenAIError as error:
            tries = f" after {len(failures) + 1} attempts" if is_retryable(error) else ""
            raise ModelError(f"{self.where} failed{tries}: {describe(error)}") from None
        if not response.choices:
            raise ModelError(f"{self.where} answered with no choices")
        choice = response.choices[0]
        calls = tuple(
            ToolCall(
                call.id,
                call.function.name,
                call.function.arguments or "",
                parse_arguments(call.function.arguments or ""),
            )
            for call in (choice.message.tool_calls or [])
            if call.type == "function"
        )
        usage = response.usage
        return Turn(
            text=choice.message.content or "",
            calls=calls,
            input_tokens=usage.prompt_tokens if usage else 0,
            output_tokens=usage.completion_tokens if usage else 0,
            stop_reason=choice.finish_reason or "",
            retries=failures,
        )


def _wire_tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": dict(tool.parameters)},
    }


def _wire_messages(system: str | None, messages: Sequence[Message]) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        if message.role == "user":
            wire.append({"role": "user", "content": message.text})
        elif message.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
            if message.calls:
                entry["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.raw},
                    }
                    for call in message.calls
                ]
            wire.append(entry)
        else:
            wire.extend(
                {"role": "tool", "tool_call_id": result.call_id, "content": result.text}
                for result in message.results
            )
    return wire
