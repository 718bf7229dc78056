"""The full-text query of a search: every column's BM25 summed, plus the phrase bonus."""

from __future__ import annotations

from typing import Any

from lancedb.query import BooleanQuery, FullTextQuery, MatchQuery, Occur, PhraseQuery

from docs_mcp.search.config import SearchConfig
from docs_mcp.search.terms import query_phrases
from docs_mcp.store.columns import FTS_COLUMNS
from docs_mcp.store.identifiers import expand_query


def fulltext_query(query: str, config: SearchConfig) -> FullTextQuery:
    """SHOULD clauses, so the columns' BM25 scores are summed (MultiMatchQuery would keep only the best
    column's score); the query's compound identifiers are split as the index splits them."""
    columns = [column for column in FTS_COLUMNS if config.boosts.get(column, 0) > 0]
    terms = expand_query(query)
    phrases = query_phrases(query, config.max_phrases) if config.phrase_weight > 0 else []
    # A phrase clause has no boost of its own, so the word clauses are scaled up instead: only the
    # ratio matters to the ranking (and to the min-max normalised hybrid fusion).
    scale = 1.0 / config.phrase_weight if phrases else 1.0
    # pydantic dataclasses: mypy sees their defaulted fields as required
    match: Any = MatchQuery
    phrase_query: Any = PhraseQuery
    clauses: list[tuple[Occur, FullTextQuery]] = [
        (Occur.SHOULD, match(terms, column, boost=float(config.boosts[column]) * scale)) for column in columns
    ]
    clauses.extend((Occur.SHOULD, phrase_query(phrase, column)) for column in columns for phrase in phrases)
    return BooleanQuery(clauses)
