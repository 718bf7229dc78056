"""An ``EvalReport`` as terminal text: metric tables by k, latency, categories, baseline deltas."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from docs_mcp.eval.baseline import BaselineComparison, QueryChange
from docs_mcp.eval.metrics import METRICS, metric_key
from docs_mcp.eval.report import EvalReport, RunReport

__all__ = ["render"]

_SHOWN_CHANGES = 10  # better/worse queries listed; the JSON has them all


def render(report: EvalReport) -> str:
    """The report as lines of text: one table per run, or one side-by-side table for a comparison."""
    lines = [f"{len(report.primary.queries)} queries from {report.queries_file}"]
    if len(report.runs) > 1:
        lines += _comparison(report.runs)
    for run in report.runs:
        lines += ["", *_run(run, show_table=len(report.runs) == 1)]
    return "\n".join(lines)


def _run(run: RunReport, *, show_table: bool) -> list[str]:
    mode = "/".join(run.modes) or "?"
    lines = [f"{run.label}: index {run.index}, mode {mode}, over {run.transport}, {run.seconds:.1f} s"]
    lines += [f"  fallback: {reason}" for reason in run.fallback_reasons]
    if show_table:
        lines += _table(["metric", *(f"@{k}" for k in run.ks)], _metric_rows(run.metrics, run.ks))
    latency = run.latency()
    lines.append(
        f"search_docs latency: p50 {latency['p50']:.2f} ms, p95 {latency['p95']:.2f} ms "
        f"over {latency['calls']} calls"
    )
    categories = run.categories()
    if set(categories) - {""}:
        k = _headline_k(run.ks)
        header = ["category", "queries", *(metric_key(m, k) for m in METRICS)]
        rows = [
            [name or "(none)", str(count), *(f"{metrics[metric_key(m, k)]:.3f}" for m in METRICS)]
            for name, (count, metrics) in categories.items()
        ]
        lines += _table(header, rows)
    missed = [r.query.id for r in run.queries if r.scores[metric_key("hit", run.ks[-1])] == 0]
    if missed:
        shown = ", ".join(missed[:_SHOWN_CHANGES]) + (", ..." if len(missed) > _SHOWN_CHANGES else "")
        lines.append(f"no relevant hit in the top {run.ks[-1]}: {len(missed)} queries ({shown})")
    if run.baseline is not None:
        lines += _baseline(run.baseline, run.ks)
    return lines


def _headline_k(ks: Sequence[int]) -> int:
    """The k shown where one is enough: 3 when measured (the project's headline), else the smallest."""
    return 3 if 3 in ks else ks[0]


def _metric_rows(metrics: Mapping[str, float], ks: Sequence[int]) -> list[list[str]]:
    return [[name, *(f"{metrics[metric_key(name, k)]:.3f}" for k in ks)] for name in METRICS]


def _comparison(runs: Sequence[RunReport]) -> list[str]:
    ks = runs[0].ks
    rows = [
        [metric_key(name, k), *(f"{run.metrics[metric_key(name, k)]:.3f}" for run in runs)]
        for name in METRICS
        for k in ks
    ]
    rows.append(["p50 ms", *(f"{run.latency()['p50']:.2f}" for run in runs)])
    rows.append(["p95 ms", *(f"{run.latency()['p95']:.2f}" for run in runs)])
    return ["", *_table(["metric", *(run.label for run in runs)], rows)]


def _baseline(comparison: BaselineComparison, ks: Sequence[int]) -> list[str]:
    lines = [f"against the baseline {comparison.file}:"]
    rows = []
    for name in METRICS:
        cells = [name]
        for k in ks:
            before_after = comparison.deltas.get(metric_key(name, k))
            cells.append(_delta(*before_after) if before_after else "-")
        rows.append(cells)
    lines += _table(["delta", *(f"@{k}" for k in ks)], rows)
    for key, (before, after) in comparison.latency_ms.items():
        lines.append(f"latency {key}: {before:.2f} -> {after:.2f} ms")
    for title, changes in (
        ("better", comparison.better),
        ("worse", comparison.worse),
        ("mixed", comparison.mixed),
    ):
        if changes:
            lines.append(f"{title}: {len(changes)} queries")
            lines += [_change(change, ks) for change in changes[:_SHOWN_CHANGES]]
    if comparison.only_now or comparison.only_before:
        lines.append(
            f"queries not in both: {len(comparison.only_now)} new, {len(comparison.only_before)} gone"
        )
    return lines


def _delta(before: float, after: float) -> str:
    return f"{after - before:+.3f}"


def _change(change: QueryChange, ks: Sequence[int]) -> str:
    k = _headline_k(ks)
    shown = {key: moved for key, moved in change.changes.items() if key.endswith(f"@{k}")} or change.changes
    moves = ", ".join(f"{key} {before:.2f}->{after:.2f}" for key, (before, after) in list(shown.items())[:3])
    return f"  {change.id}: {change.query[:60]} ({moves})"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].ljust(widths[0])
        return "  ".join(
            [first, *(cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True))]
        )

    return [line(header), *(line(row) for row in rows)]
