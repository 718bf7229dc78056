"""The release-gate checker reads pytest-benchmark reports and thresholds.toml."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from benchmarks.gate import main
from testkit.thresholds import THRESHOLDS, check, check_figures, gates


def _report(name: str, median_s: float, **extra: float) -> dict[str, object]:
    return {"benchmarks": [{"name": name, "stats": {"median": median_s}, "extra_info": extra}]}


def test_a_median_over_its_limit_fails_the_gate() -> None:
    thresholds = {"median_ms_max": {"test_search": 5.0}}
    assert check(_report("test_search", 0.004), thresholds) == []
    assert check(_report("test_search", 0.006), thresholds) == ["test_search: median 6.00 ms > 5.0 ms"]


def test_a_gate_whose_benchmark_did_not_run_fails() -> None:
    failures = check({"benchmarks": []}, {"median_ms_max": {"test_search": 5.0}})
    assert failures == ["test_search: did not run (gate median <= 5.0 ms)"]


def test_quality_floors_and_size_ceilings_read_extra_info() -> None:
    thresholds = {
        "extra_min": {"test_quality.recall_at_3": 0.72},
        "extra_max": {"test_quality.size_ratio": 2.0},
    }
    assert check(_report("test_quality", 1.0, recall_at_3=0.75, size_ratio=1.2), thresholds) == []
    assert check(_report("test_quality", 1.0, recall_at_3=0.70, size_ratio=2.5), thresholds) == [
        "test_quality.recall_at_3: 0.7 < 0.72",
        "test_quality.size_ratio: 2.5 > 2.0",
    ]


def test_the_thresholds_file_parses_and_names_only_known_gate_kinds() -> None:
    thresholds = tomllib.loads(Path(THRESHOLDS).read_text())
    found = gates(thresholds)
    assert found, "thresholds.toml holds no gate"
    assert {gate.kind for gate in found} <= {"median_ms_max", "extra_min", "extra_max"}


def test_the_ci_group_holds_the_quality_and_ratio_gates_and_no_absolute_timing() -> None:
    ci = gates(tomllib.loads(Path(THRESHOLDS).read_text()), ["ci"])
    names = {gate.name for gate in ci}
    assert {"test_quality_fulltext.recall_at_3", "test_quality_local[hybrid].mrr_at_3"} <= names
    assert all(gate.kind != "median_ms_max" for gate in ci)


def test_a_group_checks_only_its_own_gates() -> None:
    thresholds = {"median_ms_max": {"test_slow": 1.0}, "ci": {"extra_min": {"test_quality.recall": 0.5}}}
    assert check(_report("test_quality", 1.0, recall=0.6), thresholds, ["ci"]) == []
    assert check(_report("test_quality", 1.0, recall=0.6), thresholds) == [
        "test_slow: did not run (gate median <= 1.0 ms)"
    ]


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="gate kinds are"):
        gates({"ci": {"median_max": {"x": 1}}})


def test_the_markdown_report_shows_verdicts_and_the_previous_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    now, before = tmp_path / "now.json", tmp_path / "before.json"
    now.write_text(json.dumps(_report("test_quality_fulltext", 1.0, recall_at_3=0.70)))
    before.write_text(json.dumps(_report("test_quality_fulltext", 1.2, recall_at_3=0.75)))
    out = tmp_path / "bench-report.md"
    status = main([str(now), "--group", "ci", "--previous", str(before), "--markdown", str(out)])
    text = out.read_text()
    assert status == 1
    assert "| **FAIL** | `test_quality_fulltext.recall_at_3` | ci | >= 0.72 | 0.7 | 0.75 |" in text
    assert "| `test_quality_fulltext` | 1,000 | 1,200 | | | |" in text
    assert "gate failed: test_quality_fulltext.recall_at_3: 0.7 < 0.72" in capsys.readouterr().out


def test_a_missing_report_fails_every_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "none.json"), "--group", "ci"]) == 1
    assert "gates: 0 passed" in capsys.readouterr().out


def test_the_release_group_is_judged_by_its_tests_and_only_when_named() -> None:
    thresholds = tomllib.loads(THRESHOLDS.read_text())
    assert all(gate.group != "release" for gate in gates(thresholds))
    release = gates(thresholds, ["release"])
    assert {gate.benchmark for gate in release} >= {
        "test_release_gate_on_claude_docs_through_the_serve_container[fulltext]",
        "test_serve_container_start_to_first_answer",
    }


def test_release_figures_are_judged_against_their_test_s_gates() -> None:
    name = "test_release_gate_on_claude_docs_through_the_serve_container[fulltext]"
    good = {"recall_at_3": 0.75, "mrr_at_3": 0.88, "search_p95_ms": 20.0}
    assert check_figures(name, good, "release") == []
    assert check_figures(name, {**good, "search_p95_ms": 151.0}, "release") == [
        f"{name}.search_p95_ms: 151 > 150.0"
    ]
    assert check_figures(name, {"mrr_at_3": 0.9, "search_p95_ms": 1.0}, "release") == [
        f"{name}.recall_at_3: not reported (gate >= 0.72)"
    ]
    assert check_figures("test_nothing", good, "release") == [
        "test_nothing: no [release.*] gate in thresholds.toml"
    ]
