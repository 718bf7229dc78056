"""A union's full-text hits scored as each hit's own library scores them (``store.library_terms``).

A union index (``indexing.union``) ranks by BM25 over every library's rows together: a token rare in
one library but common in the others weighs less there than in that library's own index. This
module scores a hit as its library's index would: the same clauses (``search.query``), the tokens
LanceDB's tokenizer makes of the hit's full-text columns, and the library's chunks, average column
lengths and token frequencies in LanceDB's BM25 (``store.impact_table.bm25_impact``). A word clause
scores each query token the chunk holds (a token named twice, twice), times the clause's boost; a
phrase clause scores its tokens only where they stand next to each other, as LanceDB does
(tests/search/test_rescore.py compares both with LanceDB's own scores).

The statistics of a query's tokens are looked up before its legs run (``load``, from the caller's
thread: the legs run on LanceDB's loop), and held for the next queries within a bound.
"""

from __future__ import annotations

import functools
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lancedb

from docs_mcp.search import lance
from docs_mcp.search.query import Clause
from docs_mcp.search.types import Ranked
from docs_mcp.store.columns import FTS_COLUMNS, LANCEDB_DIR, LIBRARY_COLUMN
from docs_mcp.store.impact_table import HASH_COLUMN, bm25_impact, token_hash
from docs_mcp.store.library_terms import LIBRARY_SIZES, LIBRARY_TERMS, ROWS_COLUMN

__all__ = ["LibraryStatistics", "RESCORE_FACTOR", "rescored"]

# A rescored leg reads this many times the candidates it returns from the union's own ranking, then
# keeps the best by each library's scores (docs/scaling.md measures the factors tried).
RESCORE_FACTOR = 2
# Token statistics held across queries (one entry a token: its frequencies in every library holding it).
TOKENS_CACHED = 4096


@dataclass(frozen=True)
class _Tokens:
    """One clause as LanceDB matches it: its column, boost, tokens and their offsets in the phrase."""

    column: str
    boost: float
    phrase: bool
    tokens: tuple[str, ...]
    offsets: tuple[int, ...]


@functools.lru_cache(maxsize=256)
def _clause_tokens(clauses: tuple[Clause, ...]) -> tuple[_Tokens, ...]:
    made = []
    for clause in clauses:
        found = list(lancedb.tokenize(clause.text))  # as LanceDB tokenizes the query
        start = found[0].position if found else 0
        made.append(
            _Tokens(
                clause.column,
                clause.boost,
                clause.phrase,
                tuple(t.text for t in found),
                tuple(t.position - start for t in found),
            )
        )
    return tuple(made)


class LibraryStatistics:
    """The per-library statistics of the union in ``root``; ``available`` is False for a union made
    before them (its hits cannot be rescored)."""

    def __init__(self, root: Path) -> None:
        self.available = False
        self._sizes: dict[str, tuple[int, dict[str, float]]] = {}
        if not (root / LANCEDB_DIR / f"{LIBRARY_SIZES}.lance").is_dir():
            return  # a library's index, or a union made before them: no look-up of a missing table
        db = lance.connect(root)
        try:
            sizes = db.open_table(LIBRARY_SIZES).to_arrow().to_pylist()
            self._terms: Any = db.open_table(LIBRARY_TERMS)
        except ValueError:  # "Table ... was not found": made before them
            return
        self.available = True
        self._sizes = {
            row[LIBRARY_COLUMN]: (
                int(row[ROWS_COLUMN]),
                {c: row[c] / row[ROWS_COLUMN] if row[ROWS_COLUMN] else 0.0 for c in FTS_COLUMNS},
            )
            for row in sizes
        }
        self._lock = threading.Lock()
        # token hash -> {library: {column: chunks holding it}}; the least recently used forgotten.
        self._held: OrderedDict[int, dict[str, dict[str, int]]] = OrderedDict()

    def load(self, clauses: Sequence[Clause]) -> dict[int, dict[str, dict[str, int]]]:
        """The statistics of the tokens of ``clauses``, those not held looked up in one query. Call it
        from the caller's thread, not LanceDB's loop."""
        keys = {token_hash(t) for c in _clause_tokens(tuple(clauses)) for t in c.tokens}
        with self._lock:
            missing = sorted(key for key in keys if key not in self._held)
        found: dict[int, dict[str, dict[str, int]]] = {key: {} for key in missing}
        if missing:
            where = f"{HASH_COLUMN} IN ({', '.join(map(str, missing))})"
            read = self._terms.search().where(where).limit(None).to_arrow().to_pydict()
            for i, key in enumerate(read[HASH_COLUMN]):
                found[key][read[LIBRARY_COLUMN][i]] = {c: int(read[c][i]) for c in FTS_COLUMNS}
        with self._lock:
            for key, libraries in found.items():
                self._held[key] = libraries
            held = {}
            for key in keys:
                self._held.move_to_end(key)
                held[key] = self._held[key]
            while len(self._held) > TOKENS_CACHED:
                self._held.popitem(last=False)
        return held

    def score(
        self,
        library: str,
        columns: dict[str, str],
        clauses: Sequence[Clause],
        frequencies: dict[int, dict[str, dict[str, int]]],
    ) -> float:
        """The full-text score of a chunk of ``library`` whose full-text ``columns`` hold these texts,
        for the query of ``clauses``, as the library's own index scores it (``frequencies``: what
        :meth:`load` returned for them)."""
        chunks, averages = self._sizes[library]
        tokenized = {column: list(lancedb.tokenize(text or "")) for column, text in columns.items()}
        counts = {column: Counter(t.text for t in tokens) for column, tokens in tokenized.items()}
        total = 0.0
        for clause in _clause_tokens(tuple(clauses)):
            found = counts.get(clause.column)
            if found is None or not clause.tokens:
                continue
            if clause.phrase and not _has_phrase(tokenized[clause.column], clause):
                continue
            length = len(tokenized[clause.column])
            for token in clause.tokens:
                frequency = found.get(token, 0)
                if not frequency:
                    continue
                holding = frequencies.get(token_hash(token), {}).get(library, {}).get(clause.column, 0)
                score = bm25_impact(chunks, holding, frequency, length, averages[clause.column])
                total += clause.boost * score
        return total


def _has_phrase(tokens: Sequence[Any], clause: _Tokens) -> bool:
    """Whether ``clause``'s tokens stand in ``tokens`` at their offsets from the first one."""
    places: dict[str, set[int]] = {}
    wanted = set(clause.tokens)
    for token in tokens:
        if token.text in wanted:
            places.setdefault(token.text, set()).add(token.position)
    first = places.get(clause.tokens[0], set())
    return any(
        all(start + offset in places.get(token, ()) for token, offset in zip(clause.tokens, clause.offsets))
        for start in first
    )


def rescored(
    statistics: LibraryStatistics,
    read: Any,
    clauses: Sequence[Clause],
    frequencies: dict[int, dict[str, dict[str, int]]],
) -> Ranked:
    """The rows of ``read`` (an Arrow table with ``id``, the library and the full-text columns),
    each scored as its library scores it, best first, ties broken by id."""
    values = read.select(["id", LIBRARY_COLUMN, *FTS_COLUMNS]).to_pydict()
    scores: Iterable[tuple[str, float]] = (
        (
            cid,
            statistics.score(
                values[LIBRARY_COLUMN][i], {c: values[c][i] for c in FTS_COLUMNS}, clauses, frequencies
            ),
        )
        for i, cid in enumerate(values["id"])
    )
    return sorted(scores, key=lambda hit: (-hit[1], hit[0]))


@dataclass(frozen=True)
class Rescoring:
    """What one search's rescored legs need: the statistics, the query's clauses and their tokens'
    frequencies (looked up before the legs run)."""

    statistics: LibraryStatistics
    clauses: tuple[Clause, ...]
    frequencies: dict[int, dict[str, dict[str, int]]]

    async def text_leg(
        self,
        table: Any,
        query: Any,
        where: str | None,
        depth: int,
        texts: dict[str, str] | None,
        rows: lance.Rows | None,
    ) -> tuple[Ranked, bool]:
        """``lance.text_leg`` of the union read :data:`RESCORE_FACTOR` times as deep, its rows scored
        as their libraries score them, the best ``depth`` kept; and whether it holds every match."""
        wanted = [*(rows.columns if rows else []), LIBRARY_COLUMN, *FTS_COLUMNS]
        extra = lance.Rows(list(dict.fromkeys(wanted)))
        deeper = depth * RESCORE_FACTOR
        found = await lance.text_leg(table, query, where, deeper, texts, extra)
        if rows is not None:
            rows.read.extend(extra.read)
        ranked = rescored(self.statistics, extra.read[0], self.clauses, self.frequencies)
        return ranked[:depth], len(found) < deeper and len(ranked) <= depth

