"""Search latency in process: full text, vector and hybrid, with and without a facet filter.

On the real corpora index (no vectors: full text) and the synthetic 100k x 384-d index. The corpora
index folds languages (``vector_collapse``); ``test_search_corpora_fulltext_unfolded`` is the same
search with folding off, for the cost of folding in the same run (its five queries repeat, so each
chunk's fold signature is computed once and reused). ``test_search_corpora_sdk_questions`` runs the
51 SDK questions once each on a freshly opened index, folding and query-named languages on and off:
what folding costs when every chunk is new to it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks import sdk_set
from docs_mcp.embedding.provider import EmbeddingProvider
from docs_mcp.search.config import SearchConfig
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest

QUERIES = [
    "create link",
    "retry timeout",
    "how do I paginate list results",
    "createLink request",
    "page token",
]
FILTERS: dict[str, dict[str, str]] = {"none": {}, "language": {"language": "python"}}


class _RandomQueryEmbedder:
    """Fixed-width query vectors (the synthetic index's vectors are random too)."""

    name = "hash"
    model = "hash-bow-v1"
    dimensions = 384

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        import numpy as np

        vector = np.random.default_rng(abs(hash(text)) % 2**32).standard_normal(self.dimensions)
        return [float(v) for v in vector / np.linalg.norm(vector)]


@pytest.fixture(scope="module")
def corpora(corpora_index: Path) -> DocsIndex:
    return DocsIndex.open(corpora_index)


@pytest.fixture(scope="module")
def corpora_unfolded(corpora_index: Path) -> DocsIndex:
    return DocsIndex.open(corpora_index, config=SearchConfig(fold=False))


@pytest.fixture(scope="module")
def synthetic(synthetic_index: Path) -> DocsIndex:
    embedder: EmbeddingProvider = _RandomQueryEmbedder()  # type: ignore[assignment]
    return DocsIndex.open(synthetic_index, query_embedder=embedder)


def _run(benchmark: BenchmarkFixture, index: DocsIndex, mode: str, filters: dict[str, str]) -> None:
    requests = [SearchRequest(q, filters=filters, limit=10, mode=mode) for q in QUERIES]  # type: ignore[arg-type]
    state = {"i": 0}

    def one() -> None:
        state["i"] += 1
        page = index.search(requests[state["i"] % len(requests)])
        assert page.mode == mode

    benchmark.pedantic(one, rounds=200, iterations=1, warmup_rounds=10)
    timings = sorted(benchmark.stats.stats.data)  # seconds per search; p95 is not in the default columns
    benchmark.extra_info["p50_ms"] = round(timings[len(timings) // 2] * 1000, 2)
    benchmark.extra_info["p95_ms"] = round(timings[int(len(timings) * 0.95)] * 1000, 2)
    print(f" p50 {benchmark.extra_info['p50_ms']} ms, p95 {benchmark.extra_info['p95_ms']} ms", end="")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("filtered", sorted(FILTERS))
def test_search_corpora_fulltext(benchmark: BenchmarkFixture, corpora: DocsIndex, filtered: str) -> None:
    _run(benchmark, corpora, "fulltext", FILTERS[filtered])


@pytest.mark.timeout(900)
def test_search_corpora_fulltext_unfolded(benchmark: BenchmarkFixture, corpora_unfolded: DocsIndex) -> None:
    _run(benchmark, corpora_unfolded, "fulltext", FILTERS["none"])


@pytest.mark.timeout(900)
@pytest.mark.parametrize("folding", ["on", "off"])
def test_search_corpora_sdk_questions(benchmark: BenchmarkFixture, corpora_index: Path, folding: str) -> None:
    questions = [query.query for query in sdk_set.load_set()]
    config = SearchConfig(fold=folding == "on", infer_filters=folding == "on")

    def fresh() -> tuple[tuple[DocsIndex], dict[str, object]]:
        return (DocsIndex.open(corpora_index, config=config),), {}

    def run(index: DocsIndex) -> None:
        for question in questions:
            index.search(SearchRequest(question, limit=10, mode="fulltext"))

    benchmark.pedantic(run, setup=fresh, rounds=5, iterations=1)
    per_question = benchmark.stats.stats.median / len(questions) * 1000
    benchmark.extra_info["per_question_ms"] = round(per_question, 2)
    print(f" folding {folding}: {per_question:.2f} ms a question", end="")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("filtered", sorted(FILTERS))
@pytest.mark.parametrize("mode", ["fulltext", "vector", "hybrid"])
def test_search_synthetic_100k(
    benchmark: BenchmarkFixture, synthetic: DocsIndex, mode: str, filtered: str
) -> None:
    _run(benchmark, synthetic, mode, FILTERS[filtered])
