"""The with/without comparison, resuming an interrupted run, baseline deltas and the tables, on
runs of the shipped Acme scenarios by the docs-reading player, through the real server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from docs_mcp.eval.agent import AgentEvalOptions, AgentReport, agent_eval
from docs_mcp.eval.agent.report import compare_arms
from docs_mcp.eval.agent.report_text import render
from docs_mcp.eval.agent.results import RunResult
from testkit.model_players import DocsReader
from testkit.model_wire import WireServer, model_wire

REPO_ROOT = Path(__file__).resolve().parents[3]
ACME = REPO_ROOT / "examples" / "agent-eval" / "acme.yaml"


@pytest.fixture(scope="module")
def reader() -> Iterator[WireServer]:
    with model_wire(DocsReader(), models=("docs-reader",)) as wire:
        yield wire


@pytest.fixture(scope="module")
def compared(
    reader: WireServer, acme_index: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[AgentReport, Path]:
    results = tmp_path_factory.mktemp("compared") / "runs.jsonl"
    options = AgentEvalOptions(
        ACME,
        "docs-reader",
        index=acme_index,
        base_url=reader.base_url,
        compare=True,
        concurrency=2,
        results=results,
    )
    return agent_eval(options), results


def _model_calls(wire: WireServer) -> int:
    return sum(1 for path, _ in wire.log if path.startswith("/v1/chat"))


def test_compare_runs_each_scenario_with_and_without_the_server_and_classifies_it(
    compared: tuple[AgentReport, Path],
) -> None:
    report = compared[0].to_dict()
    assert {(run["scenario"], run["arm"]) for run in report["runs"]} == {
        (scenario, arm)
        for scenario in report["comparison"]["gained"]
        + report["comparison"]["both_fail"]
        + report["comparison"]["both_pass"]
        + report["comparison"]["lost"]
        for arm in ("with", "without")
    }
    # The docs-reading player copies the Python SDK's own snippets; without the docs it guesses.
    assert "acme-python-errors" in report["comparison"]["gained"]
    assert report["summary"]["without"]["activation_rate"] is None
    assert report["summary"]["with"]["activation_rate"] == 1.0
    assert report["summary"]["without"]["tool_calls"] == {"write_file": 5}


def test_a_rerun_resumes_from_the_results_file_and_asks_the_model_nothing(
    compared: tuple[AgentReport, Path], reader: WireServer, acme_index: Path
) -> None:
    before = _model_calls(reader)
    options = AgentEvalOptions(
        ACME, "docs-reader", index=acme_index, base_url=reader.base_url, compare=True, results=compared[1]
    )
    again = agent_eval(options)
    assert _model_calls(reader) == before
    assert again.resumed == 10
    assert [run.to_dict() for run in again.runs] == [run.to_dict() for run in compared[0].runs]


def test_only_unfinished_or_changed_scenarios_run_again(
    compared: tuple[AgentReport, Path], reader: WireServer, acme_index: Path, tmp_path: Path
) -> None:
    results = tmp_path / "runs.jsonl"
    kept = [line for line in compared[1].read_text().splitlines() if '"acme-go-errors"' not in line]
    results.write_text("\n".join(kept) + "\n")
    before = _model_calls(reader)
    options = AgentEvalOptions(
        ACME, "docs-reader", index=acme_index, base_url=reader.base_url, compare=True, results=results
    )
    again = agent_eval(options)
    assert again.resumed == 8
    assert _model_calls(reader) - before == 4 + 2  # with: search, read, write, answer; without: write, answer
    fresh = agent_eval(
        AgentEvalOptions(
            ACME, "docs-reader", index=acme_index, base_url=reader.base_url, results=results, fresh=True
        )
    )
    assert fresh.resumed == 0


def test_a_baseline_gives_deltas_and_the_runs_whose_outcome_changed(
    compared: tuple[AgentReport, Path], reader: WireServer, acme_index: Path, tmp_path: Path
) -> None:
    previous = compared[0].to_dict()
    flipped = next(run for run in previous["runs"] if run["status"] == "passed" and run["arm"] == "with")
    flipped["status"] = "failed"
    previous["summary"]["with"]["pass_rate"] -= 0.2
    baseline = tmp_path / "before.json"
    baseline.write_text(json.dumps(previous))
    options = AgentEvalOptions(
        ACME,
        "docs-reader",
        index=acme_index,
        base_url=reader.base_url,
        compare=True,
        results=compared[1],
        baseline=baseline,
    )
    report = agent_eval(options).to_dict()
    deltas = report["baseline"]
    assert deltas["arms"]["with"]["pass_rate"] == pytest.approx(0.2)
    assert deltas["arms"]["without"]["pass_rate"] == 0
    assert deltas["changed"] == [
        {"scenario": flipped["scenario"], "arm": "with", "was": "failed", "now": "passed"}
    ]
    assert f"{flipped['scenario']} (with): failed -> passed" in render(report)


def test_the_table_shows_each_arm_the_comparison_each_category_and_each_scenario(
    compared: tuple[AgentReport, Path],
) -> None:
    text = render(compared[0].to_dict())
    assert "with vs without the docs server:" in text
    for heading in ("per category:", "per scenario:", "gained", "both fail"):
        assert heading in text
    for run in compared[0].runs:
        assert run.scenario in text


def test_the_comparison_classes_follow_each_arms_outcome() -> None:
    def run(scenario: str, arm: str, status: str) -> RunResult:
        return RunResult(scenario, "c", arm, "openai", "m", "d", status=status)

    runs = [
        run("a", "with", "passed"),
        run("a", "without", "failed"),
        run("b", "with", "failed"),
        run("b", "without", "passed"),
        run("c", "with", "passed"),
        run("c", "without", "passed"),
        run("d", "with", "error"),
        run("d", "without", "failed"),
        run("e", "with", "passed"),
    ]
    assert compare_arms(runs) == {"gained": ["a"], "lost": ["b"], "both_pass": ["c"], "both_fail": ["d"]}


def test_the_server_can_be_spawned_over_http_instead_of_stdio(reader: WireServer, acme_index: Path) -> None:
    options = AgentEvalOptions(
        ACME,
        "docs-reader",
        index=acme_index,
        base_url=reader.base_url,
        transport="http",
        only=["acme-python-errors"],
    )
    report = agent_eval(options)
    (run,) = report.runs
    assert (run.status, run.activated, run.tool_calls["get_doc"]) == ("passed", True, 3)
