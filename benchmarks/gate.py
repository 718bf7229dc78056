"""Gates: compare a pytest-benchmark JSON report with ``benchmarks/thresholds.toml``.

    python -m benchmarks.gate .bench.json [--group ci] [--previous OLD.json] [--markdown REPORT.md]

Exits 1 listing every gate that failed, and every gate whose benchmark did not run (a gate that
silently measures nothing is a failed gate). ``--group`` checks only that group's gates (``ci``:
the deterministic ones .ci/run checks on every change); without it every gate is checked.
``--markdown`` writes the figures, the verdicts and, from ``--previous``, the last run's figures
beside them (``just bench`` writes ``bench-report.md`` this way). The ``release`` group is checked by
the release tests against the images (:func:`check_figures`), and here only when named.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

THRESHOLDS = Path(__file__).with_name("thresholds.toml")
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


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gate", description=__doc__)
    parser.add_argument("report", type=Path, nargs="?", default=Path(".bench.json"))
    parser.add_argument("--group", action="append", help="check only this group's gates (repeatable)")
    parser.add_argument("--previous", type=Path, help="the last run's report, shown beside this one")
    parser.add_argument("--markdown", type=Path, help="write figures and verdicts to this file")
    args = parser.parse_args(argv)
    thresholds = tomllib.loads(THRESHOLDS.read_text())
    chosen = gates(thresholds, args.group)
    report = json.loads(args.report.read_text()) if args.report.is_file() else {}
    if not report:
        print(f"no benchmark report at {args.report}: every gate fails")
    judged = verdicts(report, chosen)
    if args.markdown is not None:
        from benchmarks.report import markdown

        previous = (
            json.loads(args.previous.read_text()) if args.previous and args.previous.is_file() else None
        )
        args.markdown.write_text(markdown(report, previous, judged))
    failures = [v.message for v in judged if not v.passed]
    for line in failures:
        print(f"gate failed: {line}")
    print(f"gates: {len(judged) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures or not chosen else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
