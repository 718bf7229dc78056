"""An update of the previous index: the rows of the files ``incremental.plan`` names rewritten, the rest
kept as they are on disk (issue 34).

1. ``OUT`` is hard-linked file by file into the build's staging folder. Lance never changes a file it
   wrote (a version is a new manifest; data, deletion and index files are new files, and
   ``latest_version_hint.json`` is written anew and renamed over the old link), so writing the
   staging copy leaves every byte at ``OUT`` as it was, and a failed update leaves ``OUT`` untouched
   (tests/indexing/test_incremental_update.py compares every file's digest).
2. The old rows of the files going are deleted (a deletion file) and the rows of the files coming
   added (a new fragment): LanceDB's ``delete`` and ``add``, the new rows made as a full build makes
   them (``copy_of`` and vectors included). The ``terms`` table gets the word counts of the deleted
   rows taken off and those of the added rows put on, for those words only (``merge_insert``): the
   counts a full build makes. No old version is cleaned up, so every file a server holding the old
   index reads stays in the new folder.
3. Each full-text index gains a segment over the rows added (Lance's index update:
   ``writer.extend_fts_indexes``); the full build's segment stays as it is (its files are the ones
   linked in), so the cost follows the rows added, not the table. No row is left to a
   scan: with the added fragment scanned, LanceDB summed the parts' scores in whatever order its
   threads finished (a hit scored 178.58153 or 178.58151 from one call to the next, so a cursor's
   next page or a merged search could differ from the first answer); segments score the same every
   time. What drifts from a full build: the deleted rows stay in the first segment's BM25
   statistics (row count, document frequencies, mean length) until the next full build, so the
   words of an edited page count twice and its scores drop a little (docs/scaling.md measures it;
   ``incremental.MAX_REWRITTEN_SHARE`` bounds it).
4. The ``impacts`` table is dropped: a token's bound is its best score in any chunk, and a deleted
   chunk may have held the best (its successor is unknown without reading every row). Without it a
   search across libraries always asks this one (``search.bounds``), as for an index built before
   the table; the next full build writes it again.
5. The manifest, computed by ``build`` from every chunk as always, is written, and ``build`` swaps
   the folder in as a full build's.

The other indexes are not updated: the btree, bitmap and vector indexes keep covering the unchanged
rows, deleted rows are masked out of their answers, and LanceDB searches the added fragment by a
flat scan (exact; their answers are not summed across parts). LanceDB's ``optimize()``, the only
index update its Python API offers, compacts the table first: once the fragments share their
indexes' coverage (from the second update on) it merges them, a rewrite of the whole table. Each
update adds a fragment and a full-text segment and keeps the files of the versions before it (a
server may hold them): ``incremental.MAX_UPDATES`` bounds them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import lancedb
import pyarrow as pa

from docs_mcp.corpus.copy_map import MainCopies
from docs_mcp.corpus.scan import ScannedFile
from docs_mcp.embedding.embedding_cache import CachingProvider
from docs_mcp.indexing.embed import VectorStream
from docs_mcp.indexing.incremental import Update
from docs_mcp.indexing.row_cache import RowCache
from docs_mcp.indexing.rows import copy_batches, text_rows, vector_batches
from docs_mcp.indexing.spill import FileSpill
from docs_mcp.indexing.terms import WordChanges
from docs_mcp.indexing.writer import extend_fts_indexes
from docs_mcp.store.columns import LANCEDB_DIR, TABLE_NAME, TEXT_COLUMN
from docs_mcp.store.impact_table import IMPACTS_TABLE
from docs_mcp.store.index_manifest import MANIFEST_FILE, IndexManifest, write_manifest
from docs_mcp.store.term_table import TERMS_TABLE

__all__ = ["apply"]

_IN_LIST_MAX = 500  # paths per IN (...) list of one query


def apply(
    update: Update,
    out: Path,
    staging: Path,
    spill: FileSpill,
    facet_names: Sequence[str],
    urls: bool,
    main_copies: MainCopies,
    provider: CachingProvider | None,
    report: Callable[[int, int], None],
    manifest: IndexManifest,
) -> None:
    """Write into ``staging`` the index at ``out`` with ``update`` applied (its added files read from
    ``spill``, their rows with ``facet_names``' columns, the URL column when ``urls``, each copy's main
    copy from ``main_copies`` and, with ``provider``, their vectors: ``report(done, total)`` follows
    the embedding) and ``manifest``; ``out`` is only read. Raises whatever LanceDB, the file system or
    the provider raises (the caller removes ``staging``)."""
    _link_tree(out, staging)
    db = lancedb.connect(str(staging / LANCEDB_DIR))
    table = db.open_table(TABLE_NAME)
    words = WordChanges()
    for paths in _slices(update.removed):
        where = f"file_path IN ({', '.join(map(_sql_literal, paths))})"
        old = table.search().where(where).select([TEXT_COLUMN]).limit(None).to_arrow()
        words.remove(old.column(TEXT_COLUMN))
        table.delete(where)
    if update.added:
        names = sorted(facet_names)
        files: Iterable[ScannedFile] = (spill.get(number) for number in update.added)
        vectors = VectorStream(provider, report) if provider is not None else None
        if vectors is not None:
            files = vectors.files(files)
        schema, batches = copy_batches(
            RowCache.schema(names, urls), _rows(files, names, urls, words), main_copies
        )
        if vectors is not None and provider is not None:
            schema, batches = vector_batches(schema, batches, vectors.take, provider.dimensions)
        table.add(pa.RecordBatchReader.from_batches(schema, batches))
    extend_fts_indexes(table)
    # No version is cleaned up: a server holding OUT open reads the old versions' files by their
    # names, which the new folder keeps (the next full build leaves one version again).
    words.apply(db.open_table(TERMS_TABLE))
    # The bounds no longer hold (see the module's docstring); an index of an older build has none.
    with contextlib.suppress(ValueError):  # LanceDB's "table not found"
        db.drop_table(IMPACTS_TABLE)
    write_manifest(staging, manifest)


def _rows(
    files: Iterable[ScannedFile], names: list[str], urls: bool, words: WordChanges
) -> Iterator[pa.RecordBatch]:
    """The text rows of ``files``, a file at a time, their words counted in."""
    for scanned in files:
        if scanned.file.chunks:
            rows = text_rows(scanned.file.chunks, names, scanned.urls if urls else None)
            words.add(rows.column(TEXT_COLUMN))
            yield from rows.to_batches()


def _sql_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"  # Lance SQL: quotes doubled, backslashes literal


def _slices(paths: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(paths), _IN_LIST_MAX):
        yield paths[start : start + _IN_LIST_MAX]


def _link_tree(source: Path, target: Path) -> None:
    """``target`` made to hold ``source``'s files as hard links (copies where the file system has
    none), but for the manifest, which the update writes anew."""
    for folder, _dirs, names in os.walk(source):
        place = target / Path(folder).relative_to(source)
        place.mkdir(parents=True, exist_ok=True)
        for name in names:
            if Path(folder) == source and name == MANIFEST_FILE:
                continue
            try:
                os.link(Path(folder) / name, place / name)
            except OSError:
                shutil.copy2(Path(folder) / name, place / name)
