"""Retrieval quality on the claude-docs labelled set (100 questions), measured by the eval harness
through the real MCP server in process, exactly as ``docs-mcp eval`` does.

Full text always; local vector-only and local hybrid when the local model is installed. Hits are
matched to the gold ids exactly (``match="exact"``), the rule the project's figures were recorded
with. ``extra_info`` holds recall, MRR and nDCG at k = 1, 3, 5, 10 (``recall_at_3`` ...); the
``ci`` gates of thresholds.toml check recall@3 and MRR@3 on every change (.ci/run). The timing is
of the whole evaluation. Run: ``.venv/bin/python -m pytest benchmarks/test_quality.py -s``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from docs_mcp.eval import EvalOptions, EvalReport, evaluate
from docs_mcp.search.types import SearchMode
from testkit.evaldata_sets import claude_docs_queries

pytestmark = pytest.mark.timeout(900)

KS = (1, 3, 5, 10)
RECORDED = ("recall", "mrr", "ndcg")


def _measure(benchmark: BenchmarkFixture, index: Path, queries: Path, mode: SearchMode) -> EvalReport:
    reports: list[EvalReport] = []
    options = EvalOptions(queries=queries, index=index, ks=KS, mode=mode, match="exact")
    benchmark.pedantic(lambda: reports.append(evaluate(options)), rounds=1, iterations=1)
    run = reports[-1].primary
    assert len(run.queries) == 100 and run.modes == [mode], run.fallback_reasons
    metrics = run.metrics
    benchmark.extra_info.update(
        {f"{name}_at_{k}": round(metrics[f"{name}@{k}"], 4) for name in RECORDED for k in KS}
    )
    benchmark.extra_info["search_p50_ms"] = run.latency()["p50"]
    print(f" {mode}: recall@3 {metrics['recall@3']:.3f}, MRR@3 {metrics['mrr@3']:.3f}", end="")
    return reports[-1]


def test_quality_fulltext(
    benchmark: BenchmarkFixture, claude_fulltext_index: Path, evaldata_dir: Path
) -> None:
    _measure(benchmark, claude_fulltext_index, claude_docs_queries(evaldata_dir), "fulltext")


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_quality_local(
    benchmark: BenchmarkFixture, claude_local_index: Path, evaldata_dir: Path, mode: SearchMode
) -> None:
    _measure(benchmark, claude_local_index, claude_docs_queries(evaldata_dir), mode)
