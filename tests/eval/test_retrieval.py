from __future__ import annotations

from pathlib import Path

import pytest
from evaldata_sets import claude_docs_queries, stage_claude_docs

from docs_mcp.build.pipeline import BuildOptions, build
from docs_mcp.cli.main import main
from docs_mcp.errors import ConfigError
from docs_mcp.eval.retrieval import evaluate, load_queries, score

pytestmark = pytest.mark.timeout(120)


def test_recall_counts_every_relevant_id_and_rr_the_first() -> None:
    assert score(["a", "b"], ["x", "b", "a", "c"], k=3) == (1.0, 0.5)
    assert score(["a", "b"], ["x", "y", "z", "a"], k=3) == (0.0, 0.0)
    assert score(["a"], ["a"], k=3) == (1.0, 1.0)


def test_a_bad_query_line_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "1", "query": "q", "relevant": ["a"]}\n{"query": 1}\n')
    with pytest.raises(ConfigError, match=r"q\.jsonl:2"):
        load_queries(path)


@pytest.fixture(scope="module")
def claude_index(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("claude")
    build(BuildOptions(docs_dir=stage_claude_docs(evaldata_dir, root / "docs"), out=root / "out"))
    return root / "out"


@pytest.mark.slow
def test_full_text_quality_on_claude_docs_stays_near_the_measured_figures(
    claude_index: Path, evaldata_dir: Path
) -> None:
    report = evaluate(claude_index, claude_docs_queries(evaldata_dir), k=3)
    assert len(report.queries) == 100
    assert report.mode == "fulltext"
    # Measured 0.723 / 0.867 (benchmarks/test_quality.py); a floor a little below catches regressions.
    assert report.recall >= 0.70
    assert report.mrr >= 0.84


@pytest.mark.slow
def test_the_eval_command_prints_the_scores(
    claude_index: Path, evaldata_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = evaldata_dir / "claude-docs" / "queries.jsonl"
    assert main(["eval", "--index", str(claude_index), "--queries", str(queries), "--k", "3"]) == 0
    assert "100 queries, mode fulltext: recall@3 0." in capsys.readouterr().out
