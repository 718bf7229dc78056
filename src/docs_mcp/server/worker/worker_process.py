"""One index worker process as the server sees it: started, sent calls, read replies, ended.

:meth:`WorkerProcess.send` writes a request and returns the future of its reply; a reader thread
hands each reply to its future, so calls run concurrently. When the process ends (it crashed, was
killed, or was closed), every call waiting and every later one fails with ``IndexUnavailable``
naming how it ended: never a hang. :class:`docs_mcp.server.worker.remote_index.IndexWorker` starts another
when one ends unexpectedly.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import subprocess
import sys
import threading
from concurrent.futures import Future
from typing import IO, Any

from docs_mcp.errors import IndexUnavailable
from docs_mcp.server.worker.worker_frames import Failure, Request, read_frame, write_frame

__all__ = ["WORKER_MODULE", "WorkerProcess"]

logger = logging.getLogger(__name__)

WORKER_MODULE = "docs_mcp.server.worker.index_worker"
# The worker's environment under this process's (which wins). numpy's OpenBLAS starts a thread per
# core when it loads, which spins for a while: on the core the server's own start runs on. Nothing the
# index does multiplies matrices large enough for threads to help (LanceDB searches in Rust). Measured
# paired over cold starts, both tools/list and the first result come sooner (README, measured table).
_WORKER_ENV = {"OPENBLAS_NUM_THREADS": "1"}
# How long the end of a worker is waited for: its exit once stopped, or once its input has ended.
_CLOSE_TIMEOUT = 10.0


class WorkerProcess:
    """A running ``python -m docs_mcp.server.worker.index_worker`` (this interpreter), begun with
    :meth:`start`; it imports the index stack at once. Its stderr is this process's."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdin is not None and process.stdout is not None
        self._process = process
        self._requests: IO[bytes] = process.stdin
        self._replies: IO[bytes] = process.stdout
        self._write = threading.Lock()
        self._calls = itertools.count(1)
        self._waiting: dict[int, Future[Any]] = {}
        self._ended: IndexUnavailable | None = None
        self._ending = threading.Lock()  # one end, one error object: callers compare it by identity
        self._reader = threading.Thread(target=self._read_replies, name="docs-mcp-index-replies", daemon=True)
        self._reader.start()

    @classmethod
    def start(cls) -> WorkerProcess:
        process = subprocess.Popen(
            [sys.executable, "-m", WORKER_MODULE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**_WORKER_ENV, **os.environ},
        )
        return cls(process)

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def ended(self) -> IndexUnavailable | None:
        """How the process ended, as the error its calls raise; None while it runs."""
        return self._ended

    def send(self, handle: int, method: str, *args: Any, closing: tuple[int, ...] = ()) -> Future[Any]:
        """Send ``method(*args)`` for the worker's index ``handle``, after closing the indexes
        ``closing``; the future of its reply. Raises ``IndexUnavailable`` once the process ended."""
        future: Future[Any] = Future()
        call = next(self._calls)
        with self._write:
            if self._ended is not None:
                raise self._ended
            self._waiting[call] = future
            try:
                for closed in closing:
                    write_frame(self._requests, 0, Request(closed, "close"))
                write_frame(self._requests, call, Request(handle, method, args))
            except OSError:
                self._waiting.pop(call, None)
                raise self._end() from None
            except BaseException:  # an argument that does not pickle: nothing was written
                self._waiting.pop(call, None)
                raise
        return future

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
        """The process's end, as the error every call raises from now on (the reader thread and a
        writer that found the pipe broken may both get here)."""
        with self._ending:
            if self._ended is None:
                try:
                    code: int | None = self._process.wait(timeout=_CLOSE_TIMEOUT)
                except subprocess.TimeoutExpired:
                    code = None
                if code is None:
                    how = "its pipes closed, the process still running"
                else:
                    how = f"exit status {code}" if code >= 0 else f"signal {-code}"
                self._ended = IndexUnavailable(f"the index worker process ended ({how})")
                if code != 0:
                    logger.error("the index worker process ended (%s)", how)
            return self._ended

    def close(self) -> None:
        """End the process: once the server has stopped nothing is asked of it, and it holds nothing
        that needs saving, so it is stopped at once (SIGTERM; SIGKILL if it has not exited within
        ``_CLOSE_TIMEOUT``) rather than left to finish an import no one waits for. Idempotent."""
        with self._write, self._ending:
            if self._ended is None:
                self._ended = IndexUnavailable("the index worker was closed")
            with contextlib.suppress(OSError):  # a process that already ended
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
