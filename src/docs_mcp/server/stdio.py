"""Serve an MCP server over stdin/stdout until the client closes stdin or a SIGTERM/SIGINT arrives.

The SDK reads stdin in a worker thread, which a cancellation cannot interrupt: a signal would then
wait for the client's next line. Stdin is read here instead by waiting for readability on the event
loop, so a signal stops the server at once.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any, cast

import anyio
import anyio.to_thread
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from docs_mcp.server.signals import cancel_on_signals

_READ_SIZE = 1 << 16


class CancellableLines:
    """Async iterator over the UTF-8 lines of a file descriptor, cancellable while waiting."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
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
            chunk = await self._read()
            self._eof = not chunk
            self._buffer += chunk
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        return line.decode("utf-8", errors="replace")

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


async def run_stdio(server: Server[Any], on_ready: Callable[[], None] = lambda: None) -> None:
    """Serve ``server`` on this process's stdio; returns on end of input or on SIGTERM/SIGINT.

    ``on_ready`` runs once the signal handlers are installed, so a signal sent after it is always
    a clean shutdown.
    """
    async with anyio.create_task_group() as group:
        await group.start(cancel_on_signals, group.cancel_scope, (signal.SIGTERM, signal.SIGINT))
        on_ready()
        stdin = cast("anyio.AsyncFile[str]", CancellableLines(0))
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        group.cancel_scope.cancel()  # input ended: stop the signal watcher too


def serve_stdio(server: Server[Any], on_ready: Callable[[], None] = lambda: None) -> None:
    """Blocking: serve ``server`` over stdio (see :func:`run_stdio`)."""
    anyio.run(run_stdio, server, on_ready)
