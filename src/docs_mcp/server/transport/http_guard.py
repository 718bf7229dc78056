"""An ASGI guard in front of the SDK's Streamable HTTP app: what ``/mcp`` accepts, decided exactly.

- Host and Origin headers are parsed and matched host for host, port for port. The SDK's check
  (mcp 2.3, ``TransportSecurityMiddleware``) matches ``127.0.0.1:*`` by prefix, so it accepts
  ``Host: 127.0.0.1:80@evil.com``; it still runs after this one.
- GET and DELETE answer 405: the transport is stateless JSON, so there is no server-sent stream to
  open and no session to end. The SDK opened an SSE stream per GET and never closed an idle one
  (999 of them exhausted a 1,024-descriptor limit).
- A POST body is read within the size limit and checked as a JSON-RPC message
  (:func:`docs_mcp.server.transport.protocol.check_message`): a malformed one gets its JSON-RPC error, naming
  the field, instead of the SDK's pydantic dump (or a 202 for a request with ``"id": 1.5``).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from mcp_types import INVALID_REQUEST
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docs_mcp.server.transport.protocol import Rejection, check_message, encode_json_text

__all__ = ["McpGuard", "host_allowed", "origin_allowed"]

_HOST = re.compile(
    r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::(?P<port>[0-9]{1,5}))?"
)
_ORIGIN = re.compile(r"(?P<scheme>https?)://(?P<rest>.+)")
_ANY_PORT = "*"


@dataclass(frozen=True)
class _Allowed:
    scheme: str | None  # origins only
    host: str  # lower case
    port: str | None  # digits, "*" (any port) or None (no port given)


def _parse_allowed(entry: str, *, origin: bool) -> _Allowed | None:
    scheme = None
    if origin:
        match = _ORIGIN.fullmatch(entry)
        if match is None:
            return None
        scheme, entry = match["scheme"], match["rest"]
    base, _, port = entry.rpartition(":")
    if port == _ANY_PORT and base:
        parsed = _HOST.fullmatch(base)
        return _Allowed(scheme, parsed["host"].lower(), _ANY_PORT) if parsed and not parsed["port"] else None
    parsed = _HOST.fullmatch(entry)
    return _Allowed(scheme, parsed["host"].lower(), parsed["port"]) if parsed else None


def _matches(host: str, port: str | None, scheme: str | None, allowed: Sequence[_Allowed]) -> bool:
    for entry in allowed:
        if entry.scheme != scheme or entry.host != host.lower():
            continue
        if entry.port == port or (entry.port == _ANY_PORT and port is not None):
            return True
    return False


def host_allowed(header: str | None, allowed: Sequence[str]) -> bool:
    """True when the Host ``header`` is exactly ``host`` or ``host:port`` of an ``allowed`` entry
    (``name``, ``name:port`` or ``name:*`` for any port)."""
    parsed = _HOST.fullmatch(header) if header else None
    if parsed is None:
        return False
    entries = [e for e in (_parse_allowed(a, origin=False) for a in allowed) if e is not None]
    return _matches(parsed["host"], parsed["port"], None, entries)


def origin_allowed(header: str | None, allowed: Sequence[str]) -> bool:
    """True when there is no Origin ``header`` (not a browser) or it is exactly
    ``scheme://host[:port]`` of an ``allowed`` entry (``http://name:*`` for any port)."""
    if header is None:
        return True
    origin = _ORIGIN.fullmatch(header)
    parsed = _HOST.fullmatch(origin["rest"]) if origin else None
    if origin is None or parsed is None:
        return False
    entries = [e for e in (_parse_allowed(a, origin=True) for a in allowed) if e is not None]
    return _matches(parsed["host"], parsed["port"], origin["scheme"], entries)


def _json_rpc_error(status: int, code: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return _json_rpc_response(Rejection(code, message), status, headers)


def _json_rpc_response(rejection: Rejection, status: int, headers: dict[str, str] | None = None) -> Response:
    body = encode_json_text(rejection.to_json())
    return Response(body, status, headers=headers, media_type="application/json")


class McpGuard:
    """Wraps the ASGI ``app``; requests to ``path`` are checked first (see the module docstring)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        path: str,
        allowed_hosts: Sequence[str],
        allowed_origins: Sequence[str],
        max_body_bytes: int,
    ) -> None:
        self._app = app
        self._path = path
        self._hosts = list(allowed_hosts)
        self._origins = list(allowed_origins)
        self._max_body = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self._path:
            await self._app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        if scope["method"] != "POST":
            await self._app(scope, receive, send)  # the SDK answers other methods (405)
            return
        body, more = await _read_body(receive, self._max_body)
        if body is None:
            message = (
                f"Invalid Request: request body over {self._max_body:,} bytes; send one JSON-RPC message"
            )
            await _json_rpc_error(413, INVALID_REQUEST, message)(scope, receive, send)
            return
        rejection = check_message(body)
        if rejection is not None:
            # A notification is never answered.
            response = _json_rpc_response(rejection, 400) if rejection.answer else Response(status_code=202)
            await response(scope, receive, send)
            return
        await self._app(scope, _replay(body, more, receive), send)

    def _refusal(self, scope: Scope) -> Response | None:
        headers = Headers(scope=scope)
        if not host_allowed(headers.get("host"), self._hosts):
            return Response("Invalid Host header", 421)
        if not origin_allowed(headers.get("origin"), self._origins):
            return Response("Invalid Origin header", 403)
        if scope["method"] in ("GET", "DELETE"):
            message = (
                "Method Not Allowed: this server is stateless; it opens no event stream (GET) "
                "and holds no session (DELETE). POST each JSON-RPC request"
            )
            return _json_rpc_error(405, -32600, message, {"Allow": "POST"})
        return None


async def _read_body(receive: Receive, limit: int) -> tuple[bytes | None, list[Message]]:
    """The whole request body, or None when it exceeds ``limit``; plus any message received after it
    (a disconnect) that the app must still see."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return bytes(body), [message]
        body.extend(message.get("body", b""))
        if len(body) > limit:
            return None, []
        if not message.get("more_body", False):
            return bytes(body), []


def _replay(body: bytes, after: list[Message], receive: Receive) -> Receive:
    pending: deque[Message] = deque([{"type": "http.request", "body": body, "more_body": False}, *after])

    async def replay() -> Message:
        return pending.popleft() if pending else await receive()

    return replay
