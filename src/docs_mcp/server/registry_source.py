"""Serving an index straight from an OCI registry: pull it by reference, then follow its tag.

Each artifact is unpacked into the cache under its manifest digest (``CACHE/indexes/<hex>``) and
opened from there: a new digest gets a new folder, so swapping never touches the folder requests in
flight are reading. With a refresh interval a background thread polls the tag (one ``HEAD``); when it
moves, the new digest is pulled, opened and warmed, then swapped in between requests. A failed poll
or pull is logged and the current index keeps serving. Indexes two swaps old are removed, folder and
layer blob.

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
from docs_mcp.artifact.pulling import recorded_digest
from docs_mcp.errors import DocsMcpError, RegistryUnreachable
from docs_mcp.server.live import LiveIndex

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PulledIndex:
    """An index pulled for serving: the pinned reference and the folder it was unpacked into."""

    reference: Reference
    digest: str
    path: Path


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
        self._insecure = insecure
        self._credentials = credentials

    def fetch(self, digest: str | None = None) -> PulledIndex:
        """Pull the tag's current artifact (or ``digest``) into its cache folder; nothing is downloaded
        when the cache holds it. Raises ``RegistryError`` or ``ArtifactRejected`` subclasses."""
        digest = digest or self.current_digest()
        pinned = self.reference.pinned(digest)
        path = self._cache.index_dir(digest)
        if recorded_digest(path) != digest:  # a digest names immutable content: unpacked once is enough
            pull(
                pinned,
                path,
                cache_dir=self._cache.root,
                credentials=self._credentials,
                insecure=self._insecure,
            )
        self._remember(digest)
        return PulledIndex(pinned, digest, path)

    def start(self) -> PulledIndex:
        """The index to start serving: :meth:`fetch`, or, when the registry cannot be reached, the
        index this tag last resolved to, if the cache still holds it (logged as a warning)."""
        try:
            return self.fetch()
        except RegistryUnreachable as error:
            last = self._cache.last_digest(str(self.reference))
            if last is None or recorded_digest(self._cache.index_dir(last)) != last:
                raise
            logger.warning(
                "%s: the registry cannot be reached (%s); serving the cached %s it last pointed at",
                self.reference,
                error,
                last,
            )
            return PulledIndex(self.reference.pinned(last), last, self._cache.index_dir(last))

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

    def forget(self, keep: set[Path]) -> None:
        """Remove unpacked indexes of this cache not in ``keep`` (older swaps), and their layer blobs
        unless a kept index has the same layer: a server following a tag for months keeps a cache of
        two indexes, not one per push."""
        folder = self._cache.root / "indexes"
        kept_layers = {recorded_digest(path, "layer") for path in keep}
        for entry in folder.iterdir() if folder.is_dir() else ():
            if entry.is_dir() and entry not in keep and not entry.name.startswith("."):
                layer = recorded_digest(entry, "layer")
                shutil.rmtree(entry, ignore_errors=True)
                if layer is not None and layer not in kept_layers:
                    self._cache.blob_path(layer).unlink(missing_ok=True)


def follow(
    source: RegistrySource,
    live: LiveIndex[Any],
    current: PulledIndex,
    interval: float,
    on_swap: Callable[[PulledIndex], None],
) -> Callable[[], None]:
    """Start polling ``source`` every ``interval`` seconds in a daemon thread, swapping ``live`` to
    each new digest; returns the function that stops it (waiting for the thread)."""
    stop = threading.Event()
    state = {"current": current, "previous": current}

    def poll() -> None:
        while not stop.wait(interval):
            try:
                digest = source.current_digest()
                if digest == state["current"].digest:
                    continue
                pulled = source.fetch(digest)
                live.replace(pulled.path)
            except DocsMcpError as error:
                logger.warning(
                    "refresh of %s failed; still serving %s: %s",
                    source.reference,
                    state["current"].digest,
                    error,
                )
                continue
            except Exception:  # a bug must not stop the refreshes, nor the serving
                logger.exception(
                    "refresh of %s failed; still serving %s", source.reference, state["current"].digest
                )
                continue
            state["previous"], state["current"] = state["current"], pulled
            on_swap(pulled)
            # The previous folder may still serve requests that started before the swap; older ones not.
            source.forget({state["current"].path, state["previous"].path})

    thread = threading.Thread(target=poll, name="docs-mcp-refresh", daemon=True)
    thread.start()

    def stop_following() -> None:
        stop.set()
        thread.join(timeout=30)

    return stop_following
