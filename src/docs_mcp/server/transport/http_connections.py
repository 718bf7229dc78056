"""How many HTTP connections the server holds, and for how long one may sit before its request.

uvicorn (0.54) closes a kept-alive connection idle for ``timeout_keep_alive`` seconds after a
response, but none before its first request: a connection that never sends one was held forever,
and 1,100 of them used up a 1,024-descriptor limit (no client could connect; LanceDB, left without
descriptors, failed searches with "too many open files"). uvicorn's ``limit_concurrency`` answers
503 once connections reach the limit, so idle connections alone would still lock clients out.

:class:`BoundedConnections` (uvicorn's httptools protocol) therefore adds:

- a deadline for each request's headers, ``HTTP_HEADER_TIMEOUT_SECONDS`` from the connection (or
  from its previous response): a connection that has not sent a whole request head by then is
  closed, slow or silent alike;
- a cap: when connections reach ``max_connections`` (below uvicorn's ``limit_concurrency``, itself
  below the descriptor limit), the connection that has waited longest without a request is closed to
  make room, so a client that sends its request at once is served however many idle ones there are.
"""

from __future__ import annotations

import asyncio
import resource
import time
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from docs_mcp.limits import HTTP_HEADER_TIMEOUT_SECONDS, MAX_HTTP_CONNECTIONS

__all__ = ["BoundedConnections", "connection_limit"]


def connection_limit(wanted: int = MAX_HTTP_CONNECTIONS) -> int:
    """``wanted``, or fewer when this process's descriptor limit could not hold that many connections
    and leave half of it to everything else (the index's LanceDB files, the registry client, logs)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(8, min(wanted, soft // 2))


class BoundedConnections(HttpToolsProtocol):
    """uvicorn's httptools protocol with a request-head deadline and idle-first eviction (see the
    module docstring). ``max_connections`` and ``header_timeout`` are set by :func:`protocol`."""

    max_connections = MAX_HTTP_CONNECTIONS
    header_timeout: float = HTTP_HEADER_TIMEOUT_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None
        self._waiting_since: float | None = None  # set while no request head has arrived

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()
        if len(self.connections) > self.max_connections:
            self._evict_longest_waiting()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_arrived()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and not self.pipeline:
            self._await_head()  # the next request on this kept-alive connection

    def on_headers_complete(self) -> None:
        self._head_arrived()
        super().on_headers_complete()

    def _await_head(self) -> None:
        self._head_arrived()
        self._waiting_since = time.monotonic()
        self._head_deadline = self.loop.call_later(self.header_timeout, self._close)

    def _head_arrived(self) -> None:
        self._waiting_since = None
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _close(self) -> None:
        self._head_arrived()
        if not self.transport.is_closing():
            self.transport.close()

    def _evict_longest_waiting(self) -> None:
        waiting = [
            c for c in self.connections if isinstance(c, BoundedConnections) and c._waiting_since is not None
        ]
        if waiting:
            min(waiting, key=lambda c: c._waiting_since or 0.0)._close()


def protocol(max_connections: int, header_timeout: float) -> type[BoundedConnections]:
    """:class:`BoundedConnections` with these bounds (uvicorn takes a protocol class, not an instance)."""
    return type(
        "BoundedConnections",
        (BoundedConnections,),
        {"max_connections": max_connections, "header_timeout": header_timeout},
    )
