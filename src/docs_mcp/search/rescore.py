"""A union's full-text hits scored as each hit's own library scores them (``store.library_terms``).

A union index (``indexing.union``) ranks by BM25 over every library's rows together: a token rare in
one library but common in the others weighs less there than in that library's own index. This
module scores a hit as its library's index would: the same clauses (``search.query``), the tokens
LanceDB's tokenizer makes of the hit's full-text columns, and the library's chunks, average column
lengths and token frequencies in LanceDB's BM25 (``store.impact_table.bm25_scores``). A word clause
scores each query token the chunk holds (a token named twice, twice), times the clause's boost; a
phrase clause scores its tokens only where they stand next to each other, as LanceDB does
(tests/search/test_rescore.py compares both with LanceDB's own scores).

The statistics of a query's tokens are looked up before its legs run (``load``), in arrays read
when the union is opened.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lancedb
import numpy as np

from docs_mcp.search import lance
from docs_mcp.search.leads import OtherCopies
from docs_mcp.search.query import Clause
from docs_mcp.search.types import Ranked
from docs_mcp.store.columns import COPY_COLUMN, COPY_LEAD_COLUMN, FTS_COLUMNS, LANCEDB_DIR, LIBRARY_COLUMN
from docs_mcp.store.impact_table import HASH_COLUMN, bm25_scores, token_hash
from docs_mcp.store.library_terms import LIBRARY_SIZES, LIBRARY_TERMS, ROWS_COLUMN, short_hash, tokens_column

__all__ = ["RESCORE_FACTOR", "LibraryStatistics", "Rescoring", "library_of", "rescored"]

# A rescored leg reads this many times the candidates it returns from the union's own ranking, then
# keeps the best by each library's scores (docs/scaling.md measures the factors tried).
RESCORE_FACTOR = 2
# Token hashes held across queries (hashing is most of what a short query's statistics cost).
TOKENS_CACHED = 4096


@dataclass(frozen=True)
class _Tokens:
    """One clause as LanceDB matches it: its column, boost, tokens and their offsets in the phrase."""

    column: str
    boost: float
    phrase: bool
    tokens: tuple[str, ...]
    offsets: tuple[int, ...]


@functools.lru_cache(maxsize=TOKENS_CACHED)
def _key(token: str) -> int:
    return token_hash(token)


def library_of(chunk_id: str) -> str:
    """The library of a union's row ``chunk_id`` (``indexing.union`` prefixes ids with ``NAME/``)."""
    return chunk_id.split("/", 1)[0]


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
    """The per-library statistics of the union in ``root``, read whole when it is opened (about 20
    bytes per token of each library: its libraries' vocabularies, not its chunks); ``available`` is
    False for a union made before them (its hits cannot be rescored)."""

    def __init__(self, root: Path) -> None:
        self.available = False
        self._sizes: dict[str, tuple[int, dict[str, float]]] = {}
        if not (root / LANCEDB_DIR / f"{LIBRARY_SIZES}.lance").is_dir():
            return  # a library's index, or a union made before them: no look-up of a missing table
        db = lance.connect(root)
        try:
            sizes = db.open_table(LIBRARY_SIZES).to_arrow().to_pylist()
            terms = db.open_table(LIBRARY_TERMS).to_arrow()
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
        # Looked up per query token: a token's rows, one per library holding it, sorted by hash. A
        # btree lookup per query cost 5-20 ms on a loaded machine (docs/scaling.md), this a few us.
        hashes = terms[HASH_COLUMN].to_numpy()
        order = np.argsort(hashes, kind="stable")
        encoded = terms[LIBRARY_COLUMN].combine_chunks().dictionary_encode()
        self._names: list[str] = encoded.dictionary.to_pylist()
        self._hashes = hashes[order]
        self._libraries = encoded.indices.to_numpy()[order]
        self._holding = {c: terms[c].to_numpy()[order] for c in FTS_COLUMNS}

    def load(self, clauses: Sequence[Clause]) -> dict[int, dict[str, dict[str, int]]]:
        """The statistics of the tokens of ``clauses``: per token hash, per library holding it, per
        full-text column how many of its chunks hold it."""
        held: dict[int, dict[str, dict[str, int]]] = {}
        for key in {_key(t) for c in _clause_tokens(tuple(clauses)) for t in c.tokens}:
            found = np.uint64(key)
            low, high = np.searchsorted(self._hashes, found), np.searchsorted(self._hashes, found, "right")
            held[key] = {
                self._names[self._libraries[i]]: {c: int(self._holding[c][i]) for c in FTS_COLUMNS}
                for i in range(low, high)
            }
        return held

    def scores(
        self,
        read: Any,
        clauses_of: Callable[[str], Sequence[Clause]],
        frequencies: dict[int, dict[str, dict[str, int]]],
    ) -> list[float]:
        """The full-text score of each row of ``read`` (an Arrow table with the library and each
        full-text column's tokens, ``store.library_terms.tokens_column``) for the query of
        ``clauses_of`` its library, as the library's own index scores it (``frequencies``: what
        :meth:`load` returned for their tokens)."""
        libraries = read[LIBRARY_COLUMN].to_pylist()
        by_library: dict[str, list[int]] = {}
        for row, library in enumerate(libraries):
            by_library.setdefault(library, []).append(row)
        groups: dict[tuple[Clause, ...], list[int]] = {}
        for library, rows in by_library.items():
            groups.setdefault(tuple(clauses_of(library)), []).extend(rows)
        if len(groups) <= 1:
            return self._scores(read, libraries, next(iter(groups), ()), frequencies)
        totals = [0.0] * len(libraries)
        for clauses, rows in groups.items():
            part = read.take(rows)
            for row, score in zip(
                rows, self._scores(part, part[LIBRARY_COLUMN].to_pylist(), clauses, frequencies), strict=True
            ):
                totals[row] = score
        return totals

    def _scores(
        self,
        read: Any,
        libraries: list[str],
        clauses: Sequence[Clause],
        frequencies: dict[int, dict[str, dict[str, int]]],
    ) -> list[float]:
        """:meth:`scores` of rows sharing ``clauses``: per column, each query token's BM25 in each
        row (its library's statistics), weighed by how often and with what boost each clause names
        it, a phrase clause only in the rows holding the phrase."""
        totals = np.zeros(len(libraries))
        made = _clause_tokens(tuple(clauses))
        names, of_row = np.unique(np.array(libraries, dtype=object), return_inverse=True)
        chunks = np.array([self._sizes[name][0] for name in names], dtype=np.float64)[of_row]
        for column in FTS_COLUMNS:
            wanted = [c for c in made if c.column == column and c.tokens]
            if not wanted or not libraries:
                continue
            tokens = sorted({t for c in wanted for t in c.tokens})
            keys = [_key(t) for t in tokens]
            rows = _ColumnTokens(read[tokens_column(column)].combine_chunks())
            counts = rows.counts([short_hash(key) for key in keys])
            if not counts.any():
                continue
            held = np.array(
                [[frequencies.get(key, {}).get(name, {}).get(column, 0) for key in keys] for name in names],
                dtype=np.float64,
            )[of_row]
            averages = np.array([self._sizes[name][1][column] for name in names])[of_row]
            with np.errstate(divide="ignore", invalid="ignore"):  # rows holding no query token
                scores = bm25_scores(chunks[:, None], held, counts, rows.lengths[:, None], averages[:, None])
            scores = np.where(counts > 0, scores, 0.0)
            for clause in wanted:
                weights = np.zeros(len(tokens))
                for token in clause.tokens:  # a token named twice is scored twice, as LanceDB does
                    weights[tokens.index(token)] += clause.boost
                clause_scores = scores @ weights
                if clause.phrase:
                    clause_scores = clause_scores * rows.phrases(clause)
                totals += clause_scores
        return [float(total) for total in totals]


class _ColumnTokens:
    """One full-text column's tokens of the rows read (``store.library_terms``), flat."""

    def __init__(self, tokens: Any) -> None:
        self._flat = tokens.values.to_numpy(zero_copy_only=False)
        self._offsets = tokens.offsets.to_numpy(zero_copy_only=False)
        held = np.concatenate([[0], np.cumsum(self._flat != 0)])
        self.lengths = held[self._offsets[1:]] - held[self._offsets[:-1]]  # each row's, in tokens

    def _row_of(self, places: Any) -> Any:
        return np.searchsorted(self._offsets, places, side="right") - 1

    def counts(self, keys: Sequence[int]) -> Any:
        """How often each row holds each of ``keys`` (rows x keys)."""
        order = np.argsort(np.array(keys, dtype=np.uint32), kind="stable")
        ordered = np.array(keys, dtype=np.uint32)[order]
        places = np.nonzero(np.isin(self._flat, ordered))[0]
        found = np.zeros((len(self.lengths), len(keys)))
        np.add.at(found, (self._row_of(places), order[np.searchsorted(ordered, self._flat[places])]), 1)
        return found

    def phrases(self, clause: _Tokens) -> Any:
        """Whether each row holds ``clause``'s tokens at their offsets from the first one."""
        keys = [short_hash(_key(t)) for t in clause.tokens]
        starts = np.nonzero(self._flat == keys[0])[0]
        rows = self._row_of(starts)
        kept = np.ones(len(starts), dtype=bool)
        for key, offset in zip(keys[1:], clause.offsets[1:], strict=True):
            at = starts + offset
            inside = at < self._offsets[rows + 1]  # within the same row
            kept &= inside & (self._flat[np.minimum(at, len(self._flat) - 1)] == key)
        holding = np.zeros(len(self.lengths), dtype=bool)
        holding[rows[kept]] = True
        return holding


def rescored(
    statistics: LibraryStatistics,
    read: Any,
    clauses_of: Callable[[str], Sequence[Clause]],
    frequencies: dict[int, dict[str, dict[str, int]]],
) -> Ranked:
    """The rows of ``read`` (an Arrow table with ``id``, the library and the full-text columns'
    tokens), each scored as its library scores it, best first, ties broken by id."""
    scores = statistics.scores(read, clauses_of, frequencies)
    return sorted(zip(read["id"].to_pylist(), scores, strict=True), key=lambda hit: (-hit[1], hit[0]))


@dataclass(frozen=True)
class Rescoring:
    """What one search's rescored legs need: the statistics, each library's clauses (``clauses_of``
    its name) and their tokens' frequencies (looked up before the legs run)."""

    statistics: LibraryStatistics
    clauses_of: Callable[[str], Sequence[Clause]]
    frequencies: dict[int, dict[str, dict[str, int]]]

    async def text_leg(
        self,
        table: Any,
        query: Any,
        where: str | None,
        depth: int,
        texts: dict[str, str] | None,
        rows: lance.Rows | None,
        others: OtherCopies | None = None,
    ) -> tuple[Ranked, bool]:
        """``lance.text_leg`` of the union read :data:`RESCORE_FACTOR` times as deep, its rows scored
        as their libraries score them, the best ``depth`` kept; and whether it holds every match.
        With ``others``, ``where`` holds copies that lead nothing too (``search.leads``): the leads
        are ranked so, and the best ``others.depth`` of the others (read as deep again) go there."""
        wanted = [*(rows.columns if rows else []), LIBRARY_COLUMN, *map(tokens_column, FTS_COLUMNS)]
        if others is not None:
            wanted += [COPY_COLUMN, COPY_LEAD_COLUMN]
        extra = lance.Rows(list(dict.fromkeys(wanted)))
        deeper = depth * RESCORE_FACTOR
        found = await lance.text_leg(
            table, query, where, deeper + (others.count if others else 0), texts, extra
        )
        if rows is not None:
            rows.read.extend(extra.read)
        scored = rescored(self.statistics, extra.read[0], self.clauses_of, self.frequencies)
        if others is not None:
            found = others.split(found, extra.read[0])[:deeper]
            candidates = {cid for cid, _ in others.found[: others.depth * RESCORE_FACTOR]}
            others.found = [hit for hit in scored if hit[0] in candidates and hit[1] > 0.0][: others.depth]
            leads = {cid for cid, _ in found}
            scored = [hit for hit in scored if hit[0] in leads]
        # A row matching none of its own library's words (only a facet value its library takes out
        # of the query) is no hit of that library's search.
        ranked = [hit for hit in scored if hit[1] > 0.0]
        return ranked[:depth], len(found) < deeper and len(ranked) <= depth
