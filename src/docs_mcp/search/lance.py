"""The two legs of a search, run on LanceDB's background event loop.

Every search is one coroutine there: the query objects are built, run (both legs of a hybrid search
concurrently) and read in a single hand-off from the calling thread. Each leg returns ``(id, score)``
best first, ties broken by id, and puts the text of its rows into ``texts`` for the snippets: reading
it with a leg of up to :data:`TEXTS_WITH_LEG` rows costs less than reading the page's text afterwards
(``benchmarks/test_search.py``); a deeper full-text leg (a union's, rescored) leaves it to the page
(``RowCatalog.texts``): the text is most of what reading its rows costs.
"""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import lancedb
import pyarrow as pa
from lancedb.background_loop import LOOP
from lancedb.query import FullTextQuery

from docs_mcp.search.types import Ranked
from docs_mcp.store.columns import LANCEDB_DIR, TABLE_NAME, TEXT_COLUMN, VECTOR_COLUMN

_T = TypeVar("_T")

# What LanceDB keeps of an index it has read (index pages: full-text posting lists, btree and bitmap
# pages; file and fragment metadata), shared by every connection this process opens to read indexes.
# LanceDB's defaults (a session per connection, GiBs each) let a server's memory grow with the part of
# a large index its queries have touched; bounded, it does not grow past these (issue 34). A trade of
# time for memory at a million chunks: their searches touched 160 MB of index pages in 15 calls (still
# growing) and took 3-4x as long within 96 MiB (docs/scaling.md), but a replica with a bigger cache
# would pass the deploy limit (768 MiB). Past the bound, pages are read again from the local disk.
INDEX_CACHE_BYTES = 96 * 2**20
METADATA_CACHE_BYTES = 32 * 2**20
_SESSION: list[Any] = []
# A full-text leg up to this deep reads its rows' text; deeper, the page's text is read on its own
# (one LanceDB call, about what reading the text of 100 rows with the leg costs: docs/scaling.md).
TEXTS_WITH_LEG = 100


def session() -> Any:
    """The ``lancedb.Session`` of this process's reading connections (made on first use)."""
    if not _SESSION:
        _SESSION.append(
            lancedb.Session(
                index_cache_size_bytes=INDEX_CACHE_BYTES, metadata_cache_size_bytes=METADATA_CACHE_BYTES
            )
        )
    return _SESSION[0]


def connect(root: Path) -> Any:
    """A synchronous connection to the index in ``root`` (its ``.lancedb``), in the shared session."""
    return lancedb.connect(str(root / LANCEDB_DIR), session=session())


def run(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coroutine`` on LanceDB's background event loop (the one its async tables live on)."""
    return cast(_T, LOOP.run(coroutine))  # type: ignore[no-untyped-call]


async def open_table(root: Path) -> Any:
    """The index table as an ``AsyncTable``, opened on (and for) LanceDB's background event loop."""
    db = await lancedb.connect_async(str(root / LANCEDB_DIR), session=session())
    return await db.open_table(TABLE_NAME)


def _best_first(pairs: Any) -> Ranked:
    return sorted(pairs, key=lambda item: (-item[1], item[0]))


class Rows:
    """Where a leg puts what it read besides ids and scores: ``columns`` of its rows (the catalog's,
    ``RowCatalog.columns``) and their ``_rowid`` as Arrow tables in ``read``."""

    def __init__(self, columns: Sequence[str]) -> None:
        self.columns = list(columns)
        self.read: list[pa.Table] = []


async def text_leg(
    table: Any,
    query: FullTextQuery,
    where: str | None,
    depth: int,
    texts: dict[str, str] | None,
    rows: Rows | None = None,
) -> Ranked:
    """BM25 ranking of ``query`` under the prefilter ``where``; row texts go into ``texts`` when given
    and ``depth`` is at most :data:`TEXTS_WITH_LEG`, the ``rows.columns`` into ``rows``."""
    builder = table.query().nearest_to_text(query)
    if where:
        builder = builder.where(where)  # a prefilter: async queries filter before ranking
    if depth > TEXTS_WITH_LEG:
        texts = None
    columns = ["id", "_score"] if texts is None else ["id", TEXT_COLUMN, "_score"]
    if rows is not None:
        builder = builder.with_row_id()
    read = await builder.select(columns + (rows.columns if rows else [])).limit(depth).to_arrow()
    if rows is not None:
        rows.read.append(read)
    found = read.select(columns).to_pydict()
    if texts is not None:
        texts.update(zip(found["id"], found[TEXT_COLUMN], strict=True))
    return _best_first(zip(found["id"], (float(s) for s in found["_score"]), strict=True))


async def read_ids(table: Any, ids: Sequence[str], texts: dict[str, str], rows: Rows) -> None:
    """The text of the rows of ``ids`` into ``texts`` and their ``rows.columns`` into ``rows``, as
    the legs read them (a row found by a leg that read neither)."""
    where = "id IN (" + ", ".join("'" + cid.replace("'", "''") + "'" for cid in ids) + ")"
    query = table.query().where(where).with_row_id().select(["id", TEXT_COLUMN, *rows.columns])
    read = await query.limit(len(ids)).to_arrow()
    rows.read.append(read)
    texts.update(zip(read["id"].to_pylist(), read[TEXT_COLUMN].to_pylist(), strict=True))


async def texts(table: Any) -> list[str]:
    """The text of every row."""
    found = await table.query().select([TEXT_COLUMN]).to_arrow()
    return cast(list[str], found.column(TEXT_COLUMN).to_pylist())


async def vector_leg(
    table: Any,
    vector: Sequence[float],
    where: str | None,
    depth: int,
    ef: int | None,
    texts: dict[str, str],
    rows: Rows | None = None,
) -> Ranked:
    """Cosine similarity ranking (higher is better, like BM25); ``ef`` sizes an HNSW candidate list."""
    builder = table.query().nearest_to(list(vector)).column(VECTOR_COLUMN).distance_type("cosine")
    if ef is not None:
        builder = builder.ef(max(ef, depth))
    if where:
        builder = builder.where(where)
    columns = ["id", TEXT_COLUMN, "_distance"]
    if rows is not None:
        builder = builder.with_row_id()
    read = await builder.select(columns + (rows.columns if rows else [])).limit(depth).to_arrow()
    if rows is not None:
        rows.read.append(read)
    found = read.select(columns).to_pydict()
    texts.update(zip(found["id"], found[TEXT_COLUMN], strict=True))
    return _best_first((cid, 1.0 - float(d)) for cid, d in zip(found["id"], found["_distance"], strict=True))
