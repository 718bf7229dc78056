"""Ranking metrics of one judged query at a cut-off k, their means, and latency percentiles.

The definitions are trec_eval's, applied to the ranking :func:`docs_mcp.eval.matching.judge` made
(each relevant id credited once, so every metric stays within 0..1):

- ``recall@k``: relevant ids credited in the top k over all relevant ids;
- ``precision@k``: relevant ranks in the top k over k (short rankings are not rewarded);
- ``mrr@k``: 1 / rank of the first relevant rank within k, else 0 (mean reciprocal rank over queries);
- ``ndcg@k``: DCG of the top k over the DCG of the ideal ranking, linear gains (the grades) and a
  ``log2(rank + 1)`` discount;
- ``hit@k``: 1 when any relevant id is in the top k.

Written here rather than taken from ranx or pytrec_eval: the formulas are a few lines once ranks
are judged, while those bring numba or a C build into an appliance's runtime for five sums.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from docs_mcp.eval.matching import Judged

__all__ = ["METRICS", "mean_metrics", "metric_key", "percentile", "score"]

METRICS: tuple[str, ...] = ("recall", "precision", "mrr", "ndcg", "hit")


def metric_key(name: str, k: int) -> str:
    """The report key of a metric at k, e.g. ``recall@5``."""
    return f"{name}@{k}"


def score(judged: Judged, ks: Sequence[int]) -> dict[str, float]:
    """Every metric of ``judged`` at each k of ``ks``, keyed like ``recall@5``."""
    relevant = len(judged.grades)
    ideal = sorted(judged.grades, reverse=True)
    scores: dict[str, float] = {}
    for k in ks:
        top = judged.gains[:k]
        found = sum(1 for gain in top if gain > 0)
        first = next((rank for rank, gain in enumerate(top, start=1) if gain > 0), None)
        best = _dcg(ideal[:k])
        scores[metric_key("recall", k)] = found / relevant if relevant else 0.0
        scores[metric_key("precision", k)] = found / k
        scores[metric_key("mrr", k)] = 1.0 / first if first else 0.0
        scores[metric_key("ndcg", k)] = _dcg(top) / best if best else 0.0
        scores[metric_key("hit", k)] = 1.0 if first else 0.0
    return scores


def _dcg(gains: Iterable[float]) -> float:
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))


def mean_metrics(per_query: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """The mean of each metric over queries (keys of the first); empty for no queries."""
    if not per_query:
        return {}
    return {key: sum(scores[key] for scores in per_query) / len(per_query) for key in per_query[0]}


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` (0..1) percentile of ``values`` by linear interpolation; 0.0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
