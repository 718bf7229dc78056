"""Per file of a build's first pass, what an update needs of it, in a few dozen bytes a file (issue 34).

A build holds this from its first pass to its record (``incremental.record``), through the writing of
every row, so it is kept as arrays, not as an object per file: each file's path (the string the pass
handed on, not a copy), a 128-bit digest of its rows' key (``row_cache.row_key``), its row count and
its number in the build's spill (``indexing.spill``). ``FileCopies`` is the same for the digest of a
file's copies (``copy_changes.file_digests``). The files come in path order (``corpus.scan``
walks the sorted paths), which lets an update compare them with the last build's record as two
sorted streams (``index_state.joined``) instead of a table of either.
"""

from __future__ import annotations

import hashlib
from array import array
from dataclasses import dataclass

import numpy as np

from docs_mcp.corpus.copies import key_hash
from docs_mcp.corpus.copy_changes import CopyState, file_digests

__all__ = ["FileCopies", "FileLedger", "copy_digests", "key_digest"]

_KEY_BYTES = 16  # a 128-bit digest: two keys of a million files collide with a chance of about 1e-27


def key_digest(key: str) -> bytes:
    """The 128-bit digest of a file's rows' ``key``; zeros for no key."""
    if not key:
        return bytes(_KEY_BYTES)
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=_KEY_BYTES).digest()


class FileLedger:
    """The files of a build's first pass, in the order ``add``-ed (see the module's docstring)."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self._keys = bytearray()
        self._rows = array("q")
        self._numbers = array("q")
        self.keyless = 0  # files without a key: an update needs every file's
        self.ordered = True  # every path greater than the one before: what comparing by merge needs

    def add(self, path: str, key: str, rows: int, number: int) -> None:
        """Note the page at ``path`` (its rows' ``key``, its ``rows``), set aside as ``number``."""
        if self.paths and path <= self.paths[-1]:
            self.ordered = False
        self.paths.append(path)
        self._keys += key_digest(key)
        self.keyless += not key
        self._rows.append(rows)
        self._numbers.append(number)

    def __len__(self) -> int:
        return len(self.paths)

    @property
    def rows(self) -> int:
        """The rows of every file."""
        return sum(self._rows)

    def key(self, index: int) -> str:
        """The digest of the ``index``-th file's rows' key (hex)."""
        return self._keys[index * _KEY_BYTES : (index + 1) * _KEY_BYTES].hex()

    def row_count(self, index: int) -> int:
        """The ``index``-th file's rows."""
        return self._rows[index]

    def number(self, index: int) -> int:
        """The ``index``-th file's number in the spill."""
        return self._numbers[index]

    def path_hashes(self) -> np.ndarray:
        """Each file's ``key_hash((path,))``, in order (int64): how ``CopyFinder`` names a file."""
        return np.fromiter((key_hash((path,)) for path in self.paths), dtype=np.int64, count=len(self.paths))


@dataclass(frozen=True)
class FileCopies:
    """Per file of a ledger, in its order, the digest of its copies (none for a file without any)."""

    values: np.ndarray  # uint64
    present: np.ndarray  # bool

    @staticmethod
    def none(files: int) -> FileCopies:
        """No file holding a copy, of ``files`` files."""
        return FileCopies(np.zeros(files, dtype=np.uint64), np.zeros(files, dtype=np.bool_))

    def of(self, index: int) -> str:
        """The ``index``-th file's digest (hex), empty when it holds no copy."""
        return f"{int(self.values[index]):016x}" if self.present[index] else ""


def copy_digests(state: CopyState, ledger: FileLedger) -> FileCopies | None:
    """Per file of ``ledger`` holding a copy, a digest of its rows' ``copy_of`` and ``copy_lead``
    values (``copy_changes.file_digests``). None when a copy's file is not one of ``ledger``'s
    (a chunk whose path is not its file's: then the build is a full one)."""
    files, sums = file_digests(state)
    if not len(files):
        return FileCopies.none(len(ledger))
    hashes = ledger.path_hashes()
    if not np.isin(files, hashes).all():
        return None
    at = np.minimum(np.searchsorted(files, hashes), len(files) - 1)
    present = files[at] == hashes
    return FileCopies(np.where(present, sums[at], np.uint64(0)), present)
