"""The stdio server's side of its index worker (:mod:`docs_mcp.server.worker.index_worker`, which says why
there is one): :class:`IndexWorker` runs the worker process
(:class:`~docs_mcp.server.worker.worker_process.WorkerProcess`) and carries calls to it,
:class:`RemoteIndex` is an index opened there, read through the same protocol as one opened here
(:class:`docs_mcp.search.reader.IndexReader`), so every server feature works over it unchanged.

Calls are blocking, from the server's index threads as in-process reads are, and run concurrently.
An error raised in the worker is raised here as it was (``DocsMcpError`` classes pickle whole;
another exception's traceback is in the worker's log, and one that does not pickle arrives as
``RuntimeError`` naming it).

A worker that ends while the server runs (it crashed, or the kernel's OOM killer chose it, the
largest process) fails the calls it was answering, with an error that says to call again; the next
call starts a new worker and opens in it what the old one held, so the session goes on. At most
:data:`RESPAWNS` times within :data:`RESPAWN_WINDOW` seconds: a worker that keeps dying (a corrupt
file, too little memory) leaves every call an error that says to restart the server.

An index the server stops using (a rebuilt folder swapped in) is closed in the worker with the
next call after it was collected here, so the worker holds what the server holds.
"""

from __future__ import annotations

import collections
import itertools
import logging
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docs_mcp.errors import IndexUnavailable
from docs_mcp.server.worker.worker_process import WorkerProcess

if TYPE_CHECKING:
    from docs_mcp.search.config import SearchConfig
    from docs_mcp.search.types import SearchPage, SearchRequest, Section, SectionWindow
    from docs_mcp.store.index_manifest import IndexManifest

__all__ = ["RESPAWNS", "RESPAWN_WINDOW", "IndexWorker", "RemoteIndex"]

logger = logging.getLogger(__name__)

RESPAWNS = 3  # new workers started within RESPAWN_WINDOW seconds before a dying one is final
RESPAWN_WINDOW = 600.0


@dataclass(frozen=True)
class _Opened:
    """An index the server holds: its folder and identity, and its handle in ``process``."""

    path: str
    identity: str
    handle: int
    process: WorkerProcess


class IndexWorker:
    """The index worker of one server; start it with :meth:`spawn` as early as the server can, open
    indexes in it with :meth:`open`, end it with :meth:`close` (also a context manager). Indexes are
    known here by keys of their own, which outlive a worker replaced (see the module)."""

    def __init__(self, process: WorkerProcess, respawns: int = RESPAWNS) -> None:
        self._process = process
        self._respawns = respawns
        self._respawned: collections.deque[float] = collections.deque()
        self._lock = threading.Lock()  # the process, the opened indexes
        self._reopening = threading.Lock()  # one reopen at a time after a new worker started
        self._keys = itertools.count(1)
        self._opened: dict[int, _Opened] = {}
        self._released: collections.deque[int] = collections.deque()
        self._closed = False

    @classmethod
    def spawn(cls, respawns: int = RESPAWNS) -> IndexWorker:
        """Start the worker: it begins importing the index stack at once."""
        return cls(WorkerProcess.start(), respawns)

    @property
    def pid(self) -> int:
        """The worker process's (a new one's, once it was replaced)."""
        return self._process.pid

    def open(self, path: Path) -> RemoteIndex:
        """Open and warm the index folder at ``path`` in the worker. Raises what opening raises there
        (``IndexUnavailable``, ``IndexCompatibilityError``)."""
        process, (handle, attributes) = self._ask(None, "open", str(path))
        key = next(self._keys)
        with self._lock:
            self._opened[key] = _Opened(str(path), attributes["identity"], handle, process)
        index = RemoteIndex(self, key, attributes)
        weakref.finalize(index, self._released.append, key)
        return index

    def handles(self) -> list[int]:
        """The worker's handles of the indexes open in it (after the releases pending are sent)."""
        handles: list[int] = self._ask(None, "handles")[1]
        return handles

    def call(self, key: int, method: str, *args: Any) -> Any:
        """``method(*args)`` on the index ``key``; blocks for the reply."""
        return self._ask(key, method, *args)[1]

    def _ask(self, key: int | None, method: str, *args: Any) -> tuple[WorkerProcess, Any]:
        """Send the call (for index ``key``, or none) to the running worker and wait: the process
        that answered, and the reply. A worker found dead before the call reached it hands the call
        to a new one."""
        process = self._running()
        try:
            reply = self._send(process, self._handle_of(process, key), method, *args)
        except IndexUnavailable as error:
            if error is not process.ended:
                raise
            process = self._running()
            reply = self._send(process, self._handle_of(process, key), method, *args)
        return process, self._result(process, reply)

    def _handle_of(self, process: WorkerProcess, key: int | None) -> int:
        return 0 if key is None else self._handle_in(process, key)

    def _send(self, process: WorkerProcess, handle: int, method: str, *args: Any) -> Future[Any]:
        """Send the call, closing first the indexes released since the last one."""
        closing = []
        with self._lock:
            while self._released:
                opened = self._opened.pop(self._released.popleft(), None)
                if opened is not None and opened.process is process:
                    closing.append(opened.handle)
        return process.send(handle, method, *args, closing=tuple(closing))

    @staticmethod
    def _result(process: WorkerProcess, reply: Future[Any]) -> Any:
        try:
            return reply.result()
        except IndexUnavailable as error:
            if error is process.ended:  # this call died with its worker: the next one starts anew
                raise IndexUnavailable(f"{error}; this call was lost with it: call again") from None
            raise

    def _running(self) -> WorkerProcess:
        """The worker process: a new one when the last ended unexpectedly (bounded: see the module)."""
        with self._lock:
            ended = self._process.ended
            if ended is None or self._closed:
                return self._process  # a closed one refuses the call itself
            now = time.monotonic()
            while self._respawned and now - self._respawned[0] > RESPAWN_WINDOW:
                self._respawned.popleft()
            if len(self._respawned) >= self._respawns:
                raise IndexUnavailable(
                    f"{ended}; it ended {len(self._respawned) + 1} times within {RESPAWN_WINDOW:g} s: "
                    "restart the server (its log says why)"
                )
            logger.warning("%s; starting a new one", ended)
            self._process.close()  # already ended: reaps it
            self._process = WorkerProcess.start()
            self._respawned.append(now)
            return self._process

    def _handle_in(self, process: WorkerProcess, key: int) -> int:
        """The handle of index ``key`` in ``process``: opened there again after a new worker started."""
        with self._reopening:
            with self._lock:
                opened = self._opened.get(key)
            if opened is None:
                raise IndexUnavailable("the index worker no longer holds this index; restart the server")
            if opened.process is process:
                return opened.handle
            handle, attributes = self._result(process, self._send(process, 0, "open", opened.path))
            reopened = _Opened(opened.path, attributes["identity"], int(handle), process)
            replaced = reopened.identity != opened.identity  # rebuilt meanwhile: not the caller's index
            with self._lock:
                spare = next(self._keys) if replaced else key
                self._opened[spare] = reopened
                if replaced:
                    self._released.append(spare)
            if replaced:
                raise IndexUnavailable(f"{opened.path} was replaced while the worker restarted; call again")
            return reopened.handle

    def close(self) -> None:
        """End the worker (:meth:`WorkerProcess.close`); no new one starts after. Idempotent."""
        with self._lock:
            self._closed = True
            process = self._process
        process.close()

    def __enter__(self) -> IndexWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RemoteIndex:
    """An index opened in an :class:`IndexWorker`; an :class:`~docs_mcp.search.reader.IndexReader`
    whose attributes are the opened index's and whose calls run there."""

    def __init__(self, worker: IndexWorker, handle: int, attributes: Mapping[str, Any]) -> None:
        self._worker = worker
        self._handle = handle
        self.path: Path = attributes["path"]
        self.manifest: IndexManifest = attributes["manifest"]
        self.identity: str = attributes["identity"]
        self.facets: dict[str, list[str]] = attributes["facets"]
        self.config: SearchConfig = attributes["config"]
        self.collapse_facets: list[str] = attributes["collapse_facets"]
        self.resource_values: dict[str, list[str]] = attributes["resource_values"]
        self.vector_floor: float | None = attributes["vector_floor"]

    def search(self, request: SearchRequest) -> SearchPage:
        page: SearchPage = self._worker.call(self._handle, "search", request)
        return page

    def suggest_filters(self, query: str, filters: Mapping[str, str]) -> dict[str, list[str]]:
        suggestions: dict[str, list[str]] = self._worker.call(
            self._handle, "suggest_filters", query, dict(filters)
        )
        return suggestions

    def resource_ids(self) -> list[str]:
        ids: list[str] = self._worker.call(self._handle, "resource_ids")
        return ids

    def sections(self, ids: Sequence[str]) -> list[Section]:
        sections: list[Section] = self._worker.call(self._handle, "sections", list(ids))
        return sections

    def example_section(self) -> tuple[str, str]:
        example: tuple[str, str] = self._worker.call(self._handle, "example_section")
        return example

    def get(self, chunk_id: str, context: int = 0) -> SectionWindow:
        window: SectionWindow = self._worker.call(self._handle, "get", chunk_id, context)
        return window
