"""``initialize`` and ``tools/list`` are answered from the manifest while the index stack loads.

The load is held back by the test hook ``DOCS_MCP_TEST_LOAD_GATE`` (it waits for a file), so what is
answered before it is proven by order, not by timing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from server_support import CURSOR_KEY, serve_command, server_env

from docs_mcp.errors import IndexUnavailable
from docs_mcp.search.index import DocsIndex
from docs_mcp.server.hub.deferred import LOAD_GATE_ENV
from docs_mcp.server.hub.opening import open_deferred
from docs_mcp.server.tools.app import index_state
from docs_mcp.store.index_manifest import read_manifest

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "open-the-gate"
    monkeypatch.setenv(LOAD_GATE_ENV, str(path))
    yield path
    path.touch()  # never leave a loader waiting


def _request(number: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": number, "method": method}
    if params is not None:
        message["params"] = params
    return (json.dumps(message) + "\n").encode()


_INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"},
}


def test_tools_list_is_answered_before_lancedb_is_imported_and_the_call_after(
    example_index: Path, gate: Path
) -> None:
    # The gate keeps the load from starting until tools/list has been answered.
    process = subprocess.Popen(
        serve_command(example_index),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(**{LOAD_GATE_ENV: str(gate)}),
    )
    assert process.stdin is not None and process.stdout is not None
    with process:
        process.stdin.write(_request(1, "initialize", _INITIALIZE))
        process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        process.stdin.write(_request(2, "tools/list"))
        process.stdin.flush()
        initialized = json.loads(process.stdout.readline())
        listed = json.loads(process.stdout.readline())
        assert "Acme Payments" in initialized["result"]["instructions"]
        names = [tool["name"] for tool in listed["result"]["tools"]]
        assert names == ["search_docs", "get_doc"]
        search = listed["result"]["tools"][0]
        assert "language" in search["inputSchema"]["properties"]  # facets from the manifest
        assert "e.g." in search["inputSchema"]["properties"]["query"]["description"]  # its example
        assert not gate.exists()  # both answered while the index had not even begun to load
        process.stdin.write(
            _request(3, "tools/call", {"name": "search_docs", "arguments": {"query": "create a payment"}})
        )
        process.stdin.flush()
        waiting = threading.Timer(0.5, gate.touch)  # the call has to wait for the load
        waiting.start()
        answer = json.loads(process.stdout.readline())
        waiting.join()
        assert answer["id"] == 3 and not answer["result"].get("isError"), answer
        assert answer["result"]["structuredContent"]["hits"]
        process.stdin.close()
        assert process.wait(30) == 0


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_real_client_in_process_lists_while_loading_and_calls_after(
    example_index: Path, gate: Path
) -> None:
    opened = open_deferred(example_index, key=CURSOR_KEY)
    async with Client(opened.server) as client:
        assert opened.index.loaded is None
        listed = (await client.list_tools()).tools
        assert opened.index.loaded is None  # listed without the index
        gate.touch()
        page = await client.call_tool("search_docs", {"query": "refund a payment"})
        assert not page.is_error and isinstance(page.structured_content, dict)
        assert page.structured_content["hits"]
        assert opened.index.loaded is not None
        # The listing a client saw before the load is the opened index's own.
        after = (await client.list_tools()).tools
        assert [t.model_dump() for t in listed] == [t.model_dump() for t in after]


def test_the_manifest_front_is_what_the_opened_index_publishes(example_index: Path) -> None:
    from docs_mcp.server.tools.listing import manifest_front

    manifest = read_manifest(example_index)
    assert manifest.examples and manifest.examples["chunk_id"]
    front = manifest_front(manifest)
    opened = index_state(DocsIndex.open(example_index), CURSOR_KEY)
    assert front.listing.model_dump() == opened.listing.model_dump()
    assert front.instructions == opened.instructions
    assert front.resources == opened.resources.enabled
    assert front.prompts.list().model_dump() == opened.prompts.list().model_dump()


def test_an_index_without_recorded_examples_is_listed_without_them(
    example_index: Path, tmp_path: Path
) -> None:
    older = Path(shutil.copytree(example_index, tmp_path / "older"))
    manifest_file = older / "docs-mcp-index.json"
    data = json.loads(manifest_file.read_text())
    del data["examples"]  # as an index built before they were recorded
    manifest_file.write_text(json.dumps(data))
    from docs_mcp.server.tools.listing import manifest_front

    opened = open_deferred(older, key=CURSOR_KEY)
    schema = manifest_front(opened.manifest).tools["search_docs"].input_schema
    assert "e.g." not in schema["properties"]["query"]["description"]
    live = opened.index.wait()
    assert live.current.schemas.search == schema  # the same once open: nothing changes


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_table_that_fails_to_load_is_a_clear_tool_error(example_index: Path, tmp_path: Path) -> None:
    broken = Path(shutil.copytree(example_index, tmp_path / "broken"))
    shutil.rmtree(broken / ".lancedb")
    opened = open_deferred(broken, key=CURSOR_KEY)
    async with Client(opened.server) as client:
        assert {tool.name for tool in (await client.list_tools()).tools} == {"search_docs", "get_doc"}
        answer = await client.call_tool("search_docs", {"query": "refund"})
        assert answer.is_error
        text = answer.content[0].text  # type: ignore[union-attr]
        assert "\n" not in text and str(broken) in text and "Traceback" not in text, text
    assert isinstance(opened.index.settle(), IndexUnavailable)


def test_a_missing_table_over_stdio_fails_in_one_line_with_exit_1(
    example_index: Path, tmp_path: Path
) -> None:
    broken = Path(shutil.copytree(example_index, tmp_path / "broken"))
    shutil.rmtree(broken / ".lancedb")
    done = subprocess.run(
        [sys.executable, "-m", "docs_mcp", "serve", "--index", str(broken)],
        input=_request(1, "initialize", _INITIALIZE),
        capture_output=True,
        env=server_env(),
        timeout=60,
    )
    stderr = done.stderr.decode()
    assert done.returncode == 1, stderr
    assert json.loads(done.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "docs-mcp"
    ours = [line for line in stderr.splitlines() if line.startswith("docs-mcp")]
    assert len(ours) == 1 and ours[0].startswith("docs-mcp: error:") and "Traceback" not in stderr, stderr


def test_a_missing_manifest_still_stops_before_serving(tmp_path: Path) -> None:
    with pytest.raises(IndexUnavailable):
        open_deferred(tmp_path / "nowhere")


def test_a_load_slower_than_the_timeout_is_a_clear_error(example_index: Path, gate: Path) -> None:
    from docs_mcp.server.hub.deferred import DeferredIndex

    opened = open_deferred(example_index, key=CURSOR_KEY)
    hurried: DeferredIndex[Any] = DeferredIndex(opened.manifest, opened.index.wait, where="x", timeout=0.05)
    hurried.start()
    with pytest.raises(IndexUnavailable, match="still loading"):
        hurried.wait()
    gate.touch()
    assert anyio.run(anyio.to_thread.run_sync, opened.index.wait).current.index is not None


def test_the_load_yields_to_the_opening_exchange_until_the_tools_are_listed(example_index: Path) -> None:
    from docs_mcp.server.hub.deferred import DeferredIndex

    manifest = read_manifest(example_index)
    started: list[threading.Event] = []

    def deferred(opening_wait: float) -> DeferredIndex[Any]:
        began = threading.Event()
        started.append(began)

        def open_live() -> Any:
            began.set()
            return object()  # stands for the opened index: only the moment of the load is tested

        return DeferredIndex(manifest, open_live, where="x", opening_wait=opening_wait)

    listed = deferred(30.0).start()
    assert not started[-1].wait(0.3), "the load began before the tools were listed"
    listed.opening_answered()
    assert started[-1].wait(10)
    called = deferred(30.0).start()
    called.wait()  # a call needs the index: no yielding
    assert started[-1].is_set()
    silent = deferred(0.2).start()  # a client that never lists: the load begins after the wait
    assert started[-1].wait(10) and silent.settle() is None
