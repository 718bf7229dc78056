"""The gates of ``benchmarks/thresholds.toml`` and how a measured figure is judged against them.

Shared by the benchmarks' gate command (``python -m benchmarks.gate``, its report) and the tests that
measure their own figures (the release gates against the images), so neither imports the other.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

THRESHOLDS = Path(__file__).resolve().parents[1] / "benchmarks" / "thresholds.toml"
KINDS = ("median_ms_max", "extra_min", "extra_max")
BENCH_GROUP = "bench"  # the top-level tables: timing and size gates, for `just bench` and releases
# Groups judged by the tests that measure them, not from a benchmarks/ report: the release gates run
# against the images (tests/images/test_release.py, check_figures). Checked only when named.
IN_TEST_GROUPS = ("release",)


@dataclass(frozen=True)
class Gate:
    """One limit: ``name`` is a benchmark (median_ms_max) or ``benchmark.extra_info_key``."""

    group: str
    kind: str
    name: str
    bound: float

    @property
    def benchmark(self) -> str:
        return self.name if self.kind == "median_ms_max" else self.name.rpartition(".")[0]


@dataclass(frozen=True)
class Verdict:
    gate: Gate
    value: float | None  # None: not measured
    passed: bool
    message: str


def gates(thresholds: dict[str, Any], groups: Sequence[str] | None = None) -> list[Gate]:
    """Every gate of ``thresholds`` (top-level kind tables are group ``bench``; ``[GROUP.KIND]``
    tables are group GROUP), only those of ``groups`` when given, else all but ``IN_TEST_GROUPS``.

    Raises ``ValueError`` for a table that is neither a kind nor a group of kinds.
    """
    found: list[Gate] = []
    for key, table in thresholds.items():
        tables = {key: table} if key in KINDS else table
        group = BENCH_GROUP if key in KINDS else key
        for kind, limits in tables.items():
            if kind not in KINDS:
                raise ValueError(
                    f"thresholds.toml: [{key}] holds {kind!r}; gate kinds are {', '.join(KINDS)}"
                )
            found += [Gate(group, kind, name, float(bound)) for name, bound in limits.items()]
    if groups is None:
        return [gate for gate in found if gate.group not in IN_TEST_GROUPS]
    return [gate for gate in found if gate.group in groups]


def _benchmarks_by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {bench["name"]: bench for bench in report.get("benchmarks", [])}


def measured(report: dict[str, Any], gate: Gate) -> float | None:
    """The figure ``gate`` limits, from ``report``; None when it is not there."""
    bench = _benchmarks_by_name(report).get(gate.benchmark)
    if bench is None:
        return None
    if gate.kind == "median_ms_max":
        return float(bench["stats"]["median"]) * 1000
    value = bench.get("extra_info", {}).get(gate.name.rpartition(".")[2])
    return None if value is None else float(value)


def verdicts(report: dict[str, Any], chosen: Sequence[Gate]) -> list[Verdict]:
    """Each gate of ``chosen`` judged against ``report``."""
    judged: list[Verdict] = []
    for gate in chosen:
        value = measured(report, gate)
        if gate.kind == "median_ms_max":
            if value is None:
                message = f"{gate.name}: did not run (gate median <= {gate.bound} ms)"
            else:
                message = f"{gate.name}: median {value:.2f} ms > {gate.bound} ms"
            passed = value is not None and value <= gate.bound
        else:
            word = ">=" if gate.kind == "extra_min" else "<="
            passed = value is not None and (value >= gate.bound if word == ">=" else value <= gate.bound)
            if value is None:
                message = f"{gate.name}: not reported (gate {word} {gate.bound})"
            else:
                message = f"{gate.name}: {value:g} {'<' if word == '>=' else '>'} {gate.bound}"
        judged.append(Verdict(gate, value, passed, "" if passed else message))
    return judged


def check(
    report: dict[str, Any], thresholds: dict[str, Any], groups: Sequence[str] | None = None
) -> list[str]:
    """Every failed gate as a line of text; empty when all pass."""
    return [v.message for v in verdicts(report, gates(thresholds, groups)) if not v.passed]


def check_figures(name: str, figures: Mapping[str, float], group: str) -> list[str]:
    """Every failed gate of ``group`` on benchmark ``name``, judged on ``figures`` (what its
    ``extra_info`` would hold), as lines of text; a group with no gate on ``name`` is a failure too.
    For tests that measure their own figures (the release gates against the images)."""
    chosen = [
        gate for gate in gates(tomllib.loads(THRESHOLDS.read_text()), [group]) if gate.benchmark == name
    ]
    if not chosen:
        return [f"{name}: no [{group}.*] gate in {THRESHOLDS.name}"]
    report = {"benchmarks": [{"name": name, "stats": {}, "extra_info": dict(figures)}]}
    return [verdict.message for verdict in verdicts(report, chosen) if not verdict.passed]
