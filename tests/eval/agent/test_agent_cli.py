"""``docs-mcp agent-eval`` as a user runs it: a real process, the real server, the wire model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_support import SCRIPTED

from testkit.model_wire import WireServer


def _agent_eval(*args: str, key: str = "test-key") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": key}
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", "agent-eval", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )


@pytest.mark.timeout(300)
def test_it_prints_the_tables_reports_progress_and_writes_the_report_and_the_results(
    scripted_wire: WireServer, acme_index: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report.json"
    common = (
        str(SCRIPTED),
        "--index",
        str(acme_index),
        "--model",
        "scripted",
        "--base-url",
        scripted_wire.base_url,
    )
    done = _agent_eval(*common, "--only", "docs-flow,wrong", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "agent-eval: [2/2] " in done.stderr
    assert "per scenario:" in done.stdout and "docs-flow" in done.stdout
    report = json.loads(out.read_text())
    assert report["summary"]["with"]["passed"] == 1
    assert len((tmp_path / "report.runs.jsonl").read_text().splitlines()) == 2
    again = _agent_eval(*common, "--only", "docs-flow,wrong", "--out", str(out), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["resumed"] == 2


def test_a_bad_scenario_file_is_one_line_naming_file_and_line(acme_index: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("scenarios:\n  - id: a\n    prompt: p\n    limits: {turns: many}\n")
    done = _agent_eval(
        str(bad), "--index", str(acme_index), "--model", "m", "--base-url", "http://127.0.0.1:9/v1"
    )
    assert done.returncode == 1
    assert done.stderr.startswith(
        f"docs-mcp: error: {bad}:4: scenarios[0].limits.turns: 'many' is not of type"
    )
    assert "Traceback" not in done.stderr


def test_an_unknown_model_stops_before_any_scenario(scripted_wire: WireServer, acme_index: Path) -> None:
    done = _agent_eval(
        str(SCRIPTED), "--index", str(acme_index), "--model", "nope", "--base-url", scripted_wire.base_url
    )
    assert done.returncode == 1
    assert "serves no model 'nope'; it serves: scripted" in done.stderr
    assert [path for path, _ in scripted_wire.log] == ["/v1/models"]
