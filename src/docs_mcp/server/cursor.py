"""Stateless pagination cursors: opaque, signed tokens that carry the next page's position.

A cursor is ``base64url(payload) "." base64url(HMAC-SHA256(key, payload))`` where the payload is a
compact JSON object binding the offset and limit to the query, the filters and the index identity.
Nothing is kept on the server, so any replica holding the same key (``DOCS_MCP_CURSOR_SECRET``) can
serve the next page, and a cursor can never silently return a page of another query or index.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from docs_mcp.errors import CursorError

SECRET_ENV = "DOCS_MCP_CURSOR_SECRET"
CURSOR_VERSION = 1
_RESTART = "Call search_docs again without `cursor` to start from the first page."


@dataclass(frozen=True)
class CursorPosition:
    """Where the next page starts, as a verified cursor says."""

    offset: int
    limit: int


def cursor_key(env: Mapping[str, str] | None = None) -> bytes:
    """The signing key: ``DOCS_MCP_CURSOR_SECRET`` when set (replicas share it), else a fresh random key.

    A generated key makes cursors valid only for this process, which is what a single server wants.
    """
    secret = (os.environ if env is None else env).get(SECRET_ENV, "")
    if secret:
        return hashlib.sha256(secret.encode("utf-8")).digest()
    return secrets.token_bytes(32)


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    padded = text + "=" * (-len(text) % 4)
    return base64.urlsafe_b64decode(padded.encode("ascii"))


def _request_digest(query: str, filters: Mapping[str, str]) -> str:
    """A short digest of what the cursor is bound to; the query itself need not travel in the token."""
    canonical = json.dumps([query, sorted(filters.items())], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


class CursorCodec:
    """Signs and verifies cursors for one index (``identity``) with one key."""

    def __init__(self, key: bytes, identity: str) -> None:
        self._key = key
        # Cursors carry a digest of the identity, not the identity itself: shorter, same binding.
        self._identity = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]

    def _sign(self, payload: bytes) -> bytes:
        # 128 bits of the HMAC-SHA256 tag: unforgeable in practice, and keeps cursors short.
        return hmac.new(self._key, payload, hashlib.sha256).digest()[:16]

    def encode(self, *, offset: int, limit: int, query: str, filters: Mapping[str, str]) -> str:
        """The cursor for the page starting at ``offset`` of this query, filters and limit."""
        payload = json.dumps(
            {
                "v": CURSOR_VERSION,
                "o": offset,
                "l": limit,
                "r": _request_digest(query, filters),
                "i": self._identity,
            },
            separators=(",", ":"),
        ).encode("utf-8")
        return f"{_b64encode(payload)}.{_b64encode(self._sign(payload))}"

    def decode(self, cursor: str, *, query: str, filters: Mapping[str, str]) -> CursorPosition:
        """Verify ``cursor`` against this key, index and request and return the position it holds.

        Raises:
            CursorError: the cursor is malformed or its signature does not match (tampered, or signed
                by another server), it was issued by another build of the index (stale), or it
                belongs to another query or other filters.
        """
        payload = self._verified_payload(cursor)
        try:
            data = json.loads(payload)
            version, offset, limit = data["v"], data["o"], data["l"]
            digest, identity = data["r"], data["i"]
        except (ValueError, KeyError, TypeError) as error:
            raise CursorError(f"The cursor is malformed. {_RESTART}") from error
        if version != CURSOR_VERSION or not isinstance(offset, int) or not isinstance(limit, int):
            raise CursorError(f"The cursor is from an incompatible server version. {_RESTART}")
        if identity != self._identity:
            raise CursorError(
                f"The cursor is stale: it was issued for another build of the index, which has since "
                f"been replaced. {_RESTART}"
            )
        if digest != _request_digest(query, filters):
            raise CursorError(
                "The cursor belongs to a different query or different filters. Repeat exactly the "
                f"query and filters of the search that returned it. {_RESTART}"
            )
        return CursorPosition(offset=offset, limit=limit)

    def _verified_payload(self, cursor: str) -> bytes:
        encoded_payload, dot, encoded_signature = cursor.partition(".")
        if not dot or not encoded_payload or not encoded_signature:
            raise CursorError(
                f"The cursor is malformed: pass next_cursor back exactly as returned. {_RESTART}"
            )
        try:
            payload = _b64decode(encoded_payload)
            signature = _b64decode(encoded_signature)
        except (binascii.Error, ValueError, UnicodeEncodeError) as error:
            raise CursorError(
                f"The cursor is malformed: pass next_cursor back exactly as returned. {_RESTART}"
            ) from error
        if not hmac.compare_digest(signature, self._sign(payload)):
            raise CursorError(
                "The cursor was altered or was issued by another server (its signature does not match). "
                + _RESTART
            )
        return payload
