"""An edit rewrites only the rows it changes: whether a rebuild can update the previous index in place.

After a build, the build's cache folder records what the index at ``OUT`` holds (``record``): the
digest of its manifest, its table version and row count, and per file its rows' key (``row_cache.
row_key``: its chunk cache key and page URLs), its row count and a digest of its rows' ``copy_of``
and ``copy_lead`` values (``ledger.copy_digests``). The next build into the same ``OUT`` compares
that with the files it scanned (``plan``): when the record agrees with ``OUT`` and the schema is the
same (facet names, URL column, embedding), the rows of the files whose key or copy digest changed,
and of those added or removed, are rewritten (``indexing.in_place``) and nothing else. The files are
held as arrays (``ledger.FileLedger``) and the record is written and compared a line at a time
(``index_state``): what a build holds of them is a few dozen bytes a file.

The copy digest is what makes an edit reach other files: a page that becomes, or stops being, a copy
or a group's main copy changes the ``copy_of`` column of rows in the other files of its group, which
did not change themselves; their digest did, so their rows are rewritten too.

An update adds a segment to the full-text indexes over the rows it added, updates no other index,
and drops the score bounds (``indexing.in_place``): what builds up is deleted rows masked in the
table and still counted in the BM25 statistics (scores drift from a full build's: docs/scaling.md),
added fragments searched by a scan in the other indexes, segments and the files of older versions,
and the time the index has no bounds. So once the rows rewritten since the last full build pass
``MAX_REWRITTEN_SHARE`` of the table, or ``MAX_UPDATES`` updates were stacked, the build is a full
one again; ``build --full`` asks for one.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import lancedb

from docs_mcp.corpus.copies import CopyFinder
from docs_mcp.corpus.copy_changes import CopyState, regroup
from docs_mcp.indexing.index_state import STATE_FILE, Header, joined, read_header, write_state
from docs_mcp.indexing.ledger import FileCopies, FileLedger
from docs_mcp.indexing.row_cache import rows_fingerprint
from docs_mcp.indexing.writer import EXACT_VECTOR_SEARCH_MAX_ROWS
from docs_mcp.store.columns import LANCEDB_DIR, TABLE_NAME
from docs_mcp.store.index_manifest import MANIFEST_FILE, IndexManifest

__all__ = [
    "MAX_REWRITTEN_SHARE",
    "MAX_UPDATES",
    "Update",
    "changed_files",
    "copy_groups",
    "keep_copy_state",
    "plan",
    "record",
]

log = logging.getLogger(__name__)

# Rows rewritten (deleted plus added) since the last full build, over the table's rows, past which a
# build is a full one: it bounds the deleted rows an index carries and the rows searched by a scan.
# Stacked updates are capped too: each adds a fragment and keeps a replaced full-text index's files.
MAX_REWRITTEN_SHARE = 0.10
MAX_UPDATES = 16


@dataclass(frozen=True)
class Update:
    """What an update changes: the files whose rows go (edited, removed, or their copies changed) and
    those whose rows come (the same but removed ones, and those added), by their spill numbers, with
    the drift counted since the last full build."""

    removed: list[str]
    added: list[int]  # spill numbers, in corpus order
    added_rows: int
    rewritten: int  # rows deleted and added since the last full build, this update's included
    updates: int  # updates since the last full build, this one included


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


_DAMAGED = (OSError, ValueError, KeyError, TypeError, AttributeError)  # UnicodeDecodeError is a ValueError


@contextlib.contextmanager
def _state(cache_dir: Path) -> Iterator[tuple[Header, TextIO] | None]:
    """The record in ``cache_dir``: its header, and the file open at its first file's line (read by
    ``index_state.joined``); None when there is none or it is not one (a damaged or foreign file is
    logged: the build is a full one, never a failed one)."""
    path = cache_dir / STATE_FILE
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError:
        yield None
        return
    except OSError as error:
        log.warning("%s is not a record of the last build (%r); building in full", path, error)
        yield None
        return
    with handle:
        try:
            header = read_header(handle)
        except _DAMAGED as error:
            log.warning("%s is not a record of the last build (%r); building in full", path, error)
            header = None
        yield (header, handle) if header is not None else None


def _table_version(out: Path) -> tuple[int, int] | None:
    """The version and row count of ``out``'s chunks table; None when it does not open."""
    try:
        table = lancedb.connect(str(out / LANCEDB_DIR)).open_table(TABLE_NAME)
        return int(table.version), int(table.count_rows())
    except (OSError, RuntimeError, ValueError):
        return None


def _schema_of(manifest: IndexManifest, urls: bool) -> dict[str, Any]:
    embedding = manifest.embedding
    return {
        "facets": sorted(manifest.facets),
        "urls": urls,
        "embedding": [embedding.provider, embedding.model, embedding.dimensions] if embedding else None,
    }


def changed_files(cache_dir: Path, ledger: FileLedger) -> tuple[set[str], str] | None:
    """The paths of the files edited, added or removed since the last build into ``cache_dir`` (by
    their rows' keys), and the digest of the copy groups' state that build kept; None without a
    record of it, or of its state."""
    with _state(cache_dir) as found:
        if found is None:
            return None
        header, handle = found
        if header.copy_state is None or header.fingerprint != rows_fingerprint():
            return None
        changed: set[str] = set()
        try:
            for path, at, recorded in joined(ledger, handle, header):
                if at is None or recorded is None or recorded.key != ledger.key(at):
                    changed.add(path)
        except _DAMAGED as error:
            log.warning("%s is not a record of the last build (%r)", cache_dir / STATE_FILE, error)
            return None
        return changed, header.copy_state


def plan(
    out: Path,
    cache_dir: Path,
    ledger: FileLedger,
    copies: FileCopies,
    manifest: IndexManifest,
    urls: bool,
) -> Update | None:
    """The update that turns the index at ``out`` into the index of the files in ``ledger`` (with the
    copy digests ``copies``), or None when a full build is due (the reason is logged): no record of
    ``out`` in ``cache_dir`` or one that disagrees with it, another schema (facet names, URL column,
    embedding: ``manifest`` is the new index's), a row count that crosses the vector index's
    threshold, or past the drift bounds."""
    with _state(cache_dir) as found:
        header = found[0] if found is not None else None
        reason = _disagreement(header, out, _schema_of(manifest, urls))
        if not reason and ledger.keyless:
            reason = "a file has no cache key"
        if reason or found is None or header is None:
            log.info("full build of %s: %s", out, reason)
            return None
        try:
            update = _compared(ledger, copies, found[1], header)
        except _DAMAGED as error:
            log.info("full build of %s: the record of the last build does not read (%r)", out, error)
            return None
    too_many = update.rewritten > MAX_REWRITTEN_SHARE * max(ledger.rows, 1) or update.updates > MAX_UPDATES
    crosses = manifest.embedding is not None and (
        (int(header.rows or 0) > EXACT_VECTOR_SEARCH_MAX_ROWS) != (ledger.rows > EXACT_VECTOR_SEARCH_MAX_ROWS)
    )
    if too_many or crosses:
        why = "the vector index's threshold is crossed" if crosses else "past the drift bound"
        log.info(
            "full build of %s: %s (%d rows rewritten in %d updates)",
            out,
            why,
            update.rewritten,
            update.updates,
        )
        return None
    return update


def _compared(ledger: FileLedger, copies: FileCopies, handle: TextIO, header: Header) -> Update:
    """The update from the files recorded in ``handle`` to ``ledger``'s: a file whose key or copy
    digest differs (or that is on one side only) goes and comes."""
    added: list[int] = []
    removed: list[str] = []
    added_rows = removed_rows = 0
    for _, at, recorded in joined(ledger, handle, header):
        same = (
            at is not None
            and recorded is not None
            and (recorded.key, recorded.copies) == (ledger.key(at), copies.of(at))
        )
        if same:
            continue
        if at is not None:
            added.append(ledger.number(at))
            added_rows += ledger.row_count(at)
        if recorded is not None:
            removed.append(recorded.path)
            removed_rows += recorded.rows
    changed = removed_rows + added_rows
    return Update(
        removed,
        sorted(added),
        added_rows,
        header.rewritten + changed,
        header.updates + (1 if changed else 0),
    )


def _disagreement(state: Header | None, out: Path, schema: dict[str, Any]) -> str:
    """Why the record ``state`` does not describe the index at ``out`` (empty when it does)."""
    if state is None:
        return "no record of the last build in the cache"
    if state.fingerprint != rows_fingerprint() or state.out != os.path.abspath(out):
        return "the last build was another version's or into another folder"
    if state.schema != schema:
        return "the facets, URLs or embedding changed"
    if state.manifest != _digest(out / MANIFEST_FILE):
        return "the index is not the one the last build wrote"
    if _table_version(out) != (state.version, state.rows):
        return "the index's table is not the one the last build wrote"
    return ""


def record(
    cache_dir: Path,
    out: Path,
    ledger: FileLedger,
    copies: FileCopies | None,
    manifest: IndexManifest,
    urls: bool,
    update: Update | None,
    copy_state: str | None = None,
) -> None:
    """Record in ``cache_dir`` what the index just swapped in at ``out`` holds, for the next build's
    ``plan`` (``copies``: the files' copy digests, None for none; ``update``: the update that made
    it; None: a full build), with the digest of the copy groups' state it kept (``copy_state``).
    Never raises: a record that cannot be written makes the next build a full one (logged)."""
    found = _table_version(out)
    header = {
        "fingerprint": rows_fingerprint(),
        "out": os.path.abspath(out),
        "schema": _schema_of(manifest, urls),
        "manifest": _digest(out / MANIFEST_FILE),
        "version": found[0] if found else None,
        "rows": found[1] if found else None,
        "rewritten": update.rewritten if update else 0,
        "updates": update.updates if update else 0,
        "copy_state": copy_state,
    }
    try:
        write_state(cache_dir, header, ledger, copies if copies is not None else FileCopies.none(len(ledger)))
    except OSError as error:
        path = cache_dir / STATE_FILE
        log.warning("could not record the index in %s (%s); the next build is a full one", path, error)


# The copy groups' state a build keeps for the next one's (corpus/copy_changes.py), in the cache.
COPY_STATE_FILE = "copies.npz"


def copy_groups(
    cache_dir: Path,
    ledger: FileLedger,
    finder: CopyFinder,
    declared: Sequence[tuple[str, str]],
    full: bool,
) -> CopyState:
    """The copy groups of the sections ``finder`` holds, with their hashes (the state to keep for the
    next build): from the last build's, regrouping only what the changed files reach
    (``copy_changes.regroup``), when the cache holds that build's record and state, no copies are
    ``declared`` and the build is not ``full``; else compared in full."""
    changed = None if full or declared else changed_files(cache_dir, ledger)
    previous = CopyState.load(cache_dir / COPY_STATE_FILE, changed[1]) if changed is not None else None
    if changed is not None and previous is not None:
        grouping = regroup(finder, previous, changed[0])
    else:
        grouping = finder.grouping(declared)
    return CopyState(finder.hashes(), grouping)


def keep_copy_state(cache_dir: Path, state: CopyState) -> str | None:
    """Keep ``state`` in the cache; its digest, or None when it cannot be written (the next build
    compares its copies in full: logged)."""
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        return state.save(cache_dir / COPY_STATE_FILE)
    except OSError as error:
        log.warning(
            "could not keep the copy groups in %s (%s); the next build compares them all", cache_dir, error
        )
        return None
