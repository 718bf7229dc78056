"""The text rows of the last build, by file, so a rebuild computes rows only for the files that changed.

A file's rows (every column but the vector: ``rows.text_rows``) are a function of its chunks and the
index's facet names, and its chunks of its chunk cache key (``corpus.chunk_cache.file_key``). So the
rows of a file whose key and the facet names are unchanged are taken from the last build, the others
made afresh, and the table is assembled in corpus order: the same table a full build makes.

Storage: one Arrow IPC file in the build's cache folder (``rows.arrow``), the last build's rows in
its order; the schema metadata records the row code's fingerprint, the facet names, and each file's
path, key and row count. Rewritten (temporary file, then ``os.replace``) when anything changed; an
unreadable or foreign file is ignored (every row is made again).
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

import pyarrow as pa

import docs_mcp
from docs_mcp.chunk.chunking import ChunkedFile
from docs_mcp.indexing import rows as rows_module
from docs_mcp.indexing.rows import text_rows
from docs_mcp.store import columns, identifiers

ROW_CACHE_FILE = "rows.arrow"
_FORMAT = "docs-mcp row cache 1"
_METADATA_KEY = b"docs_mcp_row_cache"


@cache
def rows_fingerprint() -> str:
    """The sha256 of the code that turns chunks into rows, and the versions it depends on."""
    digest = hashlib.sha256(f"{_FORMAT}\0{docs_mcp.__version__}\0{pa.__version__}\0".encode())
    for module in (rows_module, identifiers, columns):
        digest.update(module.__name__.encode() + b"\0" + Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()


class RowCache:
    """The rows of the last build that used ``directory``; ``hits``/``misses`` count files."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / ROW_CACHE_FILE
        self.hits = 0
        self.misses = 0
        self._pending: tuple[pa.Table, dict[str, object]] | None = None

    def rows(
        self,
        files: Sequence[ChunkedFile],
        file_keys: Mapping[str, str],
        facet_names: Sequence[str],
        urls: Mapping[str, str] | None = None,
    ) -> pa.Table:
        """The text rows of ``files`` (in order), reusing the last build's where nothing changed.
        ``urls`` (chunk id -> page URL, a site's) adds the URL column; a file's URLs are part of its key."""
        names = sorted(set(facet_names))
        previous, where, last_files = self._read(names, bool(urls))
        parts: list[pa.Table] = []
        recorded: list[list[object]] = []
        for file in files:
            key = file_keys.get(file.path, "")
            if key and urls:  # a site's base URL can change while the page does not
                page_urls = "\0".join(urls.get(chunk.id, "") for chunk in file.chunks)
                key += ":" + hashlib.sha256(page_urls.encode()).hexdigest()
            found = where.get((file.path, key)) if key else None
            if previous is not None and found is not None and found[1] == len(file.chunks):
                parts.append(previous.slice(found[0], found[1]))
                self.hits += 1
            else:
                parts.append(text_rows(file.chunks, names, urls))
                self.misses += 1
            recorded.append([file.path, key, len(file.chunks)])
        table = pa.concat_tables(parts).combine_chunks() if parts else text_rows([], names, urls)
        if recorded != last_files:
            self._pending = (table, {"format": _FORMAT, "fingerprint": rows_fingerprint(), "facets": names,
                                     "urls": bool(urls), "files": recorded})  # fmt: skip
        return table

    def save(self) -> None:
        """Keep the last ``rows`` call's rows for the next build (if anything changed). Raises ``OSError``."""
        if self._pending is None:
            return
        table, metadata = self._pending
        table = table.replace_schema_metadata({_METADATA_KEY: json.dumps(metadata).encode()})
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f"{self.path.name}.{uuid.uuid4().hex}.tmp")
        try:
            with pa.OSFile(str(temporary), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
                writer.write_table(table)
            os.replace(temporary, self.path)
        finally:
            temporary.unlink(missing_ok=True)
        self._pending = None

    def _read(
        self, names: list[str], urls: bool
    ) -> tuple[pa.Table | None, dict[tuple[str, str], tuple[int, int]], object]:
        """The last build's rows, where each (path, key) starts and how many rows it has, and its files."""
        try:
            with pa.OSFile(str(self.path), "rb") as source:  # read, not mapped: the file is replaced later
                table = pa.ipc.open_file(source).read_all()
            metadata = json.loads((table.schema.metadata or {})[_METADATA_KEY])
        except (OSError, pa.ArrowException, KeyError, ValueError):
            return None, {}, None
        if (
            not isinstance(metadata, dict)
            or metadata.get("format") != _FORMAT
            or metadata.get("fingerprint") != rows_fingerprint()
            or metadata.get("facets") != names
            or metadata.get("urls") != urls
        ):
            return None, {}, None
        where: dict[tuple[str, str], tuple[int, int]] = {}
        start = 0
        for path, key, count in metadata.get("files", []):
            where[(str(path), str(key))] = (start, int(count))
            start += int(count)
        if start != table.num_rows:
            return None, {}, None
        return table.replace_schema_metadata(None), where, metadata.get("files")
