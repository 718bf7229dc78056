"""The ``kind`` prior: what a question asks for decides which kinds of sections it prefers.

Generated SDK docs hold a type page for every request, response and enum (a thousand per SDK), and
their field tables repeat every word of an operation's name; a question about *doing* something
("stream a chat completion in python") then finds the request type before the operation. The build
marks each section's role as the facet ``kind`` (``docs_mcp.chunk.kinds``: operation, model, error,
topic); this module is the only place that turns it into ranking.

- A question that asks about a type (it names one in CamelCase, or asks for its fields, properties,
  schema, values, or what it contains) keeps type pages as they rank and lowers operations a little.
- Every other question is taken as how-to: type and error pages are lowered, so operations, topics
  and guides come first when they match about as well.
- Overviews (lists of links to the operations) are lowered for both: they name everything and
  answer nothing.

A factor multiplies the hit's fused (or BM25) score, then the hits are sorted again; chunks without a
``kind`` (any index built from plain docs) are never touched, so such indexes rank as before. The
factors were calibrated on the labelled SDK set (``benchmarks/sdk_set.py``; docs/ranking.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from docs_mcp.search.types import Ranked

__all__ = ["KIND", "KindPrior", "asks_for_a_type"]

KIND = "kind"

_TYPE_WORDS = re.compile(
    r"\b(fields?|propert(?:y|ies)|attributes?|schema|shape|structure|members?|enum|"
    r"contains?|type definition|what type|which type)\b",
    re.IGNORECASE,
)
# An identifier in CamelCase with at least two humps: ChatCompletionRequest, RetryConfig.
_CAMEL = re.compile(r"\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b")


def asks_for_a_type(query: str) -> bool:
    """Whether ``query`` asks about a type rather than how to do something."""
    return bool(_TYPE_WORDS.search(query) or _CAMEL.search(query))


@dataclass(frozen=True)
class KindPrior:
    """Score factors per kind: ``how_to`` for questions about doing something, ``type_question``
    for questions about a type; a kind not listed keeps its score."""

    how_to: Mapping[str, float] = field(
        default_factory=lambda: {"model": 0.25, "error": 0.25, "overview": 0.5}
    )
    type_question: Mapping[str, float] = field(default_factory=lambda: {"operation": 0.8, "overview": 0.5})

    def apply(self, ranked: Ranked, query: str, kind_of: Callable[[str], str | None]) -> Ranked:
        """``ranked`` with each hit's score times its kind's factor, best first, ties by id."""
        factors = self.type_question if asks_for_a_type(query) else self.how_to
        if not factors or not ranked:
            return ranked
        scored = [(cid, _lowered(score, factors.get(kind_of(cid) or "", 1.0))) for cid, score in ranked]
        return sorted(scored, key=lambda item: (-item[1], item[0]))


def _lowered(score: float, factor: float) -> float:
    # A fused score can be negative (below its leg's mean): dividing lowers it as multiplying would.
    return score * factor if score >= 0 else score / factor
