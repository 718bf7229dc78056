"""The content digest of an index: what it serves, independent of how LanceDB laid out its files.

Two builds of the same docs hold the same rows and the same index manifest, yet their LanceDB folders
differ byte for byte, whatever the build does (measured on LanceDB 0.40): data and index files are
named by random UUIDs, every version manifest records wall-clock timestamps, the FSST string
compression trains its symbol table on a random sample (~200 KB of difference in an 8 MB data file
and in the btree pages), and the full-text index files list their metadata in hash-map order, which
Rust randomises per process. Making the folder itself reproducible would mean rewriting LanceDB's
private binary formats after every write: fragile across versions, and wrong the day one changes.

So publishing is content-addressed one level up instead: this digest covers the index manifest (the
docs' content hash, format, docs-mcp version, embedding model, facets) and every row of the table
(sorted by chunk id, as Arrow IPC in batches of a fixed size), which together decide every answer the
index gives. ``publish`` records it as an annotation and as a tag (``content-<hex>``); a later
publish of an index with the same digest reuses that artifact (same manifest, same layer digest, no
blob uploaded) and only moves the tags. The layer of one folder is itself byte-reproducible (see
``layer.pack``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from docs_mcp.errors import IndexUnavailable
from docs_mcp.store.columns import LANCEDB_DIR, TABLE_NAME

CONTENT_TAG_PREFIX = "content-"
_TAG_HEX = 32  # 128 bits of the digest: plenty to tell indexes apart, and a readable tag
# Rows per record batch of the digested stream: part of the digest's definition, so fixed.
DIGEST_BATCH_ROWS = 4096


def content_digest(index_dir: Path, config: bytes) -> str:
    """``sha256:<hex>`` over the index manifest bytes ``config`` and the rows of ``index_dir``'s table:
    an Arrow IPC stream of the rows sorted by chunk id, in record batches of ``DIGEST_BATCH_ROWS``.

    Memory: the ids (their sort order) and one batch, never the table (issue 34: publishing held the
    whole table three times over). Raises ``IndexUnavailable`` when the table cannot be read.
    """
    import lancedb

    hasher = hashlib.sha256()
    hasher.update(len(config).to_bytes(8, "big") + config)
    try:
        table = lancedb.connect(str(Path(index_dir) / LANCEDB_DIR)).open_table(TABLE_NAME)
        schema = pa.schema([field.remove_metadata() for field in table.schema])
        row_ids = _row_ids_by_id(table)
        with pa.ipc.new_stream(_HashSink(hasher), schema) as writer:
            for start in range(0, len(row_ids), DIGEST_BATCH_ROWS):
                wanted = row_ids[start : start + DIGEST_BATCH_ROWS].to_pylist()
                part = table.take_row_ids(wanted).to_arrow().select(schema.names).sort_by("id")
                writer.write_table(part.replace_schema_metadata(None).cast(schema).combine_chunks())
    except Exception as error:  # LanceDB raises assorted errors for a missing or damaged table
        raise IndexUnavailable(f"cannot read the index table in {index_dir}: {error}") from error
    return "sha256:" + hasher.hexdigest()


def _row_ids_by_id(table: Any) -> pa.Array:
    """The row ids of ``table`` in chunk id order, its id column read batch by batch (a query's
    ``to_arrow`` held LanceDB's whole result besides: a quarter more per row at 100k chunks)."""
    ids: list[pa.Array] = []
    row_ids: list[pa.Array] = []
    for batch in table.search().select(["id"]).with_row_id(True).limit(None).to_batches(DIGEST_BATCH_ROWS):
        ids.append(batch.column("id"))
        row_ids.append(batch.column("_rowid"))
    if not ids:
        return pa.array([], pa.uint64())
    order = pc.sort_indices(pa.chunked_array(ids))
    return pa.chunked_array(row_ids).combine_chunks().take(order)


def content_tag(digest: str) -> str:
    """The tag that names an index's content in a repository: ``content-<first 32 hex digits>``."""
    return CONTENT_TAG_PREFIX + digest.partition(":")[2][:_TAG_HEX]


class _HashSink:
    """A file-like sink for the IPC writer that only hashes (the rows are never held twice)."""

    def __init__(self, hasher: hashlib._Hash) -> None:
        self._hasher = hasher
        self.closed = False

    def write(self, data: bytes | memoryview) -> int:
        self._hasher.update(data)
        return len(data)

    def flush(self) -> None:
        """Nothing is buffered."""

    def close(self) -> None:
        self.closed = True
