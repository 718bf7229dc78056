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
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import lancedb
import numpy as np

from docs_mcp.search.query import Clause
from docs_mcp.store.columns import LANCEDB_DIR
from docs_mcp.store.impact_table import HASH_COLUMN, IMPACTS_TABLE, token_hash

__all__ = ["BYTES_HELD_MAX", "ScoreBounds", "held_bytes"]

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


# The impacts held in memory across every open index (24 bytes a token): past this, those of the
# indexes least recently searched are dropped, and read again when next needed.
BYTES_HELD_MAX = 128 * 2**20
_held: OrderedDict[int, weakref.ref[ScoreBounds]] = OrderedDict()  # an index closed is forgotten
_held_lock = threading.Lock()

_Arrays = tuple[Any, dict[str, Any]]  # sorted token hashes, and per column the impacts beside them


class ScoreBounds:
    """The ``impacts`` table of the index in ``root``, read on first use (a bound is None when it has
    none), held within :data:`BYTES_HELD_MAX` with the other indexes' ones."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._lock = threading.Lock()
        self._arrays: _Arrays | None = None
        self._missing = False

    def _read(self) -> _Arrays | None:
        with self._lock:
            arrays = self._arrays
            if arrays is None and not self._missing:
                try:
                    table = lancedb.connect(str(self._root / LANCEDB_DIR)).open_table(IMPACTS_TABLE)
                except ValueError:  # built before the table existed: no bound
                    self._missing = True
                    return None
                read = table.to_arrow()
                columns = {n: read.column(n).to_numpy() for n in read.column_names if n != HASH_COLUMN}
                arrays = self._arrays = (read.column(HASH_COLUMN).to_numpy(), columns)
        if arrays is not None:
            _hold(self)
        return arrays

    def _drop(self) -> None:
        with self._lock:
            self._arrays = None  # a search using them keeps its own reference

    def bound(self, clauses: Sequence[Clause], factor: float = 1.0) -> float | None:
        """The highest score the full-text query of ``clauses`` can give a chunk, times ``factor`` (the
        largest score factor ranking may apply); None when the index has no ``impacts`` table."""
        arrays = self._read()
        if arrays is None:
            return None
        hashes, by_column = arrays
        total = 0.0
        for column, (keys, weights) in _weights(tuple(clauses)).items():
            impacts = by_column.get(column)
            if impacts is None:
                return None  # a column the table does not cover: nothing is known of it
            if not len(hashes):
                continue  # an empty index: no chunk scores
            at = np.minimum(np.searchsorted(hashes, keys), len(hashes) - 1)
            held = hashes[at] == keys
            total += float(np.sum(weights[held] * impacts[at[held]]))
        return total * max(factor, 1.0)

    @property
    def nbytes(self) -> int:
        """The memory the table holds while read (0 when not)."""
        arrays = self._arrays
        if arrays is None:
            return 0
        return int(arrays[0].nbytes + sum(array.nbytes for array in arrays[1].values()))


def _hold(bounds: ScoreBounds) -> None:
    """Mark ``bounds`` as just used; drop the least recently used others past the budget."""
    with _held_lock:
        _held[id(bounds)] = weakref.ref(bounds)
        _held.move_to_end(id(bounds))
        for key in [key for key, ref in _held.items() if ref() is None]:
            del _held[key]
        total = _held_bytes_locked()
        while total > BYTES_HELD_MAX and len(_held) > 1:
            _, ref = _held.popitem(last=False)
            oldest = ref()
            if oldest is not None:
                total -= oldest.nbytes
                oldest._drop()


def _held_bytes_locked() -> int:
    return sum(bounds.nbytes for ref in _held.values() if (bounds := ref()) is not None)


def held_bytes() -> int:
    """The memory the impacts read now hold, every index together."""
    with _held_lock:
        return _held_bytes_locked()
