"""The stdio server's side of its index worker (:mod:`docs_mcp.server.index_worker`, which says why
there is one): :class:`IndexWorker` starts the process and carries calls to it,
:class:`RemoteIndex` is an index opened there, read through the same protocol as one opened here
(:class:`docs_mcp.search.reader.IndexReader`), so every server feature works over it unchanged.

Calls are blocking, from the server's index threads as in-process reads are; a reader thread hands
each reply to the call waiting for it, so calls run concurrently. An error raised in the worker is
raised here as it was (``DocsMcpError`` classes pickle whole; another exception's traceback is in
the worker's log, and one that does not pickle arrives as ``RuntimeError`` naming it). When the
worker ends while the server still runs (it crashed, or was killed), every call waiting and every
later one raises ``IndexUnavailable`` naming how it ended: a tool error the agent sees, never a
hang.

An index the server stops using (a rebuilt folder swapped in) is closed in the worker with the
next call after it was collected here, so the worker holds what the server holds.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import logging
import os
import subprocess
import sys
import threading
import weakref
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from docs_mcp.errors import IndexUnavailable
from docs_mcp.server.worker_frames import Failure, Request, read_frame, write_frame

if TYPE_CHECKING:
    from docs_mcp.search.config import SearchConfig
    from docs_mcp.search.types import SearchPage, SearchRequest, Section, SectionWindow
    from docs_mcp.store.index_manifest import IndexManifest

__all__ = ["IndexWorker", "RemoteIndex"]

logger = logging.getLogger(__name__)

WORKER_MODULE = "docs_mcp.server.index_worker"
# Set for the worker unless the environment sets them. numpy's OpenBLAS starts a thread per core when
# it loads, which spins for a while: on the core the server's own start runs on. Nothing the index
# does multiplies matrices large enough for threads to help (LanceDB searches in Rust). Measured
# paired over cold starts, both tools/list and the first result come sooner (README, measured table).
_WORKER_ENV = {"OPENBLAS_NUM_THREADS": "1"}
# How long the end of a worker is waited for: its exit once stopped, or once its input has ended.
_CLOSE_TIMEOUT = 10.0


class IndexWorker:
    """One index worker process; start it with :meth:`spawn` as early as the server can, open
    indexes in it with :meth:`open`, end it with :meth:`close` (also a context manager)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdin is not None and process.stdout is not None
        self._process = process
        self._requests: IO[bytes] = process.stdin
        self._replies: IO[bytes] = process.stdout
        self._write = threading.Lock()
        self._calls = itertools.count(1)
        self._waiting: dict[int, Future[Any]] = {}
        self._released: collections.deque[int] = collections.deque()
        self._ended: IndexUnavailable | None = None
        self._reader = threading.Thread(target=self._read_replies, name="docs-mcp-index-replies", daemon=True)
        self._reader.start()

    @classmethod
    def spawn(cls) -> IndexWorker:
        """Start the worker (``python -m docs_mcp.server.index_worker``, this interpreter): it begins
        importing the index stack at once. Its stderr is this process's."""
        process = subprocess.Popen(
            [sys.executable, "-m", WORKER_MODULE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, **{name: os.environ.get(name, value) for name, value in _WORKER_ENV.items()}},
        )
        return cls(process)

    @property
    def pid(self) -> int:
        return self._process.pid

    def open(self, path: Path) -> RemoteIndex:
        """Open and warm the index folder at ``path`` in the worker. Raises what opening raises there
        (``IndexUnavailable``, ``IndexCompatibilityError``)."""
        handle, attributes = self.call(0, "open", str(path))
        index = RemoteIndex(self, handle, attributes)
        weakref.finalize(index, self._released.append, handle)
        return index

    def handles(self) -> list[int]:
        """The handles of the indexes open in the worker (after the releases pending are sent)."""
        handles: list[int] = self.call(0, "handles")
        return handles

    def call(self, handle: int, method: str, *args: Any) -> Any:
        """``method(*args)`` on the worker's index ``handle``; blocks for the reply."""
        future: Future[Any] = Future()
        call = next(self._calls)
        with self._write:
            if self._ended is not None:
                raise self._ended
            self._waiting[call] = future
            try:
                while self._released:
                    write_frame(self._requests, 0, Request(self._released.popleft(), "close"))
                write_frame(self._requests, call, Request(handle, method, args))
            except OSError:
                self._waiting.pop(call, None)
                raise self._end() from None
            except BaseException:  # an argument that does not pickle: nothing was written
                self._waiting.pop(call, None)
                raise
        return future.result()

    def _read_replies(self) -> None:
        while (frame := read_frame(self._replies)) is not None:
            future = self._waiting.pop(frame.call, None)
            if future is None:
                continue
            try:
                message = frame.message()
            except Exception as error:  # one reply this side cannot read: its call's error only
                logger.exception("the index worker's reply to call %d could not be read", frame.call)
                message = Failure(IndexUnavailable(f"the index worker's answer could not be read: {error}"))
            if isinstance(message, Failure):
                future.set_exception(message.error)
            else:
                future.set_result(message)
        ended = self._end()
        with self._write:
            waiting, self._waiting = self._waiting, {}
        for future in waiting.values():
            future.set_exception(ended)

    def _end(self) -> IndexUnavailable:
        """The worker's end, as the error every call raises from now on."""
        if self._ended is None:
            try:
                code = self._process.wait(timeout=_CLOSE_TIMEOUT)
            except subprocess.TimeoutExpired:
                code = None
            how = f"exit status {code}" if code is None or code >= 0 else f"signal {-code}"
            self._ended = IndexUnavailable(
                f"the index worker process ended ({how}); restart the server (its log says why)"
            )
            if code != 0:
                logger.error("the index worker process ended (%s)", how)
        return self._ended

    def close(self) -> None:
        """End the worker: once the server has stopped nothing is asked of it, and it holds nothing
        that needs saving, so it is stopped at once (SIGTERM; SIGKILL if it has not exited within
        ``_CLOSE_TIMEOUT``) rather than left to finish an import no one waits for. Idempotent."""
        with self._write:
            if self._ended is None:
                self._ended = IndexUnavailable("the index worker was closed")
            with contextlib.suppress(OSError):  # a worker that already ended
                self._requests.close()
        if self._process.poll() is None:
            self._process.terminate()
        try:
            self._process.wait(timeout=_CLOSE_TIMEOUT)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._reader.join(timeout=_CLOSE_TIMEOUT)
        self._replies.close()

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
