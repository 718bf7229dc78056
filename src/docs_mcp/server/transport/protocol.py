"""JSON-RPC framing checked before the SDK sees a message, so every malformed one gets an answer.

Over stdio the SDK drops a message it cannot validate without a word (the client then waits
forever), and over HTTP it answers with a raw pydantic dump under -32602, or takes a request whose
``id`` is ``1.5`` or ``null`` for a notification (202, no answer). Both transports therefore check
each message here first and answer, as JSON-RPC 2.0 says:

- -32700 parse error (``id`` null): not JSON, not UTF-8;
- -32600 invalid request, with the ``id`` when it is a valid one: not an object, a batch (MCP
  2025-06-18 removed batching), a wrong ``jsonrpc``, ``method`` or ``id``, non-structured ``params``,
  a lone UTF-16 surrogate, nesting over ``MAX_JSON_DEPTH``;
- -32602 invalid params: positional (array) ``params``, which MCP never uses.

The message names the field at fault. Well-formed messages go on to the SDK unchanged. Parameters
that a method's own schema refuses are the SDK's to check; :class:`NameInvalidParams` makes its
answer (-32602 with empty ``data``) say which field is wrong too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
)
from pydantic import BaseModel, ValidationError

from docs_mcp.limits import MAX_JSON_DEPTH, LimitExceeded, json_depth_error, loads_json

__all__ = ["NameInvalidParams", "Rejection", "check_message", "describe_validation_error", "encode_json_text"]

_MAX_FIELDS = 5  # fields named in one error's data
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]", re.IGNORECASE)


@dataclass(frozen=True)
class Rejection:
    """Why a message was refused; ``answer`` is False for a notification (never answered)."""

    code: int
    message: str
    id: str | int | None = None
    answer: bool = True

    def to_dict(self) -> dict[str, Any]:
        """The JSON-RPC error response."""
        return {"jsonrpc": "2.0", "id": self.id, "error": {"code": self.code, "message": self.message}}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))


def encode_json_text(text: str) -> bytes:
    """``text``, a serialised JSON message, as UTF-8 bytes that never fail to encode: a lone UTF-16
    surrogate (which can only stand inside a JSON string) becomes its ``\\ud800`` escape, the same
    string to any JSON reader. Every reply on either transport is written through this."""
    return text.encode("utf-8", "backslashreplace")


def check_message(text: str | bytes) -> Rejection | None:
    """None when ``text`` is one well-formed JSON-RPC 2.0 message the SDK accepts, else the error to
    answer with. Raises nothing."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            return Rejection(PARSE_ERROR, f"Parse error: not UTF-8 (byte offset {error.start})")
    if (too_deep := json_depth_error(text, MAX_JSON_DEPTH)) is not None:
        return Rejection(INVALID_REQUEST, f"Invalid Request: {too_deep}")
    try:
        raw = loads_json(text)
    except LimitExceeded as error:
        return Rejection(INVALID_REQUEST, f"Invalid Request: {error}")
    except ValueError as error:  # JSONDecodeError
        return Rejection(PARSE_ERROR, f"Parse error: {error}")
    return _check_envelope(raw) or _check_text(raw, text) or _check_model(raw)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _has_surrogate(value: str) -> bool:
    return any(0xD800 <= ord(char) <= 0xDFFF for char in value)


def _valid_id(raw: dict[str, Any]) -> str | int | None:
    """The request's id when it can be echoed: a string or integer, and no lone surrogate (no text)."""
    value = raw.get("id")
    if isinstance(value, str):
        return None if _has_surrogate(value) else value
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _check_envelope(raw: object) -> Rejection | None:
    if isinstance(raw, list):
        what = "an empty batch" if not raw else "a batch"
        return Rejection(
            INVALID_REQUEST,
            f"Invalid Request: got {what}; MCP (2025-06-18 on) has no JSON-RPC batching: "
            "send one message at a time",
        )
    if not isinstance(raw, dict):
        return Rejection(INVALID_REQUEST, f"Invalid Request: a message is a JSON object, got {_kind(raw)}")
    request_id = _valid_id(raw)
    if raw.get("jsonrpc") != "2.0":
        return Rejection(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', request_id)
    if "method" not in raw:
        if "result" in raw or "error" in raw:
            return _check_response(raw)
        return Rejection(
            INVALID_REQUEST,
            'Invalid Request: a message needs "method" (a request or notification) '
            'or "result"/"error" (a response)',
            request_id,
        )
    if "result" in raw or "error" in raw:
        return Rejection(
            INVALID_REQUEST,
            'Invalid Request: a message has "method" or "result"/"error", not both',
            request_id,
        )
    if not isinstance(raw["method"], str):
        return Rejection(
            INVALID_REQUEST,
            f'Invalid Request: "method" must be a string, got {_kind(raw["method"])}',
            request_id,
        )
    if isinstance(raw.get("id"), str) and request_id is None:
        message = 'Invalid Request: "id" holds a lone UTF-16 surrogate; send valid Unicode text'
        return Rejection(INVALID_REQUEST, message)
    if "id" in raw and request_id is None:
        return Rejection(
            INVALID_REQUEST, f'Invalid Request: "id" must be a string or an integer, got {_kind(raw["id"])}'
        )
    params = raw.get("params")
    if params is None or isinstance(params, dict):
        return None
    if isinstance(params, list):  # valid JSON-RPC, but MCP parameters are always by name
        message = 'Invalid params: "params" must be an object (MCP passes parameters by name), got an array'
        return Rejection(INVALID_PARAMS, message, request_id, answer="id" in raw)
    message = f'Invalid Request: "params" must be an object, got {_kind(params)}'
    return Rejection(INVALID_REQUEST, message, request_id)


def _check_response(raw: dict[str, Any]) -> Rejection | None:
    if ("result" in raw) == ("error" in raw):
        return Rejection(INVALID_REQUEST, 'Invalid Request: a response has "result" or "error", not both')
    if "id" not in raw or (_valid_id(raw) is None and raw["id"] is not None):
        return Rejection(INVALID_REQUEST, 'Invalid Request: a response needs the "id" of its request')
    return None


def _check_text(raw: dict[str, Any], text: str) -> Rejection | None:
    """A lone UTF-16 surrogate (``"\\ud800"``) is valid JSON but no text: the SDK's parser refuses it."""
    if not _SURROGATE_ESCAPE.search(text):
        return None
    for where, value in _strings(raw):
        if _has_surrogate(value):
            return Rejection(
                INVALID_REQUEST,
                f"Invalid Request: {where or 'a key'} holds a lone UTF-16 surrogate; send valid Unicode text",
                _valid_id(raw),
            )
    return None


def _strings(value: object) -> Iterable[tuple[str, str]]:
    """Every string in ``value`` (keys included) with its path; iterative (depth is bounded anyway)."""
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            yield where, item
        elif isinstance(item, dict):
            for key, child in item.items():
                yield where, key
                stack.append((f"{where}.{key}" if where else key, child))
        elif isinstance(item, list):
            stack.extend((f"{where}[{index}]", child) for index, child in enumerate(item))


def _check_model(raw: dict[str, Any]) -> Rejection | None:
    """What the SDK's own message models still refuse, named by field (never silently dropped)."""
    model: type[BaseModel]
    if "method" in raw:
        model = JSONRPCRequest if "id" in raw else JSONRPCNotification
    else:
        model = JSONRPCResponse if "result" in raw else JSONRPCError
    try:
        model.model_validate(raw, by_name=False)
    except ValidationError as error:
        return Rejection(
            INVALID_REQUEST, f"Invalid Request: {describe_validation_error(error)}", _valid_id(raw)
        )
    return None


def describe_validation_error(error: ValidationError, prefix: str = "") -> str:
    """``params.name: Input should be a valid string`` for the first fields at fault (never the input
    values: they are the client's, and may be large)."""
    problems = [
        f"{'.'.join(str(part) for part in (prefix, *detail['loc']) if part != '')}: {detail['msg']}"
        for detail in error.errors(include_url=False, include_input=False)[:_MAX_FIELDS]
    ]
    more = error.error_count() - len(problems)
    return "; ".join(problems) + (f" (and {more} more)" if more > 0 else "")


class NameInvalidParams(ServerMiddleware[Any]):
    """Turns the SDK's -32602 for parameters its schemas refuse (message "Invalid request parameters",
    empty ``data``) into one that says which field is wrong."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        try:
            return await call_next(ctx)
        except ValidationError as error:
            message = f"Invalid params for {ctx.method}: {describe_validation_error(error)}"
            raise MCPError(INVALID_PARAMS, message) from None
