"""A cache file of entries each checked by its own sha256: what a damaged file returns is never wrong.

Layout (written front to back, so a writer holds one entry at a time)::

    entry bytes ... entry bytes | header JSON | header length (8 bytes, big-endian) | MAGIC

The header holds the caller's metadata and, per entry, its key, offset, length and sha256. A reader
gets an entry's bytes only when their digest matches; an entry that does not is reported as missing
(the caller makes it again from its source). A file that is not one (truncated, foreign, a damaged
header) reads as empty. Entries hold data, never code: callers store JSON or Arrow IPC bytes.

Rewritten whole under a temporary name, then ``os.replace``: a reader never sees half a file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import uuid
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

__all__ = ["EntryFile", "EntryWriter", "read_entries"]

log = logging.getLogger(__name__)

MAGIC = b"DMCPENT1"
_TRAILER = 8 + len(MAGIC)


class EntryFile:
    """The entries of one file, read at open (``metadata``, ``keys``); ``get`` verifies each entry."""

    def __init__(
        self, path: Path, fd: int, metadata: Mapping[str, Any], index: dict[str, tuple[int, int, str]]
    ) -> None:
        self.path = path
        self.metadata = metadata
        # Read entry by entry from an open descriptor, not mapped: a build that reuses every entry
        # of a large cache would otherwise count the whole file in its resident memory (mapped pages
        # stay resident while mapped), and a rewrite that replaces the name leaves this inode readable.
        self._fd: int | None = fd
        self._index = index
        self.damaged = 0  # entries whose bytes did not match their digest

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:
        self.close()

    @property
    def keys(self) -> list[str]:
        """The keys, in the order they were written."""
        return list(self._index)

    @property
    def entries(self) -> Mapping[str, tuple[int, int, str]]:
        """Each key's offset, length and sha256 (hex), in the order written; nothing is read."""
        return self._index

    def get(self, key: str) -> bytes | None:
        """The bytes of ``key``, or None when absent or damaged (a damaged one is logged and counted)."""
        found = self._index.get(key)
        if found is None:
            return None
        offset, length, digest = found
        if self._fd is None:  # closed
            return None
        try:
            data = os.pread(self._fd, length, offset)
        except OSError as error:
            log.warning(
                "%s: cannot read entry %r (%s); making it again from its source", self.path, key, error
            )
            return None
        if len(data) != length or hashlib.sha256(data).hexdigest() != digest:
            log.warning(
                "%s: entry %r does not match its digest; making it again from its source", self.path, key
            )
            self.damaged += 1
            return None
        return data


def read_entries(path: Path, kind: str) -> EntryFile | None:
    """The entry file at ``path`` written for ``kind``; None when missing, foreign or damaged (logged)."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return None
    except OSError as error:
        log.warning("%s: cannot read the cache file (%s); everything in it is made again", path, error)
        return None
    try:
        with handle:
            size = handle.seek(0, os.SEEK_END)
            if size < _TRAILER:
                raise ValueError("too short")
            handle.seek(size - _TRAILER)
            trailer = handle.read(_TRAILER)
            if trailer[8:] != MAGIC:
                raise ValueError("not a docs-mcp entry file")
            length = int.from_bytes(trailer[:8], "big")
            if not 0 < length <= size - _TRAILER:
                raise ValueError("bad header length")
            handle.seek(size - _TRAILER - length)
            header = json.loads(handle.read(length))
            if not isinstance(header, dict) or header.get("kind") != kind:
                raise ValueError(f"not a {kind}")
            index = {
                str(key): (int(offset), int(count), str(digest))
                for key, offset, count, digest in header["entries"]
                if int(offset) >= 0 and int(offset) + int(count) <= size - _TRAILER - length
            }
            metadata = header["metadata"]
            if not isinstance(metadata, dict):
                raise ValueError("bad metadata")
            fd = os.dup(handle.fileno())
    except (OSError, ValueError, KeyError, TypeError) as error:  # json's errors are ValueErrors
        log.warning("%s: ignoring a damaged cache file (%s); everything in it is made again", path, error)
        return None
    return EntryFile(path, fd, metadata, index)


class EntryWriter:
    """Writes an entry file for ``kind`` entry by entry under a temporary name: ``commit`` puts it in
    place, ``discard`` drops it (the old file stays). As a context manager: commit at the end of the
    block, discard on an exception. Raises ``OSError``."""

    def __init__(self, path: Path, kind: str) -> None:
        self.path = path
        self.kind = kind
        self.metadata: dict[str, Any] = {}
        path.parent.mkdir(parents=True, exist_ok=True)
        self._temporary = path.with_name(f"{path.name}.{uuid.uuid4().hex}.tmp")
        self._handle: BinaryIO = self._temporary.open("wb")
        # The header's entries wait in an unnamed temporary file beside it, each as its JSON: a cache
        # of a million files would hold a few hundred MB of them until ``commit`` (issue 34).
        self._entries: BinaryIO = tempfile.TemporaryFile(dir=path.parent)  # noqa: SIM115 (closed by discard)
        self._count = 0
        self._offset = 0

    def add(self, key: str, data: bytes) -> str:
        """Write ``data`` under ``key``; returns its sha256 (hex)."""
        self._handle.write(data)
        digest = hashlib.sha256(data).hexdigest()
        entry = json.dumps([key, self._offset, len(data), digest])
        self._entries.write((", " if self._count else "").encode() + entry.encode())
        self._count += 1
        self._offset += len(data)
        return digest

    def commit(self) -> None:
        """Write the header and rename the file into place."""
        try:
            # The bytes ``json.dumps`` makes of the whole header, entries copied from their file.
            head = json.dumps({"kind": self.kind, "metadata": self.metadata, "entries": []})
            start, end = head[: -len("]}")].encode(), b"]}"
            self._entries.flush()
            length = len(start) + self._entries.tell() + len(end)
            self._handle.write(start)
            self._entries.seek(0)
            shutil.copyfileobj(self._entries, self._handle)
            self._handle.write(end + length.to_bytes(8, "big") + MAGIC)
            self._handle.close()
            os.replace(self._temporary, self.path)
        finally:
            self.discard()

    def discard(self) -> None:
        """Drop what was written (nothing, after ``commit``)."""
        self._handle.close()
        self._entries.close()
        self._temporary.unlink(missing_ok=True)

    def __enter__(self) -> EntryWriter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()
