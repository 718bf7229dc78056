"""What ``serve`` is told: the transport, where and how to listen over HTTP, how to reach a registry.

Its own module, below both ``serving`` (which chooses the transport) and ``http`` (which listens), so
neither imports the other for these types.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from docs_mcp.limits import HTTP_HEADER_TIMEOUT_SECONDS, MAX_HTTP_CONNECTIONS

if TYPE_CHECKING:
    from docs_mcp.server.auth.gate import AuthOptions

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_PORT",
    "MAX_REFRESH_INTERVAL",
    "MIN_REFRESH_INTERVAL",
    "OCI_SCHEME",
    "HttpOptions",
    "RegistryOptions",
    "Transport",
    "refresh_interval_allowed",
]


Transport = Literal["stdio", "http"]
OCI_SCHEME = "oci://"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
MIN_REFRESH_INTERVAL = 0.1  # seconds: a registry polled faster gains nothing (nan polled ~300 times a second)
MAX_REFRESH_INTERVAL = 7 * 86_400.0  # a week: longer is "never" (1e300 overflowed the timer)


def refresh_interval_allowed(seconds: float) -> bool:
    """Whether ``seconds`` is a refresh interval the server takes (finite, from
    ``MIN_REFRESH_INTERVAL`` to ``MAX_REFRESH_INTERVAL``): the one check of every way one is given."""
    return math.isfinite(seconds) and MIN_REFRESH_INTERVAL <= seconds <= MAX_REFRESH_INTERVAL


REFRESH_INTERVAL_RANGE = f"from {MIN_REFRESH_INTERVAL:g} to {MAX_REFRESH_INTERVAL:,.0f} (a week)"

DEFAULT_MAX_BODY_BYTES = 64 * 1024  # a tool call is a few hundred bytes; anything huge is abuse


@dataclass(frozen=True)
class HttpOptions:
    """Where and how to listen over HTTP. ``allowed_hosts``/``allowed_origins`` extend the loopback
    defaults (entries like ``docs.example.com:*`` or ``https://app.example.com``); ``page`` serves
    the search page at ``/``; ``auth``: who may call ``/mcp`` (None: anyone who reaches the port);
    ``health()``: what ``/healthz`` answers, read per request (its ``status``: 200 only when ``ok``,
    see :mod:`docs_mcp.server.startup.health`)."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    allowed_hosts: Sequence[str] = ()
    allowed_origins: Sequence[str] = ()
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_connections: int = MAX_HTTP_CONNECTIONS
    header_timeout: float = HTTP_HEADER_TIMEOUT_SECONDS
    page: bool = True  # the search page at / (docs_mcp.server.transport.page)
    health: Callable[[], dict[str, Any]] = dict
    auth: AuthOptions | None = None


@dataclass(frozen=True)
class RegistryOptions:
    """How ``serve`` reaches a registry for an ``oci://`` index."""

    cache_dir: Path | None = None
    insecure: bool | None = None  # None: plain HTTP only for a loopback registry
    refresh_interval: float | None = None  # seconds between polls of every tag; None: never
    # Library NAME (or NAME@VERSION) -> its own interval, over refresh_interval (several indexes only).
    library_refresh: Mapping[str, float] = field(default_factory=dict)
