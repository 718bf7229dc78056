"""Serving an index straight from an OCI registry: pull it by reference, then follow its tag.

Each artifact is unpacked into the cache under its manifest digest (``CACHE/indexes/<hex>``) and
opened from there: a new digest gets a new folder, so swapping never touches the folder requests in
flight are reading. With a refresh interval a background thread polls the tag (one ``HEAD``); when it
moves, the new digest is pulled, opened and warmed, then swapped in between requests. A failed poll
or pull is logged and the current index keeps serving. Folders of indexes two swaps old are removed.
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
from docs_mcp.artifact.cache import BlobCache, default_cache_dir
from docs_mcp.errors import DocsMcpError
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
        pull(pinned, path, cache_dir=self._cache.root, credentials=self._credentials, insecure=self._insecure)
        return PulledIndex(pinned, digest, path)

    def current_digest(self) -> str:
        """The digest the reference points at now (the digest itself for a pinned reference)."""
        if self.reference.digest:
            return self.reference.digest
        return resolve(self.reference, credentials=self._credentials, insecure=self._insecure)

    def forget(self, keep: set[Path]) -> None:
        """Remove unpacked indexes of this cache not in ``keep`` (older swaps)."""
        folder = self._cache.root / "indexes"
        for entry in folder.iterdir() if folder.is_dir() else ():
            if entry.is_dir() and entry not in keep and not entry.name.startswith("."):
                shutil.rmtree(entry, ignore_errors=True)


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
