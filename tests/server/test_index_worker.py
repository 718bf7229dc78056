"""The stdio server's index worker: a real worker process reading a real index, its answers the same
as the index opened in this process, its errors the same, its end never a hang; and the real stdio
server searching through it, with LanceDB loaded in the worker only."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from server_support import pump_lines, serve_command, server_env

from docs_mcp.errors import ChunkNotFound, IndexUnavailable, QueryError
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.server.worker.index_worker import OPENED_ATTRIBUTES
from docs_mcp.server.worker.remote_index import IndexWorker
from docs_mcp.server.worker.worker_process import WORKER_MODULE

pytestmark = pytest.mark.timeout(90)

REQUESTS = [
    SearchRequest(query="create a payment"),
    SearchRequest(query="retry with backoff", filters={"language": "python"}, limit=3),
    SearchRequest(query="webhook signature", offset=2, limit=2),
    SearchRequest(query="zzzz no such words qqqq"),
]


@pytest.fixture
def worker() -> Iterator[IndexWorker]:
    with IndexWorker.spawn() as started:
        yield started


def test_a_remote_index_answers_as_the_index_opened_here(
    worker: IndexWorker, example_index: Path, docs_index: DocsIndex
) -> None:
    remote = worker.open(example_index)
    for name in OPENED_ATTRIBUTES:
        assert getattr(remote, name) == getattr(docs_index, name), name
    for request in REQUESTS:
        assert remote.search(request) == docs_index.search(request)
    hit = docs_index.search(REQUESTS[0]).hits[0]
    assert remote.get(hit.chunk_id, 2) == docs_index.get(hit.chunk_id, 2)
    assert remote.sections([hit.chunk_id]) == docs_index.sections([hit.chunk_id])
    assert remote.suggest_filters("payment", {"language": "go"}) == docs_index.suggest_filters(
        "payment", {"language": "go"}
    )
    assert remote.resource_ids() == docs_index.resource_ids()
    assert remote.example_section() == docs_index.example_section()


def test_errors_raised_in_the_worker_arrive_as_they_were(
    worker: IndexWorker, example_index: Path, docs_index: DocsIndex, tmp_path: Path
) -> None:
    remote = worker.open(example_index)
    hit = docs_index.search(REQUESTS[0]).hits[0]
    near = hit.chunk_id[:-1]
    with pytest.raises(ChunkNotFound) as here:
        docs_index.get(near)
    with pytest.raises(ChunkNotFound) as there:
        remote.get(near)
    assert (str(there.value), there.value.chunk_id, there.value.close_ids) == (
        str(here.value),
        here.value.chunk_id,
        here.value.close_ids,
    )
    with pytest.raises(QueryError, match="cobol"):
        remote.search(SearchRequest(query="payment", filters={"language": "cobol"}))
    with pytest.raises(IndexUnavailable, match="nowhere"):
        worker.open(tmp_path / "nowhere")
    assert remote.search(REQUESTS[0]) == docs_index.search(REQUESTS[0])  # the worker lives on


def test_calls_run_concurrently_in_the_worker(
    worker: IndexWorker, example_index: Path, docs_index: DocsIndex
) -> None:
    remote = worker.open(example_index)
    expected = [docs_index.search(request) for request in REQUESTS]
    failures: list[BaseException] = []

    def run() -> None:
        try:
            for _ in range(10):
                assert [remote.search(request) for request in REQUESTS] == expected
        except BaseException as error:  # reported below, in the test's thread
            failures.append(error)

    threads = [threading.Thread(target=run) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []


def test_an_index_the_server_drops_is_closed_in_the_worker(worker: IndexWorker, example_index: Path) -> None:
    kept = worker.open(example_index)
    dropped = worker.open(example_index)
    assert len(worker.handles()) == 2
    del dropped
    gc.collect()
    assert len(worker.handles()) == 1
    assert kept.search(REQUESTS[0]).hits


def _gone(pid: int, deadline: float = 15.0) -> bool:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_a_worker_that_dies_is_replaced_and_what_it_held_opened_again(
    worker: IndexWorker, example_index: Path, docs_index: DocsIndex
) -> None:
    remote = worker.open(example_index)
    first = worker.pid
    os.kill(first, signal.SIGKILL)
    assert _gone(first)  # reaped by the worker's reader once its pipe closed
    assert remote.search(REQUESTS[0]) == docs_index.search(REQUESTS[0])
    assert worker.pid != first and len(worker.handles()) == 1


def test_a_call_the_dying_worker_was_answering_says_to_call_again(example_index: Path) -> None:
    with IndexWorker.spawn() as worker:
        opening = ThreadPoolExecutor(1).submit(worker.open, example_index)  # waits for the imports
        time.sleep(0.1)
        os.kill(worker.pid, signal.SIGKILL)
        with pytest.raises(
            IndexUnavailable, match=r"ended \(signal 9\); this call was lost with it: call again"
        ):
            opening.result(30)
        assert worker.open(example_index).search(REQUESTS[0]).hits  # the next call has a new worker


def test_a_worker_that_keeps_dying_leaves_every_call_an_error_that_says_so(example_index: Path) -> None:
    with IndexWorker.spawn(respawns=1) as worker:
        remote = worker.open(example_index)
        for round_ in range(2):
            dead = worker.pid
            os.kill(dead, signal.SIGKILL)
            assert _gone(dead)
            if round_ == 0:
                assert remote.search(REQUESTS[0]).hits  # replaced once
        for _ in range(2):  # the call that finds it dead, and every later one
            with pytest.raises(
                IndexUnavailable, match=r"ended \(signal 9\); it ended 2 times .* restart the server"
            ):
                remote.search(REQUESTS[0])
        with pytest.raises(IndexUnavailable, match="restart the server"):
            worker.open(example_index)


def _children(pid: int) -> list[int]:
    """The process's children, whichever of its threads started them (a new worker: an index thread)."""
    tasks = Path(f"/proc/{pid}/task").iterdir()
    return [int(child) for task in tasks for child in (task / "children").read_text().split()]


def _maps_lancedb(pid: int) -> bool:
    """Whether the process has LanceDB's native library mapped."""
    return "lancedb" in Path(f"/proc/{pid}/maps").read_text()


@contextlib.contextmanager
def _started_stdio(index: Path | str, *more: str) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """The stdio server, ready, and what it writes to stderr; killed at the end if still running (a
    failing test must not wait on a server whose input is still open)."""
    process = subprocess.Popen(
        serve_command(index, *more),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(),
        start_new_session=True,  # a process group of its own, as a terminal's foreground job
    )
    lines: list[str] = []
    ready = threading.Event()
    pump = threading.Thread(target=pump_lines, args=(process.stderr, lines, ready, "on stdio"), daemon=True)
    pump.start()
    try:
        assert ready.wait(30), "".join(lines)
        yield process, lines
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        pump.join(10)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):  # a pipe the server had stopped reading
                    stream.close()


def _worker_of(process: subprocess.Popen[str]) -> int:
    (worker,) = _children(process.pid)
    assert WORKER_MODULE in Path(f"/proc/{worker}/cmdline").read_text()
    return worker


@pytest.mark.parametrize("libraries", [1, 2], ids=["one-index", "two-libraries"])
def test_the_stdio_server_loads_lancedb_in_its_worker_only(
    example_index: Path, tmp_path: Path, libraries: int
) -> None:
    indexes: tuple[str, ...] = (str(example_index),)
    if libraries == 2:
        shutil.copytree(example_index, tmp_path / "copy")
        indexes = (f"acme={example_index}", "--index", f"copy={tmp_path / 'copy'}")
    with _started_stdio(*indexes) as (process, lines):
        worker = _worker_of(process)
        assert _maps_lancedb(worker) and not _maps_lancedb(process.pid)
        assert process.stdin is not None
        process.stdin.close()  # the end of input: the server ends, and its worker with it
        assert process.wait(15) == 0, "".join(lines)
    assert _gone(worker)
    assert "Traceback" not in "".join(lines)


def _rpc(process: subprocess.Popen[str], message: dict[str, Any]) -> dict[str, Any]:
    """Send one JSON-RPC message over the server's stdio; its reply when it has an id."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()
    if "id" not in message:
        return {}
    for line in process.stdout:
        reply: dict[str, Any] = json.loads(line)
        if reply.get("id") == message["id"]:
            return reply
    raise AssertionError("the server closed its output")


def test_a_session_goes_on_when_its_worker_is_killed(example_index: Path) -> None:
    search = {"name": "search_docs", "arguments": {"query": "create a payment"}}
    with _started_stdio(example_index) as (process, lines):
        client = {"name": "t", "version": "1"}
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client}
        _rpc(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        _rpc(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"jsonrpc": "2.0", "method": "tools/call", "params": search}
        before = _rpc(process, {**call, "id": 2})["result"]
        first = _worker_of(process)
        os.kill(first, signal.SIGKILL)  # as the OOM killer would
        assert _gone(first)
        after = _rpc(process, {**call, "id": 3})["result"]
        assert not after.get("isError") and after["structuredContent"] == before["structuredContent"]
        assert _worker_of(process) != first
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(15) == 0, "".join(lines)
    assert "starting a new one" in "".join(lines)


@pytest.mark.parametrize(
    ("sig", "to_group", "status"),
    [(signal.SIGINT, True, 0), (signal.SIGTERM, False, 0), (signal.SIGKILL, False, -9)],
    ids=["ctrl-c-to-the-group", "sigterm-to-the-server", "sigkill-of-the-server"],
)
def test_the_worker_never_outlives_its_server(
    example_index: Path, sig: signal.Signals, to_group: bool, status: int
) -> None:
    with _started_stdio(example_index) as (process, lines):
        worker = _worker_of(process)
        if to_group:
            os.killpg(process.pid, sig)
        else:
            process.send_signal(sig)
        assert process.wait(15) == status, "".join(lines)
    assert _gone(worker), "the index worker outlived its server"
    assert "Traceback" not in "".join(lines)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_rebuild_is_served_over_stdio_through_the_worker(examples_docs: Path, tmp_path: Path) -> None:
    docs, out = tmp_path / "docs", tmp_path / "out"
    shutil.copytree(examples_docs, docs)
    build(BuildOptions(docs_dir=docs, out=out))
    command = serve_command(out)
    parameters = StdioServerParameters(command=command[0], args=command[1:], env=server_env())
    async with Client(parameters) as client:
        before = await client.call_tool("search_docs", {"query": "quokka"})
        assert not before.is_error and isinstance(before.structured_content, dict)
        assert before.structured_content["hits"] == []
        (docs / "guides" / "quokka.md").write_text("# Quokkas\n\nA quokka smiles at the payment desk.\n")
        build(BuildOptions(docs_dir=docs, out=out))
        after = await client.call_tool("search_docs", {"query": "quokka"})
        assert not after.is_error and isinstance(after.structured_content, dict)
        assert after.structured_content["hits"][0]["file"] == "guides/quokka.md"
