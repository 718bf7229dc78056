"""The names of this machine: what counts as loopback wherever it matters (a registry reached over
plain HTTP, an API server that needs no key, the HTTP server's default Host/Origin allow-list)."""

from __future__ import annotations

__all__ = ["LOOPBACK_HOSTS", "is_loopback"]

# Host names as urllib parses them (``::1``) and as they are written in a URL or a Host header
# (``[::1]``).
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})


def is_loopback(host: str | None) -> bool:
    """True for a loopback host name, with or without IPv6 brackets; False for None."""
    return host is not None and host.lower() in LOOPBACK_HOSTS
