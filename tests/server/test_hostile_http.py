"""The real HTTP server under hostile requests: exact Host and Origin matching, 405 for GET and
DELETE (no idle event streams), JSON-RPC errors naming the field, and generated messages that never
get a 5xx or change the answer to a valid request."""

from __future__ import annotations

import http.client
import json
import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from hostile_strategies import JSON_RPC_LINE, examples, fuzz_timeout
from hypothesis import HealthCheck, given, settings
from rpc_support import rss_mib, search_call
from server_support import HttpServer

from docs_mcp.server.tools.budget import MAX_TOKENS_MAX, budget_bytes
from docs_mcp.server.transport.http_guard import host_allowed, origin_allowed

pytestmark = pytest.mark.timeout(180)

JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]", "docs.example.com:8443"]
ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*", "https://app.example.com"]


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1:8000", True),
        ("127.0.0.1", True),
        ("LOCALHOST:1", True),
        ("[::1]:80", True),
        ("docs.example.com:8443", True),
        ("127.0.0.1:80@evil.com", False),
        ("127.0.0.1:evil", False),
        ("127.0.0.1.evil.com:80", False),
        ("evil.com", False),
        ("docs.example.com", False),
        ("docs.example.com:80", False),
        ("127.0.0.1:80 ", False),
        ("", False),
        (None, False),
    ],
)
def test_the_host_header_is_matched_host_for_host_and_port_for_port(host: str | None, allowed: bool) -> None:
    assert host_allowed(host, HOSTS) is allowed


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        (None, True),
        ("http://localhost:5173", True),
        ("https://app.example.com", True),
        ("http://127.0.0.1:80@evil.com", False),
        ("http://localhost:5173/path", False),
        ("https://localhost:5173", False),
        ("https://app.example.com:444", False),
        ("null", False),
    ],
)
def test_the_origin_header_is_matched_exactly(origin: str | None, allowed: bool) -> None:
    assert origin_allowed(origin, ORIGINS) is allowed


_CLIENT = httpx.Client(timeout=30)  # one connection pool for the whole module (kept alive)


@pytest.fixture(scope="module", autouse=True)
def _close_client() -> Iterator[None]:
    yield
    _CLIENT.close()


def _post(server: HttpServer, body: bytes | str, **headers: str) -> httpx.Response:
    content = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    return _CLIENT.post(server.url, content=content, headers={**JSON_HEADERS, **headers})


def _search(server: HttpServer) -> dict[str, Any]:
    response = _post(server, json.dumps(search_call(1)))
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    return result


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Host": "127.0.0.1:80@evil.com"}, 421),
        ({"Origin": "http://127.0.0.1:80@evil.com"}, 403),
        ({"Host": "localhost"}, 200),
    ],
)
def test_forged_host_and_origin_headers_are_refused(
    http_server: HttpServer, headers: dict[str, str], status: int
) -> None:
    assert _post(http_server, json.dumps(search_call(1)), **headers).status_code == status


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_get_and_delete_answer_405_in_stateless_json_mode(http_server: HttpServer, method: str) -> None:
    response = httpx.request(method, http_server.url, headers={"Accept": "text/event-stream"}, timeout=10)
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.json()["error"]["message"].startswith("Method Not Allowed: this server is stateless")


def test_hundreds_of_gets_leave_no_stream_open(http_server: HttpServer) -> None:
    """999 idle GET streams used to exhaust a 1,024-descriptor limit: each was an SSE stream the
    server never closed. Now each is answered and closed, and descriptors come back."""
    pid = http_server.process.pid

    def descriptors() -> int:
        return len(os.listdir(f"/proc/{pid}/fd"))

    before = descriptors()

    url = urlsplit(http_server.url)

    def get(_: int) -> int:
        connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=10)  # one each
        try:
            connection.request("GET", url.path, headers={"Accept": "text/event-stream"})
            return connection.getresponse().status
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=16) as pool:
        assert set(pool.map(get, range(300))) == {405}
    # The server closes each connection after its answer, in its own time: on a loaded machine the
    # last closes can trail the clients' by a moment, so wait (bounded) for the count to come back.
    deadline = time.monotonic() + 30
    while descriptors() > before + 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert descriptors() <= before + 5
    assert _search(http_server)["structuredContent"]["hits"]


HTTP_CASES: dict[str, tuple[str | bytes, int, object]] = {
    "garbage": ("hello?", -32700, None),
    "batch": (json.dumps([search_call(1)]), -32600, None),
    "fraction-id": (json.dumps({**search_call(1), "id": 1.5}), -32600, None),
    "null-id": (json.dumps({**search_call(1), "id": None}), -32600, None),
    "array-params": (json.dumps({**search_call(4), "params": [1]}), -32602, 4),
    "lone-surrogate": (json.dumps(search_call(5, "\ud800")), -32600, 5),
    "lone-surrogate-id": (json.dumps({**search_call(5), "id": "\ud800"}), -32600, None),
    "lone-surrogate-id-in-a-bad-request": ('{"jsonrpc":"1.0","id":"a\\udfff","method":"ping"}', -32600, None),
    "not-json-rpc": ('{"a": 1}', -32600, None),
}


@pytest.mark.parametrize("name", list(HTTP_CASES))
def test_malformed_bodies_get_a_400_with_the_json_rpc_error_naming_the_field(
    http_server: HttpServer, name: str
) -> None:
    body, code, request_id = HTTP_CASES[name]
    response = _post(http_server, body)
    assert response.status_code == 400
    error = response.json()
    assert (error["error"]["code"], error["id"]) == (code, request_id)
    assert "Validation error" not in error["error"]["message"]  # no pydantic dump


def test_a_wrong_parameter_type_is_a_32602_naming_the_field(http_server: HttpServer) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": 5}})
    error = _post(http_server, body).json()["error"]
    assert error == {
        "code": -32602,
        "message": "Invalid params for tools/call: params.name: Input should be a valid string",
    }


@pytest.fixture(scope="module")
def first_answer(http_server: HttpServer) -> dict[str, Any]:
    return _search(http_server)


@pytest.mark.timeout(fuzz_timeout(180))
@settings(max_examples=examples(200), suppress_health_check=[HealthCheck.too_slow])
@given(line=JSON_RPC_LINE)
def test_generated_messages_never_get_a_server_error_or_change_later_answers(
    http_server: HttpServer, first_answer: dict[str, Any], line: str
) -> None:
    response = _post(http_server, line)
    assert response.status_code in (200, 202, 400), (response.status_code, response.text[:300])
    # Whatever was asked (max_tokens of 2**63, a limit of a list), no answer outgrows the largest budget.
    assert len(response.content) <= budget_bytes(MAX_TOKENS_MAX), (line[:300], len(response.content))
    if response.status_code != 202:
        answer = response.json()
        assert answer["jsonrpc"] == "2.0" and ("result" in answer) != ("error" in answer), answer
    assert _search(http_server) == first_answer


def test_memory_after_the_malformed_request_run_stays_bounded(http_server: HttpServer) -> None:
    resident = rss_mib(http_server.process.pid)
    print(f"\nhttp server resident memory after the malformed-request run: {resident:.0f} MiB")
    assert resident < 1024
    assert "Traceback" not in "".join(http_server.stderr_lines)
