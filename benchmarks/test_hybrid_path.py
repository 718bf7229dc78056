"""The hybrid path at 100k chunks, end to end as an agent pays it: a ``search_docs`` call through the
in-process MCP server, the query embedded by the local model, the vector leg over 100k x 384-d rows
(IVF_HNSW_SQ) and the BM25 leg, fused, with snippets.

The index is the synthetic 100k one of conftest.py (random vectors, so the ranking means nothing and
the timing everything), presented under a manifest that names the local model, so the server builds
the same query embedder a real local-model index gets. Run:
``.venv/bin/python -m pytest benchmarks/test_hybrid_path.py --benchmark-only -s``.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from dataclasses import replace
from itertools import cycle
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks.test_search import QUERIES
from docs_mcp.embedding.local import LocalProvider
from docs_mcp.search.index import DocsIndex
from docs_mcp.server.tools.app import create_server
from docs_mcp.store.columns import LANCEDB_DIR
from docs_mcp.store.index_manifest import EmbeddingInfo, read_manifest, write_manifest

pytestmark = pytest.mark.timeout(1800)


@pytest.fixture(scope="module")
def local_100k(local_model: None, synthetic_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic index's table under a manifest naming the local model (same 384 dimensions)."""
    root = tmp_path_factory.mktemp("local-100k")
    (root / LANCEDB_DIR).symlink_to(synthetic_index / LANCEDB_DIR, target_is_directory=True)
    provider = LocalProvider()
    manifest = read_manifest(synthetic_index)
    embedding = EmbeddingInfo(provider.name, provider.model, provider.dimensions)
    write_manifest(root, replace(manifest, embedding=embedding))
    return root


@pytest.fixture(scope="module")
def client(local_100k: Path) -> Iterator[tuple[Any, Client]]:
    server = create_server(DocsIndex.open(local_100k))
    with (
        start_blocking_portal(backend="asyncio") as portal,
        portal.wrap_async_context_manager(Client(server)) as connected,
    ):
        yield portal, connected


@pytest.mark.parametrize("filtered", ["none", "language"])
def test_search_docs_hybrid_100k(
    benchmark: BenchmarkFixture, client: tuple[Any, Client], filtered: str
) -> None:
    portal, connected = client
    asked = cycle(QUERIES)
    filters = {"language": "python"} if filtered == "language" else {}

    def one() -> None:
        result = portal.call(connected.call_tool, "search_docs", {"query": next(asked), **filters})
        assert not result.is_error and result.structured_content["mode"] == "hybrid"

    benchmark.pedantic(one, rounds=100, iterations=1, warmup_rounds=5)
    timings = sorted(benchmark.stats.stats.data)
    p95 = timings[min(len(timings) - 1, int(len(timings) * 0.95))]
    benchmark.extra_info.update(
        p50_ms=round(statistics.median(timings) * 1000, 2), p95_ms=round(p95 * 1000, 2)
    )
    print(f" p50 {benchmark.extra_info['p50_ms']} ms, p95 {benchmark.extra_info['p95_ms']} ms", end="")
