"""The results of an evaluation: one ``RunReport`` per index scored, as data and as JSON.

The JSON (``docs-mcp eval --json`` / ``--out``) has, at the top level, the first run's ``metrics``
(keyed like ``recall@5``), ``latency_ms``, ``categories`` and ``per_query``; ``runs`` holds every
run when several were compared. A report written with ``--out`` is what ``--baseline`` reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from docs_mcp.eval.baseline import BaselineComparison
from docs_mcp.eval.metrics import mean_metrics, percentile
from docs_mcp.eval.runner import QueryRun

__all__ = ["EvalReport", "RunReport"]


def _rounded(values: Mapping[str, float], digits: int = 4) -> dict[str, float]:
    return {key: round(value, digits) for key, value in values.items()}


@dataclass(frozen=True)
class RunReport:
    """The queries of one index scored over one transport."""

    label: str  # what this run is in a comparison: the embedding provider, or the index
    index: str
    transport: str
    ks: tuple[int, ...]
    queries: list[QueryRun]
    seconds: float
    baseline: BaselineComparison | None = None

    @property
    def metrics(self) -> dict[str, float]:
        """Each metric's mean over the queries, keyed like ``recall@5``."""
        return mean_metrics([run.scores for run in self.queries])

    @property
    def modes(self) -> list[str]:
        return sorted({mode for run in self.queries for mode in run.modes})

    @property
    def fallback_reasons(self) -> list[str]:
        return sorted({run.fallback_reason for run in self.queries if run.fallback_reason})

    @property
    def latencies_ms(self) -> list[float]:
        return [ms for run in self.queries for ms in run.latency_ms]

    def latency(self) -> dict[str, float]:
        """p50, p95, mean and max of every ``search_docs`` round trip, in ms, and the call count."""
        calls = self.latencies_ms
        return {
            "p50": round(percentile(calls, 0.5), 3),
            "p95": round(percentile(calls, 0.95), 3),
            "mean": round(sum(calls) / len(calls), 3) if calls else 0.0,
            "max": round(max(calls, default=0.0), 3),
            "calls": len(calls),
        }

    def categories(self) -> dict[str, tuple[int, dict[str, float]]]:
        """Query count and mean metrics per category (uncategorised queries under ``""``)."""
        grouped: dict[str, list[QueryRun]] = {}
        for run in self.queries:
            grouped.setdefault(run.query.category, []).append(run)
        return {
            name: (len(runs), mean_metrics([run.scores for run in runs]))
            for name, runs in sorted(grouped.items())
        }

    def to_dict(self) -> dict[str, Any]:
        """The run as JSON-ready data."""
        data: dict[str, Any] = {
            "label": self.label,
            "index": self.index,
            "transport": self.transport,
            "mode": "/".join(self.modes),
            "fallback_reasons": self.fallback_reasons,
            "k": list(self.ks),
            "queries": len(self.queries),
            "seconds": round(self.seconds, 3),
            "metrics": _rounded(self.metrics),
            "latency_ms": self.latency(),
            "categories": {
                name: {"queries": count, "metrics": _rounded(metrics)}
                for name, (count, metrics) in self.categories().items()
            },
            "per_query": [_query_dict(run) for run in self.queries],
        }
        if self.baseline is not None:
            data["baseline"] = self.baseline.to_dict()
        return data


def _query_dict(run: QueryRun) -> dict[str, Any]:
    query = run.query
    ranks = {found: rank for rank, found in enumerate(run.credited, start=1) if found is not None}
    return {
        "id": query.id,
        "query": query.query,
        "category": query.category,
        "filters": dict(query.filters),
        "relevant": list(query.relevant),
        "found_at": {rel: ranks.get(rel) for rel in query.relevant},
        "retrieved": list(run.units),
        "metrics": _rounded(run.scores),
        "latency_ms": [round(ms, 3) for ms in run.latency_ms],
    }


@dataclass(frozen=True)
class EvalReport:
    """Every run of one evaluation (one, or one per provider compared) over one query file."""

    queries_file: str
    runs: Sequence[RunReport] = field(default_factory=list)

    @property
    def primary(self) -> RunReport:
        return self.runs[0]

    @property
    def metrics(self) -> dict[str, float]:
        return self.primary.metrics

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data: the first run at the top level, all of them in ``runs``."""
        data: dict[str, Any] = {"queries_file": self.queries_file, **self.primary.to_dict()}
        if len(self.runs) > 1:
            data["runs"] = [run.to_dict() for run in self.runs]
        return data
