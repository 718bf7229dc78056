"""The ``impacts`` table (``store.impact_table``): per token of each full-text column, the highest BM25
score one chunk can give it, from the tokens LanceDB's own tokenizer makes of every row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import lancedb
import numpy as np
import pyarrow as pa

from docs_mcp.store.impact_table import HASH_COLUMN, IMPACTS_TABLE, bm25_impact, token_hash


class _Column:
    """One full-text column's token statistics: per token, the chunks holding it and the (frequency,
    chunk length) pairs no other chunk beats on both (more often in a shorter chunk): the chunk scoring
    highest for the token is one of them, whatever the average length turns out to be. Also the
    column's total length in tokens."""

    def __init__(self) -> None:
        self.holding: dict[str, int] = {}
        self.best: dict[str, list[tuple[int, int]]] = {}
        self.tokens = 0

    def add(self, text: str) -> None:
        counts: dict[str, int] = {}
        for found in lancedb.tokenize(text):  # the index's tokenizer: FTS() defaults, as the writer uses
            counts[found.text] = counts.get(found.text, 0) + 1
        length = sum(counts.values())
        self.tokens += length
        for token, frequency in counts.items():
            self.holding[token] = self.holding.get(token, 0) + 1
            pairs = self.best.get(token)
            if pairs is None:
                self.best[token] = [(frequency, length)]
            elif not any(f >= frequency and n <= length for f, n in pairs):
                kept = [(f, n) for f, n in pairs if not (frequency >= f and length <= n)]
                self.best[token] = [*kept, (frequency, length)]

    def impacts(self, chunks: int) -> dict[str, float]:
        """Per token, its highest BM25 score in one chunk of the ``chunks`` in the index."""
        average = self.tokens / chunks if chunks else 0.0
        return {
            token: max(bm25_impact(chunks, self.holding[token], f, n, average) for f, n in pairs)
            for token, pairs in self.best.items()
        }


class TokenImpacts:
    """Per token of each of ``columns``, its BM25 bound: ``add`` the rows batch by batch, then ``write``."""

    def __init__(self, columns: Sequence[str]) -> None:
        self._columns = {name: _Column() for name in columns}
        self._rows = 0

    def add(self, batch: pa.RecordBatch) -> None:
        """Count the tokens of the full-text columns of ``batch``."""
        self._rows += batch.num_rows
        for name, column in self._columns.items():
            for text in batch.column(name).to_pylist():
                column.add(text or "")

    def write(self, db: Any) -> Any:
        """Write the bounds as table ``impacts`` of ``db`` (see ``store.impact_table``); returns the
        table. Raises what LanceDB raises."""
        impacts: dict[int, dict[str, float]] = {}
        for name, column in self._columns.items():
            for token, score in column.impacts(self._rows).items():
                row = impacts.setdefault(token_hash(token), {})
                row[name] = max(row.get(name, 0.0), score)
        keys = np.array(sorted(impacts), dtype=np.uint64)
        arrays = {HASH_COLUMN: pa.array(keys, pa.uint64())}
        for name in self._columns:
            arrays[name] = pa.array([impacts[int(key)].get(name, 0.0) for key in keys], pa.float64())
        return db.create_table(IMPACTS_TABLE, data=pa.table(arrays), mode="create")
