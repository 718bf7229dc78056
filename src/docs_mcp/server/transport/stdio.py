"""Serve an MCP server over stdin/stdout until the client closes stdin or a SIGTERM/SIGINT arrives.

The SDK reads stdin in a worker thread, which a cancellation cannot interrupt: a signal would then
wait for the client's next line. Stdin is read here instead by waiting for readability on the event
loop, so a signal stops the server at once.

The SDK also writes stdout through a worker thread (a write and a flush: two thread hand-offs per
message). When stdout is a pipe or socket, as it is under an MCP client, it is written here from
the event loop without blocking instead: non-blocking writes, waiting for room only when the client
is not reading. While serving, fd 1 points at stderr, so stray prints cannot corrupt the protocol.

Measured against the SDK's ``stdio_server`` (mcp 2.3.0) around the same server with the same signal
handling (``benchmarks/test_server.py::test_stdio_stops_on_a_signal_against_the_sdks`` and
``::test_stdio_transport_against_the_sdks``): SIGTERM to an idle server whose client keeps its input
open stops this transport within 0.5 s, while the SDK's had not stopped after 5 s (its reader thread
blocks on stdin). Round trips are at parity: ``search_docs`` p50 0.95x-1.05x of the SDK's over two runs
on a loaded machine, so the thread hand-offs saved are not what keeps this module; the clean stop is.

Every line is checked as a JSON-RPC message before the SDK sees it (``protocol.py``): the SDK drops
one it cannot validate without an answer, so a malformed line is answered here with -32700 or
-32600 (the SDK never sees it) and the server keeps serving; lines over ``MAX_MESSAGE_BYTES`` are
dropped unread and answered likewise.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import stat
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, cast

import anyio
import anyio.to_thread
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types import INVALID_REQUEST

from docs_mcp.limits import MAX_MESSAGE_BYTES
from docs_mcp.server.transport.protocol import Rejection, check_message, encode_json_text
from docs_mcp.server.transport.signals import cancel_on_signals

# Library versions this replacement was measured against (see tests/test_replacements.py).
MEASURED_WITH = {"mcp": "2.3", "anyio": "4.16"}

_READ_SIZE = 1 << 16


class LineTooLong(Exception):
    """A line over the reader's limit; it was read to its end and dropped."""


class CancellableLines:
    """Async iterator over the UTF-8 lines of a file descriptor, cancellable while waiting. A line
    longer than ``max_line`` bytes is dropped (read to its end, never held) and raises
    ``LineTooLong``; iteration can go on after it."""

    def __init__(self, fd: int, max_line: int = MAX_MESSAGE_BYTES) -> None:
        self._fd = fd
        self._max_line = max_line
        self._buffer = bytearray()
        self._eof = False
        self._pollable = True

    def __aiter__(self) -> CancellableLines:
        return self

    async def __anext__(self) -> str:
        while (end := self._buffer.find(b"\n")) < 0:
            if self._eof:
                if not self._buffer:
                    raise StopAsyncIteration
                end = len(self._buffer)
                break
            if len(self._buffer) > self._max_line:  # never hold more of a line than the limit
                await self._drop_line()
                raise LineTooLong(f"message over {self._max_line:,} bytes (MAX_MESSAGE_BYTES)")
            chunk = await self._read()
            self._eof = not chunk
            self._buffer += chunk
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        if len(line) > self._max_line + 1:  # it ended within the last read
            raise LineTooLong(f"message over {self._max_line:,} bytes (MAX_MESSAGE_BYTES)")
        return line.decode("utf-8", errors="replace")

    async def _drop_line(self) -> None:
        """Discard input up to and including the next newline (or to the end of input)."""
        self._buffer.clear()
        while not self._eof:
            chunk = await self._read()
            self._eof = not chunk
            if (end := chunk.find(b"\n")) >= 0:
                self._buffer += chunk[end + 1 :]
                return

    async def _read(self) -> bytes:
        if self._pollable:
            try:
                await anyio.wait_readable(self._fd)
            except (OSError, ValueError):
                # Regular files and /dev/null cannot be polled; they never block either.
                self._pollable = False
            else:
                return os.read(self._fd, _READ_SIZE)
        return await anyio.to_thread.run_sync(os.read, self._fd, _READ_SIZE)


class CheckedLines:
    """The lines of ``lines`` that are well-formed JSON-RPC messages (``protocol.check_message``);
    each malformed one is answered on ``reply`` with its JSON-RPC error instead of reaching the SDK,
    which would drop it silently. Blank lines are skipped."""

    def __init__(self, lines: CancellableLines, reply: Callable[[str], Awaitable[object]]) -> None:
        self._lines = lines
        self._reply = reply

    def __aiter__(self) -> CheckedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            try:
                line = await self._lines.__anext__()
            except LineTooLong as error:
                await self._reply(Rejection(INVALID_REQUEST, f"Invalid Request: {error}").to_json() + "\n")
                continue
            if not line.strip():
                continue
            rejection = check_message(line)
            if rejection is None:
                return line
            if rejection.answer:
                await self._reply(rejection.to_json() + "\n")


class NonBlockingWriter:
    """Async text writer on a file descriptor: a pipe or socket is written without blocking from the
    event loop (waiting for room when full); anything else (a file, a terminal) in a worker thread."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        mode = os.fstat(fd).st_mode
        self._direct = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
        self._lock = anyio.Lock()  # the SDK's writer and CheckedLines' error answers share the pipe

    @contextlib.contextmanager
    def non_blocking(self) -> Iterator[NonBlockingWriter]:
        """Switch the descriptor to non-blocking mode while in use (pipes and sockets only)."""
        if not self._direct:
            yield self
            return
        was_blocking = os.get_blocking(self._fd)
        os.set_blocking(self._fd, False)
        try:
            yield self
        finally:
            os.set_blocking(self._fd, was_blocking)

    async def write(self, text: str) -> int:
        """Write all of ``text``; concurrent writes never interleave (each is one message)."""
        data = memoryview(encode_json_text(text))
        async with self._lock:
            while data:
                data = data[await self._write_some(data) :]
        return len(text)

    async def flush(self) -> None:
        """Nothing is buffered here."""

    async def _write_some(self, data: memoryview) -> int:
        if not self._direct:
            return await anyio.to_thread.run_sync(os.write, self._fd, data)
        while True:
            try:
                return os.write(self._fd, data)
            except BlockingIOError:
                await anyio.wait_writable(self._fd)


@contextlib.contextmanager
def claimed_stdout() -> Iterator[int]:
    """A private duplicate of fd 1 for the protocol, with fd 1 pointed at stderr meanwhile."""
    private = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    os.dup2(2, 1)
    try:
        yield private
    finally:
        os.dup2(private, 1)
        os.close(private)


async def _nothing_more() -> None:
    """Nothing to finish after the input ended."""


async def run_stdio(
    server: Server[Any],
    on_ready: Callable[[], None] = lambda: None,
    after_input: Callable[[], Awaitable[object]] = _nothing_more,
) -> None:
    """Serve ``server`` on this process's stdio; returns on end of input or on SIGTERM/SIGINT.

    ``on_ready`` runs once the signal handlers are installed, so a signal sent after it is always
    a clean shutdown. ``after_input`` is awaited when the input has ended (a signal still cancels it).
    """
    async with anyio.create_task_group() as group:
        await group.start(cancel_on_signals, group.cancel_scope, (signal.SIGTERM, signal.SIGINT))
        on_ready()
        with claimed_stdout() as fd, NonBlockingWriter(fd).non_blocking() as writer:
            stdin = cast("anyio.AsyncFile[str]", CheckedLines(CancellableLines(0), writer.write))
            stdout = cast("anyio.AsyncFile[str]", writer)
            async with stdio_server(stdin=stdin, stdout=stdout) as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())
        await after_input()
        group.cancel_scope.cancel()  # input ended: stop the signal watcher too


def serve_stdio(
    server: Server[Any],
    on_ready: Callable[[], None] = lambda: None,
    after_input: Callable[[], Awaitable[object]] = _nothing_more,
) -> None:
    """Blocking: serve ``server`` over stdio (see :func:`run_stdio`)."""
    anyio.run(run_stdio, server, on_ready, after_input)
