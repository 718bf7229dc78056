"""The index worker: the process in which a stdio server opens and searches its index.

An MCP client spawns a stdio server at the start of each session, so the time to the first answer
is felt every time. The server needs two large stacks: the MCP SDK (to answer at all) and LanceDB
with pyarrow and numpy (to search). In one process their imports run one after the other under one
interpreter lock, however they are threaded. So the stdio server starts this process first
(:class:`docs_mcp.server.worker.remote_index.IndexWorker`): the worker imports the index stack and opens
the index while the server imports the SDK and answers ``initialize`` and ``tools/list`` from the
manifest, on two cores at once. ``benchmarks/test_server.py::test_cold_start_to_tools_list`` times
both ways in one run.

The worker speaks :mod:`docs_mcp.server.worker.worker_frames` on its stdin (requests) and stdout
(replies); its stderr is the server's (its log). At start it moves fd 0 and fd 1 away, so nothing
else reads the requests or writes into the replies (a library's stray print goes to stderr).
Requests run in ``MAX_CONCURRENT_INDEX_CALLS`` threads, as the server's own index calls would
(LanceDB releases the interpreter lock while it reads). The server stops it as it ends itself
(SIGTERM); a server that dies first closes the worker's input, and the worker ends there. It
ignores SIGINT: a terminal's Ctrl-C reaches the whole process group, and the server handles it.

Run as ``python -m docs_mcp.server.worker.index_worker``; nothing else starts it.
"""

from __future__ import annotations

import itertools
import logging
import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from docs_mcp.errors import DocsMcpError, IndexUnavailable
from docs_mcp.limits import MAX_CONCURRENT_INDEX_CALLS
from docs_mcp.server.startup.collector import collector_paused
from docs_mcp.server.worker.worker_frames import Failure, Request, read_frame, write_frame

if TYPE_CHECKING:
    from docs_mcp.search.index import DocsIndex

__all__ = ["INDEX_CALLS", "OPENED_ATTRIBUTES", "main"]

logger = logging.getLogger(__name__)

# The read calls a request may name (docs_mcp.search.reader.IndexReader's methods).
INDEX_CALLS = frozenset({"search", "suggest_filters", "resource_ids", "sections", "example_section", "get"})
# What an ``open`` reply carries of the opened index (IndexReader's attributes).
OPENED_ATTRIBUTES = (
    "path",
    "manifest",
    "identity",
    "facets",
    "config",
    "collapse_facets",
    "resource_values",
    "vector_floor",
)


class _Worker:
    """The open indexes, by handle, and the one writer of replies."""

    def __init__(self, replies: IO[bytes]) -> None:
        self._replies = replies
        self._write = threading.Lock()
        self._handles = itertools.count(1)
        self._indexes: dict[int, DocsIndex] = {}

    def handle(self, call: int, request: Request) -> None:
        """Run one request and reply (``close`` has no reply)."""
        if request.method == "close":
            self._indexes.pop(request.handle, None)
            return
        try:
            value = self._run(request)
        except Exception as error:  # raised in the server as it was raised here
            if not isinstance(error, DocsMcpError):  # a fault, not a refusal: the log keeps it
                logger.exception("index worker: %s failed", request.method)
            self.reply(call, Failure(error))
        else:
            self.reply(call, value)

    def _run(self, request: Request) -> Any:
        if request.method == "open":
            from docs_mcp.server.worker.warm import open_warm

            index = open_warm(Path(request.args[0]))
            handle = next(self._handles)
            self._indexes[handle] = index
            return handle, {name: getattr(index, name) for name in OPENED_ATTRIBUTES}
        if request.method == "handles":
            return sorted(self._indexes)
        if request.method not in INDEX_CALLS:
            raise IndexUnavailable(f"the index worker has no call {request.method!r}")
        if request.handle not in self._indexes:
            raise IndexUnavailable(f"the index worker holds no index {request.handle}; restart the server")
        return getattr(self._indexes[request.handle], request.method)(*request.args)

    def reply(self, call: int, message: Any) -> None:
        """Send call ``call``'s reply (a value, or a :class:`Failure`); from any thread."""
        with self._write:
            try:
                write_frame(self._replies, call, message)
            except BrokenPipeError:
                return  # the server is gone: the input's end stops the worker
            except Exception as error:  # a value or error that does not pickle: say so instead
                logger.exception("index worker: the reply to call %d could not be sent", call)
                unsent = RuntimeError(f"the reply could not be sent: {error}")
                write_frame(self._replies, call, Failure(unsent))


def serve_requests(requests: IO[bytes], replies: IO[bytes]) -> None:
    """Answer requests until the end of ``requests``; waits for the calls in flight."""
    worker = _Worker(replies)
    with ThreadPoolExecutor(MAX_CONCURRENT_INDEX_CALLS, thread_name_prefix="docs-mcp-index") as pool:
        while (frame := read_frame(requests)) is not None:
            try:
                request = frame.message()
            except Exception as error:  # one request this side cannot read: its call's error only
                logger.exception("index worker: request %d could not be read", frame.call)
                unread = IndexUnavailable(f"the index worker could not read the request: {error}")
                worker.reply(frame.call, Failure(unread))
                continue
            pool.submit(worker.handle, frame.call, request)


def main() -> int:
    """The worker process (see the module)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    os.dup2(2, 1)
    # The index stack at once, before the first request: the server sends it after its own imports.
    try:
        with collector_paused():
            import docs_mcp.search.index  # noqa: F401  (LanceDB, pyarrow, numpy)
    except Exception:  # a broken install: the open that needs it fails and says why, as a tool error
        pass
    serve_requests(requests, replies)
    return 0


if __name__ == "__main__":
    sys.exit(main())
