"""The content-addressed cache of pulled artifacts.

    CACHE/blobs/sha256/<hex>       verified blobs (layers), written once under their digest
    CACHE/indexes/<hex>/           unpacked indexes, by manifest digest (what ``serve oci://`` opens)
    CACHE/indexes/.leases/<hex>    each index's lock file: shared-locked by every server using it
    CACHE/tags/<sha256 of ref>     the digest a tag last resolved to (``serve``'s fallback offline)

A blob is written to a private temporary name and renamed to its digest only after its size and
digest checked out, so a blob in the cache is always whole; an interrupted download leaves at most a
temporary file, removed by the next pull. Pulling a digest the cache holds downloads nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from docs_mcp.artifact.index_lease import IndexLease, hold
from docs_mcp.artifact.oci import Descriptor
from docs_mcp.store.cache_home import CACHE_ENV, default_cache_dir
from docs_mcp.store.swap import pid_alive, pid_in_name

__all__ = ["CACHE_ENV", "BlobCache", "default_cache_dir"]

_PARTIAL = ".partial-"


class BlobCache:
    """Verified blobs by digest, and unpacked indexes by manifest digest, under ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def blob_path(self, digest: str) -> Path:
        algorithm, _, hexdigest = digest.partition(":")
        return self.root / "blobs" / algorithm / hexdigest

    def index_dir(self, manifest_digest: str) -> Path:
        """Where ``serve oci://`` keeps the unpacked index of the manifest ``manifest_digest``."""
        return self.root / "indexes" / manifest_digest.partition(":")[2]

    def lease_file(self, index_dir: Path) -> Path:
        """The lock file of the unpacked index ``index_dir`` (see :mod:`docs_mcp.artifact.index_lease`)."""
        return index_dir.parent / ".leases" / index_dir.name

    def lease(self, manifest_digest: str) -> IndexLease:
        """Hold the index of ``manifest_digest`` (unpacked or about to be) against clean-up by any
        process, until the lease is released or this process exits."""
        return hold(self.lease_file(self.index_dir(manifest_digest)))

    def tagged_digests(self) -> set[str]:
        """Every digest a tag last resolved to here (each tag's offline fallback)."""
        folder = self.root / "tags"
        found = set()
        for entry in folder.iterdir() if folder.is_dir() else ():
            with contextlib.suppress(OSError, UnicodeDecodeError):
                if (text := entry.read_text(encoding="utf-8").strip()).startswith("sha256:"):
                    found.add(text)
        return found

    def holds(self, descriptor: Descriptor) -> bool:
        """Whether the cache has this blob whole. It is re-hashed (a few ms per 10 MB): a cache on a
        shared disk may have been damaged since, and a bad blob is removed so it is fetched again."""
        path = self.blob_path(descriptor.digest)
        try:
            if path.stat().st_size != descriptor.size:
                path.unlink()
                return False
            hasher = hashlib.sha256()
            with path.open("rb") as data:
                while chunk := data.read(1 << 20):
                    hasher.update(chunk)
        except FileNotFoundError:
            return False
        if "sha256:" + hasher.hexdigest() != descriptor.digest:
            path.unlink(missing_ok=True)
            return False
        return True

    def store(self, descriptor: Descriptor, fill: Callable[[Callable[[bytes], object]], None]) -> Path:
        """Write a blob: ``fill(write)`` streams the bytes (and verifies them, raising on a mismatch);
        only then is the file renamed to its digest. On any exception nothing is left behind."""
        path = self.blob_path(descriptor.digest)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._clean_partials(path.parent)
        partial = path.with_name(f"{path.name}{_PARTIAL}{os.getpid()}")
        try:
            with partial.open("wb") as out:
                fill(out.write)
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)
        return path

    def remember_tag(self, reference: str, digest: str) -> None:
        """Record the manifest digest the tag ``reference`` resolved to (what ``serve`` falls back to
        when the registry cannot be reached), written whole, then renamed into place.

        Raises ``OSError`` when the cache cannot be written (a read-only volume).
        """
        path = self._tag_path(reference)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._clean_partials(path.parent)
        partial = path.with_name(f"{path.name}{_PARTIAL}{os.getpid()}")
        try:
            partial.write_text(digest, encoding="utf-8")
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)

    def last_digest(self, reference: str) -> str | None:
        """The digest :meth:`remember_tag` last recorded for ``reference``, if any."""
        try:
            text = self._tag_path(reference).read_text(encoding="utf-8").strip()
        except OSError:
            return None
        return text if text.startswith("sha256:") else None

    def _tag_path(self, reference: str) -> Path:
        return self.root / "tags" / hashlib.sha256(reference.encode("utf-8")).hexdigest()

    @staticmethod
    def _clean_partials(folder: Path) -> None:
        """Remove temporary blobs of pulls that died (their process is gone)."""
        for entry in folder.glob(f"*{_PARTIAL}*"):
            pid = pid_in_name(entry.name.rsplit(_PARTIAL, 1)[1])
            if pid is not None and not pid_alive(pid):
                with contextlib.suppress(OSError):
                    entry.unlink()
