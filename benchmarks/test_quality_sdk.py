"""Retrieval quality on the SDK question set (tests/data/sdk_queries.jsonl: 68 questions on the dub +
mistral corpora, top 5), scored by ``benchmarks/sdk_set.py``: hit@1, hit@3, recall over answers, MRR,
the share of top-5 slots held by type pages and by copies of a hit above them, and
``repeated_sections``, the questions sent without a language filter whose top 5 shows one section in
two languages (issue 15's folding drives it to 0; ``repeated_sections_strict`` uses the issue's
wording of "the same section").

Three ways the corpora come in (issue 31): staged with manifests (``testkit/evaldata_sets.py``), raw
(the folders as they are: no manifest, facets from the layout), and fixed (raw after
``fix --write``). Full text for all three, local hybrid for the staged and raw folders when the local
model is installed (each local build embeds 8,000+ chunks: minutes, so ``./dev bench`` runs them, not
the per-change quality gates). ``test_quality_sdk_fulltext_without_folding`` turns folding and
query-named languages off, for their effect in the same run.
Run: ``.venv/bin/python -m pytest benchmarks/test_quality_sdk.py -s``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks import sdk_set
from docs_mcp.fix.run import fix
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


@pytest.fixture(scope="module")
def raw_corpora(evaldata_dir: Path) -> Path:
    return evaldata_dir / "corpora"


@pytest.fixture(scope="module")
def raw_index(raw_corpora: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("raw") / "out"
    build(BuildOptions(docs_dir=raw_corpora, out=out))
    return out


@pytest.fixture(scope="module")
def raw_local_index(local_model: None, raw_corpora: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("raw-local") / "out"
    build(BuildOptions(docs_dir=raw_corpora, out=out, embedding_provider="local"))
    return out


@pytest.fixture(scope="module")
def fixed_index(raw_corpora: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = tmp_path_factory.mktemp("fixed") / "docs"
    shutil.copytree(raw_corpora, docs)  # fix --write on a copy: the shared corpora stay as they are
    fix(docs).write()
    out = docs.parent / "out"
    build(BuildOptions(docs_dir=docs, out=out))
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
        hit_at_1=round(every.hit1 / every.queries, 4),
        hit_at_3=round(every.hit3 / every.queries, 4),
        recall_at_5=round(every.recall / every.queries, 4),
        mrr_at_5=round(every.reciprocal_rank / every.queries, 4),
        type_page_share=round(every.type_slots / every.slots, 4),
        duplicate_share=round(every.duplicate_slots / every.slots, 4),
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


def test_quality_sdk_raw_fulltext(benchmark: BenchmarkFixture, raw_index: Path) -> None:
    _measure(benchmark, raw_index, "fulltext")


def test_quality_sdk_raw_local_hybrid(benchmark: BenchmarkFixture, raw_local_index: Path) -> None:
    _measure(benchmark, raw_local_index, "hybrid")


def test_quality_sdk_fixed_fulltext(benchmark: BenchmarkFixture, fixed_index: Path) -> None:
    _measure(benchmark, fixed_index, "fulltext")
