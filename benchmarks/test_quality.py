"""Retrieval quality on the claude-docs labelled set (100 questions, top 3): recall@3 and MRR@3.

Full text always; local vector-only and local hybrid when the local model and its tokenizer are
installed. The figures go into ``benchmark.extra_info`` (``recall_at_3``, ``mrr_at_3``); the timing
is of the whole 100-question evaluation. Run:
``.venv/bin/python -m pytest benchmarks/test_quality.py --benchmark-only -s``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from evaldata_sets import claude_docs_queries, stage_claude_docs
from pytest_benchmark.fixture import BenchmarkFixture

from docs_mcp.build.pipeline import BuildOptions, build
from docs_mcp.errors import ConfigError
from docs_mcp.eval.retrieval import RetrievalReport, evaluate

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def claude_docs(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return stage_claude_docs(evaldata_dir, tmp_path_factory.mktemp("claude-docs") / "docs")


@pytest.fixture(scope="module")
def fulltext_index(claude_docs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("claude-fulltext") / "out"
    build(BuildOptions(docs_dir=claude_docs, out=out))
    return out


@pytest.fixture(scope="module")
def local_index(claude_docs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from docs_mcp.embedding import local

    try:
        local.find_tokenizer()
    except ConfigError as missing:
        pytest.skip(f"local model not installed: {missing}")
    out = tmp_path_factory.mktemp("claude-local") / "out"
    build(BuildOptions(docs_dir=claude_docs, out=out, embedding_provider="local"))
    return out


def _measure(benchmark: BenchmarkFixture, index: Path, queries: Path, mode: str) -> RetrievalReport:
    reports: list[RetrievalReport] = []

    def run() -> None:
        reports.append(evaluate(index, queries, k=3, mode=mode))  # type: ignore[arg-type]

    benchmark.pedantic(run, rounds=1, iterations=1)
    report = reports[-1]
    assert len(report.queries) == 100 and report.mode == mode, report.fallback_reasons
    benchmark.extra_info.update(recall_at_3=round(report.recall, 4), mrr_at_3=round(report.mrr, 4))
    print(f" {mode}: recall@3 {report.recall:.3f}, MRR@3 {report.mrr:.3f}", end="")
    return report


def test_quality_fulltext(benchmark: BenchmarkFixture, fulltext_index: Path, evaldata_dir: Path) -> None:
    _measure(benchmark, fulltext_index, claude_docs_queries(evaldata_dir), "fulltext")


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_quality_local(benchmark: BenchmarkFixture, local_index: Path, evaldata_dir: Path, mode: str) -> None:
    _measure(benchmark, local_index, claude_docs_queries(evaldata_dir), mode)
