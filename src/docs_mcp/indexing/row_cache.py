"""The text rows of the last build, by file, so a rebuild computes rows only for the files that changed.

A file's rows (every column but the vector: ``rows.text_rows``) are a function of its chunks, its
page URLs and the index's facet names, and its chunks of its chunk cache key
(``corpus.chunk_cache.file_key``). So the
rows of a file whose key and the facet names are unchanged are taken from the last build, the others
made afresh, and the table is assembled in corpus order: the same table a full build makes.

Storage: ``rows.entries`` in the build's cache folder, an entry file (``docs_mcp.entry_file``) holding
each file's rows as one Arrow IPC stream under its path and key, with its sha256; its metadata records
the row code's fingerprint, the facet names and a digest of the files in order. A damaged entry (its
digest, its schema or its row count) is made again from the file's chunks, a damaged or foreign file
is ignored (logged): never a failed build, never a wrong row. Rewritten (temporary file, then
``os.replace``) when anything changed.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path

import pyarrow as pa

import docs_mcp
from docs_mcp.corpus.scan import ScannedFile
from docs_mcp.entry_file import EntryFile, EntryWriter, read_entries
from docs_mcp.indexing import rows as rows_module
from docs_mcp.indexing.rows import text_rows
from docs_mcp.store import columns, identifiers

log = logging.getLogger(__name__)

ROW_CACHE_FILE = "rows.entries"
_FORMAT = "docs-mcp row cache 2"
# Rows per record batch handed to the writer: bounds the build's memory for rows (issue 34).
BATCH_ROWS = 4096


@cache
def rows_fingerprint() -> str:
    """The sha256 of the code that turns chunks into rows, and the versions it depends on."""
    digest = hashlib.sha256(f"{_FORMAT}\0{docs_mcp.__version__}\0{pa.__version__}\0".encode())
    for module in (rows_module, identifiers, columns):
        digest.update(module.__name__.encode() + b"\0" + Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()


def row_key(scanned: ScannedFile, urls: bool = True) -> str:
    """What decides ``scanned``'s rows besides the facet names: its chunk cache key, and (``urls``:
    the rows have the URL column) its chunks' page URLs, since a site's base URL can change while the
    page does not. Empty when the file has no key."""
    key = scanned.key
    if key and urls:
        page_urls = "\0".join(scanned.urls.get(chunk.id, "") for chunk in scanned.file.chunks)
        key += ":" + hashlib.sha256(page_urls.encode()).hexdigest()
    return key


def _ipc(rows: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, rows.schema) as writer:
        writer.write_table(rows)
    return bytes(sink.getvalue())


class RowCache:
    """The rows of the last build that used ``directory``; ``hits``/``misses`` count files, ``damaged``
    the cached entries that failed their checks (their rows made again)."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / ROW_CACHE_FILE
        self.hits = 0
        self.misses = 0
        self.damaged = 0
        self._writer: EntryWriter | None = None  # this build's entries, written as its rows are made
        self._changed = False

    @staticmethod
    def schema(facet_names: Sequence[str], urls: bool) -> pa.Schema:
        """The schema of the rows ``batches`` yields (``urls``: with the URL column)."""
        return text_rows([], sorted(set(facet_names)), {} if urls else None).schema

    def batches(
        self,
        files: Iterable[ScannedFile],
        facet_names: Sequence[str],
        urls: bool,
        batch_rows: int | None = None,
    ) -> Iterator[pa.RecordBatch]:
        """The text rows of ``files`` (in order) in record batches of about ``batch_rows`` rows, reusing
        the last build's where nothing changed; what this build made goes to the cache as it is made
        (kept by ``save``). ``urls``: the rows have the URL column (each file's URLs are part of its
        key). Memory: one batch and its files, never the table: ``files`` is read as it goes."""
        batch_rows = batch_rows or BATCH_ROWS
        names = sorted(set(facet_names))
        schema = self.schema(names, urls)
        previous, last_files = self._open(names, urls)
        self.discard()
        self._writer = writer = EntryWriter(self.path, _FORMAT)
        parts: list[pa.Table] = []
        pending = 0
        recorded = hashlib.sha256()
        try:
            for scanned in files:
                file, key = scanned.file, row_key(scanned, urls)
                entry = f"{file.path}\0{key}"
                found = self._cached(previous, entry, schema, len(file.chunks)) if key else None
                if found is not None:
                    self.hits += 1
                    part, data = found
                else:
                    self.misses += 1
                    part = text_rows(file.chunks, names, scanned.urls if urls else None)
                    data = _ipc(part) if key else b""
                if key:
                    writer.add(entry, data)
                recorded.update(json.dumps([file.path, key, len(file.chunks)]).encode() + b"\n")
                parts.append(part)
                pending += part.num_rows
                if pending >= batch_rows:
                    yield from pa.concat_tables(parts).combine_chunks().to_batches()
                    parts, pending = [], 0
            if parts:
                yield from pa.concat_tables(parts).combine_chunks().to_batches()
        finally:
            if previous is not None:
                previous.close()
        self._changed = recorded.hexdigest() != last_files or bool(self.damaged)
        writer.metadata = {
            "fingerprint": rows_fingerprint(),
            "facets": names,
            "urls": urls,
            "files": recorded.hexdigest(),
        }

    def save(self) -> None:
        """Keep the last ``batches`` call's rows for the next build (if anything changed). Raises
        ``OSError``."""
        if self._writer is not None and self._changed:
            self._writer.commit()
        self.discard()

    def discard(self) -> None:
        """Forget what the last ``batches`` call wrote (a failed build)."""
        if self._writer is not None:
            self._writer.discard()
        self._writer = None

    def _open(self, names: list[str], urls: bool) -> tuple[EntryFile | None, object]:
        """The last build's entry file when it was written by this code for these facets, and its files."""
        previous = read_entries(self.path, _FORMAT)
        if previous is None:
            return None, None
        metadata = previous.metadata
        if (
            metadata.get("fingerprint") != rows_fingerprint()
            or metadata.get("facets") != names
            or metadata.get("urls") != urls
        ):
            previous.close()
            return None, None
        return previous, metadata.get("files")

    def _cached(
        self, previous: EntryFile | None, entry: str, schema: pa.Schema, count: int
    ) -> tuple[pa.Table, bytes] | None:
        """The cached rows of ``entry`` and their bytes, when they pass their digest, have ``schema``
        and ``count`` rows; None otherwise (a failed check is logged and counted)."""
        if previous is None:
            return None
        damaged = previous.damaged
        data = previous.get(entry)
        if data is None:
            self.damaged += previous.damaged - damaged
            return None
        try:
            rows = pa.ipc.open_stream(pa.py_buffer(data)).read_all()
        except (pa.ArrowException, ValueError) as error:
            rows, problem = None, f"does not read ({error})"
        else:
            problem = (
                "" if rows.schema.equals(schema) and rows.num_rows == count else "has other columns or rows"
            )
        if rows is None or problem:
            log.warning("%s: the rows of %s %s; making them again", self.path, entry.split("\0")[0], problem)
            self.damaged += 1
            return None
        return rows, data
