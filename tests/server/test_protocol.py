"""JSON-RPC framing checks (``server/protocol.py``): which error each malformed message gets, and
that whatever passes is a message the SDK accepts (so nothing is ever dropped without an answer)."""

from __future__ import annotations

import json

import pytest
from hostile_strategies import JSON_RPC_LINE, examples, fuzz_timeout
from hypothesis import given, settings
from mcp_types import jsonrpc_message_adapter

from docs_mcp.limits import MAX_JSON_DEPTH
from docs_mcp.server.transport.protocol import Rejection, check_message

pytestmark = pytest.mark.timeout(60)

PING = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
PING_OPEN = '{"jsonrpc": "2.0", "id": 7, "method": "ping", '

CASES: dict[str, tuple[str | bytes, int, object, str]] = {
    # name: (message, code, id answered with, words of the message)
    "garbage": ("garbage", -32700, None, "Parse error"),
    "not-utf8": (b"\xff\xfe{", -32700, None, "not UTF-8"),
    "not-json-rpc": ('{"a": 1}', -32600, None, '"jsonrpc" must be "2.0"'),
    "a-string": ('"\\ud800"', -32600, None, "a message is a JSON object"),
    "empty-batch": ("[]", -32600, None, "empty batch"),
    "batch": (json.dumps([PING, PING]), -32600, None, "no JSON-RPC batching"),
    "fraction-id": (json.dumps({**PING, "id": 1.5}), -32600, None, '"id" must be a string or an integer'),
    "null-id": (json.dumps({**PING, "id": None}), -32600, None, "got null"),
    "boolean-id": (json.dumps({**PING, "id": True}), -32600, None, "got a boolean"),
    "object-id": (json.dumps({**PING, "id": {"a": 1}}), -32600, None, "got an object"),
    "old-version": (json.dumps({**PING, "jsonrpc": "1.0"}), -32600, 7, '"jsonrpc" must be "2.0"'),
    "method-number": (json.dumps({**PING, "method": 5}), -32600, 7, '"method" must be a string'),
    "string-params": (json.dumps({**PING, "params": "x"}), -32600, 7, '"params" must be an object'),
    "array-params": (json.dumps({**PING, "params": [1]}), -32602, 7, "by name"),
    "request-and-response": (json.dumps({**PING, "result": {}}), -32600, 7, "not both"),
    "lone-surrogate": (
        json.dumps({**PING, "method": "tools/call", "params": {"name": "x", "arguments": {"q": "\ud800"}}}),
        -32600,
        7,
        "params.arguments.q holds a lone UTF-16 surrogate",
    ),
    "deep": (PING_OPEN + '"params": ' + "[" * 5000, -32600, None, "levels deep"),
    "huge-integer": ('{"method": "ping", "id": ' + "9" * 5000 + "}", -32600, None, "5000 digits"),
    "neither": ('{"jsonrpc": "2.0", "id": 7}', -32600, 7, 'needs "method"'),
    "bad-response": ('{"jsonrpc": "2.0", "id": 7, "result": {}, "error": {}}', -32600, None, "not both"),
    "bad-error-object": (
        '{"jsonrpc": "2.0", "id": 7, "error": {"code": "x"}}',
        -32600,
        7,
        "error.code: Input should be a valid integer",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_each_malformed_message_gets_its_json_rpc_error(name: str) -> None:
    message, code, request_id, words = CASES[name]
    rejection = check_message(message)
    assert rejection is not None
    assert (rejection.code, rejection.id) == (code, request_id)
    assert words in rejection.message
    assert len(rejection.message) < 300
    assert json.loads(rejection.to_json())["error"]["code"] == code


def test_an_invalid_notification_with_positional_params_is_dropped_unanswered() -> None:
    rejection = check_message('{"jsonrpc": "2.0", "method": "notifications/initialized", "params": [1]}')
    assert rejection is not None and rejection.answer is False


@pytest.mark.parametrize(
    "message",
    [
        PING,
        {**PING, "id": "abc"},
        {**PING, "params": None},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 7, "result": {}},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -1, "message": "x"}},
        {**PING, "params": {"nested": [[[[{"ok": "\U0001f600 paired surrogates are fine"}]]]]}},
    ],
)
def test_well_formed_messages_pass(message: dict[str, object]) -> None:
    assert check_message(json.dumps(message)) is None


def test_nesting_up_to_the_limit_passes() -> None:
    depth = MAX_JSON_DEPTH - 2  # the message object and params count too
    params = '{"a": ' + "[" * depth + "]" * depth + "}"
    assert check_message('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": ' + params + "}") is None


@pytest.mark.timeout(fuzz_timeout(180))
@settings(max_examples=examples(500))
@given(line=JSON_RPC_LINE)
def test_what_passes_the_check_the_sdk_accepts_and_what_fails_gets_an_error_object(line: str) -> None:
    rejection = check_message(line)
    if rejection is None:
        jsonrpc_message_adapter.validate_json(line, by_name=False)  # raises if the SDK would drop it
        return
    assert isinstance(rejection, Rejection) and rejection.code in (-32700, -32600, -32602)
    answer = json.loads(rejection.to_json())
    assert answer["jsonrpc"] == "2.0" and set(answer) == {"jsonrpc", "id", "error"}
    assert answer["id"] is None or isinstance(answer["id"], str | int)
