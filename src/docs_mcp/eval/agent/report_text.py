"""The agent-eval report as tables for a terminal: per arm, the with/without comparison, per
category, per scenario, and the deltas against a baseline."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["render"]


def render(report: dict[str, Any]) -> str:
    """The report of ``AgentReport.to_dict()`` as text."""
    arms: list[str] = report["arms"]
    lines = [
        f"agent-eval: {report['scenarios']} with {report['provider']} {report['model']} "
        f"(index {report['index']}; {report['seconds']:.1f} s"
        + (f"; {report['resumed']} runs resumed" if report.get("resumed") else "")
        + ")",
        "",
    ]
    header = ["arm", "pass", "rate", "activ.", "turns", "in tok", "out tok", "cost $", "secs", "tool calls"]
    rows = [_row(arm, report["summary"][arm]) for arm in arms]
    lines += _table(header, rows)
    comparison = report.get("comparison")
    if comparison:
        lines += ["", "with vs without the docs server:"]
        for name in ("gained", "lost", "both_pass", "both_fail"):
            ids = comparison[name]
            lines.append(f"  {name.replace('_', ' '):<10} {len(ids):>3}  {', '.join(ids)}".rstrip())
    lines += ["", "per category:"]
    lines += _table(
        ["category", *header],
        [[name, *_row(arm, figures[arm])] for name, figures in report["categories"].items() for arm in arms],
    )
    lines += ["", "per scenario:"]
    lines += _table(
        ["scenario", "arm", "status", "stop", "turns", "tokens", "search", "failed checks"],
        [_scenario_row(run) for run in report["runs"]],
    )
    if report.get("baseline"):
        lines += ["", *_baseline_lines(report["baseline"])]
    return "\n".join(lines)


def _row(arm: str, figures: dict[str, Any]) -> list[str]:
    calls = ", ".join(f"{name} {count}" for name, count in figures["tool_calls"].items())
    return [
        arm,
        f"{figures['passed']}/{figures['scenarios']}",
        _percent(figures["pass_rate"]),
        _percent(figures["activation_rate"]),
        _number(figures["mean_turns"]),
        f"{figures['input_tokens']:,}",
        f"{figures['output_tokens']:,}",
        "-" if figures["cost"] is None else f"{figures['cost']:.4f}",
        f"{figures['seconds']:.1f}",
        calls or "-",
    ]


def _scenario_row(run: dict[str, Any]) -> list[str]:
    failed = [check["label"] for check in run["checks"] if not check["ok"]]
    status = run["status"] + (f" ({run['error']})" if run["status"] == "error" else "")
    return [
        run["scenario"],
        run["arm"],
        status[:60],
        run["stop"],
        str(run["turns"]),
        f"{run['input_tokens'] + run['output_tokens']:,}",
        "yes" if run["activated"] else "no",
        "; ".join(failed)[:80] or "-",
    ]


def _baseline_lines(deltas: dict[str, Any]) -> list[str]:
    lines = [f"against the baseline ({deltas.get('model')}):"]
    for arm, figures in deltas["arms"].items():
        shown = ", ".join(f"{name} {value:+g}" for name, value in figures.items() if value is not None)
        lines.append(f"  {arm}: {shown or 'nothing to compare'}")
    for change in deltas["changed"]:
        lines.append(f"  {change['scenario']} ({change['arm']}): {change['was']} -> {change['now']}")
    return lines


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=False)]
    return [
        "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=False)).rstrip()
        for row in [header, *rows]
    ]
