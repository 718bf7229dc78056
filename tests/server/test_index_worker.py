"""The stdio server's index worker: a real worker process reading a real index, its answers the same
as the index opened in this process, its errors the same, its end never a hang; and the real stdio
server searching through it, with LanceDB loaded in the worker only."""

from __future__ import annotations

import gc
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from server_support import pump_lines, serve_command, server_env

from docs_mcp.errors import ChunkNotFound, IndexUnavailable, QueryError
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.server.index_worker import OPENED_ATTRIBUTES
from docs_mcp.server.remote_index import WORKER_MODULE, IndexWorker

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


def test_a_worker_that_dies_fails_every_call_with_an_error_that_says_so(
    worker: IndexWorker, example_index: Path
) -> None:
    remote = worker.open(example_index)
    os.kill(worker.pid, signal.SIGKILL)
    for _ in range(2):  # the call that finds it dead, and every later one
        with pytest.raises(IndexUnavailable, match=r"index worker process ended \(signal 9\)"):
            remote.search(REQUESTS[0])
    with pytest.raises(IndexUnavailable, match="ended"):
        worker.open(example_index)
    worker.close()  # and closing it still returns


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _maps_lancedb(pid: int) -> bool:
    """Whether the process has LanceDB's native library mapped."""
    return "lancedb" in Path(f"/proc/{pid}/maps").read_text()


def _started_stdio(index: Path | str, *more: str) -> tuple[subprocess.Popen[str], list[str]]:
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
    threading.Thread(target=pump_lines, args=(process.stderr, lines, ready, "on stdio"), daemon=True).start()
    assert ready.wait(30), "".join(lines)
    return process, lines


def _worker_of(process: subprocess.Popen[str]) -> int:
    (worker,) = _children(process.pid)
    assert WORKER_MODULE in Path(f"/proc/{worker}/cmdline").read_text()
    return worker


def _gone(pid: int, deadline: float = 15.0) -> bool:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("libraries", [1, 2], ids=["one-index", "two-libraries"])
def test_the_stdio_server_loads_lancedb_in_its_worker_only(
    example_index: Path, tmp_path: Path, libraries: int
) -> None:
    if libraries == 1:
        process, lines = _started_stdio(example_index)
    else:
        shutil.copytree(example_index, tmp_path / "copy")
        process, lines = _started_stdio(f"acme={example_index}", "--index", f"copy={tmp_path / 'copy'}")
    with process:
        worker = _worker_of(process)
        assert _maps_lancedb(worker) and not _maps_lancedb(process.pid)
        assert process.stdin is not None
        process.stdin.close()  # the end of input: the server ends, and its worker with it
        assert process.wait(15) == 0, "".join(lines)
    assert _gone(worker)
    assert "Traceback" not in "".join(lines)


@pytest.mark.parametrize(
    ("sig", "to_group", "status"),
    [(signal.SIGINT, True, 0), (signal.SIGTERM, False, 0), (signal.SIGKILL, False, -9)],
    ids=["ctrl-c-to-the-group", "sigterm-to-the-server", "sigkill-of-the-server"],
)
def test_the_worker_never_outlives_its_server(
    example_index: Path, sig: signal.Signals, to_group: bool, status: int
) -> None:
    process, lines = _started_stdio(example_index)
    with process:
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
