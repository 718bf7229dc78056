"""Fusing the ranked lists of the full-text and vector legs into one ranking.

Three methods: ``linear`` (each leg's scores min-max normalised to [0, 1], then a weighted sum; a
document missing from a leg gets 0 there), ``dbsf`` (distribution-based score fusion: like linear, but
each leg is normalised over mean +- 3 standard deviations of its scores, so one outlier does not
squash the rest) and ``rrf`` (reciprocal rank fusion, ``w / (k + rank)``).
Measured on claude-docs and the SDK question set (every variant, with its figures, in
docs/ranking.md): RRF was clearly worse; weighting the full-text leg (the stronger one) 1.25-1.5x
beat equal weights and more; dbsf matched or beat linear at every text weight on MRR@3, since one
far-out best score no longer squashes the other candidates of its leg towards 0. Default: dbsf,
text 1.5.
Ties are broken by chunk id so the order is stable across calls and pages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from docs_mcp.search.types import Ranked

__all__ = ["FusionConfig", "fuse"]

FusionMethod = Literal["linear", "dbsf", "rrf"]


@dataclass(frozen=True)
class FusionConfig:
    method: FusionMethod = "dbsf"
    text_weight: float = 1.5
    vector_weight: float = 1.0
    rrf_k: int = 60


def _normalised(leg: Ranked) -> dict[str, float]:
    if not leg:
        return {}
    scores = [score for _, score in leg]
    low, high = min(scores), max(scores)
    span = high - low
    return {cid: (score - low) / span if span > 0 else 1.0 for cid, score in leg}


def _distribution_normalised(leg: Ranked) -> dict[str, float]:
    if not leg:
        return {}
    scores = [score for _, score in leg]
    mean = sum(scores) / len(scores)
    spread = 3 * (sum((score - mean) ** 2 for score in scores) / len(scores)) ** 0.5
    if spread <= 0:
        return {cid: 1.0 for cid, _ in leg}
    return {cid: (score - mean + spread) / (2 * spread) for cid, score in leg}


def fuse(text: Ranked, vector: Ranked, config: FusionConfig = FusionConfig()) -> Ranked:
    """One ranking of every id in either leg, best first, ties by id."""
    combined: dict[str, float] = {}
    if config.method == "rrf":
        for leg, weight in ((text, config.text_weight), (vector, config.vector_weight)):
            for rank, (cid, _) in enumerate(leg, start=1):
                combined[cid] = combined.get(cid, 0.0) + weight / (config.rrf_k + rank)
    else:
        normalise = _distribution_normalised if config.method == "dbsf" else _normalised
        for leg, weight in ((text, config.text_weight), (vector, config.vector_weight)):
            for cid, score in normalise(leg).items():
                combined[cid] = combined.get(cid, 0.0) + weight * score
    return sorted(combined.items(), key=lambda item: (-item[1], item[0]))
