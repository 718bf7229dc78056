"""The deferred start over HTTP, from a registry and for several libraries
(:mod:`docs_mcp.server.startup.launch`).

As in test_deferred.py, the load waits for the ``DOCS_MCP_TEST_LOAD_GATE`` file, so what is answered
before it (``initialize``, ``tools/list``, ``/healthz`` 503 "loading", the page) is proven by order,
not by timing; then a call made while the index loads waits for it and succeeds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from client_support import structured
from mcp import Client
from server_support import (
    CURSOR_KEY,
    LISTENING,
    HttpServer,
    pump_lines,
    serve_command,
    server_env,
    start_http_server,
    stop,
)

from docs_mcp.limits import MAX_CONCURRENT_INDEX_CALLS
from docs_mcp.server.hub.deferred import LOAD_GATE_ENV, DeferredIndex
from docs_mcp.server.hub.libraries import Hub, Library, served_index
from docs_mcp.server.hub.live import LiveIndex
from docs_mcp.server.hub.warm import open_warm
from docs_mcp.server.tools.app import create_hub_server
from docs_mcp.store.index_manifest import read_manifest

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def gate(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "open-the-gate"
    yield path
    path.touch()  # never leave a loader waiting


def _health(server: HttpServer) -> tuple[int, dict[str, Any]]:
    response = httpx.get(f"{server.base}/healthz", timeout=10)
    return response.status_code, response.json()


def _until_health(server: HttpServer, status: str, deadline: float = 60) -> tuple[int, dict[str, Any]]:
    """/healthz once its status is ``status`` (bounded: the load runs on a shared, busy machine)."""
    ends = time.monotonic() + deadline
    while True:
        code, body = _health(server)
        if body["status"] == status or time.monotonic() > ends:
            return code, body
        time.sleep(0.1)


async def _listed_then_called(server: HttpServer, gate: Path, arguments: dict[str, Any]) -> dict[str, Any]:
    """Over a real MCP client: initialize and tools/list while the load waits for ``gate`` (and
    /healthz says loading, 503), then a search that has to wait for the load (the gate opens while
    it waits); its structured result."""
    async with Client(server.url) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert {"search_docs", "get_doc"} <= set(tools)
        code, body = _health(server)
        assert (code, body["status"]) == (503, "loading"), body  # answered before the index opened
        page = httpx.get(f"{server.base}/", timeout=10)  # the search page works while loading
        assert page.status_code == 200 and "<html" in page.text.lower()
        opening = threading.Timer(0.3, gate.touch)
        opening.start()
        try:
            return await structured(client, "search_docs", arguments)
        finally:
            opening.join()


@pytest.mark.anyio
async def test_http_listens_and_lists_before_the_load_and_calls_after(
    example_index: Path, gate: Path
) -> None:
    server = start_http_server(example_index, loaded=False, env={LOAD_GATE_ENV: str(gate)})
    try:
        code, body = _health(server)
        assert code == 503 and body["status"] == "loading"
        assert body["index"] == read_manifest(example_index).identity  # the manifest's, while loading
        result = await _listed_then_called(server, gate, {"query": "create a payment"})
        assert result["hits"]
        assert _until_health(server, "ok")[0] == 200
    finally:
        stop(server)
    lines = "".join(server.stderr_lines)
    assert lines.index("listening at http://") < lines.index(" ready in "), lines


def _exit_error(server: HttpServer, deadline: float = 60) -> str:
    """The server's one-line exit error once it has ended by itself with exit 1 (bounded)."""
    code = server.process.wait(deadline)
    server.reader.join(10)
    errors = [line for line in server.stderr_lines if line.startswith("docs-mcp: error:")]
    assert code == 1 and len(errors) == 1, server.stderr_lines
    assert "Traceback" not in "".join(server.stderr_lines), server.stderr_lines
    return errors[0]


def test_an_index_that_fails_to_load_over_http_ends_the_server_with_its_reason(
    example_index: Path, tmp_path: Path
) -> None:
    broken = Path(shutil.copytree(example_index, tmp_path / "broken"))
    shutil.rmtree(broken / ".lancedb")
    server = start_http_server(broken, loaded=False)  # it listened first: the manifest is good
    try:
        assert str(broken) in _exit_error(server)
    finally:
        stop(server)
    assert not any(" ready in " in line for line in server.stderr_lines), server.stderr_lines


def _named_command(*pairs: tuple[str, Path]) -> list[str]:
    first, *rest = [f"{name}={folder}" for name, folder in pairs]
    return serve_command(first, *[part for spec in rest for part in ("--index", spec)])


@pytest.mark.anyio
async def test_several_libraries_over_http_list_from_their_manifests_and_a_broken_one_ends_them(
    example_index: Path, gate: Path, tmp_path: Path
) -> None:
    broken = Path(shutil.copytree(example_index, tmp_path / "broken"))
    shutil.rmtree(broken / ".lancedb")
    command = _named_command(("good", example_index), ("broken", broken))
    process = subprocess.Popen(
        [*command, "--transport", "http", "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(**{LOAD_GATE_ENV: str(gate)}),
    )
    lines: list[str] = []
    listening = threading.Event()
    reader = threading.Thread(
        target=pump_lines, args=(process.stderr, lines, listening, LISTENING), daemon=True
    )
    reader.start()
    assert listening.wait(60), lines
    url = next(line.rsplit(" at ", 1)[1].strip() for line in lines if "listening at" in line)
    server = HttpServer(process, url, lines, reader)
    try:
        code, body = _health(server)
        assert code == 503 and body["status"] == "loading"
        assert [row["status"] for row in body["indexes"]] == ["loading", "loading"]
        async with Client(server.url) as client:
            search = next(t for t in (await client.list_tools()).tools if t.name == "search_docs")
            assert search.input_schema["properties"]["library"]["enum"] == ["broken", "good"]
            assert _health(server)[1]["status"] == "loading"  # listed from the manifests
            gate.touch()  # "broken" fails to open: the server ends, whatever "good" does
        assert _exit_error(server).startswith("docs-mcp: error: --index broken: ")
    finally:
        stop(server)


@pytest.mark.anyio
async def test_a_call_to_one_library_waits_for_that_library_only(example_index: Path, tmp_path: Path) -> None:
    """In process: library ``one`` is open, ``two`` is held loading. Searches of every library (more
    than the index-call limit) wait for ``two``; meanwhile calls naming ``one`` are answered: the
    waiting calls hold no index-call turn."""
    other = Path(shutil.copytree(example_index, tmp_path / "two"))
    release = threading.Event()

    def opener(path: Path, held: bool) -> LiveIndex[Any]:
        if held:
            assert release.wait(60)
        return LiveIndex(served_index(open_warm(path)))

    def library(name: str, path: Path, held: bool) -> Library:
        index: DeferredIndex[Any] = DeferredIndex(read_manifest(path), lambda: opener(path, held), where=path)
        return Library(name, None, index.start(), str(path))

    one, two = library("one", example_index, False), library("two", other, True)
    one.index.wait()
    server, _states = create_hub_server(Hub([one, two], CURSOR_KEY))
    merged: list[dict[str, Any]] = []

    async def search_everything(client: Client) -> None:
        merged.append(await structured(client, "search_docs", {"query": "refund a payment", "limit": 10}))

    async with Client(server) as client, anyio.create_task_group() as waiting:
        search = next(t for t in (await client.list_tools()).tools if t.name == "search_docs")
        assert search.input_schema["properties"]["library"]["enum"] == ["one", "two"]
        for _ in range(MAX_CONCURRENT_INDEX_CALLS + 1):
            waiting.start_soon(search_everything, client)
        await anyio.sleep(
            0.2
        )  # let them reach their wait (were they slower, the test proves less, never fails)
        answer = await structured(client, "search_docs", {"query": "refund a payment", "library": "one"})
        assert answer["hits"] and two.index.status == "loading" and not merged
        got = await structured(
            client, "get_doc", {"chunk_id": answer["hits"][0]["chunk_id"], "library": "one"}
        )
        assert got["library"] == "one" and two.index.status == "loading" and not merged
        release.set()
    assert len(merged) == MAX_CONCURRENT_INDEX_CALLS + 1
    assert all({hit["library"] for hit in page["hits"]} == {"one", "two"} for page in merged)


def test_several_libraries_over_stdio_answer_tools_list_before_the_load(
    example_index: Path, gate: Path
) -> None:
    command = _named_command(("one", example_index), ("two", example_index))
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(**{LOAD_GATE_ENV: str(gate)}),
    )
    assert process.stdin is not None and process.stdout is not None
    initialize = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    with process:
        process.stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
        process.stdin.flush()
        assert "2 libraries" in json.loads(process.stdout.readline())["result"]["instructions"]
        listed = json.loads(process.stdout.readline())["result"]["tools"]
        assert listed[0]["inputSchema"]["properties"]["library"]["enum"] == ["one", "two"]
        assert not gate.exists()  # answered while neither library had begun to load
        call = {"name": "search_docs", "arguments": {"query": "refund", "library": "two"}}
        process.stdin.write(
            (json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call}) + "\n").encode()
        )
        process.stdin.flush()
        opening = threading.Timer(0.3, gate.touch)
        opening.start()
        answer = json.loads(process.stdout.readline())
        opening.join()
        assert not answer["result"].get("isError") and answer["result"]["structuredContent"]["hits"], answer
        process.stdin.close()
        assert process.wait(30) == 0
