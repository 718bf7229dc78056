"""Retrieval quality on the SDK question set (tests/data/sdk_queries.jsonl: 51 questions on the dub +
mistral corpora, top 5), scored by ``benchmarks/sdk_set.py``: recall over answers, MRR, and
``repeated_sections``, the questions sent without a language filter whose top 5 shows one section in
two languages (issue 15's folding drives it to 0; ``repeated_sections_strict`` uses the issue's
wording of "the same section"). Full text, and local hybrid when the local model is installed (that
build embeds 8,260 chunks: minutes, so ``./dev bench`` runs it, not the per-change quality gates).
``test_quality_sdk_fulltext_without_folding`` turns folding and query-named languages off, for
their effect in the same run.
Run: ``.venv/bin/python -m pytest benchmarks/test_quality_sdk.py -s``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks import sdk_set
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.config import SearchConfig
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchMode

pytestmark = pytest.mark.timeout(1800)


@pytest.fixture(scope="module")
def corpora_local_index(
    local_model: None, corpora_docs: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    out = tmp_path_factory.mktemp("corpora-local") / "out"
    build(BuildOptions(docs_dir=corpora_docs, out=out, embedding_provider="local"))
    return out


def _measure(
    benchmark: BenchmarkFixture, index: Path, mode: SearchMode, config: SearchConfig | None = None
) -> None:
    queries = sdk_set.load_set()
    figures: list[dict[str, sdk_set.Figures]] = []
    benchmark.pedantic(
        lambda: figures.append(sdk_set.evaluate(DocsIndex.open(index, config=config), queries, 5, mode)),
        rounds=1,
        iterations=1,
    )
    every = figures[-1]["all"]
    assert every.queries == len(queries) >= 40
    benchmark.extra_info.update(
        recall_at_5=round(every.recall / every.queries, 4),
        mrr_at_5=round(every.reciprocal_rank / every.queries, 4),
        repeated_sections=every.repeated_loose,
        repeated_sections_strict=every.repeated_strict,
    )
    print(f" {every.line('sdk ' + mode, 5)}", end="")


def test_quality_sdk_fulltext(benchmark: BenchmarkFixture, corpora_index: Path) -> None:
    _measure(benchmark, corpora_index, "fulltext")


def test_quality_sdk_fulltext_without_folding(benchmark: BenchmarkFixture, corpora_index: Path) -> None:
    _measure(benchmark, corpora_index, "fulltext", SearchConfig(fold=False, infer_filters=False))


def test_quality_sdk_local_hybrid(benchmark: BenchmarkFixture, corpora_local_index: Path) -> None:
    _measure(benchmark, corpora_local_index, "hybrid")
