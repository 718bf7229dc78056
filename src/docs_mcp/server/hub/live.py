"""The index a server answers from, replaceable between requests without failing any.

A :class:`LiveIndex` holds the current *state*: an opened index and what the server derives from it
(tools, schemas, instructions). Each request takes the state it starts with and finishes on it, so a
swap never pulls an index out from under a request in flight. Two things swap it:

- ``watch=True`` (serving a local folder): before each request the folder's identity is checked with
  two ``stat`` calls (~2 us). ``docs-mcp build`` swaps a rebuilt folder in by an atomic rename and then
  deletes the old files, which the open LanceDB table still reads: without a reopen every request
  would fail until a restart. When the identity moved, the next request reopens the folder (the
  others wait for that one open rather than fail), and a request that failed because its files
  vanished mid-way runs again on the new index (:func:`docs_mcp.server.tools.app.on_state`). An
  open, at the start or after a rebuild, whose files vanished mid-way runs again too: builds landing
  one after the other can replace the folder more than once, so both run up to ``REPLACED_RUNS``
  times while it keeps changing. The swap is announced (``on_swap``) after the reopen's lock is
  released: the announcement acquires the state again.
- :meth:`LiveIndex.replace` (``serve oci://... --refresh-interval``): the new index is opened and
  warmed off the request path, then swapped in with one assignment; its old folder stays on disk.

A cursor issued by the old index names the old identity, so after a swap it gets the "stale cursor"
error that tells the agent to search again.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from docs_mcp.errors import DocsMcpError
from docs_mcp.store.index_manifest import MANIFEST_FILE

logger = logging.getLogger(__name__)

State = TypeVar("State")
# How many times an open or a request runs at most while the folder it reads keeps being rebuilt (a
# build swaps the new folder in, then deletes the files the run was reading).
REPLACED_RUNS = 3
Signature = tuple[int, int, int, int, int]


def folder_signature(path: Path) -> Signature | None:
    """What changes when a build swaps a new folder in at ``path``: the folder's and the manifest's
    inode, and the manifest's mtime and size. None while the folder cannot be read."""
    try:
        folder = os.stat(path)
        manifest = os.stat(path / MANIFEST_FILE)
    except OSError:
        return None
    return folder.st_dev, folder.st_ino, manifest.st_ino, manifest.st_mtime_ns, manifest.st_size


class LiveIndex(Generic[State]):
    """The current state built by ``open_state(path)``; see the module docstring.

    ``on_swap(state, path)`` runs after every swap (to update what the server shows elsewhere).
    """

    _path: Path | None

    def __init__(
        self,
        state: State,
        *,
        path: Path | None = None,
        open_state: Callable[[Path], State] | None = None,
        watch: bool = False,
        on_swap: Callable[[State, Path], None] | None = None,
        signature: Signature | None = None,
    ) -> None:
        """A holder of ``state``; without ``path`` and ``open_state`` it never changes."""
        self._state = state
        self._path = path
        self._open = open_state
        self._watch = watch and path is not None and open_state is not None
        self._on_swap = on_swap
        self._lock = threading.Lock()
        self._signature = signature
        self._refused: Signature | None = None  # a rebuilt folder that failed to open; not retried
        self.swaps = 0

    @classmethod
    def open(
        cls,
        path: Path,
        open_state: Callable[[Path], State],
        *,
        watch: bool = False,
        on_swap: Callable[[State, Path], None] | None = None,
    ) -> LiveIndex[State]:
        """Open the index at ``path``. The folder's identity is taken first, so a rebuild that lands
        while it opens is noticed by the next request; one that deletes the files being read makes it
        open again (up to ``REPLACED_RUNS`` times in all), rather than fail the server's start. Raises
        whatever ``open_state`` raises when the folder did not change under it."""
        state, signature = _opened(path, open_state)
        return cls(state, path=path, open_state=open_state, watch=watch, on_swap=on_swap, signature=signature)

    @property
    def current(self) -> State:
        """The state now, without checking the folder."""
        return self._state

    @property
    def path(self) -> Path | None:
        return self._path

    def acquire(self) -> State:
        """The state a request should use: reopened first when the watched folder was rebuilt.

        Never raises for a rebuilt folder that cannot be opened: that is logged, and the previous
        state is kept.
        """
        path = self._path
        if not self._watch or path is None:
            return self._state
        signature = folder_signature(path)
        if signature is None or signature in (self._signature, self._refused):
            return self._state
        with self._lock:
            # Another request may have reopened it while this one waited for the lock.
            opened = self._reopen(signature) if signature not in (self._signature, self._refused) else None
        if opened is not None:
            self._swapped(opened, path)
        return self._state

    def _reopen(self, signature: Signature) -> State | None:
        """Open the rebuilt folder and install it; the state installed, or None when it was refused."""
        assert self._open is not None and self._path is not None
        try:
            state, opened = _opened(self._path, self._open)  # the signature of what was opened
        except DocsMcpError as error:
            logger.warning(
                "%s was rebuilt but cannot be opened; still serving the previous index: %s", self._path, error
            )
            self._refused = signature
            return None
        self._install(state, self._path, opened)
        logger.info("reopened %s after it was rebuilt", self._path)
        return state

    def replace(self, path: Path) -> State:
        """Open the index at ``path`` and make it the current state; returns it.

        Raises whatever ``open_state`` raises; the current state is kept then.
        """
        if self._open is None:
            raise TypeError("this LiveIndex holds a fixed state")
        state = self._open(Path(path))
        with self._lock:
            self._install(state, Path(path), folder_signature(Path(path)))
        self._swapped(state, Path(path))
        return state

    def _install(self, state: State, path: Path, signature: Signature | None) -> None:
        self._state, self._path, self._signature, self._refused = state, path, signature, None
        self.swaps += 1

    def _swapped(self, state: State, path: Path) -> None:
        """Run ``on_swap`` once the lock is released: it acquires the state again, and a rebuild that
        landed meanwhile is then reopened by this thread, which would otherwise wait for itself."""
        if self._on_swap is not None:
            self._on_swap(state, path)


def _opened(path: Path, open_state: Callable[[Path], State]) -> tuple[State, Signature | None]:
    """``open_state(path)``, and the folder's signature taken before it; opened again when it failed
    and the folder was rebuilt meanwhile (its files deleted under the open), up to ``REPLACED_RUNS``
    times in all."""
    signature = folder_signature(path)
    runs = 1
    while True:
        try:
            return open_state(path), signature
        except Exception:
            rebuilt = folder_signature(path)
            if runs == REPLACED_RUNS or rebuilt == signature:
                raise
            logger.info("%s was rebuilt while it was opened; opening it again", path)
            signature, runs = rebuilt, runs + 1
