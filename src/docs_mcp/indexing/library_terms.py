"""Each library's term statistics in a union (``store.library_terms``), counted as its rows are read."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import BTree

from docs_mcp.store.columns import LIBRARY_COLUMN
from docs_mcp.store.impact_table import HASH_COLUMN, token_hash
from docs_mcp.store.library_terms import LIBRARY_SIZES, LIBRARY_TERMS, ROWS_COLUMN

__all__ = ["LibraryTerms"]


class LibraryTerms:
    """Per library: its chunks, and per full-text column its length in tokens and each token's
    chunks, from the tokens LanceDB's own tokenizer makes (as ``indexing.impacts`` counts them)."""

    def __init__(self, columns: Sequence[str]) -> None:
        self._columns = list(columns)
        self._rows: dict[str, int] = {}
        self._lengths: dict[str, dict[str, int]] = {}
        self._holding: dict[str, dict[str, Counter[str]]] = {}

    def add(self, library: str, batch: pa.RecordBatch | pa.Table) -> None:
        """Count the tokens of the full-text columns of ``batch``, rows of ``library``."""
        self._rows[library] = self._rows.get(library, 0) + batch.num_rows
        lengths = self._lengths.setdefault(library, dict.fromkeys(self._columns, 0))
        holding = self._holding.setdefault(library, {column: Counter() for column in self._columns})
        for column in self._columns:
            counts = holding[column]
            for text in batch.column(column).to_pylist():
                tokens = [found.text for found in lancedb.tokenize(text or "")]
                lengths[column] += len(tokens)
                counts.update(set(tokens))

    def write(self, db: Any) -> None:
        """Write tables ``library_sizes`` and ``library_terms`` (btree on the hash) into ``db``."""
        libraries = sorted(self._rows)
        sizes: dict[str, pa.Array] = {
            LIBRARY_COLUMN: pa.array(libraries, pa.string()),
            ROWS_COLUMN: pa.array([self._rows[name] for name in libraries], pa.int64()),
        }
        for column in self._columns:
            sizes[column] = pa.array([self._lengths[name][column] for name in libraries], pa.int64())
        db.create_table(LIBRARY_SIZES, data=pa.table(sizes), mode="create")
        names: list[str] = []
        keys: list[int] = []
        frequencies: dict[str, list[int]] = {column: [] for column in self._columns}
        for name in libraries:
            holding = self._holding[name]
            per_token: dict[int, dict[str, int]] = {}
            for column, counts in holding.items():
                for token, chunks in counts.items():  # tokens sharing a hash keep the larger count
                    row = per_token.setdefault(token_hash(token), {})
                    row[column] = max(row.get(column, 0), chunks)
            for key in sorted(per_token):
                names.append(name)
                keys.append(key)
                for column in self._columns:
                    frequencies[column].append(per_token[key].get(column, 0))
        terms: dict[str, pa.Array] = {
            LIBRARY_COLUMN: pa.array(names, pa.string()),
            HASH_COLUMN: pa.array(np.array(keys, dtype=np.uint64), pa.uint64()),
        }
        for column in self._columns:
            terms[column] = pa.array(frequencies[column], pa.int32())
        table = db.create_table(LIBRARY_TERMS, data=pa.table(terms), mode="create")
        if keys:
            table.create_index(HASH_COLUMN, config=BTree(), wait_timeout=timedelta(minutes=10))
