"""The ``terms`` table (``store.term_table``): per word, how many chunks hold it, from the ``text`` column."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pyarrow as pa
from lancedb.index import BTree

from docs_mcp.store.term_table import TERMS_TABLE, chunk_words

_IN_LIST_MAX = 500  # words per IN (...) list of one query
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


class WordChanges:
    """Per word, the change in how many chunks hold it, as an update deletes and adds rows: ``remove``
    and ``add`` text columns, then ``apply`` the changes to a ``terms`` table."""

    def __init__(self) -> None:
        self._changes: Counter[str] = Counter()

    def add(self, texts: pa.Array | pa.ChunkedArray) -> None:
        """Count the words of ``texts`` (rows added) in."""
        for text in texts.to_pylist():
            self._changes.update(chunk_words(text or ""))

    def remove(self, texts: pa.Array | pa.ChunkedArray) -> None:
        """Count the words of ``texts`` (rows deleted) out."""
        for text in texts.to_pylist():
            self._changes.subtract(chunk_words(text or ""))

    def apply(self, table: Any) -> None:
        """Change ``table`` (a ``terms`` table) to hold the counts a full build would: the changed
        words' rows updated or inserted (``merge_insert``), those no chunk holds any more deleted.
        Reads and writes only the changed words' rows: new files, none rewritten. Raises what
        LanceDB raises."""
        changed = sorted(term for term, change in self._changes.items() if change)
        current: dict[str, int] = {}
        for start in range(0, len(changed), _IN_LIST_MAX):
            words = ", ".join(_literal(term) for term in changed[start : start + _IN_LIST_MAX])
            read = (
                table.search().where(f"term IN ({words})").select(["term", "chunks"]).limit(None).to_arrow()
            )
            current.update(zip(read["term"].to_pylist(), read["chunks"].to_pylist(), strict=True))
        counts = {term: current.get(term, 0) + self._changes[term] for term in changed}
        gone = [term for term, count in counts.items() if count <= 0 and term in current]
        for start in range(0, len(gone), _IN_LIST_MAX):
            table.delete(f"term IN ({', '.join(map(_literal, gone[start : start + _IN_LIST_MAX]))})")
        kept = [term for term, count in counts.items() if count > 0]
        if kept:
            rows = pa.Table.from_arrays(
                [pa.array(kept, pa.string()), pa.array([counts[term] for term in kept], pa.int64())],
                schema=_SCHEMA,
            )
            table.merge_insert("term").when_matched_update_all().when_not_matched_insert_all().execute(rows)


def _literal(term: str) -> str:
    return "'" + term.replace("'", "''") + "'"  # words are [A-Za-z0-9]+: no quote, but never trust it
