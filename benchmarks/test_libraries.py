"""Several libraries in one server (issue 22): search latency, resident memory and time to ready for
1, 3 and 10 indexes, each a real ``docs-mcp serve --transport http`` process.

The libraries are copies of the claude-docs index (full text), each its own folder opened on its
own; the 100 claude-docs questions are asked of ``lib0`` (``library`` given) and of every library at
once, the servers' turns interleaved so that a busy machine slows them alike. Run:
``.venv/bin/python -m pytest benchmarks/test_libraries.py --benchmark-only -s``.
"""

from __future__ import annotations

import json
import shutil
import statistics
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks.serving import Running, docs_mcp, http_process, memory_mib
from testkit.evaldata_sets import claude_docs_queries, question_texts

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
COUNTS = (1, 3, 10)
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@contextmanager
def _hub(folders: list[Path]) -> Iterator[Running]:
    """``serve`` with one ``--index libN=FOLDER`` each, once every index is open."""
    named = [part for n, folder in enumerate(folders) for part in ("--index", f"lib{n}={folder}")]
    with http_process(docs_mcp("serve", *named, "--transport", "http", "--port", "0")) as running:
        yield running


def _ask(client: httpx.Client, url: str, arguments: dict[str, object]) -> float:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    body["params"] = {"name": "search_docs", "arguments": arguments}
    started = time.perf_counter()
    response = client.post(url, content=json.dumps(body))
    seconds = time.perf_counter() - started
    assert response.status_code == 200 and not response.json()["result"].get("isError"), response.text[:300]
    return seconds


def _percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered) * 1000, ordered[int(0.95 * (len(ordered) - 1))] * 1000


def test_search_and_memory_for_1_3_and_10_indexes(
    benchmark: BenchmarkFixture, claude_fulltext_index: Path, evaldata_dir: Path, tmp_path: Path
) -> None:
    folders = []
    for n in range(max(COUNTS)):
        folder = tmp_path / f"lib{n}"
        shutil.copytree(claude_fulltext_index, folder)
        folders.append(folder)
    questions = question_texts(claude_docs_queries(evaldata_dir))
    given: dict[int, list[float]] = {n: [] for n in COUNTS}
    merged: dict[int, list[float]] = {n: [] for n in COUNTS}
    figures: dict[str, float] = {}

    with _hub(folders[:1]):  # a first start pays for the cold file cache: not part of the figures
        pass

    def run() -> None:
        with ExitStack() as stack, httpx.Client(headers=HEADERS, timeout=30) as client:
            servers = {n: stack.enter_context(_hub(folders[:n])) for n in COUNTS}
            for n, running in servers.items():
                _ask(client, running.url, {"query": "warm up", "library": "lib0"})
                figures[f"listening_s_{n}"] = round(running.listening_s, 2)  # tools/list answered
                figures[f"ready_s_{n}"] = round(running.ready_s, 2)  # every index open
                figures[f"rss_mib_{n}"] = round(memory_mib(running.process.pid), 1)
            for question in questions:  # interleaved: each server's turn under the same load
                for n, running in servers.items():
                    given[n].append(_ask(client, running.url, {"query": question, "library": "lib0"}))
                    merged[n].append(_ask(client, running.url, {"query": question}))
            for n, running in servers.items():
                figures[f"rss_mib_after_{n}"] = round(memory_mib(running.process.pid), 1)

    benchmark.pedantic(run, rounds=1, iterations=1)
    for n in COUNTS:
        p50, p95 = _percentiles(given[n])
        m50, m95 = _percentiles(merged[n])
        figures.update({f"p50_ms_{n}": round(p50, 2), f"p95_ms_{n}": round(p95, 2)})
        figures.update({f"merged_p50_ms_{n}": round(m50, 2), f"merged_p95_ms_{n}": round(m95, 2)})
    figures["p50_ratio_10_over_1"] = round(figures["p50_ms_10"] / figures["p50_ms_1"], 3)
    figures["rss_mib_per_added_index"] = round(
        (figures["rss_mib_after_10"] - figures["rss_mib_after_1"]) / 9, 1
    )
    benchmark.extra_info.update(figures)
    print("\n" + "\n".join(f"{key} {value}" for key, value in figures.items()))
