"""Streamable HTTP transport: MCP at ``/mcp``, ``GET /healthz``, the search page at ``/``, served by uvicorn.

Safe defaults: binds 127.0.0.1; Host and Origin headers are checked against an allow-list (DNS
rebinding protection) on ``/mcp``; request bodies are capped; SIGTERM and SIGINT stop accepting
connections and finish in-flight requests before exiting. The transport is stateless (one JSON
response per POST, no session), like the cursors, so replicas behind a load balancer are
interchangeable.
"""

from __future__ import annotations

import contextlib
import errno
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from docs_mcp import __version__
from docs_mcp.errors import DocsMcpError, UsageError
from docs_mcp.loopback import LOOPBACK_HOSTS, is_loopback
from docs_mcp.server.auth.gate import auth_gate
from docs_mcp.server.startup.options import HttpOptions
from docs_mcp.server.transport.http_connections import connection_limit, protocol
from docs_mcp.server.transport.http_guard import McpGuard
from docs_mcp.server.transport.page import page_routes

MCP_PATH = "/mcp"
HEALTH_PATH = "/healthz"
# As the allow-lists write them: with any port, and without one (a Host header on port 80).
_URL_LOOPBACK = sorted(host for host in LOOPBACK_HOSTS if host != "::1")
_LOOPBACK_HOSTS = [*(f"{host}:*" for host in _URL_LOOPBACK), *_URL_LOOPBACK]
_LOOPBACK_ORIGINS = [f"http://{host}:*" for host in _URL_LOOPBACK]


def security_settings(options: HttpOptions) -> TransportSecuritySettings:
    """Host/Origin allow-lists: loopback always, the bound host, and what the operator added."""
    hosts = [*_LOOPBACK_HOSTS, *options.allowed_hosts]
    if not is_loopback(options.host) and options.host not in ("0.0.0.0", "::"):
        hosts += [f"{options.host}:*", options.host]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[*_LOOPBACK_ORIGINS, *options.allowed_origins],
    )


def create_http_app(server: Server[Any], options: HttpOptions) -> ASGIApp:
    """The ASGI app: Streamable HTTP at ``/mcp`` plus ``/healthz`` answering ``options.health()`` and,
    unless ``options.page`` is off, the search page (:mod:`docs_mcp.server.transport.page`);
    ``/mcp`` behind :class:`~docs_mcp.server.transport.http_guard.McpGuard` (exact Host/Origin matching,
    405 for GET and DELETE, JSON-RPC errors for malformed messages)."""

    async def healthz(request: Request) -> JSONResponse:
        # Read per request: a swapped index (or artifact digest) shows at once. 503 unless "ok": no
        # probe or load balancer sends requests to a replica whose index is still loading (or failed).
        body = {"status": "ok", "version": __version__, **options.health()}
        return JSONResponse(body, status_code=200 if body["status"] == "ok" else 503)

    security = security_settings(options)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        json_response=True,
        stateless_http=True,
        max_request_body_size=options.max_body_bytes,
        transport_security=security,
        host=options.host,
        custom_starlette_routes=[
            Route(HEALTH_PATH, healthz, methods=["GET"]),
            *(page_routes() if options.page else []),
        ],
    )
    guarded = McpGuard(
        app,
        path=MCP_PATH,
        allowed_hosts=security.allowed_hosts,
        allowed_origins=security.allowed_origins,
        max_body_bytes=options.max_body_bytes,
    )
    # Bearer tokens on /mcp when configured (docs_mcp.server.auth.gate): checked before the body is read.
    return auth_gate(guarded, options.auth, path=MCP_PATH)


class _GracefulServer(uvicorn.Server):
    """uvicorn without its own signal capture: :func:`serve_http` installs the handlers before it
    announces the server, and a handled SIGTERM/SIGINT ends in a normal return (exit 0), not in a
    re-raised signal. ``stop`` set (from any thread) ends it the same way, within a tick (0.1 s)."""

    def __init__(self, config: uvicorn.Config, stop: threading.Event | None) -> None:
        super().__init__(config)
        self._stop = stop

    async def on_tick(self, counter: int) -> bool:
        if self._stop is not None and self._stop.is_set():
            return True
        return await super().on_tick(counter)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@contextlib.contextmanager
def _graceful_signals(server: uvicorn.Server) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handled = (signal.SIGINT, signal.SIGTERM)
    original = {sig: signal.signal(sig, server.handle_exit) for sig in handled}
    try:
        yield
    finally:
        for sig, handler in original.items():
            signal.signal(sig, handler)


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``; port 0 picks a free port (read it from ``getsockname``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Inherited by accepted connections: without it, Nagle + delayed ACK hold back every response on
    # a kept-alive connection by the peer's delayed-ACK timer (headers and body go out in separate
    # writes).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _bound(host: str, port: int) -> socket.socket:
    """:func:`bind_socket`, its failures as one-line errors naming the flag (``--host``, ``--port``)."""
    try:
        return bind_socket(host, port)
    except socket.gaierror as error:
        raise UsageError(
            f"--host {host!r} is not an address of this machine ({error.strerror}); "
            "use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)"
        ) from None
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise DocsMcpError(
                f"port {port} on {host} is in use; stop what listens there, or choose another --port "
                "(0 picks a free one)"
            ) from None
        raise UsageError(
            f"cannot listen on {host}:{port} ({error.strerror}); check --host and --port"
        ) from None


def serve_http(
    server: Server[Any],
    options: HttpOptions,
    *,
    on_listening: Callable[[str], None],
    stop: threading.Event | None = None,
) -> None:
    """Blocking: serve ``server`` over HTTP until SIGTERM/SIGINT or ``stop`` is set (a graceful stop
    either way); ``on_listening`` gets the MCP URL."""
    sock = _bound(options.host, options.port)
    bound_port = sock.getsockname()[1]
    shown_host = f"[{options.host}]" if ":" in options.host else options.host
    max_connections = connection_limit(options.max_connections)
    config = uvicorn.Config(
        create_http_app(server, options),
        log_level="warning",
        access_log=False,
        # Per-request work nothing here uses: the client address is never read (no access log), so
        # X-Forwarded-* need not be parsed; and no Server header advertising uvicorn.
        proxy_headers=False,
        server_header=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
        # Connections: a cap that evicts the longest-idle, a deadline for each request head
        # (http_connections), uvicorn's idle keep-alive timeout, and its 503 past the cap as a backstop.
        http=protocol(max_connections, options.header_timeout),
        timeout_keep_alive=5,
        limit_concurrency=max_connections + 8,
    )
    uv_server = _GracefulServer(config, stop)
    with sock, _graceful_signals(uv_server):
        # A signal from here on (even before uvicorn's loop starts) means a graceful stop.
        on_listening(f"http://{shown_host}:{bound_port}{MCP_PATH}")
        uv_server.run(sockets=[sock])
