"""A build's chunked files on disk between its two passes, so that it never holds them all.

The first pass walks the docs (``corpus.scan``) and validates them; only once every file is chunked
are the index's facet columns, its URL column and its validity known, and only then can rows be
written. The files wait here in between: one pickle per file, appended in corpus order, read back
in order (the rows) or one by one (``get``: the sections compared as copies). Memory: one offset
per file. A page the first pass did not read (``corpus.scan.KnownFile``) is set aside as its path and
key only (``add_known``), its chunks read through ``loader`` (the chunk cache) when it is got.

Pickle, not the rebuild cache's JSON: this file is written and read by one build in its own private
staging folder and deleted with it (``pipeline.build``), so nothing else ever supplies its bytes,
and it must hold every value a chunk may carry (the cache skips a file it cannot encode).
"""

from __future__ import annotations

import contextlib
import os
import pickle
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path

from docs_mcp.corpus.scan import ScannedFile

__all__ = ["FileSpill"]


class FileSpill:
    """Scanned files appended to ``path`` (created, truncated); ``close`` deletes it. Raises ``OSError``."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._handle = self.path.open("w+b")
        self._offsets = array("q", [0])  # where each file starts, and the end
        self._unflushed = False
        self.loader: Callable[[str, str], ScannedFile] | None = None  # a known page's (path, key)

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def add(self, scanned: ScannedFile) -> int:
        """Append ``scanned``; returns its number (0, 1, ...)."""
        return self._append(scanned)

    def add_known(self, path: str, key: str) -> int:
        """Append the page at ``path`` by its chunk cache ``key``, read through ``loader`` when got."""
        return self._append((path, key))

    def _append(self, value: ScannedFile | tuple[str, str]) -> int:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        self._handle.write(data)
        self._unflushed = True
        self._offsets.append(self._offsets[-1] + len(data))
        return len(self._offsets) - 2

    def get(self, number: int) -> ScannedFile:
        """The file appended as ``number``."""
        if self._unflushed:
            self._handle.flush()
            self._unflushed = False
        start, end = self._offsets[number], self._offsets[number + 1]
        data = os.pread(self._handle.fileno(), end - start, start)
        found: ScannedFile | tuple[str, str] = pickle.loads(data)
        if isinstance(found, tuple):
            if self.loader is None:
                raise ValueError("a page set aside by its key needs a loader")
            return self.loader(*found)
        return found

    def __iter__(self) -> Iterator[ScannedFile]:
        """Every file, in the order appended."""
        for number in range(len(self)):
            yield self.get(number)

    def close(self) -> None:
        """Close and delete the file. Raises nothing (closing flushes: on a full disk it would)."""
        with contextlib.suppress(OSError):
            self._handle.close()
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)
