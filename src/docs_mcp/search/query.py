"""The full-text query of a search: every column's BM25 summed, plus the phrase bonus."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lancedb.query import BooleanQuery, FullTextQuery, MatchQuery, Occur, PhraseQuery

from docs_mcp.search.config import SearchConfig
from docs_mcp.search.terms import STOP_WORDS, WORD, query_phrases
from docs_mcp.store.columns import FTS_COLUMNS
from docs_mcp.store.identifiers import expand_query

# A query of more words than this (pasted code, a stack trace) is matched on its distinct content
# words: LanceDB scores every repeat of a word as one more term over its postings, which made long
# queries the slow ones at scale (benchmarks/test_search_scale.py), and in pasted code repeats say
# little. The tokenizer drops stop words and case anyway. Shorter queries (every question of the
# labelled sets) are matched as written.
LONG_QUERY_WORDS = 48  # the labelled sets' longest question has 33 (identifier parts included)
# Of a long query's distinct content words, only this many of the rarest in the index are matched: each
# common word ("client", "import", "await") is one more long posting list to score, and rare words are
# what tells the block pasted apart. Measured on the 33k-chunk benchmark's code blocks: matching the 24
# rarest found each block's own chunk in the top 3 as often as matching all of them.
LONG_QUERY_TERMS = 24


def is_long(query: str) -> bool:
    """Whether ``query`` (with its identifier parts) has more words than ``LONG_QUERY_WORDS``."""
    return len(WORD.findall(expand_query(query))) > LONG_QUERY_WORDS


def match_terms(query: str, frequencies: Mapping[str, int] | None = None) -> str:
    """The words the BM25 clauses match: ``query`` with its identifier parts; when long, its distinct
    content words in order, and with ``frequencies`` (chunks per word) only the rarest of them."""
    terms = expand_query(query)
    words = WORD.findall(terms)
    if len(words) <= LONG_QUERY_WORDS:
        return terms
    distinct = list(dict.fromkeys(word.lower() for word in words if word.lower() not in STOP_WORDS))
    if frequencies is None or len(distinct) <= LONG_QUERY_TERMS:
        return " ".join(distinct)
    # sorted is stable: among words as rare as each other, the earlier in the query is kept
    rarest = set(sorted(distinct, key=lambda word: frequencies.get(word, 0))[:LONG_QUERY_TERMS])
    return " ".join(word for word in distinct if word in rarest)


@dataclass(frozen=True)
class Clause:
    """One SHOULD clause of the full-text query: ``text`` matched in ``column`` (word by word, or as a
    ``phrase``), its BM25 score times ``boost``."""

    text: str
    column: str
    boost: float
    phrase: bool


def fulltext_clauses(
    query: str, config: SearchConfig, frequencies: Mapping[str, int] | None = None
) -> tuple[Clause, ...]:
    """The clauses of :func:`fulltext_query` (a score bound reads them too: ``search.bounds``)."""
    boosts = tuple((column, float(config.boosts.get(column, 0))) for column in FTS_COLUMNS)
    if frequencies is not None and is_long(query):
        return _clauses(
            match_terms(query, frequencies), query, boosts, config.phrase_weight, config.max_phrases
        )
    # The same for every library a search across libraries plans: made once.
    return _cached_clauses(query, boosts, config.phrase_weight, config.max_phrases)


def _clauses(
    terms: str, query: str, boosts: tuple[tuple[str, float], ...], phrase_weight: float, max_phrases: int
) -> tuple[Clause, ...]:
    phrases = query_phrases(query, max_phrases) if phrase_weight > 0 else []
    # A phrase clause has no boost of its own, so the word clauses are scaled up instead: only the
    # ratio matters to the ranking (and to the min-max normalised hybrid fusion).
    scale = 1.0 / phrase_weight if phrases else 1.0
    columns = [(column, boost) for column, boost in boosts if boost > 0]
    clauses = [Clause(terms, column, boost * scale, False) for column, boost in columns]
    clauses.extend(Clause(phrase, column, 1.0, True) for column, _ in columns for phrase in phrases)
    return tuple(clauses)


@functools.lru_cache(maxsize=256)
def _cached_clauses(
    query: str, boosts: tuple[tuple[str, float], ...], phrase_weight: float, max_phrases: int
) -> tuple[Clause, ...]:
    return _clauses(match_terms(query), query, boosts, phrase_weight, max_phrases)


def fulltext_query(
    query: str, config: SearchConfig, frequencies: Mapping[str, int] | None = None
) -> FullTextQuery:
    """SHOULD clauses, so the columns' BM25 scores are summed (MultiMatchQuery would keep only the best
    column's score); the query's compound identifiers are split as the index splits them.
    ``frequencies``: see ``match_terms``."""
    # pydantic dataclasses: mypy sees their defaulted fields as required
    match: Any = MatchQuery
    phrase_query: Any = PhraseQuery
    return BooleanQuery(
        [
            (
                Occur.SHOULD,
                phrase_query(c.text, c.column) if c.phrase else match(c.text, c.column, boost=c.boost),
            )
            for c in fulltext_clauses(query, config, frequencies)
        ]
    )
