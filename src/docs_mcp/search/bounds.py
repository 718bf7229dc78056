"""The highest score a full-text search of one index could give any hit: what lets a search across
libraries skip the libraries that cannot reach its page (``server.tools.hub_tools``).

A full-text score is the sum of the query's clauses' BM25 scores, each times its boost (see
``search.query.fulltext_clauses``); a clause's score in one chunk is at most the sum of its tokens'
impacts (``store.impact_table``: a token's largest term score in any chunk), so the sum over every
clause of boost x impacts bounds every chunk's score. A token the index does not hold adds nothing.
The kind prior only lowers scores (its factors are at most 1; a larger one raises the bound with it).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import lancedb
import numpy as np

from docs_mcp.search.query import Clause
from docs_mcp.store.columns import LANCEDB_DIR
from docs_mcp.store.impact_table import HASH_COLUMN, IMPACTS_TABLE, token_hash

__all__ = ["ScoreBounds"]

_QUERIES_CACHED = 256  # the token weights of recent queries: the same for every library asked


@functools.lru_cache(maxsize=_QUERIES_CACHED)
def _weights(clauses: tuple[Clause, ...]) -> dict[str, tuple[Any, Any]]:
    """Per column, the hashes of the clauses' tokens and the total boost each is scored with (a token
    named twice, or in a word clause and a phrase, is scored twice)."""
    per_column: dict[str, dict[int, float]] = {}
    for clause in clauses:
        weights = per_column.setdefault(clause.column, {})
        for token in lancedb.tokenize(clause.text):  # as LanceDB tokenizes the query
            key = token_hash(token.text)
            weights[key] = weights.get(key, 0.0) + clause.boost
    return {
        column: (np.array(list(weights), dtype=np.uint64), np.array(list(weights.values())))
        for column, weights in per_column.items()
    }


class ScoreBounds:
    """The ``impacts`` table of the index in ``root``, read on first use (None when it has none)."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._lock = threading.Lock()
        self._read = False
        self._hashes: Any = None
        self._impacts: dict[str, Any] = {}

    def _load(self) -> bool:
        with self._lock:
            if not self._read:
                try:
                    table = lancedb.connect(str(self._root / LANCEDB_DIR)).open_table(IMPACTS_TABLE)
                except ValueError:  # built before the table existed: no bound
                    table = None
                if table is not None:
                    read = table.to_arrow()
                    self._hashes = read.column(HASH_COLUMN).to_numpy()
                    self._impacts = {
                        name: read.column(name).to_numpy()
                        for name in read.column_names
                        if name != HASH_COLUMN
                    }
                self._read = True
            return self._hashes is not None

    def bound(self, clauses: Sequence[Clause], factor: float = 1.0) -> float | None:
        """The highest score the full-text query of ``clauses`` can give a chunk, times ``factor`` (the
        largest score factor ranking may apply); None when the index has no ``impacts`` table."""
        if not self._load():
            return None
        total = 0.0
        for column, (keys, weights) in _weights(tuple(clauses)).items():
            impacts = self._impacts.get(column)
            if impacts is None:
                return None  # a column the table does not cover: nothing is known of it
            if not len(self._hashes):
                continue  # an empty index: no chunk scores
            at = np.minimum(np.searchsorted(self._hashes, keys), len(self._hashes) - 1)
            held = self._hashes[at] == keys
            total += float(np.sum(weights[held] * impacts[at[held]]))
        return total * max(factor, 1.0)

    @property
    def nbytes(self) -> int:
        """The memory the table holds once read (0 before)."""
        if self._hashes is None:
            return 0
        return int(self._hashes.nbytes + sum(array.nbytes for array in self._impacts.values()))
