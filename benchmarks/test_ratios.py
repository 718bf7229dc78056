"""Speed as ratios measured in one run, so a gate on them holds on a busy shared machine.

Absolute timings swing several-fold when other jobs share the 2 cores; a ratio of two timings taken
interleaved, call for call, in the same process does not, since both sides slow down together. CI
gates these (thresholds.toml ``[ci.extra_max]``); absolute timing gates stay in ``just bench``.

- ``test_search_over_lancedb``: ``DocsIndex.search`` (full text, claude-docs questions) against
  LanceDB's own trivial query (one word, one column, ids only) on the same table: what our query
  building, phrase clauses, catalog and snippets cost over the engine's floor.
- ``test_search_docs_over_search``: a ``search_docs`` round trip through the in-process MCP server
  against the ``DocsIndex.search`` it wraps: the cost of the protocol layer (argument checks,
  worker thread, cursor signing, result shaping).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from itertools import cycle
from pathlib import Path
from typing import Any

import lancedb
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from lancedb.query import MatchQuery
from mcp import Client
from pytest_benchmark.fixture import BenchmarkFixture

from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.server.tools.app import create_server
from docs_mcp.store.columns import FTS_BODY, LANCEDB_DIR, TABLE_NAME
from testkit.evaldata_sets import claude_docs_queries, question_texts

pytestmark = pytest.mark.timeout(600)

ROUNDS, WARMUP = 200, 20


@pytest.fixture(scope="module")
def questions(evaldata_dir: Path) -> list[str]:
    return question_texts(claude_docs_queries(evaldata_dir))


@pytest.fixture(scope="module")
def portal() -> Iterator[BlockingPortal]:
    with start_blocking_portal(backend="asyncio") as running:
        yield running


def _interleaved(
    benchmark: BenchmarkFixture, subject: Callable[[], object], floor: Callable[[], object], name: str
) -> float:
    """Time ``subject`` and ``floor`` alternately; record both p50s and their ratio under ``name``."""
    timings: dict[str, list[float]] = {"subject": [], "floor": []}

    def one() -> None:
        for label, call in (("subject", subject), ("floor", floor)):
            started = time.perf_counter()
            call()
            timings[label].append(time.perf_counter() - started)

    for _ in range(WARMUP):
        one()
    timings = {"subject": [], "floor": []}
    benchmark.pedantic(one, rounds=ROUNDS, iterations=1)
    subject_ms = statistics.median(timings["subject"]) * 1000
    floor_ms = statistics.median(timings["floor"]) * 1000
    ratio = subject_ms / floor_ms
    benchmark.extra_info.update(
        {"subject_p50_ms": round(subject_ms, 3), "floor_p50_ms": round(floor_ms, 3), name: round(ratio, 2)}
    )
    print(f" p50 {subject_ms:.2f} ms over {floor_ms:.2f} ms: {ratio:.2f}x", end="")
    return ratio


def test_search_over_lancedb(
    benchmark: BenchmarkFixture, claude_fulltext_index: Path, questions: list[str]
) -> None:
    index = DocsIndex.open(claude_fulltext_index)
    table = lancedb.connect(str(claude_fulltext_index / LANCEDB_DIR)).open_table(TABLE_NAME)
    asked = cycle(questions)

    def trivial() -> Any:
        query = table.search(MatchQuery("api", FTS_BODY), query_type="fts")
        return query.select(["id", "_score"]).limit(10).to_list()

    _interleaved(
        benchmark, lambda: index.search(SearchRequest(next(asked), limit=10)), trivial, "search_over_lancedb"
    )


def test_search_docs_over_search(
    benchmark: BenchmarkFixture, claude_fulltext_index: Path, questions: list[str], portal: BlockingPortal
) -> None:
    index = DocsIndex.open(claude_fulltext_index)
    asked = cycle(questions)
    state = {"question": questions[0]}

    def direct() -> Any:
        return index.search(SearchRequest(state["question"], limit=10))

    with portal.wrap_async_context_manager(Client(create_server(index))) as client:

        def round_trip() -> Any:
            state["question"] = next(asked)  # the same question on both sides
            result = portal.call(client.call_tool, "search_docs", {"query": state["question"], "limit": 10})
            assert not result.is_error
            return result

        _interleaved(benchmark, round_trip, direct, "search_docs_over_search")
