"""Peak memory of ``docs-mcp build`` and ``docs-mcp serve``, each a real process.

Build: the kernel's high-water mark (``ru_maxrss``) of the whole command, on the dub + mistral corpora
(full text, 3,958 files) and on claude-docs with the local model (ONNX runtime loaded). Serve: the
HTTP server's ``VmHWM`` after answering the 100 claude-docs questions over MCP, hybrid with the local
model. Run: ``.venv/bin/python -m pytest benchmarks/test_memory.py --benchmark-only -s``.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks.serving import docs_mcp, http_server, memory_mib, peak_rss
from testkit.evaldata_sets import claude_docs_queries, question_texts

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def _build(benchmark: BenchmarkFixture, docs: Path, out: Path, *extra: str) -> None:
    figures: list[tuple[float, float]] = []
    cache = str(out.parent / "build-cache")  # a full build: nothing to reuse
    command = docs_mcp("build", "--docs-dir", str(docs), "--out", str(out), "--cache-dir", cache, *extra)
    benchmark.pedantic(lambda: figures.append(peak_rss(command)), rounds=1, iterations=1)
    seconds, peak = figures[-1]
    benchmark.extra_info.update(peak_rss_mib=round(peak, 1), seconds=round(seconds, 2))
    print(f"\nbuild peak RSS {peak:.0f} MiB in {seconds:.1f} s", end="")


def test_build_peak_memory_corpora_full_text(
    benchmark: BenchmarkFixture, corpora_docs: Path, tmp_path: Path
) -> None:
    _build(benchmark, corpora_docs, tmp_path / "out")


def test_build_peak_memory_claude_local(
    benchmark: BenchmarkFixture, local_model: None, claude_docs: Path, tmp_path: Path
) -> None:
    _build(benchmark, claude_docs, tmp_path / "out", "--embedding-provider", "local")


def test_serve_peak_memory_claude_local_hybrid(
    benchmark: BenchmarkFixture, claude_local_index: Path, evaldata_dir: Path
) -> None:
    questions = question_texts(claude_docs_queries(evaldata_dir))

    async def ask_all(url: str) -> None:
        async with Client(url) as client:
            for question in questions:
                result = await client.call_tool("search_docs", {"query": question})
                assert not result.is_error and result.structured_content["mode"] == "hybrid"  # type: ignore[index]

    with http_server(claude_local_index) as (process, url):
        started = memory_mib(process.pid)
        benchmark.pedantic(lambda: anyio.run(ask_all, url), rounds=1, iterations=1)
        peak = memory_mib(process.pid, "VmHWM")
    benchmark.extra_info.update(rss_mib_start=round(started, 1), peak_rss_mib=round(peak, 1))
    print(
        f"\nserve (local hybrid): RSS {started:.0f} MiB ready, peak {peak:.0f} MiB after 100 questions",
        end="",
    )


CONCURRENT_CLIENTS = 32
CALLS_PER_CLIENT = 8


def test_serve_memory_under_32_concurrent_clients(benchmark: BenchmarkFixture, corpora_index: Path) -> None:
    """Issue 23: the HTTP server on the SDK corpora (full text) with 32 MCP clients searching at once;
    its resident memory when ready, after, and its peak, and the clients' search latency (p50, p95)
    under that load. Each search in flight holds its own native (LanceDB) working memory, which the
    process keeps: the peak follows MAX_CONCURRENT_INDEX_CALLS, not the number of clients (the
    Python heap's own peak stays within a few MiB of its steady size, traced with tracemalloc)."""
    from benchmarks import sdk_set

    questions = [q.query for q in sdk_set.load_set()]
    latencies: list[float] = []

    async def one_client(url: str, offset: int) -> None:
        async with Client(url) as client:
            for n in range(CALLS_PER_CLIENT):
                question = questions[(offset * 5 + n) % len(questions)]
                started = time.perf_counter()
                result = await client.call_tool("search_docs", {"query": question})
                latencies.append(time.perf_counter() - started)
                assert not result.is_error

    async def all_clients(url: str) -> None:
        async with anyio.create_task_group() as group:
            for offset in range(CONCURRENT_CLIENTS):
                group.start_soon(one_client, url, offset)

    with http_server(corpora_index) as (process, url):
        anyio.run(one_client, url, 0)  # warm: the index open, the first searches
        ready = memory_mib(process.pid)
        latencies.clear()
        benchmark.pedantic(lambda: anyio.run(all_clients, url), rounds=1, iterations=1)
        after = memory_mib(process.pid)
        peak = memory_mib(process.pid, "VmHWM")
    cuts = statistics.quantiles(latencies, n=20)
    p50_ms, p95_ms = statistics.median(latencies) * 1000, cuts[18] * 1000
    benchmark.extra_info.update(
        rss_mib_ready=round(ready, 1),
        rss_mib_after=round(after, 1),
        peak_rss_mib=round(peak, 1),
        search_p50_ms=round(p50_ms, 1),
        search_p95_ms=round(p95_ms, 1),
    )
    print(
        f"\n32 clients: RSS {ready:.0f} MiB ready, {after:.0f} after, peak {peak:.0f} MiB;"
        f" search p50 {p50_ms:.0f} ms, p95 {p95_ms:.0f} ms",
        end="",
    )
