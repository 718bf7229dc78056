"""A run against a baseline report (an earlier ``docs-mcp eval --out FILE.json``): metric deltas and
the queries that got better or worse.

A query is *better* when at least one of its metrics rose and none fell, *worse* when at least one
fell and none rose, and *mixed* otherwise (it moved both ways). Queries are matched by id.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docs_mcp.errors import ConfigError
from docs_mcp.eval.runner import QueryRun

__all__ = ["Baseline", "BaselineComparison", "QueryChange", "compare", "load_baseline"]

_DIGITS = 4  # reports keep 4 decimals: compare at that precision


@dataclass(frozen=True)
class Baseline:
    """The figures of an earlier run: mean metrics, latency, and each query's metrics by id."""

    file: str
    metrics: Mapping[str, float]
    latency_ms: Mapping[str, float]
    per_query: Mapping[str, Mapping[str, float]]


@dataclass(frozen=True)
class QueryChange:
    id: str
    query: str
    changes: Mapping[str, tuple[float, float]]  # metric -> (before, after), only those that moved


@dataclass(frozen=True)
class BaselineComparison:
    file: str
    deltas: Mapping[str, tuple[float, float]]  # metric -> (before, after), every metric in both
    latency_ms: Mapping[str, tuple[float, float]]
    better: Sequence[QueryChange] = field(default_factory=list)
    worse: Sequence[QueryChange] = field(default_factory=list)
    mixed: Sequence[QueryChange] = field(default_factory=list)
    only_now: Sequence[str] = field(default_factory=list)  # query ids new since the baseline
    only_before: Sequence[str] = field(default_factory=list)  # query ids the baseline had and we lack

    def to_dict(self) -> dict[str, Any]:
        def moved(changes: Sequence[QueryChange]) -> list[dict[str, Any]]:
            return [
                {"id": c.id, "query": c.query, "changes": {k: list(v) for k, v in c.changes.items()}}
                for c in changes
            ]

        return {
            "file": self.file,
            "delta": {k: round(after - before, 4) for k, (before, after) in self.deltas.items()},
            "before": {k: before for k, (before, _after) in self.deltas.items()},
            "latency_ms": {k: {"before": b, "after": a} for k, (b, a) in self.latency_ms.items()},
            "better": moved(self.better),
            "worse": moved(self.worse),
            "mixed": moved(self.mixed),
            "only_now": list(self.only_now),
            "only_before": list(self.only_before),
        }


def load_baseline(path: Path, label: str | None = None) -> Baseline:
    """The run of report ``path`` labelled ``label`` (among its ``runs``), else its first run.

    Raises ``ConfigError`` when the file is unreadable or not a ``docs-mcp eval`` JSON report.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read the baseline {path}: {error}") from error
    if not isinstance(data, dict) or not isinstance(data.get("metrics"), dict):
        raise ConfigError(
            f"{path} is not a docs-mcp eval report: write one with docs-mcp eval --out FILE.json"
        )
    runs = [run for run in data.get("runs", []) if isinstance(run, dict) and run.get("label") == label]
    run = runs[0] if runs else data
    try:
        per_query = {str(q["id"]): dict(q["metrics"]) for q in run.get("per_query", [])}
        return Baseline(str(path), dict(run["metrics"]), dict(run.get("latency_ms", {})), per_query)
    except (KeyError, TypeError) as error:
        raise ConfigError(f"{path}: a per_query entry lacks its id or metrics ({error})") from error


def compare(
    baseline: Baseline, metrics: Mapping[str, float], latency: Mapping[str, float], runs: Sequence[QueryRun]
) -> BaselineComparison:
    """How ``metrics``, ``latency`` and the queries of ``runs`` moved since ``baseline``."""
    deltas = {k: (float(baseline.metrics[k]), v) for k, v in metrics.items() if k in baseline.metrics}
    timing = {
        k: (float(baseline.latency_ms[k]), float(latency[k]))
        for k in ("p50", "p95")
        if k in baseline.latency_ms and k in latency
    }
    groups: dict[str, list[QueryChange]] = {"better": [], "worse": [], "mixed": []}
    for run in runs:
        before = baseline.per_query.get(run.query.id)
        if before is None:
            continue
        changes = {
            key: (float(before[key]), round(value, _DIGITS))
            for key, value in run.scores.items()
            if key in before and round(value, _DIGITS) != round(float(before[key]), _DIGITS)
        }
        if changes:
            rose = any(after > before_ for before_, after in changes.values())
            fell = any(after < before_ for before_, after in changes.values())
            kind = "mixed" if rose and fell else "better" if rose else "worse"
            groups[kind].append(QueryChange(run.query.id, run.query.query, changes))
    ids = {run.query.id for run in runs}
    return BaselineComparison(
        file=baseline.file,
        deltas=deltas,
        latency_ms=timing,
        better=groups["better"],
        worse=groups["worse"],
        mixed=groups["mixed"],
        only_now=sorted(ids - set(baseline.per_query)),
        only_before=sorted(set(baseline.per_query) - ids),
    )
