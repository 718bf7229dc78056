"""``bench-report.md``: a benchmark run's figures and gate verdicts, the previous run's beside them.

Written by ``python -m benchmarks.gate REPORT --previous OLD --markdown FILE`` (``just bench``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from testkit.thresholds import Verdict, measured


def markdown(report: dict[str, Any], previous: dict[str, Any] | None, judged: Sequence[Verdict]) -> str:
    """The report as markdown: gates first (verdict, limit, figure, previous figure), then every
    benchmark's median and extra figures with the previous run's."""
    machine = report.get("machine_info", {})
    lines = [
        "# Benchmark report",
        "",
        f"Run {report.get('datetime', '?')} on {machine.get('node', '?')} "
        f"({machine.get('cpu', {}).get('count', '?')} cores, Python {machine.get('python_version', '?')}); "
        + (f"previous run {previous.get('datetime', '?')}." if previous else "no previous run."),
        "",
        "## Gates",
        "",
        f"{sum(v.passed for v in judged)} passed, {sum(not v.passed for v in judged)} failed.",
        "",
        "| verdict | gate | group | limit | now | previous |",
        "|---|---|---|---|---|---|",
    ]
    for verdict in judged:
        gate = verdict.gate
        before = measured(previous, gate) if previous else None
        limit = ("<= " if gate.kind != "extra_min" else ">= ") + f"{gate.bound:g}"
        limit += " ms" if gate.kind == "median_ms_max" else ""
        lines.append(
            f"| {'pass' if verdict.passed else '**FAIL**'} | `{gate.name}` | {gate.group} | {limit} "
            f"| {_figure(verdict.value)} | {_figure(before)} |"
        )
    lines += ["", "## Figures", "", "| benchmark | median ms | previous | figure | now | previous |"]
    lines.append("|---|---|---|---|---|---|")
    earlier = {b["name"]: b for b in (previous or {}).get("benchmarks", [])}
    for bench in report.get("benchmarks", []):
        old = earlier.get(bench["name"], {})
        median = _median_ms(bench)
        lines.append(f"| `{bench['name']}` | {_figure(median)} | {_figure(_median_ms(old))} | | | |")
        for key, value in sorted(bench.get("extra_info", {}).items()):
            before = old.get("extra_info", {}).get(key)
            lines.append(f"| | | | {key} | {_figure(value)} | {_figure(before)} |")
    return "\n".join(lines) + "\n"


def _median_ms(bench: dict[str, Any]) -> float | None:
    stats = bench.get("stats")
    return None if not stats else float(stats["median"]) * 1000


def _figure(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)
