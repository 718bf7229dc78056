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


def write_terms(db: Any, texts: pa.ChunkedArray) -> None:
    """Count the words of ``texts`` (one chunk each) and write them as table ``terms`` of ``db``, with a
    btree on ``term`` for the lookups of one query's words. Raises what LanceDB raises."""
    counts: Counter[str] = Counter()
    for chunk in texts.chunks:  # one Arrow chunk at a time: Python strings for a batch only
        for text in chunk.to_pylist():
            counts.update(chunk_words(text or ""))
    terms = sorted(counts)
    table = pa.Table.from_arrays(
        [pa.array(terms, pa.string()), pa.array([counts[t] for t in terms], pa.int64())], schema=_SCHEMA
    )
    created = db.create_table(TERMS_TABLE, data=table, schema=_SCHEMA, mode="create")
    if table.num_rows:
        created.create_index("term", config=BTree(), wait_timeout=timedelta(minutes=10))
