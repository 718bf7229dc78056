"""Serving a server whose indexes open in the background (:mod:`.deferred`), over stdio or HTTP.

One runner for a single index (a folder or ``oci://``) and for several libraries: the transport
starts at once (stdio reads requests, HTTP listens: ``initialize`` and ``tools/list`` are answered
from the manifests), and what the server says on stderr follows the start:

- over HTTP, at once: ``opening <what>; listening at <url>`` (and where the search page is);
- once the transport is up and every index is open: ``serving <what> ready in <s> on stdio`` or
  ``... at <url>`` (the line deployments and tests wait for, as before the deferred start);
- a load that failed ends the server with its error (exit 1), as a start that failed did before the
  deferred start: over HTTP at once (gracefully: requests in flight are answered), over stdio once
  the input ends (until then it is each call's error). A server that cannot answer what it was
  started for does not linger: the orchestrator sees it exit and restarts it or reports it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from docs_mcp.server.startup.options import HttpOptions, Transport

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from docs_mcp.server.hub.deferred import DeferredIndex

__all__ = ["Launch"]


class Launch:
    """The start of one server: give each index ``on_loaded``/``on_failure`` as its load callbacks,
    then :meth:`serve`. Thread-safe: the loads end in their own threads, in any order."""

    def __init__(self, transport: Transport, announce: Callable[[str], None]) -> None:
        self.transport = transport
        self._announce = announce
        self._started = time.perf_counter()
        self._lock = threading.Lock()
        self._loaded = 0
        self._expected: int | None = None  # how many indexes: known once serve() is called
        self._where: str | None = None  # "on stdio" / "at URL", once the transport is up
        self._summary = ""
        self._said = False
        self._failed = threading.Event()  # over HTTP: stops the server

    def on_loaded(self) -> None:
        """One index is open."""
        with self._lock:
            self._loaded += 1
        self._say_ready()

    def on_failure(self) -> None:
        """One index failed to open: over HTTP the server stops; the exit error says why (on stdio
        too, once the input ends)."""
        if self.transport == "http":
            self._failed.set()

    def _up(self, where: str) -> None:
        with self._lock:
            self._where = where
        self._say_ready()

    def _say_ready(self) -> None:
        with self._lock:
            if self._said or self._where is None or self._loaded != self._expected:
                return
            self._said = True
            line = (
                f"serving {self._summary} ready in {time.perf_counter() - self._started:.2f}s {self._where}"
            )
        self._announce(line)

    def serve(
        self,
        server: Server[Any],
        indexes: Sequence[DeferredIndex[Any]],
        summary: str,
        *,
        health: Callable[[], dict[str, Any]],
        http: HttpOptions | None = None,
    ) -> None:
        """Blocking: serve ``server`` (answering from ``indexes`` as they open; ``summary`` says what
        they are) until SIGTERM/SIGINT or, on stdio, the end of input. ``health`` is what
        ``/healthz`` answers (see :mod:`docs_mcp.server.startup.health`).

        Raises the first failed load's error once the server stops (exit 1, as a server that failed
        at start)."""
        with self._lock:
            self._summary, self._expected = summary, len(indexes)
        if self.transport == "stdio":
            self._serve_stdio(server, indexes)
            return
        from docs_mcp.server.transport.http import serve_http

        options = replace(http or HttpOptions(), health=health)

        def on_listening(url: str) -> None:
            self._announce(f"opening {summary}; listening at {url}")
            if options.page:
                self._announce(f"search page at {url.removesuffix('/mcp')}/ (--no-page to turn it off)")
            self._up(f"at {url}")

        serve_http(server, options, on_listening=on_listening, stop=self._failed)
        _raise_first_failure(indexes)

    def _serve_stdio(self, server: Server[Any], indexes: Sequence[DeferredIndex[Any]]) -> None:
        import anyio.to_thread

        from docs_mcp.server.transport.stdio import serve_stdio

        def settle() -> None:
            for index in indexes:
                index.settle()

        async def settled() -> object:
            # A short session must still report an index that cannot open (a signal cuts this short).
            return await anyio.to_thread.run_sync(settle, abandon_on_cancel=True)

        serve_stdio(server, on_ready=lambda: self._up("on stdio"), after_input=settled)
        _raise_first_failure(indexes)


def _raise_first_failure(indexes: Sequence[DeferredIndex[Any]]) -> None:
    failures = [index.error for index in indexes if index.error is not None]
    if failures:
        raise failures[0]
