"""Acme: a client for the Acme service."""

from acme.client import Client
from acme.legacy import fetch

__all__ = ["Client", "connect", "fetch"]


def connect(url: str, *, timeout: float = 5.0) -> Client:
    """Open a connection to an Acme server.

    Args:
        url: The server's address, such as ``https://acme.example``.
        timeout: Seconds to wait for the server before giving up.

    Returns:
        A client bound to the server.

    Raises:
        ConnectionError: The server did not answer within ``timeout``.
    """
    return Client(url, timeout=timeout)
