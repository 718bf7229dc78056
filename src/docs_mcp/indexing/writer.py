"""Rows -> the LanceDB table ``chunks``: full-text, scalar and vector indexes, the ``terms`` table of
word counts (``indexing.terms``) and the ``impacts`` table of score bounds (``indexing.impacts``), then
``optimize()`` down to one version."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Sequence
from datetime import timedelta
from pathlib import Path

import lancedb
import pyarrow as pa
from lancedb.index import FTS, Bitmap, BTree, HnswSq

from docs_mcp.indexing.impacts import TokenImpacts
from docs_mcp.indexing.terms import WordCounts
from docs_mcp.libc import release_free_memory
from docs_mcp.store.columns import (
    COPY_COLUMN,
    COPY_LEAD_COLUMN,
    FTS_COLUMNS,
    LANCEDB_DIR,
    TABLE_NAME,
    TEXT_COLUMN,
    VECTOR_COLUMN,
    facet_column,
)

# Below this many rows an exact (flat) cosine scan is fast enough and perfectly accurate
# (benchmarks/test_hybrid_path.py); above it an IVF_HNSW_SQ index keeps vector search in budget.
EXACT_VECTOR_SEARCH_MAX_ROWS = 20_000
# Ids are looked up one at a time by `get`; a btree makes that a point lookup.
_BTREE_COLUMNS = ("id", "file_path")


def write_index(
    out_dir: Path,
    rows: pa.Table,
    facet_names: Sequence[str],
    exact_vector_max_rows: int = EXACT_VECTOR_SEARCH_MAX_ROWS,
) -> None:
    """Create ``out_dir/.lancedb`` holding ``rows`` as table ``chunks`` with every index built (see
    ``write_batches``)."""
    write_batches(out_dir, rows.schema, rows.to_batches(), facet_names, exact_vector_max_rows)


def write_batches(
    out_dir: Path,
    schema: pa.Schema,
    batches: Iterable[pa.RecordBatch],
    facet_names: Sequence[str],
    exact_vector_max_rows: int = EXACT_VECTOR_SEARCH_MAX_ROWS,
    *,
    bitmaps: Sequence[str] = (),
    impacts: bool = True,
    words: WordCounts | None = None,
) -> None:
    """Create ``out_dir/.lancedb`` holding the rows of ``batches`` as table ``chunks`` with every index
    built once they are all written, and the ``terms`` and (``impacts``) ``impacts`` tables. The
    batches stream into LanceDB (and their words and tokens into the counts): the rows are never held
    whole. ``bitmaps``: more columns to index as the facets are (``indexing.union``'s ``library``);
    ``words``: the ``terms`` counts, already made (the text column is then not counted).

    ``out_dir`` must not already hold a table (build writes into a fresh temporary directory).
    Raises whatever LanceDB raises on I/O failure, and what ``batches`` raises as it raised it.
    """
    db = lancedb.connect(str(out_dir / LANCEDB_DIR))
    counting = words is None
    words = WordCounts() if words is None else words
    tokens = TokenImpacts(FTS_COLUMNS) if impacts else None

    failed: list[Exception] = []

    def counted() -> Iterator[pa.RecordBatch]:
        try:
            for batch in batches:
                if counting:
                    words.add(batch.column(TEXT_COLUMN))
                if tokens is not None:
                    tokens.add(batch)
                yield batch
        except Exception as error:  # LanceDB would report it as its own RuntimeError
            failed.append(error)
            raise

    reader = pa.RecordBatchReader.from_batches(schema, counted())
    try:
        table = db.create_table(TABLE_NAME, data=reader, schema=schema, mode="create")
    except Exception:
        if failed:  # what made the rows failed (an embedding provider, the cache's disk): say that
            raise failed[0] from None
        raise
    timeout = timedelta(minutes=10)
    release_free_memory()  # what the writer freed: the full-text index builds would add to it
    write_fts_indexes(table)
    for column in _BTREE_COLUMNS:
        table.create_index(column, config=BTree(), wait_timeout=timeout)
    if COPY_LEAD_COLUMN in schema.names:  # searches rank the leads, then look up a page's copies
        table.create_index(COPY_LEAD_COLUMN, config=Bitmap(), wait_timeout=timeout)
        table.create_index(COPY_COLUMN, config=BTree(), wait_timeout=timeout)
    for column in [*map(facet_column, facet_names), *bitmaps]:
        table.create_index(column, config=Bitmap(), wait_timeout=timeout)
    if VECTOR_COLUMN in schema.names and table.count_rows() > exact_vector_max_rows:
        table.create_index(VECTOR_COLUMN, config=HnswSq(distance_type="cosine"), wait_timeout=timeout)
    terms = words.write(db)
    written = [table, terms] + ([tokens.write(db)] if tokens is not None else [])
    # Each create_index above committed a new table version, and LanceDB keeps every one (a manifest
    # and a transaction file each, ~20 files). Nothing reads them: the index is only ever opened at its
    # latest version. Cleaning them up leaves one version, so the folder (and the OCI layer published
    # from it) holds only what a reader needs. LanceDB warns that a concurrent reader of an old version
    # would fail; this table is private to the build until it is swapped in, so there is none.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"optimize\(cleanup_older_than=0\)", category=UserWarning)
        for one in written:
            one.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
    release_free_memory()  # what the index builds freed: the build's records and caches follow


def write_fts_indexes(table: lancedb.table.Table) -> None:
    """Build the full-text index of each of ``FTS_COLUMNS`` over every row of ``table``, replacing any,
    giving glibc back what each build freed. Raises what LanceDB raises."""
    for column in FTS_COLUMNS:
        # Native BM25; English stemming and stop words suit the prose, and the split column makes
        # identifiers findable by their parts. Positions serve the phrase clauses of a search.
        table.create_index(
            column, config=FTS(with_position=True), replace=True, wait_timeout=timedelta(minutes=10)
        )
        release_free_memory()


def extend_fts_indexes(table: lancedb.table.Table) -> None:
    """Index the rows added to ``table`` since its full-text indexes were built as one more segment of
    each (an update in place: ``indexing.in_place``): the rows already indexed are not read again, and
    with no rows added nothing is written. Raises what Lance raises.

    Lance's own index update (pylance, a build-only dependency pinned to the Lance that LanceDB
    bundles: another Lance counts some rows' tokens differently, and its segment would not score as
    the full build's does). A delta segment, not a merge into the existing one: a merge reads and
    writes the whole index again (its cost grows with the corpus, not the edit), and LanceDB's
    ``optimize()`` first compacts the table, a rewrite of every row once the fragments share their
    indexes' coverage."""
    names = [index.name for index in table.list_indices() if index.index_type == "FTS"]
    table.to_lance().optimize.optimize_indices(index_names=names, num_indices_to_merge=0)
    table.checkout_latest()  # type: ignore[no-untyped-call]  # the version Lance committed
