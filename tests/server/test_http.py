"""The real server over Streamable HTTP on 127.0.0.1: real client, raw garbage, origin checks, shutdown."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from server_support import HttpServer, start_http_server, stop

from docs_mcp import __version__
from docs_mcp.search.index import DocsIndex

pytestmark = pytest.mark.timeout(60)

JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _rpc(method: str, params: dict[str, Any], id_: int = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode()


def _search_call(query: str = "refund") -> bytes:
    return _rpc("tools/call", {"name": "search_docs", "arguments": {"query": query}})


def test_the_server_binds_loopback_by_default(http_server: HttpServer) -> None:
    assert http_server.url.startswith("http://127.0.0.1:")


def test_healthz_reports_the_index_identity_and_version(
    http_server: HttpServer, docs_index: DocsIndex
) -> None:
    response = httpx.get(f"{http_server.base}/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["index"] == docs_index.identity
    assert body["version"] == __version__


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_real_client_searches_and_reads_over_http(http_server: HttpServer) -> None:
    async with Client(http_server.url) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert tools["search_docs"].input_schema["properties"]["language"]["enum"] == [
            "go",
            "python",
            "typescript",
        ]
        page = await client.call_tool("search_docs", {"query": "refund a payment", "language": "go"})
        assert not page.is_error and isinstance(page.structured_content, dict)
        hit = page.structured_content["hits"][0]
        window = await client.call_tool("get_doc", {"chunk_id": hit["chunk_id"], "context": 1})
        assert not window.is_error and isinstance(window.structured_content, dict)
        assert hit["chunk_id"] in [c["chunk_id"] for c in window.structured_content["chunks"]]


def test_a_raw_json_rpc_tool_call_gets_a_json_answer(http_server: HttpServer) -> None:
    response = httpx.post(http_server.url, content=_search_call(), headers=JSON_HEADERS)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["result"]["structuredContent"]["hits"]


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "http://evil.example"}, {"Origin": "https://attacker.test:8443"}],
)
def test_a_request_from_a_foreign_origin_is_refused(http_server: HttpServer, headers: dict[str, str]) -> None:
    response = httpx.post(http_server.url, content=_search_call(), headers={**JSON_HEADERS, **headers})
    assert response.status_code == 403


def test_a_request_for_a_foreign_host_name_is_refused(http_server: HttpServer) -> None:
    # DNS rebinding: evil.example resolves to 127.0.0.1, the browser still sends Host: evil.example
    response = httpx.post(
        http_server.url, content=_search_call(), headers={**JSON_HEADERS, "Host": "evil.example"}
    )
    assert response.status_code == 421


def test_a_local_origin_is_accepted(http_server: HttpServer) -> None:
    headers = {**JSON_HEADERS, "Origin": "http://localhost:5173"}
    assert httpx.post(http_server.url, content=_search_call(), headers=headers).status_code == 200


GARBAGE = [
    b"",
    b"not json at all",
    b"{",
    b"[]",
    b"[1, 2, 3]",
    b"null",
    b'"a string"',
    b'{"jsonrpc": "2.0"}',
    b'{"jsonrpc": "1.0", "id": 1, "method": "tools/list"}',
    b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "not an object"}',
    b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 42}}',
    b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_doc", "arguments": [1]}}',
    b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "tools/list"}',
    b'{"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}',
    b"\xff\xfe\x00garbage",
    b"[" * 20000 + b"]" * 20000,
]


@pytest.mark.parametrize("body", GARBAGE, ids=range(len(GARBAGE)))
def test_malformed_json_rpc_gets_a_client_error_and_the_server_keeps_serving(
    http_server: HttpServer, body: bytes
) -> None:
    response = httpx.post(http_server.url, content=body, headers=JSON_HEADERS)
    assert response.status_code < 500 or response.json()["error"]["code"] < 0
    assert response.status_code != 200 or "error" in response.json() or "result" in response.json()
    again = httpx.post(http_server.url, content=_search_call(), headers=JSON_HEADERS)
    assert again.status_code == 200 and again.json()["result"]["structuredContent"]["hits"]


def test_a_wrong_content_type_is_refused(http_server: HttpServer) -> None:
    response = httpx.post(
        http_server.url, content=_search_call(), headers={**JSON_HEADERS, "Content-Type": "text/plain"}
    )
    assert response.status_code == 400


def test_an_oversized_request_body_is_refused(http_server: HttpServer) -> None:
    huge = _search_call("payment " * 20_000)
    response = httpx.post(http_server.url, content=huge, headers=JSON_HEADERS)
    assert response.status_code == 413
    error = response.json()
    assert error["id"] is None and error["error"]["code"] == -32600, error
    assert "request body over 65,536 bytes" in error["error"]["message"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_shuts_the_server_down_cleanly(example_index: Path, sig: signal.Signals) -> None:
    server = start_http_server(example_index)
    try:
        assert httpx.post(server.url, content=_search_call(), headers=JSON_HEADERS).status_code == 200
        server.process.send_signal(sig)
        assert server.process.wait(15) == 0
    finally:
        stop(server)
    log = "".join(server.stderr_lines)
    assert "Traceback" not in log
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{server.base}/healthz")


QUERIES = [
    "retries",
    "refund a payment",
    "webhook signature",
    "pagination cursor",
    "api key",
    "error handling",
]
LANGUAGES = [None, "typescript", "python", "go"]


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_sixteen_concurrent_clients_get_every_answer(http_server: HttpServer) -> None:
    clients, calls = 16, 200
    errors: list[str] = []
    done = [0]

    async def worker(number: int) -> None:
        async with Client(http_server.url) as client:
            for i in range(calls):
                arguments: dict[str, Any] = {"query": QUERIES[(number + i) % len(QUERIES)], "limit": 5}
                language = LANGUAGES[(number * 7 + i) % len(LANGUAGES)]
                if language:
                    arguments["language"] = language
                if i % 10 == 9:
                    result = await client.call_tool(
                        "get_doc", {"chunk_id": "guides/retries.md#retries/backoff-strategy"}
                    )
                else:
                    result = await client.call_tool("search_docs", arguments)
                if result.is_error or not isinstance(result.structured_content, dict):
                    errors.append(f"client {number} call {i}: {result.content}")
                done[0] += 1

    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for number in range(clients):
            group.start_soon(worker, number)
    elapsed = time.perf_counter() - started
    assert errors == []
    assert done[0] == clients * calls
    print(f"\n{clients}x{calls} calls in {elapsed:.1f}s ({clients * calls / elapsed:.0f}/s)")
