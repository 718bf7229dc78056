"""Server speed on the dub + mistral SDK docs (3,958 files, built full text).

Measures, with a real MCP client against the real server started by ``docs-mcp serve``:
round-trip latency of ``search_docs`` and ``get_doc`` over stdio and Streamable HTTP (p50 in the
benchmark's median, p95 in ``extra_info``), cold start to the first answer, and the resident
memory of the serving process. The index is ``corpora_index`` of ``benchmarks/conftest.py`` (language
facets, full text). Run: ``.venv/bin/python -m pytest benchmarks/test_server.py -p no:cacheprovider -s``.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from itertools import cycle
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters

REPO_ROOT = Path(__file__).resolve().parents[1]
QUERIES = [
    "create a short link",
    "retry configuration backoff",
    "list models",
    "stream chat completion",
    "pagination next page",
    "error handling",
    "upload a file",
    "delete a domain",
    "embeddings request",
    "webhook",
]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT / "src"), env.get("PYTHONPATH", "")])
    return env


def _serve(index: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "docs_mcp", "serve", "--index", str(index), *extra]


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@dataclass
class Connected:
    portal: BlockingPortal
    client: Client
    pid: int | None

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.portal.call(self.client.call_tool, tool, arguments)
        assert not result.is_error, result.content
        assert isinstance(result.structured_content, dict)
        return result.structured_content


def _connected(portal: BlockingPortal, target: Any, pid: int | None) -> Iterator[Connected]:
    manager: AbstractContextManager[Client] = portal.wrap_async_context_manager(Client(target))
    with manager as client:
        yield Connected(portal, client, pid)


@pytest.fixture(scope="module")
def portal() -> Iterator[BlockingPortal]:
    with start_blocking_portal(backend="asyncio") as running:
        yield running


@pytest.fixture(scope="module")
def over_stdio(portal: BlockingPortal, corpora_index: Path) -> Iterator[Connected]:
    command = _serve(corpora_index)
    params = StdioServerParameters(command=command[0], args=command[1:], env=_env())
    yield from _connected(portal, params, None)


@pytest.fixture(scope="module")
def http_process(corpora_index: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    process = subprocess.Popen(
        _serve(corpora_index, "--transport", "http", "--port", "0"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    assert process.stderr is not None
    url = ""
    for line in process.stderr:  # bounded by the module timeout
        found = re.search(r"at (http://\S+/mcp)", line)
        if found:
            url = found.group(1)
            print(f"\n{line.strip()}")  # the server's own open + warm-up time
            break
    drain = threading.Thread(target=process.stderr.read, daemon=True)  # keep the pipe drained
    drain.start()
    assert url, "server did not start"
    yield process, url
    process.terminate()
    process.wait(30)
    drain.join(30)
    process.stderr.close()  # else an unclosed-file ResourceWarning fails the session (-W error)


@pytest.fixture(scope="module")
def over_http(portal: BlockingPortal, http_process: tuple[subprocess.Popen[str], str]) -> Iterator[Connected]:
    process, url = http_process
    yield from _connected(portal, url, process.pid)


def _chunk_ids(connection: Connected) -> list[str]:
    ids = [hit["chunk_id"] for q in QUERIES for hit in connection.call("search_docs", {"query": q})["hits"]]
    assert ids
    return ids


def _record(benchmark: Any, label: str) -> None:
    data = sorted(benchmark.stats.stats.data)
    p50 = statistics.median(data) * 1000
    p95 = data[min(len(data) - 1, int(len(data) * 0.95))] * 1000
    benchmark.extra_info.update({"p50_ms": round(p50, 3), "p95_ms": round(p95, 3)})
    print(f"\n{label}: p50 {p50:.2f} ms, p95 {p95:.2f} ms over {len(data)} calls")


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_search_docs_round_trip(benchmark: Any, transport: str, request: pytest.FixtureRequest) -> None:
    connection: Connected = request.getfixturevalue(f"over_{transport}")
    queries = cycle(QUERIES)
    connection.call("search_docs", {"query": "warm up"})
    benchmark.pedantic(
        lambda: connection.call("search_docs", {"query": next(queries)}), rounds=300, iterations=1
    )
    _record(benchmark, f"search_docs over {transport}")


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_get_doc_round_trip(benchmark: Any, transport: str, request: pytest.FixtureRequest) -> None:
    connection: Connected = request.getfixturevalue(f"over_{transport}")
    ids = cycle(_chunk_ids(connection))
    benchmark.pedantic(
        lambda: connection.call("get_doc", {"chunk_id": next(ids), "context": 1}), rounds=300, iterations=1
    )
    _record(benchmark, f"get_doc over {transport}")


def test_client_side_output_schema_validation(benchmark: Any, over_stdio: Connected) -> None:
    """What an MCP client spends re-validating a ``search_docs`` result against our output schema,
    done the way ``mcp.client.session.ClientSession.validate_tool_result`` does it (a compiled
    validator, ``best_match`` over ``iter_errors``); the strict variant types every field of every
    hit, which is what the published schema used to do."""
    from jsonschema import exceptions
    from jsonschema.validators import validator_for
    from referencing import Registry

    from docs_mcp.server.schema import search_output_schema

    results = [over_stdio.call("search_docs", {"query": q}) for q in QUERIES]
    timings = {}
    for label, schema in (
        ("published", search_output_schema()),
        ("strict", search_output_schema(strict=True)),
    ):
        validator = validator_for(schema)(schema, registry=Registry())
        pages = cycle(results)
        started = time.perf_counter()
        for _ in range(500):
            assert exceptions.best_match(validator.iter_errors(next(pages))) is None
        timings[label] = (time.perf_counter() - started) / 500 * 1000
    validator = validator_for(search_output_schema())(search_output_schema(), registry=Registry())
    pages = cycle(results)
    benchmark.pedantic(
        lambda: exceptions.best_match(validator.iter_errors(next(pages))), rounds=300, iterations=1
    )
    benchmark.extra_info.update({f"{k}_mean_ms": round(v, 3) for k, v in timings.items()})
    print(
        f"\nclient output validation per search_docs result: published {timings['published']:.3f} ms, "
        f"strict {timings['strict']:.3f} ms"
    )


def test_cold_start_to_first_answer(benchmark: Any, portal: BlockingPortal, corpora_index: Path) -> None:
    """Spawn ``docs-mcp serve`` over stdio, connect, get one search answer. The benchmark times the
    whole session (spawn to process exit); ``first_answer_s`` stops at the answer, the figure the
    issue's goal is about."""
    command = _serve(corpora_index)
    params = StdioServerParameters(command=command[0], args=command[1:], env=_env())
    first_answers: list[float] = []

    async def first_answer() -> None:
        started = time.perf_counter()
        async with Client(params) as client:
            result = await client.call_tool("search_docs", {"query": "create a short link"})
            first_answers.append(time.perf_counter() - started)
            assert not result.is_error

    benchmark.pedantic(lambda: portal.call(first_answer), rounds=5, iterations=1)
    first = statistics.median(first_answers)
    benchmark.extra_info.update(
        {"first_answer_s": round(first, 3), "first_answer_min_s": round(min(first_answers), 3)}
    )
    print(
        f"\ncold start to first answer (stdio, process spawn included): median {first:.2f}s "
        f"(min {min(first_answers):.2f}s); with shutdown {benchmark.stats.stats.median:.2f}s"
    )


def test_resident_memory_of_the_http_server(
    benchmark: Any, over_http: Connected, http_process: tuple[subprocess.Popen[str], str]
) -> None:
    process, _url = http_process
    idle = _rss_mib(process.pid)
    queries = cycle(QUERIES)
    benchmark.pedantic(
        lambda: over_http.call("search_docs", {"query": next(queries)}), rounds=200, iterations=1
    )
    busy = _rss_mib(process.pid)
    benchmark.extra_info.update({"rss_mib_start": round(idle, 1), "rss_mib_after_queries": round(busy, 1)})
    print(f"\nHTTP server RSS: {idle:.0f} MiB at start of test, {busy:.0f} MiB after queries")
