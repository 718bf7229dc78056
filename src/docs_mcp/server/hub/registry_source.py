"""Serving an index straight from an OCI registry: pull it by reference, then follow its tag.

Each artifact is unpacked into the cache under its manifest digest (``CACHE/indexes/<hex>``) and
opened from there: a new digest gets a new folder, so swapping never touches the folder requests in
flight are reading. With a refresh interval a background thread polls the tag (one ``HEAD``); when it
moves, the new digest is pulled, opened and warmed, then swapped in between requests. A failed poll
or pull is logged and the current index keeps serving.

Servers share the cache: each holds a lease (a shared lock, :mod:`docs_mcp.artifact.index_lease`) on
every index it serves or is pulling, from before its folder is checked until it is two swaps old.
Clean-up after a swap removes only indexes that no process holds and no tag record points at (each
tag's offline fallback), with their layer blobs unless another index left has the same layer, so any
number of servers following any tags on one cache never remove each other's folders.

The pull (or the cache hit) happens before the server answers anything: the index's manifest comes
with the artifact, and a failed pull stops the start; the index then opens in the background like a
folder's (:mod:`docs_mcp.server.hub.deferred`), and the tag is followed once it is open.

A start needs the registry only for what the cache cannot answer: a reference pinned to a digest
whose index the cache already unpacked (and verified when it pulled it) is opened without a request,
and a tag whose registry cannot be reached (connection, TLS, timeout, 5xx) falls back, with a
warning, to the digest that tag last resolved to here, when its index is still in the cache. A tag
the registry answers for is always followed: "not found" and "unauthorized" stay errors.
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.artifact import Credentials, Reference, parse_reference, pull, resolve
from docs_mcp.artifact.blob_cache import BlobCache, default_cache_dir
from docs_mcp.artifact.index_lease import IndexLease, exclusive
from docs_mcp.artifact.pulling import recorded_digest
from docs_mcp.errors import DocsMcpError, RegistryUnreachable, UsageError
from docs_mcp.server.hub.deferred import DeferredIndex

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PulledIndex:
    """An index pulled for serving: the pinned reference, the folder it was unpacked into, and the
    lease that keeps other processes' clean-up off it while it is served."""

    reference: Reference
    digest: str
    path: Path
    lease: IndexLease


class RegistrySource:
    """Where ``serve --index oci://REF`` gets its index from."""

    def __init__(
        self,
        reference: str,
        *,
        cache_dir: Path | None = None,
        insecure: bool | None = None,
        credentials: Credentials | None = None,
    ) -> None:
        self.reference = parse_reference(reference)
        self._cache = BlobCache(cache_dir or default_cache_dir())
        try:
            self._cache.root.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise UsageError(f"--cache-dir {self._cache.root} is a file; give a folder") from None
        except OSError as error:
            if not self._cache.root.is_dir():
                raise UsageError(
                    f"--cache-dir {self._cache.root} cannot be made ({error.strerror}); give a folder "
                    "docs-mcp can write"
                ) from None
        self._insecure = insecure
        self._credentials = credentials

    def fetch(self, digest: str | None = None) -> PulledIndex:
        """Pull the tag's current artifact (or ``digest``) into its cache folder; nothing is downloaded
        when the cache holds it. Raises ``RegistryError`` or ``ArtifactRejected`` subclasses."""
        digest = digest or self.current_digest()
        pinned = self.reference.pinned(digest)
        path = self._cache.index_dir(digest)
        lease = self._cache.lease(digest)  # before the folder is looked at: nobody removes it from here on
        try:
            if recorded_digest(path) != digest:  # a digest names immutable content: unpacked once is enough
                pull(
                    pinned,
                    path,
                    cache_dir=self._cache.root,
                    credentials=self._credentials,
                    insecure=self._insecure,
                )
        except BaseException:
            lease.release()
            raise
        self._remember(digest)
        return PulledIndex(pinned, digest, path, lease)

    def start(self) -> PulledIndex:
        """The index to start serving: :meth:`fetch`, or, when the registry cannot be reached, the
        index this tag last resolved to, if the cache still holds it (logged as a warning)."""
        try:
            return self.fetch()
        except RegistryUnreachable as error:
            last = self._cache.last_digest(str(self.reference))
            if last is None:
                raise
            lease = self._cache.lease(last)
            if recorded_digest(self._cache.index_dir(last)) != last:
                lease.release()
                raise
            logger.warning(
                "%s: the registry cannot be reached (%s); serving the cached %s it last pointed at",
                self.reference,
                error,
                last,
            )
            return PulledIndex(self.reference.pinned(last), last, self._cache.index_dir(last), lease)

    def current_digest(self) -> str:
        """The digest the reference points at now (the digest itself for a pinned reference)."""
        if self.reference.digest:
            return self.reference.digest
        return resolve(self.reference, credentials=self._credentials, insecure=self._insecure)

    def _remember(self, digest: str) -> None:
        """Record the digest a tag resolved to, for :meth:`start`'s fallback."""
        if self.reference.digest:
            return
        try:
            self._cache.remember_tag(str(self.reference), digest)
        except OSError as error:  # a read-only cache still serves; it only cannot fall back later
            logger.warning("could not record %s's digest in the cache: %s", self.reference, error)

    def forget(self) -> None:
        """Remove the unpacked indexes of this cache that no process holds a lease on and no tag
        record points at, and their layer blobs unless an index left has the same layer: servers
        following tags for months keep a cache of the indexes they serve, not one per push."""
        folder = self._cache.root / "indexes"
        entries = (
            [e for e in folder.iterdir() if e.is_dir() and not e.name.startswith(".")]
            if folder.is_dir()
            else []
        )
        tagged = {digest.partition(":")[2] for digest in self._cache.tagged_digests()}
        removed_layers: set[str] = set()
        for entry in entries:
            if entry.name in tagged:
                continue
            with exclusive(self._cache.lease_file(entry)) as alone:
                if alone:
                    layer = recorded_digest(entry, "layer")
                    shutil.rmtree(entry, ignore_errors=True)
                    if layer is not None:
                        removed_layers.add(layer)
        left_layers = {recorded_digest(entry, "layer") for entry in entries if entry.is_dir()}
        for layer in removed_layers - left_layers:
            self._cache.blob_path(layer).unlink(missing_ok=True)


@dataclass
class _Served:
    current: PulledIndex
    previous: PulledIndex | None = None


def _refresh_failed(source: RegistrySource, current: PulledIndex, error: Exception) -> None:
    if isinstance(error, DocsMcpError):
        logger.warning("refresh of %s failed; still serving %s: %s", source.reference, current.digest, error)
    else:
        logger.error(
            "refresh of %s failed; still serving %s", source.reference, current.digest, exc_info=error
        )


def follow(
    source: RegistrySource,
    index: DeferredIndex[Any],
    current: PulledIndex,
    interval: float,
    on_swap: Callable[[PulledIndex], None],
) -> Callable[[], None]:
    """Start polling ``source`` every ``interval`` seconds in a daemon thread, swapping ``index`` to
    each new digest once it is open (polls while it loads, or after its load failed, do nothing);
    returns the function that stops it (waiting for the thread)."""
    stop = threading.Event()
    served = _Served(current)

    def poll() -> None:
        while not stop.wait(interval):
            live = index.loaded
            if live is None:
                continue
            try:
                digest = source.current_digest()
                if digest == served.current.digest:
                    continue
                pulled = source.fetch(digest)
            except Exception as error:  # a bug must not stop the refreshes, nor the serving
                _refresh_failed(source, served.current, error)
                continue
            try:
                live.replace(pulled.path)
            except Exception as error:
                pulled.lease.release()
                _refresh_failed(source, served.current, error)
                continue
            # The previous folder may still serve requests that started before the swap; older ones not.
            if served.previous is not None:
                served.previous.lease.release()
            served.previous, served.current = served.current, pulled
            on_swap(pulled)
            source.forget()

    thread = threading.Thread(target=poll, name="docs-mcp-refresh", daemon=True)
    thread.start()

    def stop_following() -> None:
        stop.set()
        thread.join(timeout=30)

    return stop_following
