"""The record of what the index a build wrote holds (``incremental``), written and read as a stream.

``index-state.jsonl`` in the build's cache: a header line (a JSON object: the format, the code's
fingerprint, ``OUT``, the schema, the manifest's digest, the table's version and rows, the drift
counted since the last full build, the copy groups' state and the number of files), then one line a
file in path order, ``[path, key, copies, rows]`` (``ledger.FileLedger``'s key digest and
``FileCopies``' digest, hex). Written line by line under a temporary name and renamed; read line by
line and compared with the new build's files as two sorted streams (``joined``): neither the build
that writes it nor the one that reads it holds it (at a million chunks it is about 60 MB, and was a
few hundred MB of Python objects as one JSON document). A file of another format (the one document
of older builds included) or a damaged one is not a record: the build is a full one.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from docs_mcp.indexing.ledger import FileCopies, FileLedger

__all__ = ["STATE_FILE", "Header", "RecordedFile", "joined", "read_header", "write_state"]

log = logging.getLogger(__name__)

STATE_FILE = "index-state.jsonl"
_OLD_STATE_FILE = "index-state.json"  # the one JSON document of builds before this format
_FORMAT = "docs-mcp index state 3"
_HEADER_MAX = 1 << 16  # a longer first line is not this format's header


@dataclass(frozen=True)
class Header:
    """What the last build recorded of the index it wrote, but its files."""

    fingerprint: str
    out: str
    schema: dict[str, Any]
    manifest: str | None  # the manifest's sha256
    version: int | None
    rows: int | None
    files: int
    rewritten: int
    updates: int
    copy_state: str | None  # the digest of the copy groups' state the build kept (copy_changes.py)


@dataclass(frozen=True)
class RecordedFile:
    """One file's line of the record."""

    path: str
    key: str
    copies: str
    rows: int


def read_header(handle: TextIO) -> Header | None:
    """The header of the record open in ``handle`` (left at its first file); None when it is not one
    of this format. Raises ``ValueError``, ``KeyError`` or ``TypeError`` for a damaged one."""
    line = handle.readline(_HEADER_MAX)
    if not line.endswith("\n"):
        return None  # the one document of an older build, or not a record at all
    data = json.loads(line)
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return None
    return Header(
        fingerprint=str(data["fingerprint"]),
        out=str(data["out"]),
        schema=dict(data["schema"]),
        manifest=data["manifest"],
        version=data["version"],
        rows=data["rows"],
        files=int(data["files"]),
        rewritten=int(data["rewritten"]),
        updates=int(data["updates"]),
        copy_state=data["copy_state"],
    )


def _files(handle: TextIO, count: int) -> Iterator[RecordedFile]:
    """The ``count`` files recorded after the header, in path order. Raises ``ValueError`` (or
    ``TypeError``) as soon as one is damaged, out of order or missing."""
    last: str | None = None
    seen, line = 0, ""
    for line in handle:
        path, key, copies, rows = json.loads(line)
        found = RecordedFile(str(path), str(key), str(copies), int(rows))
        if last is not None and found.path <= last:
            raise ValueError("the files are not in path order")
        last = found.path
        seen += 1
        yield found
    if seen != count or (seen and not line.endswith("\n")):
        raise ValueError(f"{seen} files recorded of {count}")


def joined(
    ledger: FileLedger, handle: TextIO, header: Header
) -> Iterator[tuple[str, int | None, RecordedFile | None]]:
    """The files of ``ledger`` (by their place in it) and those recorded in ``handle`` (after
    ``header``), side by side in path order, with their path: a file in only one of them with None
    for the other.
    Raises ``ValueError`` (or ``TypeError``) for a damaged record or a ledger out of path order,
    possibly after yielding some."""
    if not ledger.ordered:
        raise ValueError("the files are not in path order")
    paths, at = ledger.paths, 0
    for recorded in _files(handle, header.files):
        while at < len(paths) and paths[at] < recorded.path:
            yield paths[at], at, None
            at += 1
        if at < len(paths) and paths[at] == recorded.path:
            yield recorded.path, at, recorded
            at += 1
        else:
            yield recorded.path, None, recorded
    while at < len(paths):
        yield paths[at], at, None
        at += 1


def write_state(cache_dir: Path, header: dict[str, Any], ledger: FileLedger, copies: FileCopies) -> None:
    """Write the record of ``ledger``'s files (with ``copies``) under ``header`` into ``cache_dir``,
    a line at a time, atomically (the older format's file removed). Raises ``OSError``."""
    path = cache_dir / STATE_FILE
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        with temporary.open("w", encoding="utf-8") as handle:
            first = {"format": _FORMAT, **header, "files": len(ledger)}
            handle.write(json.dumps(first, separators=(",", ":")) + "\n")
            for index, name in enumerate(ledger.paths):
                line = [name, ledger.key(index), copies.of(index), ledger.row_count(index)]
                handle.write(json.dumps(line, separators=(",", ":")) + "\n")
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)
        raise
    (cache_dir / _OLD_STATE_FILE).unlink(missing_ok=True)
