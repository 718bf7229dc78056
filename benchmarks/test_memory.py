"""Peak memory of ``docs-mcp build`` and ``docs-mcp serve``, each a real process.

Build: the kernel's high-water mark (``ru_maxrss``) of the whole command, on the dub + mistral corpora
(full text, 3,958 files) and on claude-docs with the local model (ONNX runtime loaded). Serve: the
HTTP server's ``VmHWM`` after answering the 100 claude-docs questions over MCP, hybrid with the local
model. Run: ``.venv/bin/python -m pytest benchmarks/test_memory.py --benchmark-only -s``.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks.serving import docs_mcp, http_server, memory_mib, peak_rss
from docs_mcp.eval import load_queries
from testkit.evaldata_sets import claude_docs_queries

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def _build(benchmark: BenchmarkFixture, docs: Path, out: Path, *extra: str) -> None:
    figures: list[tuple[float, float]] = []
    command = docs_mcp("build", "--docs-dir", str(docs), "--out", str(out), *extra)
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
    questions = [q.query for q in load_queries(claude_docs_queries(evaldata_dir))]

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
