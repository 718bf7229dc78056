"""What the last build recorded of each page, and how a page is known to be unchanged (issue 34).

A build hands ``CorpusScan.files`` what the last build recorded of each page (``KnownFiles``, in the
build's cache): a page whose ``stat`` is the one recorded is neither read nor decoded from the chunk
cache, but handed on as a ``KnownFile`` (its chunks stay in the cache, read when needed:
``CorpusScan.chunked``). The stat compared is the device, inode, size and modification and change
times in nanoseconds: an edit changes the change time (``ctime``), which no program can set back, and
a file replaced by another is another inode. A page changed within ``RACY_MARGIN_NS`` before its stat
was taken might change again within the same tick of a coarse file system clock without its times
moving: such a stat is not recorded (``ScannedFile.status`` None), so the page is read next time. A
page whose stat differs is read; when its chunk cache key is the one recorded it is a ``KnownFile``
all the same (``by_key``). The content hash (``ContentHash``) is over each file's digest, so that a
page not read counts as it did.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol

from docs_mcp.corpus.chunk_cache import code_fingerprint
from docs_mcp.corpus.docs_manifest import DocsManifest
from docs_mcp.errors import Finding

__all__ = [
    "RACY_MARGIN_NS",
    "ContentHash",
    "KnownFile",
    "KnownFiles",
    "Status",
    "context_digest",
    "page_status",
    "sha256_hex",
]

# A stat whose modification or change time is this close to the moment it was taken is not recorded:
# file systems keep times in ticks (up to 2 s on FAT), and a page written twice within one keeps them.
RACY_MARGIN_NS = 2 * 10**9

Status = tuple[int, int, int, int, int]  # device, inode, size, mtime_ns, ctime_ns


@dataclass(frozen=True)
class KnownFile:
    """A page as the last build found it (``KnownFiles``): not read again, its chunks in the cache."""

    path: str
    key: str
    digest: str
    status: Status | None
    findings: tuple[Finding, ...]
    explicit: bool  # it declares its chunking strategy
    chunks: int
    entry: str  # the sha256 of its chunk cache entry: the record and the cache agree


class KnownFiles(Protocol):
    """What the last build recorded of each page (``indexing.first_pass``)."""

    def by_status(self, path: str, status: Status) -> KnownFile | None:
        """The page at ``path`` when the last build recorded this ``status`` for it."""

    def by_key(self, path: str, key: str) -> KnownFile | None:
        """The page at ``path`` when the last build recorded this chunk cache ``key`` for it."""


class ContentHash:
    """sha256 over sorted (relative path, sha256 of its bytes) of the indexed files and manifests, fed
    as they are read: the few manifests and templates up front (``early``), the pages in path order.
    Over each file's digest, so that a page not read again (a ``KnownFile``) counts as it did."""

    def __init__(self, early: Mapping[str, bytes]) -> None:
        self._digest = hashlib.sha256()
        # Popped from the end: smallest path first.
        self._early = sorted(((path, sha256_hex(data)) for path, data in early.items()), reverse=True)

    def add(self, path: str, digest: str) -> None:
        """Count ``path`` with the sha256 of its bytes (hex; each page's path greater than the last)."""
        while self._early and self._early[-1][0] < path:
            self._update(*self._early.pop())
        self._update(path, digest)

    def hexdigest(self) -> str:
        """The digest, once every page is added."""
        while self._early:
            self._update(*self._early.pop())
        return self._digest.hexdigest()

    def _update(self, path: str, digest: str) -> None:
        # Length-prefixed so that no (path, digest) sequence can collide with another.
        encoded = path.encode("utf-8")
        self._digest.update(len(encoded).to_bytes(8, "big") + encoded + bytes.fromhex(digest))


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def page_status(path: Path, started: int) -> Status | None:
    """``path``'s stat as ``KnownFiles`` compares it; None when it cannot be taken or is too recent
    to be trusted (``RACY_MARGIN_NS`` before ``started``, a ``time.time_ns``)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    if max(found.st_mtime_ns, found.st_ctime_ns) >= started - RACY_MARGIN_NS:
        return None
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def context_digest(early: Mapping[str, bytes], governing: Mapping[str, DocsManifest], generator: str) -> str:
    """What decides a page's chunks and findings besides the page itself: the chunking and corpus
    code, the manifests and templates, the settings they resolve to and the site generator."""
    digest = hashlib.sha256(_code())
    for path, data in sorted(early.items()):
        digest.update(f"{path}\0{sha256_hex(data)}\0".encode())
    digest.update(repr(sorted(governing.items())).encode("utf-8", "surrogatepass"))
    digest.update(generator.encode())
    return digest.hexdigest()


@cache
def _code() -> bytes:
    """The chunking code's fingerprint and this package's modules (what makes a page's findings)."""
    digest = hashlib.sha256(code_fingerprint())
    for source in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.digest()
