"""The whole loop against the real server and a scripted model on 127.0.0.1, in both wire formats:
tool calls to search_docs, get_doc and the workspace tools, malformed arguments, escapes, 429 and
5xx with Retry-After, a model that never stops, and the judging of each run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from agent_support import SCRIPTED, SCRIPTS

from docs_mcp.eval.agent import AgentEvalOptions, AgentReport, agent_eval
from docs_mcp.eval.agent.results import RunResult
from testkit.model_players import Scripted
from testkit.model_wire import WireServer, model_wire


@dataclass
class Ran:
    report: AgentReport
    wire: WireServer
    progress: list[str]
    results: Path
    workspaces: Path

    def run(self, scenario: str) -> RunResult:
        return next(run for run in self.report.runs if run.scenario == scenario)


@pytest.fixture(scope="module", params=["openai", "anthropic"])
def ran(
    request: pytest.FixtureRequest, acme_index: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Ran]:
    folder = tmp_path_factory.mktemp(f"scripted-{request.param}")
    with pytest.MonkeyPatch.context() as patch, model_wire(Scripted(SCRIPTS), key="test-key") as wire:
        patch.setenv("OPENAI_API_KEY", "test-key")
        patch.setenv("ANTHROPIC_API_KEY", "test-key")
        progress: list[str] = []
        prices = folder / "prices.json"  # a dollar per thousand tokens: the first turn spends the budget
        prices.write_text(json.dumps({"scripted": {"input": 1000, "output": 1000}}))
        options = AgentEvalOptions(
            scenarios=SCRIPTED,
            model="scripted",
            index=acme_index,
            provider=request.param,
            base_url=wire.base_url,
            concurrency=3,
            results=folder / "runs.jsonl",
            keep_workspaces=folder / "workspaces",
            prices=prices,
        )
        report = agent_eval(options, progress.append)
        yield Ran(report, wire, progress, folder / "runs.jsonl", folder / "workspaces")


def test_the_agent_searches_reads_writes_and_answers_through_the_real_server(ran: Ran) -> None:
    flow = ran.run("docs-flow")
    assert flow.status == "passed", flow.checks
    assert flow.stop == "stopped"
    assert flow.turns == 4
    assert flow.tool_calls == {"get_doc": 1, "search_docs": 1, "write_file": 1}
    assert flow.tool_errors == 0
    assert flow.activated
    assert "idempotency" in (ran.workspaces / "with" / "docs-flow" / "notes.md").read_text()


def test_a_soft_check_that_fails_is_reported_and_does_not_fail_the_run(ran: Ran) -> None:
    soft = [check for check in ran.run("docs-flow").checks if check["soft"]]
    assert soft == [
        {"label": "a soft check that fails", "ok": False, "soft": True, "detail": "the answer does not match"}
    ]


def test_malformed_arguments_go_back_to_the_model_as_an_error_and_the_run_goes_on(ran: Ran) -> None:
    malformed = ran.run("malformed")
    assert malformed.status == "passed", malformed.checks
    assert malformed.tool_errors == 1
    assert malformed.tool_calls == {"read_file": 1, "search_docs": 1}


def test_paths_outside_the_folder_and_unknown_tools_are_refused_without_ending_the_run(ran: Ran) -> None:
    escape = ran.run("escape")
    assert escape.status == "passed"
    assert escape.tool_errors == 3
    assert not (ran.workspaces / "with" / "outside.txt").exists()


def test_429_and_503_with_retry_after_are_retried(ran: Ran) -> None:
    limited = ran.run("rate-limited")
    assert limited.status == "passed"
    assert limited.retries == 3
    statuses = [status for path, status in ran.wire.log if path.startswith(("/v1/chat", "/v1/messages"))]
    assert statuses.count(429) == 2 and statuses.count(503) == 1


def test_a_model_that_never_stops_is_ended_by_the_turn_limit(ran: Ran) -> None:
    forever = ran.run("forever")
    assert (forever.stop, forever.turns, forever.status) == ("turn_limit", 3, "failed")
    assert forever.tool_calls == {"list_files": 3}


def test_a_run_whose_hard_check_fails_fails(ran: Ran) -> None:
    wrong = ran.run("wrong")
    assert wrong.status == "failed"
    assert wrong.checks == [
        {
            "label": "answer contains 'right'",
            "ok": False,
            "soft": False,
            "detail": "the answer does not contain it",
        }
    ]


def test_token_and_dollar_limits_end_a_run_after_the_turn_that_crosses_them(ran: Ran) -> None:
    tokens, dollars = ran.run("token-cap"), ran.run("budget-cap")
    assert (tokens.stop, tokens.turns, tokens.status) == ("token_limit", 1, "passed")
    assert (dollars.stop, dollars.turns) == ("budget_limit", 1)
    assert dollars.cost == pytest.approx((dollars.input_tokens + dollars.output_tokens) / 1000)


def test_the_report_counts_passes_activation_turns_tokens_and_cost(ran: Ran) -> None:
    report = ran.report.to_dict()
    summary = report["summary"]["with"]
    assert (summary["scenarios"], summary["passed"], summary["errors"]) == (8, 6, 0)
    assert summary["pass_rate"] == round(6 / 8, 4)
    # docs-flow searched; malformed tried to (its call did not parse, but the agent reached for the docs)
    assert summary["activation_rate"] == round(2 / 8, 4)
    assert summary["input_tokens"] == sum(run.input_tokens for run in ran.report.runs) > 0
    assert summary["cost"] == pytest.approx(sum(run.cost or 0 for run in ran.report.runs))
    assert summary["tool_calls"]["list_files"] == 3 + 1 + 1 + 1 + 1  # forever, escape, rate-limited, caps
    assert report["categories"]["limits"]["with"]["passed"] == 2  # the caps pass, forever and wrong fail


def test_progress_names_each_run_as_it_ends_and_each_result_is_on_disk(ran: Ran) -> None:
    ended = [line for line in ran.progress if line.startswith("[")]
    assert len(ended) == 8 and ended[-1].startswith("[8/8] ")
    lines = ran.results.read_text().splitlines()
    assert sorted(RunResult.from_dict(json.loads(line)).scenario for line in lines) == sorted(
        run.scenario for run in ran.report.runs
    )
