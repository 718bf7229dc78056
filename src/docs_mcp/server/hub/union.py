"""The union index a hub's merged searches ask (``docs-mcp union``), made in the background.

A search without ``library`` over many libraries would search each library's index; the union is one
full-text index over all their rows (``indexing.union``), searched once. The hub asks :meth:`UnionIndex.
current` with each merged search: it answers the opened union only when it was made from exactly the
indexes the request sees (its key is a hash of their names and identities), else None, and the search
takes the exact per-library path (``hub_merge``). So the union never serves a swapped library's old
rows: the swap changes the key, searches fall back until the union of the new indexes is made.

It is made by a child process (``python -m docs_mcp union``): its peak memory is the child's, not the
server's, and the server keeps answering meanwhile. It lands in ``CACHE/unions/KEY``: a server started
again over the same indexes opens it at once. One made for indexes no longer served is deleted once
its successor is open.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from docs_mcp.errors import DocsMcpError
from docs_mcp.server.hub.live import folder_signature
from docs_mcp.store.library_terms import UNION_FORMAT

if TYPE_CHECKING:
    from docs_mcp.search.reader import IndexReader

__all__ = [
    "UNIONS_DIR",
    "UNION_ENV",
    "UNION_MIN_LIBRARIES",
    "UnionIndex",
    "UnionMode",
    "union_key",
    "union_mode",
]

logger = logging.getLogger(__name__)

# How merged searches use the union: "rescore" (its ranking, each hit scored as its own library's
# index scores it, is the answer), "rank" (its ranking, by the union's own scores, is the answer),
# "route" (it chooses the libraries whose own indexes are searched and merged), "off" (every
# library's index is asked, as before the union). docs/scaling.md measures each.
UNION_ENV = "DOCS_MCP_UNION"
UnionMode = Literal["rescore", "rank", "route", "off"]
UNION_MODES: tuple[UnionMode, ...] = ("rescore", "rank", "route", "off")
UNION_DEFAULT: UnionMode = "rescore"
UNIONS_DIR = "unions"  # under the cache folder (serve --cache-dir, else store.cache_home)
# Fewer libraries than this are searched each on its own: exact, and a few searches cost little.
UNION_MIN_LIBRARIES = 2
# Above this many chunks in all, the server does not make the union itself: making one peaks at
# about 250 MiB + 0.8 KB a chunk (887 MiB at 826k chunks; docs/scaling.md), which with the server's
# own memory would pass the deploy limit. Make it ahead with ``docs-mcp union`` into the same cache;
# the server opens one it finds at any size.
BACKGROUND_MAX_CHUNKS = 200_000


def union_mode() -> UnionMode:
    """The union mode ``DOCS_MCP_UNION`` sets (:data:`UNION_DEFAULT` when unset or unknown)."""
    given = os.environ.get(UNION_ENV, UNION_DEFAULT)
    return next((mode for mode in UNION_MODES if mode == given), UNION_DEFAULT)


def union_key(libraries: Sequence[tuple[str, str]]) -> str:
    """The union's key for ``libraries`` (name, index identity): as ``indexing.union.union_key``
    names its folder (the server may not import the build side; tests/server check both agree)."""
    parts = [UNION_FORMAT, *sorted(f"{name}={identity}" for name, identity in libraries)]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


class UnionIndex:
    """The union of the libraries a hub serves by default, made and opened off the request path."""

    def __init__(self, cache: Path, open_index: Callable[[Path], IndexReader]) -> None:
        """``cache``: where unions are kept (``CACHE/unions``); ``open_index``: how the server opens an
        index folder (warmed)."""
        self._cache = cache
        self._open = open_index
        self._lock = threading.Lock()
        self._opened: tuple[str, IndexReader] | None = None
        self._wanted: tuple[str, list[tuple[str, Path]]] | None = None
        self._making: str | None = None  # the key the worker is making now
        self._worker: threading.Thread | None = None
        self._failed: set[str] = set()  # keys whose union failed (or is too large to make here)
        self._retired: str | None = None  # the union served before the current one
        self.made = 0  # unions opened (made or found), for /healthz and the tests

    def current(self, libraries: Sequence[tuple[str, str, Path]], chunks: int) -> IndexReader | None:
        """The union of ``libraries`` (name, index identity, folder; ``chunks`` in all) when it is
        open; else None, and its opening (its making, up to :data:`BACKGROUND_MAX_CHUNKS`) is started
        or kept going in the background. A union that failed is not tried again for the same indexes."""
        key = union_key([(name, identity) for name, identity, _path in libraries])
        opened = self._opened
        if opened is not None and opened[0] == key:
            return opened[1]
        with self._lock:
            if key in self._failed or key == self._making or (self._wanted and self._wanted[0] == key):
                return None
            if chunks > BACKGROUND_MAX_CHUNKS and not (self._cache / key).is_dir():
                logger.warning(
                    "no union of these %d libraries (%d chunks): make it with docs-mcp union --cache %s",
                    len(libraries),
                    chunks,
                    self._cache,
                )
                self._failed.add(key)
                return None
            self._wanted = (key, [(name, path) for name, _identity, path in libraries])
            if self._worker is None:
                self._worker = threading.Thread(target=self._make, name="docs-mcp-union", daemon=True)
                self._worker.start()
        return None

    @property
    def status(self) -> dict[str, object]:
        """What ``/healthz`` shows: the key open (None: merged searches ask each library)."""
        opened = self._opened
        return {"union": opened[0] if opened is not None else None, "making": self._worker is not None}

    def _make(self) -> None:
        """Make and open the union wanted last, until no newer one is wanted."""
        while True:
            with self._lock:
                wanted = self._wanted
                self._wanted = None
                self._making = wanted[0] if wanted is not None else None
                if wanted is None:
                    self._worker = None
                    return
            key, libraries = wanted
            folders = [folder_signature(path) for _name, path in libraries]
            try:
                index = self._made(key, libraries)
            except (DocsMcpError, OSError, subprocess.SubprocessError) as error:
                # A library rebuilt since the key was taken (the union landed at another key) or
                # while it was read (its old files deleted) is no failure of the key: a rebuild of
                # unchanged docs keeps the identities, so the key, and marking it failed would leave
                # merged searches without a union for the server's life.
                if isinstance(error, _Moved) or folders != [folder_signature(p) for _n, p in libraries]:
                    logger.info("a library was rebuilt while the union was made; made again when asked")
                    continue
                logger.warning(
                    "the union of %d libraries failed; merged searches ask each: %s", len(libraries), error
                )
                with self._lock:
                    self._failed.add(key)
                continue
            previous = self._opened
            self._opened = (key, index)
            self.made += 1
            logger.info("merged searches answer from the union of %d libraries (%s)", len(libraries), key)
            if previous is not None and previous[0] != key:
                # The one before stays a while (a search may still read it); the one before that goes.
                if self._retired is not None:
                    shutil.rmtree(self._cache / self._retired, ignore_errors=True)
                self._retired = previous[0]

    def _made(self, key: str, libraries: list[tuple[str, Path]]) -> IndexReader:
        """The union ``key`` opened, made first by ``docs-mcp union`` when the cache lacks it."""
        folder = self._cache / key
        if not folder.is_dir():
            command = [sys.executable, "-m", "docs_mcp", "union", "--cache", str(self._cache)]
            command += [f"{name}={path}" for name, path in libraries]
            done = subprocess.run(command, capture_output=True, text=True, env=os.environ.copy(), check=False)
            if done.returncode != 0:
                raise DocsMcpError((done.stderr.strip().splitlines() or ["no output"])[-1])
        if not folder.is_dir():  # a library swapped since the key was taken: made for the new key
            raise _Moved(f"the union did not land at {folder}")
        return self._open(folder)


class _Moved(DocsMcpError):
    """The union made is another key's: a library was rebuilt since its key was taken."""
