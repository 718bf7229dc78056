"""Server speed on the dub + mistral SDK docs (3,958 files, built full text).

Measures, with a real MCP client against the real server started by ``docs-mcp serve``:
round-trip latency of ``search_docs`` and ``get_doc`` over stdio and Streamable HTTP (p50 in the
benchmark's median, p95 in ``extra_info``), cold start to the first answer, and the resident
memory of the serving process. The index is ``corpora_index`` of ``benchmarks/conftest.py`` (language
facets, full text). Run: ``.venv/bin/python -m pytest benchmarks/test_server.py -p no:cacheprovider -s``.
"""

from __future__ import annotations

import compileall
import json
import os
import signal
import statistics
import subprocess
import sys
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

from benchmarks.serving import (
    REPO_ROOT,
    env,
    http_server,
    memory_mib,
    serve_command,
    tree_cpu_seconds,
    tree_memory_mib,
)

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


@pytest.fixture(scope="module", autouse=True)
def _compiled_sources() -> None:
    """Byte-compile ``src`` as installing the wheel does: with PYTHONDONTWRITEBYTECODE set (as in CI
    shells) nothing would be cached, and every start would compile docs_mcp from source."""
    compileall.compile_dir(REPO_ROOT / "src", quiet=1)


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
    command = serve_command(corpora_index)
    params = StdioServerParameters(command=command[0], args=command[1:], env=env())
    yield from _connected(portal, params, None)


# The SDK's own stdio transport (a reader thread for stdin, a writer thread for stdout) around the same
# server, with the same signal handling as ours: what docs_mcp.server.transport.stdio replaces.
SDK_STDIO = """
import signal, sys
from pathlib import Path
import anyio
from mcp.server.stdio import stdio_server
from docs_mcp.server.hub.opening import open_server
from docs_mcp.server.transport.signals import cancel_on_signals
ready = open_server(Path(sys.argv[1]))
async def main():
    async with anyio.create_task_group() as group:
        await group.start(cancel_on_signals, group.cancel_scope, (signal.SIGTERM, signal.SIGINT))
        print("ready", file=sys.stderr, flush=True)
        async with stdio_server() as (read_stream, write_stream):
            await ready.server.run(read_stream, write_stream, ready.server.create_initialization_options())
        group.cancel_scope.cancel()
anyio.run(main)
"""


@pytest.fixture(scope="module")
def over_sdk_stdio(portal: BlockingPortal, corpora_index: Path) -> Iterator[Connected]:
    params = StdioServerParameters(
        command=sys.executable, args=["-c", SDK_STDIO, str(corpora_index)], env=env()
    )
    yield from _connected(portal, params, None)


@pytest.fixture(scope="module")
def http_process(corpora_index: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    with http_server(corpora_index) as running:
        yield running


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


def test_stdio_transport_against_the_sdks(
    benchmark: Any, over_stdio: Connected, over_sdk_stdio: Connected
) -> None:
    """``docs_mcp.server.transport.stdio`` (stdin read on the event loop, stdout written without blocking)
    against the SDK's ``stdio_server`` (a worker thread each way), same server, same queries,
    alternating batches of 50 ``search_docs`` calls."""
    per_call: dict[str, list[float]] = {"ours": [], "sdk": []}
    queries = cycle(QUERIES)
    for connection in (over_stdio, over_sdk_stdio):
        connection.call("search_docs", {"query": "warm up"})
    for _ in range(6):
        for name, connection in (("ours", over_stdio), ("sdk", over_sdk_stdio)):
            for _call in range(50):
                started = time.perf_counter()
                connection.call("search_docs", {"query": next(queries)})
                per_call[name].append(time.perf_counter() - started)
    benchmark.pedantic(lambda: over_stdio.call("search_docs", {"query": next(queries)}), rounds=50)
    p50 = {name: statistics.median(values) * 1000 for name, values in per_call.items()}
    benchmark.extra_info.update({f"{name}_p50_ms": round(v, 3) for name, v in p50.items()})
    benchmark.extra_info["speedup"] = round(p50["sdk"] / p50["ours"], 2)
    print(
        f"\nsearch_docs over stdio, p50: ours {p50['ours']:.2f} ms, the SDK's transport {p50['sdk']:.2f} ms "
        f"({p50['sdk'] / p50['ours']:.2f}x)"
    )


def _seconds_to_stop_on_sigterm(command: list[str], limit: float) -> float:
    """Start a stdio server, wait until it serves, send SIGTERM with its input still open; seconds until
    it exits (``limit`` when it had not: its input is then closed to end it)."""
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env()
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    with process.stdin, process.stdout, process.stderr:
        process.stdin.write((json.dumps(_SESSION[0]) + "\n").encode())
        process.stdin.flush()
        _reply(process.stdout, 1)
        process.stderr.readline()  # the readiness line: the signal handlers are in place
        started = time.perf_counter()
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(limit)
            return time.perf_counter() - started
        except subprocess.TimeoutExpired:
            process.stdin.close()
            process.wait(30)
            return limit


def test_stdio_stops_on_a_signal_against_the_sdks(benchmark: Any, corpora_index: Path) -> None:
    """SIGTERM to an idle stdio server whose client keeps its input open: ours stops at once; the
    SDK's transport waits for its reader thread, blocked on stdin until the next line or EOF."""
    limit = 5.0
    ours = [_seconds_to_stop_on_sigterm(serve_command(corpora_index), limit) for _ in range(3)]
    sdk_command = [sys.executable, "-c", SDK_STDIO, str(corpora_index)]
    sdk = [_seconds_to_stop_on_sigterm(sdk_command, limit) for _ in range(3)]
    benchmark.pedantic(lambda: None, rounds=1)
    benchmark.extra_info.update(
        {"ours_stop_s": round(max(ours), 3), "sdk_stop_s": round(min(sdk), 3), "limit_s": limit}
    )
    print(
        f"\nSIGTERM to exit, idle stdio server: ours at most {max(ours):.2f}s, SDK's at least {min(sdk):.2f}s"
    )


def test_client_side_output_schema_validation(benchmark: Any, over_stdio: Connected) -> None:
    """What an MCP client spends re-validating a ``search_docs`` result against our output schema,
    done the way ``mcp.client.session.ClientSession.validate_tool_result`` does it (a compiled
    validator, ``best_match`` over ``iter_errors``); the strict variant types every field of every
    hit, which is what the published schema used to do."""
    from jsonschema import exceptions
    from jsonschema.validators import validator_for
    from referencing import Registry

    from docs_mcp.server.tools.tool_schema import search_output_schema

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


def _first_answer(command: list[str]) -> tuple[float, float, float]:
    """Spawn ``command`` (a stdio MCP server), initialize, list the tools and call ``search_docs`` with
    plain JSON-RPC lines; then close its input and wait for it. (seconds from spawn to the answer,
    CPU seconds of the server process, its peak RSS in MiB)."""
    started = time.perf_counter()
    process = _spawn_stdio(command)
    with process.stdin, process.stdout:  # both piped (_spawn_stdio)
        answered = _session_marks(process, started)[-2]
        # Not wait4's ru_maxrss: on Linux it also counts the parent's memory at fork (this pytest).
        peak = tree_memory_mib(process.pid, "VmHWM")
    _pid, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return answered, usage.ru_utime + usage.ru_stime, peak


_SESSION: list[dict[str, Any]] = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "b", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "search_docs", "arguments": {"query": "create a short link"}},
    },
]


def _reply(stream: Any, wanted: int) -> dict[str, Any]:
    for line in stream:
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == wanted:
            return message
    raise AssertionError("the server closed its output before answering")


def _spawn_seconds(code: str) -> tuple[float, float]:
    """Wall and CPU seconds of ``python -c code`` (a baseline of the same run)."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", code], env=env())
    _pid, _status, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


# What the libraries the server stands on cost to import, as the server imports them (LanceDB with
# what a local index never uses deferred, pyarrow, numpy; the MCP SDK's server and types, their models
# built on first use): the floor under the cold start that nothing of ours can go below.
IMPORT_FLOOR = (
    "import gc\n"
    "gc.disable()\n"  # as serve does while it imports (docs_mcp.server.startup.collector)
    "from docs_mcp import import_cuts\n"
    "import_cuts.install()\n"
    "import lancedb, mcp.server.lowlevel, mcp.server.stdio"
)


def test_cold_start_to_first_answer(benchmark: Any, corpora_index: Path) -> None:
    """Spawn ``docs-mcp serve`` over stdio, initialize, list tools, get one search answer, close.

    The benchmark times the whole session (spawn to process exit); ``first_answer_s`` stops at the
    answer, the figure the issue's goal is about. Measured in the same run, alternating with it:
    ``python -c pass`` (process start-up) and the import floor (:data:`IMPORT_FLOOR`), so figures
    from machines of different speed or load compare as ratios. ``cpu_s`` is the server's CPU time
    and ``maxrss_mib`` its peak memory (the dub + mistral index).
    """
    command = serve_command(corpora_index)
    runs: list[tuple[float, float, float]] = []
    python: list[tuple[float, float]] = []
    floor: list[tuple[float, float]] = []

    def one_round() -> None:
        runs.append(_first_answer(command))
        python.append(_spawn_seconds("pass"))
        floor.append(_spawn_seconds(IMPORT_FLOOR))

    benchmark.pedantic(one_round, rounds=7, iterations=1, warmup_rounds=1)
    runs, python, floor = runs[1:], python[1:], floor[1:]  # the warm-up round fills the page cache
    first = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    figures = {
        "first_answer_s": first,
        "first_answer_min_s": min(r[0] for r in runs),
        "cpu_s": cpu,
        "maxrss_mib": max(r[2] for r in runs),
        "python_pass_s": statistics.median(p[0] for p in python),
        "python_pass_cpu_s": statistics.median(p[1] for p in python),
        "import_floor_s": statistics.median(f[0] for f in floor),
        "import_floor_cpu_s": statistics.median(f[1] for f in floor),
    }
    figures["ratio_to_python_pass"] = first / figures["python_pass_s"]
    figures["ratio_to_import_floor"] = first / figures["import_floor_s"]
    figures["cpu_ratio_to_import_floor"] = cpu / figures["import_floor_cpu_s"]
    benchmark.extra_info.update({k: round(v, 3) for k, v in figures.items()})
    print(
        f"\ncold start to first answer (stdio, spawn included): median {first:.2f}s "
        f"(min {figures['first_answer_min_s']:.2f}s), CPU {cpu:.2f}s, "
        f"peak RSS {figures['maxrss_mib']:.0f} MiB; "
        f"same run: python -c pass {figures['python_pass_s']:.3f}s, import floor "
        f"{figures['import_floor_s']:.2f}s (CPU {figures['import_floor_cpu_s']:.2f}s): "
        f"{figures['ratio_to_import_floor']:.2f}x the floor "
        f"({figures['cpu_ratio_to_import_floor']:.2f}x in CPU)"
    )


def _spawn_stdio(command: list[str]) -> subprocess.Popen[bytes]:
    """``command`` (a stdio MCP server) spawned with pipes for its input and output."""
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env()
    )


def _session_marks(process: subprocess.Popen[bytes], started: float, think: float = 0.0) -> list[float]:
    """Run :data:`_SESSION` over ``process``'s stdio as plain JSON-RPC lines, the search sent
    ``think`` seconds after the ``tools/list`` answer: seconds from ``started`` to each answer
    (initialize, tools/list, the search), then to the search's sending; the search a success."""
    assert process.stdin is not None and process.stdout is not None
    marks: list[float] = []
    for message in _SESSION:
        if message.get("method") == "tools/call":
            time.sleep(think)
            sent = time.perf_counter() - started
        process.stdin.write((json.dumps(message) + "\n").encode())
        process.stdin.flush()
        if "id" in message:
            reply = _reply(process.stdout, message["id"])
            marks.append(time.perf_counter() - started)
    assert not reply["result"].get("isError"), reply
    return [*marks, sent]


# An agent's think time between listing the tools and its first call (a model's turn takes longer).
THINK_SECONDS = 1.0
# The other core kept busy (bounded: the block kills it sooner), as by a build or an agent's own tools.
_SPIN = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end:\n    pass\n"


@dataclass(frozen=True)
class ColdSession:
    """One stdio session from a cold start: seconds from spawn to the ``initialize``, ``tools/list``
    and first search answers; the search call's own seconds (sent to answered); the CPU seconds the
    server (and any child of it) had used by the search answer."""

    initialize: float
    tools_list: float
    first_result: float
    call: float
    cpu: float


def _cold_session(command: list[str], think: float = 0.0, busy: bool = False) -> ColdSession:
    """Spawn ``command`` (a stdio MCP server) and run :data:`_SESSION`, the search ``think`` seconds
    after ``tools/list``; with ``busy``, a spinning child keeps another core busy meanwhile."""
    spinner = subprocess.Popen([sys.executable, "-c", _SPIN]) if busy else None
    try:
        started = time.perf_counter()
        process = _spawn_stdio(command)
        with process.stdin, process.stdout:  # both piped (_spawn_stdio)
            initialize, tools_list, first_result, sent = _session_marks(process, started, think)
            cpu = tree_cpu_seconds(process.pid)
        process.wait(timeout=60)
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()
    return ColdSession(initialize, tools_list, first_result, first_result - sent, cpu)


# Each round's sessions: figure prefix -> how (_cold_session's keywords).
_MODES: dict[str, dict[str, Any]] = {"": {}, "think_": {"think": THINK_SECONDS}, "busy_": {"busy": True}}


def test_cold_start_to_tools_list(benchmark: Any, corpora_index: Path) -> None:
    """Spawn ``docs-mcp serve`` over stdio, three ways each round: the search sent the instant
    ``tools/list`` answers, sent :data:`THINK_SECONDS` later (as an agent with think time), and sent
    at once with another core kept busy. Each over ``python -c "import lancedb"`` (wall and CPU)
    timed alternately in the same round (the issue's yardstick: the plain import, REST client
    included). ``initialize`` and ``tools/list`` are answered from the manifest; the index opens in
    the background once ``tools/list`` is answered (``docs_mcp.server.hub.deferred``)."""
    command = serve_command(corpora_index)
    runs: dict[str, list[ColdSession]] = {mode: [] for mode in _MODES}
    lancedb_import: list[tuple[float, float]] = []

    def one_round() -> None:
        for mode, how in _MODES.items():
            runs[mode].append(_cold_session(command, **how))
        lancedb_import.append(_spawn_seconds("import lancedb"))

    # Each round's ratio pairs the spawns of that round, so a machine whose speed drifts during the
    # run (a shared one's does) moves both; the gated figures are the medians of those ratios.
    benchmark.pedantic(one_round, rounds=15, iterations=1, warmup_rounds=1)
    lancedb_import = lancedb_import[1:]  # the warm-up round fills the page cache
    wall = [seconds for seconds, _cpu in lancedb_import]
    figures: dict[str, float] = {
        "import_lancedb_s": statistics.median(wall),
        "import_lancedb_cpu_s": statistics.median(cpu for _seconds, cpu in lancedb_import),
    }
    for mode in _MODES:
        sessions = runs[mode][1:]
        for name in ("initialize", "tools_list", "first_result", "call", "cpu"):
            values = [getattr(session, name) for session in sessions]
            over = [cpu for _seconds, cpu in lancedb_import] if name == "cpu" else wall
            ratios = [value / base for value, base in zip(values, over, strict=True)]
            figures[f"{mode}{name}_s"] = statistics.median(values)
            figures[f"{mode}{name}_over_import_lancedb"] = statistics.median(ratios)
            figures[f"{mode}{name}_over_import_lancedb_min"] = min(ratios)
            figures[f"{mode}{name}_over_import_lancedb_max"] = max(ratios)
    benchmark.extra_info.update({k: round(v, 3) for k, v in figures.items()})

    def ratio(name: str) -> str:
        low, high = figures[f"{name}_over_import_lancedb_min"], figures[f"{name}_over_import_lancedb_max"]
        median = figures[f"{name}_over_import_lancedb"]
        return f"{figures[f'{name}_s']:.2f}s, {median:.2f}x ({low:.2f}-{high:.2f})"

    print(
        f"\ncold start over stdio against python -c 'import lancedb' ({figures['import_lancedb_s']:.2f}s, "
        f"CPU {figures['import_lancedb_cpu_s']:.2f}s) in the same round, load {os.getloadavg()[0]:.1f}:\n"
        f"  tools/list {ratio('tools_list')}; first result {ratio('first_result')}; "
        f"CPU to it {ratio('cpu')}\n"
        f"  search {THINK_SECONDS:g}s after tools/list: call {ratio('think_call')}, "
        f"CPU {ratio('think_cpu')}\n"
        f"  another core busy: tools/list {ratio('busy_tools_list')}; first result "
        f"{ratio('busy_first_result')}"
    )


def test_resident_memory_of_the_http_server(
    benchmark: Any, over_http: Connected, http_process: tuple[subprocess.Popen[str], str]
) -> None:
    process, _url = http_process
    idle = memory_mib(process.pid)
    queries = cycle(QUERIES)
    benchmark.pedantic(
        lambda: over_http.call("search_docs", {"query": next(queries)}), rounds=200, iterations=1
    )
    busy = memory_mib(process.pid)
    benchmark.extra_info.update({"rss_mib_start": round(idle, 1), "rss_mib_after_queries": round(busy, 1)})
    print(f"\nHTTP server RSS: {idle:.0f} MiB at start of test, {busy:.0f} MiB after queries")
