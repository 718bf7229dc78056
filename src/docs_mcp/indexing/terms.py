"""The ``terms`` table (``store.term_table``): per word, how many chunks hold it, from the ``text`` column."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pyarrow as pa
from lancedb.index import BTree

from docs_mcp.store.term_table import TERMS_TABLE, chunk_words

_SCHEMA = pa.schema(
    [pa.field("term", pa.string(), nullable=False), pa.field("chunks", pa.int64(), nullable=False)]
)


class WordCounts:
    """Per word, how many chunks hold it: ``add`` the text column batch by batch, then ``write``."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()

    def add(self, texts: pa.Array | pa.ChunkedArray) -> None:
        """Count the words of ``texts`` (one chunk's text each)."""
        for text in texts.to_pylist():
            self._counts.update(chunk_words(text or ""))

    def merge(self, terms: Any) -> None:
        """Add the counts of another index's ``terms`` table (a LanceDB table): the chunks of each
        are distinct, so counts add up (``indexing.union``)."""
        read = terms.search().select(["term", "chunks"]).limit(None).to_arrow()
        self._counts.update(dict(zip(read["term"].to_pylist(), read["chunks"].to_pylist(), strict=True)))

    def write(self, db: Any) -> Any:
        """Write the counts as table ``terms`` of ``db``, with a btree on ``term`` for the lookups of one
        query's words; returns the table. Raises what LanceDB raises."""
        terms = sorted(self._counts)
        counts = pa.array([self._counts[term] for term in terms], pa.int64())
        table = pa.Table.from_arrays([pa.array(terms, pa.string()), counts], schema=_SCHEMA)
        created = db.create_table(TERMS_TABLE, data=table, schema=_SCHEMA, mode="create")
        if table.num_rows:
            created.create_index("term", config=BTree(), wait_timeout=timedelta(minutes=10))
        return created
