"""``docs-mcp eval`` parses, calls ``evaluate`` and prints a table or the JSON report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_support import ANIMAL_QUERIES

from docs_mcp.cli.main import main

pytestmark = pytest.mark.timeout(120)


def test_the_table_shows_every_metric_at_every_k_and_the_categories(
    animals_index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "--index", str(animals_index), "--queries", str(ANIMAL_QUERIES), "--k", "1,3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"4 queries from {ANIMAL_QUERIES}")
    for row in ("recall", "precision", "mrr", "ndcg", "hit"):
        assert any(line.split()[:1] == [row] for line in out.splitlines()), row
    assert "search_docs latency: p50" in out
    assert "category" in out and "pages" in out


def test_json_goes_to_stdout_and_out_and_serves_as_a_baseline(
    animals_index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    common = ["eval", "--index", str(animals_index), "--queries", str(ANIMAL_QUERIES), "--k", "5"]
    assert main([*common, "--json", "--out", str(report), "--match", "exact"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(report.read_text())
    assert set(printed["metrics"]) == {"recall@5", "precision@5", "mrr@5", "ndcg@5", "hit@5"}
    assert set(printed["latency_ms"]) >= {"p50", "p95"}
    assert len(printed["per_query"]) == 4
    assert main([*common, "--baseline", str(report)]) == 0
    out = capsys.readouterr().out
    assert f"against the baseline {report}" in out
    assert "better: 2 queries" in out


def test_a_bad_query_file_exits_1_naming_the_line(
    animals_index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "a", "query": "x"}\n')
    assert main(["eval", "--index", str(animals_index), "--queries", str(queries)]) == 1
    assert f"{queries}:1: missing 'relevant'" in capsys.readouterr().err


def test_compare_prints_one_column_per_provider(
    animals_docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", "--build", str(animals_docs), "--compare", "none,hash", "--queries", str(ANIMAL_QUERIES)]
    assert main([*argv, "--k", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].split() == ["metric", "none", "hash"]
    assert [line.split()[0] for line in lines[3:8]] == ["recall@1", "precision@1", "mrr@1", "ndcg@1", "hit@1"]
    assert any(line.startswith("hash: index ") and "mode hybrid" in line for line in lines)


def test_the_eval_command_module_loads_no_mcp_client_or_lancedb() -> None:
    import subprocess
    import sys

    loaded = "sorted({'mcp', 'lancedb', 'anyio'} & set(sys.modules))"
    probe = f"import sys, docs_mcp.cli.commands.eval; print({loaded})"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
