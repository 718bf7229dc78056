"""Fusing the ranked lists of the full-text and vector legs into one ranking.

Two methods: ``linear`` (each leg's scores min-max normalised to [0, 1], then a weighted sum; a
document missing from a leg gets 0 there) and ``rrf`` (reciprocal rank fusion, ``w / (k + rank)``).
Measured on claude-docs (issue 5): equal-weight normalised linear fusion beat RRF, and weighting the
vector side more was worse, so ``linear`` with equal weights is the default.
Ties are broken by chunk id so the order is stable across calls and pages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

FusionMethod = Literal["linear", "rrf"]
Ranked = Sequence[tuple[str, float]]  # (chunk id, score; higher is better), best first


@dataclass(frozen=True)
class FusionConfig:
    method: FusionMethod = "linear"
    text_weight: float = 1.0
    vector_weight: float = 1.0
    rrf_k: int = 60


def _normalised(leg: Ranked) -> dict[str, float]:
    if not leg:
        return {}
    scores = [score for _, score in leg]
    low, high = min(scores), max(scores)
    span = high - low
    return {cid: (score - low) / span if span > 0 else 1.0 for cid, score in leg}


def fuse(text: Ranked, vector: Ranked, config: FusionConfig = FusionConfig()) -> list[tuple[str, float]]:
    """One ranking of every id in either leg, best first, ties by id."""
    combined: dict[str, float] = {}
    if config.method == "rrf":
        for leg, weight in ((text, config.text_weight), (vector, config.vector_weight)):
            for rank, (cid, _) in enumerate(leg, start=1):
                combined[cid] = combined.get(cid, 0.0) + weight / (config.rrf_k + rank)
    else:
        for leg, weight in ((text, config.text_weight), (vector, config.vector_weight)):
            for cid, score in _normalised(leg).items():
                combined[cid] = combined.get(cid, 0.0) + weight * score
    return sorted(combined.items(), key=lambda item: (-item[1], item[0]))
