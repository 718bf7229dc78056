"""Each library's term statistics in a union (``store.library_terms``), counted as its rows are read,
and each row's tokens, as LanceDB's tokenizer makes them (as ``indexing.impacts`` counts them)."""

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
from docs_mcp.store.library_terms import LIBRARY_SIZES, LIBRARY_TERMS, ROWS_COLUMN, short_hash

__all__ = ["TOKENS_TYPE", "LibraryTerms"]

TOKENS_TYPE = pa.list_(pa.uint32())


class LibraryTerms:
    """Per library: its chunks, and per full-text column its length in tokens and each token's
    chunks; :meth:`add` also gives each row's tokens."""

    def __init__(self, columns: Sequence[str]) -> None:
        self._columns = list(columns)
        self._rows: dict[str, int] = {}
        self._lengths: dict[str, dict[str, int]] = {}
        self._holding: dict[str, dict[str, Counter[int]]] = {}
        self._hashes: dict[str, int] = {}  # token -> token_hash, every token hashed once

    def add(self, library: str, rows: pa.Table) -> dict[str, pa.Array]:
        """Count the tokens of the full-text columns of ``rows`` (of ``library``); returns per column
        each row's tokens (``store.library_terms.tokens_column``)."""
        self._rows[library] = self._rows.get(library, 0) + rows.num_rows
        lengths = self._lengths.setdefault(library, dict.fromkeys(self._columns, 0))
        holding = self._holding.setdefault(library, {column: Counter() for column in self._columns})
        made: dict[str, pa.Array] = {}
        for column in self._columns:
            counts = holding[column]
            per_row = []
            for text in rows.column(column).to_pylist():
                found = list(lancedb.tokenize(text or ""))
                keys = [self._hash(token.text) for token in found]
                lengths[column] += len(keys)
                counts.update(set(keys))
                at = np.zeros(found[-1].position + 1 if found else 0, dtype=np.uint32)
                at[[token.position for token in found]] = [short_hash(key) for key in keys]
                per_row.append(at)
            made[column] = pa.array(per_row, TOKENS_TYPE)
        return made

    def _hash(self, token: str) -> int:
        key = self._hashes.get(token)
        if key is None:
            key = self._hashes[token] = token_hash(token)
        return key

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
            tokens = sorted({key for counts in holding.values() for key in counts})
            names += [name] * len(tokens)
            keys += tokens
            for column in self._columns:
                frequencies[column] += [holding[column].get(key, 0) for key in tokens]
        terms: dict[str, pa.Array] = {
            LIBRARY_COLUMN: pa.array(names, pa.string()),
            HASH_COLUMN: pa.array(np.array(keys, dtype=np.uint64), pa.uint64()),
        }
        for column in self._columns:
            terms[column] = pa.array(frequencies[column], pa.int32())
        table = db.create_table(LIBRARY_TERMS, data=pa.table(terms), mode="create")
        if keys:
            table.create_index(HASH_COLUMN, config=BTree(), wait_timeout=timedelta(minutes=10))
