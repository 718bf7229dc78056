"""The release-gate checker reads pytest-benchmark reports and thresholds.toml."""

from __future__ import annotations

import tomllib
from pathlib import Path

from benchmarks.gate import THRESHOLDS, check


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
    assert set(thresholds) <= {"median_ms_max", "extra_min", "extra_max"}
    assert thresholds, "thresholds.toml holds no gate"
