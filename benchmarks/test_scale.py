"""One replica at scale (issue 34): the SDK corpora copied until the index holds ~100k chunks (each copy
under its own folder), built and served as users run them, each a real process.

Build: ``docs-mcp build`` (full text) from a small wrapper: wall seconds, CPU seconds and peak RSS of
the command, and the index folder's size. Serve: ``docs-mcp serve`` over HTTP and over stdio (the MCP
SDK's client spawning it, as an agent does): seconds to its index open (HTTP) or to the first answer
(stdio), then over MCP three short searches, the first long query (a pasted code block: the one that
used to read every row's text to count words), and 300 calls (100 short searches, 100 long, 100
``get_doc`` with context 1): p50/p95 per kind, the server's RSS after them and its peak.

``DOCS_MCP_SCALE_CHUNKS=1000000`` runs the 1M variant (about 121 copies; hard links where the file
system allows; its build takes the better part of an hour here), only on request.
``DOCS_MCP_SCALE_INDEX=OUT`` serves an index built before (``docs-mcp build`` of such copies) instead
of building one: the serving figures of a large index without its hour of build (the build test
skips). CI runs the 100k variant (``./dev scale``). Run:
``.venv/bin/python -m pytest benchmarks/test_scale.py --benchmark-only -s``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks import sdk_set
from benchmarks.serving import (
    docs_mcp,
    env,
    http_process,
    memory_mib,
    serve_command,
    served_child,
    tree_memory_mib,
)
from docs_mcp.search.types import QUERY_MAX_LENGTH
from testkit.evaldata_sets import materialize_sdk_copies

CHUNKS_PER_COPY = 8_260  # the SDK corpora (dub + mistral) as materialize_sdk_copies stages them
SCALE_CHUNKS = int(os.environ.get("DOCS_MCP_SCALE_CHUNKS", "100000"))
PREBUILT = os.environ.get("DOCS_MCP_SCALE_INDEX")
COPIES = max(1, round(SCALE_CHUNKS / CHUNKS_PER_COPY))
CALLS = 300
_CODE = re.compile(r"```[a-z]*\n(.*?)```", re.DOTALL)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(7200 if SCALE_CHUNKS > 200_000 or PREBUILT else 1200)]

# Runs the command; prints its children's peak RSS (KiB) and CPU seconds (see serving.peak_rss for
# why from a small interpreter).
_MEASURED = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(usage.ru_maxrss, usage.ru_utime + usage.ru_stime)\n"
    "sys.exit(code)\n"
)


@dataclass(frozen=True)
class Built:
    out: Path
    seconds: float
    cpu_seconds: float
    peak_mib: float


def _size_mib(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20


@pytest.fixture(scope="module")
def scale_build(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Built:
    if PREBUILT:
        pytest.skip(f"DOCS_MCP_SCALE_INDEX: serving {PREBUILT}, built before")
    docs = materialize_sdk_copies(evaldata_dir / "corpora", tmp_path_factory.mktemp("scale") / "docs", COPIES)
    out = tmp_path_factory.mktemp("scale-index") / "out"
    cache = out.parent / "cache"
    command = docs_mcp("build", "--docs-dir", str(docs), "--out", str(out), "--cache-dir", str(cache))
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, *command], capture_output=True, text=True, env=env(), check=False
    )
    seconds = time.perf_counter() - started
    assert done.returncode == 0, done.stderr[-2000:]
    peak_kib, cpu = done.stdout.split()[-2:]
    return Built(out, seconds, float(cpu), int(peak_kib) / 1024)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1)


def _long_queries(corpora: Path, count: int = 40) -> list[str]:
    blocks = [
        block[:QUERY_MAX_LENGTH].strip()
        for page in sorted(corpora.rglob("*.md"))
        for block in _CODE.findall(page.read_text(encoding="utf-8"))
        if len(block) >= 400
    ]
    return blocks[:: max(1, len(blocks) // count)][:count]


def test_scale_build(benchmark: BenchmarkFixture, scale_build: Built) -> None:
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)  # the build ran in the fixture, measured
    manifest = (scale_build.out / "docs-mcp-index.json").read_text(encoding="utf-8")
    chunks = int(re.search(r'"chunk_count": (\d+)', manifest).group(1))  # type: ignore[union-attr]
    info = {
        "chunks": chunks,
        "build_s": round(scale_build.seconds, 1),
        "build_cpu_s": round(scale_build.cpu_seconds, 1),
        "build_peak_mib": round(scale_build.peak_mib, 1),
        "index_mib": round(_size_mib(scale_build.out), 1),
    }
    benchmark.extra_info.update(info)
    print(f"\n{info}")


@pytest.fixture(scope="module")
def scale_index(request: pytest.FixtureRequest) -> Path:
    """The index served: ``DOCS_MCP_SCALE_INDEX`` when set, else the one ``scale_build`` made."""
    if PREBUILT:
        return Path(PREBUILT)
    built: Built = request.getfixturevalue("scale_build")
    return built.out


class _Calls:
    """The benchmark's MCP calls on one connected client, their round trips in ms by kind."""

    def __init__(self, short: list[str], long: list[str]) -> None:
        self.short, self.long = short, long
        self.timings: dict[str, list[float]] = {"short": [], "long": [], "get": []}
        self.first_long = 0.0

    @staticmethod
    async def timed(client: Client, tool: str, arguments: dict[str, object]) -> tuple[list[str], float]:
        """The call's round trip in ms, and the first two hit ids of a search."""
        started = time.perf_counter()
        result = await client.call_tool(tool, arguments)
        elapsed = (time.perf_counter() - started) * 1000
        assert not result.is_error, result
        hits = (result.structured_content or {}).get("hits", [])
        return [str(hit["chunk_id"]) for hit in hits[:2]], elapsed

    async def run(self, client: Client) -> None:
        ids: list[str] = []
        for query in self.short[:3]:
            ids += (await self.timed(client, "search_docs", {"query": query}))[0]
        self.first_long = (await self.timed(client, "search_docs", {"query": self.long[0]}))[1]
        for n in range(CALLS):
            kind = ("short", "long", "get")[n % 3]
            if kind == "get":
                found, elapsed = await self.timed(
                    client, "get_doc", {"chunk_id": ids[n % len(ids)], "context": 1}
                )
            else:
                query = self.short[n % len(self.short)] if kind == "short" else self.long[n % len(self.long)]
                found, elapsed = await self.timed(client, "search_docs", {"query": query})
            ids += found
            self.timings[kind].append(elapsed)


def _over_http(index: Path, calls: _Calls, benchmark: BenchmarkFixture) -> dict[str, float]:
    with http_process(serve_command(index, "--transport", "http", "--port", "0")) as running:
        ready_mib = memory_mib(running.process.pid)

        async def session() -> None:
            async with Client(running.url) as client:
                await calls.run(client)

        benchmark.pedantic(lambda: anyio.run(session), rounds=1, iterations=1)
        after = memory_mib(running.process.pid)
        peak = memory_mib(running.process.pid, "VmHWM")
    return {
        "open_s": round(running.ready_s, 2),
        "rss_ready_mib": round(ready_mib, 1),
        "rss_after_300_mib": round(after, 1),
        "peak_rss_mib": round(peak, 1),
    }


def _over_stdio(index: Path, calls: _Calls, benchmark: BenchmarkFixture) -> dict[str, float]:
    command = serve_command(index)
    server = StdioServerParameters(command=command[0], args=command[1:], env=env())
    figures: dict[str, float] = {}

    async def session() -> None:
        started = time.perf_counter()
        async with Client(server) as client:
            await client.call_tool("search_docs", {"query": calls.short[0]})
            figures["first_answer_s"] = round(time.perf_counter() - started, 2)
            pid = served_child(str(index))
            figures["rss_ready_mib"] = round(tree_memory_mib(pid), 1)
            await calls.run(client)
            figures["rss_after_300_mib"] = round(tree_memory_mib(pid), 1)
            figures["peak_rss_mib"] = round(tree_memory_mib(pid, "VmHWM"), 1)

    benchmark.pedantic(lambda: anyio.run(session), rounds=1, iterations=1)
    return figures


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_scale_serving(
    benchmark: BenchmarkFixture, scale_index: Path, evaldata_dir: Path, transport: str
) -> None:
    calls = _Calls([query.query for query in sdk_set.load_set()], _long_queries(evaldata_dir / "corpora"))
    serve = _over_http if transport == "http" else _over_stdio
    info = serve(scale_index, calls, benchmark)
    info["first_long_ms"] = round(calls.first_long, 1)
    for kind, values in calls.timings.items():
        info[f"{kind}_p50_ms"] = _percentile(values, 0.5)
        info[f"{kind}_p95_ms"] = _percentile(values, 0.95)
    benchmark.extra_info.update(info)
    print(f"\n{transport}: {info}")
