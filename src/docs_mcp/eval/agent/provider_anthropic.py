"""Anthropic's Messages API (``POST /v1/messages``) over plain httpx2: no SDK to install, and the
project's one retry policy (``docs_mcp.openai_api``) judges its 429s, 5xx and ``Retry-After``."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import httpx2  # the HTTP client openai and the MCP SDK use (a base dependency)

from docs_mcp.errors import ConfigError, ModelError
from docs_mcp.eval.agent.conversation import Message, ToolCall, Turn
from docs_mcp.eval.agent.workspace import ToolSpec
from docs_mcp.openai_api import RetryPolicy, is_retryable
from docs_mcp.redact import redact

__all__ = ["API_VERSION", "AnthropicMessages"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
KEY_VARIABLE = "ANTHROPIC_API_KEY"
MAX_OUTPUT_TOKENS = 4096


class AnthropicMessages:
    """A Claude model (or any server speaking the Messages format at ``base_url``)."""

    name = "anthropic"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: float = 300.0,
    ) -> None:
        key = os.environ.get(KEY_VARIABLE)
        if not key:
            raise ConfigError(f"agent-eval --provider anthropic needs an API key: set {KEY_VARIABLE}")
        self.model = model
        root = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.where = redact(root)
        self.retry = retry or RetryPolicy()
        headers = {"x-api-key": key, "anthropic-version": API_VERSION, "content-type": "application/json"}
        # Accept a base URL given with or without the /v1 the paths below add.
        self._prefix = "" if root.endswith("/v1") else "/v1"
        self._client = httpx2.Client(base_url=root, headers=headers, timeout=timeout)

    def probe(self) -> None:
        """``GET /v1/models/MODEL``: the key is accepted and the model exists."""
        try:
            self.retry.retrying()(self._send, "GET", f"/models/{self.model}", None)
        except httpx2.HTTPStatusError as error:
            status = error.response.status_code
            if status in (401, 403):
                raise ConfigError(
                    f"{self.where} rejected the API key (HTTP {status}): check {KEY_VARIABLE}"
                ) from None
            if status == 404:
                raise ConfigError(
                    f"{self.where} has no model {self.model!r} (HTTP 404): check --model"
                ) from None
            raise ConfigError(f"{self.where} refused the model probe: {_describe(error)}") from None
        except httpx2.HTTPError as error:
            raise ConfigError(f"cannot reach {self.where}: {_describe(error)}; check --base-url") from None

    def turn(self, system: str | None, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Turn:
        """One Messages call with ``tools`` offered."""
        failures: list[str] = []

        def note(state: Any) -> None:
            failures.append(_describe(state.outcome.exception() if state.outcome else None))

        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": MAX_OUTPUT_TOKENS,
            "messages": _wire_messages(messages),
        }
        if system:
            body["system"] = system
        if tools:
            body["tools"] = [
                {"name": tool.name, "description": tool.description, "input_schema": dict(tool.parameters)}
                for tool in tools
            ]
        try:
            answer = self.retry.retrying(before_sleep=note)(self._send, "POST", "/messages", body)
        except httpx2.HTTPError as error:
            tries = f" after {len(failures) + 1} attempts" if is_retryable(error) else ""
            raise ModelError(f"{self.where} failed{tries}: {_describe(error)}") from None
        return _turn(answer, failures)

    def _send(self, method: str, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
        response = self._client.request(method, self._prefix + path, json=body)
        response.raise_for_status()
        try:
            data = response.json()
        except ValueError:
            raise ModelError(f"{self.where} answered {path} with something that is not JSON") from None
        if not isinstance(data, dict):
            raise ModelError(f"{self.where} answered {path} with JSON that is not an object")
        return data


def _turn(answer: dict[str, Any], failures: list[str]) -> Turn:
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in answer.get("content") or []:
        if block.get("type") == "text":
            texts.append(str(block.get("text", "")))
        elif block.get("type") == "tool_use":
            given = block.get("input")
            raw = json.dumps(given) if not isinstance(given, str) else given
            arguments = given if isinstance(given, dict) else None
            calls.append(ToolCall(str(block.get("id", "")), str(block.get("name", "")), raw, arguments))
    usage = answer.get("usage") or {}
    return Turn(
        text="\n".join(texts),
        calls=tuple(calls),
        input_tokens=int(usage.get("input_tokens", 0)),
        output_tokens=int(usage.get("output_tokens", 0)),
        stop_reason=str(answer.get("stop_reason", "")),
        retries=failures,
    )


def _wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "user":
            wire.append({"role": "user", "content": message.text})
        elif message.role == "assistant":
            content: list[dict[str, Any]] = [{"type": "text", "text": message.text}] if message.text else []
            for call in message.calls:
                given = call.arguments if call.arguments is not None else {}
                content.append({"type": "tool_use", "id": call.id, "name": call.name, "input": given})
            wire.append({"role": "assistant", "content": content})
        else:
            wire.append(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": r.call_id,
                            "content": r.text,
                            "is_error": r.is_error,
                        }
                        for r in message.results
                    ],
                }
            )
    return wire


def _describe(error: BaseException | None) -> str:
    if isinstance(error, httpx2.HTTPStatusError):
        try:
            said = error.response.json().get("error", {}).get("message", "")
        except (ValueError, AttributeError):
            said = error.response.text[:200]
        return f"HTTP {error.response.status_code}: {redact(str(said))}"
    if isinstance(error, httpx2.TimeoutException):
        return "timed out"
    return redact(str(error)) if error else "unknown error"
