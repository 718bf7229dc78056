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
- A how-to question leads with what it wants done ("archive a fine-tuned model", "list all uploaded
  files", "retry configuration"), and generated SDK docs name an operation by its action ("archive",
  "list_files", ``createMany``) and a README's topic by its concern ("Retries"): an operation or
  topic whose own name starts with the question's first content word is raised (``named``). Its
  words elsewhere (a resource's title over every operation, a type's name) do not count: they are
  what makes the other operations of the resource and the request types outrank it on words alone.

A factor multiplies the hit's fused (or BM25) score, then the hits are sorted again; chunks without a
``kind`` (any index built from plain docs) are never touched, so such indexes rank as before. The
factors were calibrated on the labelled SDK set (``benchmarks/sdk_set.py``; docs/ranking.md).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from docs_mcp.search.terms import STOP_WORDS, WORD
from docs_mcp.search.types import Ranked
from docs_mcp.store.identifiers import identifier_parts

__all__ = ["KIND", "KindPrior", "Role", "action_word", "asks_for_a_type", "same_word"]

KIND = "kind"

_TYPE_WORDS = re.compile(
    r"\b(fields?|propert(?:y|ies)|attributes?|schema|shape|structure|members?|enum|"
    r"contains?|type definition|what type|which type)\b",
    re.IGNORECASE,
)
# An identifier in CamelCase with at least two humps: ChatCompletionRequest, RetryConfig.
_CAMEL = re.compile(r"\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b")


# Two words are one word in two forms when they share a prefix this long and it leaves at most
# ``_SUFFIX`` letters of the shorter one ("upload"/"uploaded", "retry"/"retries", "paginate"/
# "pagination", "transcribe"/"transcription"): what an English stemmer would join, without one.
_STEM = 4
_SUFFIX = 2


def asks_for_a_type(query: str) -> bool:
    """Whether ``query`` asks about a type rather than how to do something."""
    return bool(_TYPE_WORDS.search(query) or _CAMEL.search(query))


def action_word(query: str) -> str | None:
    """The first word of ``query`` that is not a stop word, lower case ("how do I list links" ->
    "list"); None when it has none."""
    return next((w for word in WORD.findall(query) if (w := word.lower()) not in STOP_WORDS), None)


def same_word(one: str, other: str) -> bool:
    """Whether two lower-case words are one word in two forms (see ``_STEM``)."""
    if one == other:
        return True
    shorter = min(len(one), len(other))
    shared = next((i for i in range(shorter) if one[i] != other[i]), shorter)
    return shared >= _STEM and shared >= shorter - _SUFFIX


class Role(NamedTuple):
    """What the prior reads of a hit: its ``kind`` and its own names (its heading and, for a
    subsection of an operation, the operation's heading)."""

    kind: str | None
    names: tuple[str, ...] = ()


# Cached: a search weighs its first candidates twice when it ranks the other kinds too (once to
# decide, once merged), and the next questions meet the same operations again.
@functools.lru_cache(maxsize=8192)
def _named(names: tuple[str, ...], action: str) -> bool:
    """Whether one of ``names`` starts with ``action`` (its first identifier part)."""
    for name in names:
        first = WORD.search(name)
        parts = identifier_parts(first.group(0)) if first else []
        if parts and same_word(parts[0], action):
            return True
    return False


@dataclass(frozen=True)
class KindPrior:
    """Score factors per kind: ``how_to`` for questions about doing something, ``type_question``
    for questions about a type; a kind not listed keeps its score."""

    how_to: Mapping[str, float] = field(
        default_factory=lambda: {"model": 0.25, "error": 0.25, "overview": 0.5}
    )
    type_question: Mapping[str, float] = field(default_factory=lambda: {"operation": 0.8, "overview": 0.5})
    # How-to questions: the factor of an operation or topic named by the question's first word.
    named: float = 1.5
    named_kinds: frozenset[str] = frozenset({"operation", "topic"})

    def ceiling(self, query: str) -> float:
        """The largest factor :meth:`apply` may give a hit of ``query`` (at least 1)."""
        if asks_for_a_type(query):
            return max([1.0, *self.type_question.values()])
        return max([1.0, *self.how_to.values()]) * max(1.0, self.named)

    def lowered(self, query: str) -> frozenset[str]:
        """The kinds whose hits :meth:`apply` lowers for ``query``."""
        factors = self.type_question if asks_for_a_type(query) else self.how_to
        return frozenset(kind for kind, factor in factors.items() if factor < 1)

    def apply(self, ranked: Ranked, query: str, role_of: Callable[[str], Role | None]) -> Ranked:
        """``ranked`` with each hit's score times its kind's factor (and, for a how-to question,
        ``named`` when its name starts with the question's first word), best first, ties by id."""
        typed = asks_for_a_type(query)
        factors = self.type_question if typed else self.how_to
        action = None if typed else action_word(query)
        if not ranked or not (factors or action):
            return ranked
        scored = []
        for cid, score in ranked:
            role = role_of(cid) or Role(None)
            factor = factors.get(role.kind or "", 1.0)
            if action and role.kind in self.named_kinds and _named(role.names, action):
                factor *= self.named
            scored.append((cid, _lowered(score, factor)))
        return sorted(scored, key=lambda item: (-item[1], item[0]))


def _lowered(score: float, factor: float) -> float:
    # A fused score can be negative (below its leg's mean): dividing moves it as multiplying would.
    return score * factor if score >= 0 else score / factor
