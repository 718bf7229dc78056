"""Stateless pagination cursors: opaque, signed tokens that carry everything the next page needs.

A cursor is ``base64url(payload) "." base64url(HMAC-SHA256(key, payload)[:16])`` (no padding) where
the payload is a compact JSON object: its kind, the index identity, and for a search the query, the
filters, the mode, the offset and the limit. Nothing is kept on the server, so any replica holding the
same key (``DOCS_MCP_CURSOR_SECRET``) can serve the next page, a cursor alone continues its search,
and a cursor can never silently return a page of another query or index.

Decoding is strict, in this order: the shape and alphabet (canonical unpadded base64url, at most
``CURSOR_MAX_LENGTH`` characters), the signature (a tampered or foreign cursor), the version, the
index identity (a stale cursor), then every field's type and range. Only then is a value used.
A cursor without ``t`` (signed by a server before budgets rode on cursors, same version) stays
valid: it continues at the budget the call gives, else the server's default.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from docs_mcp.errors import CursorError
from docs_mcp.search.types import LIMIT_MAX, OFFSET_MAX, QUERY_MAX_LENGTH, SEARCH_MODES, SearchMode
from docs_mcp.server.tools.budget import MAX_TOKENS_MAX, MAX_TOKENS_MIN

SECRET_ENV = "DOCS_MCP_CURSOR_SECRET"
SEARCH, RESOURCES, SECTION = "search", "resources", "section"  # what a cursor continues
CURSOR_VERSION = 2  # 2: self-contained search cursors (1 carried only a digest of the query)
# The longest query (1,000 characters, each up to 6 bytes of JSON) fits with room for filters.
CURSOR_MAX_LENGTH = 16_384
_RESTART = {
    SEARCH: "Call search_docs again without `cursor` to start from the first page.",
    RESOURCES: "List the resources again without a cursor to start from the first page.",
    SECTION: "Call get_doc with the chunk_id (no cursor) to read the section from its start.",
}
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class SearchCursor:
    """A verified search cursor: the search to continue and where its next page starts.

    ``query`` is None only when the query was too long to carry (then ``digest`` binds it, and the
    request must repeat the query and filters).
    """

    query: str | None
    filters: dict[str, str]
    mode: SearchMode | None
    offset: int
    limit: int
    digest: str | None = field(default=None, compare=False)
    max_tokens: int | None = field(default=None, compare=False)  # the budget it was made with

    def matches(self, query: str, filters: Mapping[str, str]) -> bool:
        """Whether ``query`` and ``filters`` are the search this cursor continues."""
        if self.query is None:
            return self.digest == request_digest(query, filters)
        return self.query == query and self.filters == dict(filters)


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
    """Canonical unpadded base64url only: no padding, no other alphabet, no stray bits."""
    if not _BASE64URL.fullmatch(text) or len(text) % 4 == 1:
        raise ValueError("not unpadded base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64encode(data) != text:
        raise ValueError("not canonical base64url")
    return data


def request_digest(query: str, filters: Mapping[str, str]) -> str:
    """A short digest of a search, for a cursor whose query was too long to carry."""
    canonical = json.dumps([query, sorted(filters.items())], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def _malformed(kind: str, detail: str = "") -> CursorError:
    return CursorError(
        f"The cursor is malformed{detail}: pass the cursor back exactly as returned. {_RESTART[kind]}"
    )


class CursorCodec:
    """Signs and verifies cursors for one index (``identity``) with one key."""

    def __init__(self, key: bytes, identity: str) -> None:
        self._key = key
        # Cursors carry a digest of the identity, not the identity itself: shorter, same binding.
        self._identity = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]

    def _sign(self, payload: bytes) -> bytes:
        # 128 bits of the HMAC-SHA256 tag: unforgeable in practice, and keeps cursors short.
        return hmac.new(self._key, payload, hashlib.sha256).digest()[:16]

    def seal(self, kind: str, fields: Mapping[str, Any]) -> str:
        """A signed cursor of ``kind`` carrying ``fields`` (JSON values), bound to this index."""
        data = {"v": CURSOR_VERSION, "k": kind, "i": self._identity, **fields}
        payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return f"{_b64encode(payload)}.{_b64encode(self._sign(payload))}"

    def open(self, cursor: str, kind: str) -> dict[str, Any]:
        """The fields of a cursor of ``kind`` this codec sealed, checked up to the index identity.

        Raises:
            CursorError: malformed, tampered or foreign (the signature does not match), from another
                server version, stale (another build of the index) or of another kind.
        """
        restart = _RESTART[kind]
        if not isinstance(cursor, str) or len(cursor) > CURSOR_MAX_LENGTH:
            raise _malformed(kind, f" (longer than {CURSOR_MAX_LENGTH} characters)")
        encoded_payload, dot, encoded_signature = cursor.partition(".")
        try:
            payload, signature = _b64decode(encoded_payload), _b64decode(encoded_signature)
        except (ValueError, binascii.Error) as error:
            raise _malformed(kind) from error
        if not dot or not hmac.compare_digest(signature, self._sign(payload)):
            raise CursorError(
                "The cursor was altered or was issued by another server (its signature does not match). "
                + restart
            )
        try:
            data = json.loads(payload)
        except ValueError as error:  # only a server with our key could sign this
            raise _malformed(kind) from error
        if not isinstance(data, dict) or data.get("v") != CURSOR_VERSION:
            raise CursorError(f"The cursor is from an incompatible server version. {restart}")
        if data.get("i") != self._identity:
            raise CursorError(
                f"The cursor is stale: it was issued for another build of the index, which has since "
                f"been replaced. {restart}"
            )
        if data.get("k") != kind:
            raise CursorError(
                f"This is not a {kind} cursor: pass each cursor back to the call that returned it."
            )
        return data

    def encode(
        self,
        *,
        offset: int,
        limit: int,
        query: str,
        filters: Mapping[str, str],
        mode: SearchMode | None = None,
        where: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> str:
        """The cursor for the page starting at ``offset`` of this search (query, filters, mode, limit,
        and the ``max_tokens`` its pages are fitted to); ``where`` adds fields saying which index it
        continues (a hub's library and version)."""
        position = {"m": mode, "o": offset, "l": limit, **_budget(max_tokens), **(where or {})}
        cursor = self.seal(SEARCH, {"q": query, "f": dict(sorted(filters.items())), **position})
        if len(cursor) > CURSOR_MAX_LENGTH:  # never for real queries; then the request repeats it
            cursor = self.seal(SEARCH, {"r": request_digest(query, filters), **position})
        return cursor

    def decode(self, cursor: str) -> SearchCursor:
        """Verify a search cursor (see :meth:`open`) and return the search it continues.

        Raises:
            CursorError: as :meth:`open`, or a field of the wrong type or out of range.
        """
        data = self.open(cursor, SEARCH)
        offset, limit, mode = data.get("o"), data.get("l"), data.get("m")
        query, filters, digest = data.get("q"), data.get("f", {}), data.get("r")
        if (
            not _budget_valid(data)
            or not _int_in(offset, 0, OFFSET_MAX)
            or not _int_in(limit, 1, LIMIT_MAX)
            or (mode is not None and mode not in SEARCH_MODES)
            or not (
                (isinstance(query, str) and 0 < len(query) <= QUERY_MAX_LENGTH)
                or (query is None and isinstance(digest, str))
            )
            or not isinstance(filters, dict)
            or not all(isinstance(v, str) for v in filters.values())
        ):
            raise _malformed(SEARCH, " (a field is out of range)")
        return SearchCursor(
            query, dict(filters), mode, cast(int, offset), cast(int, limit), digest, data.get("t")
        )

    def encode_window(
        self,
        chunk_id: str,
        start: int,
        length: int,
        where: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> str:
        """The cursor of a ``get_doc`` window: the rest of section ``chunk_id`` from character ``start``
        (``length`` binds the section's size: a cursor never continues another text), read at
        ``max_tokens``; ``where`` as for :meth:`encode`."""
        fields = {"c": chunk_id, "s": start, "n": length, **_budget(max_tokens), **(where or {})}
        return self.seal(SECTION, fields)

    def decode_window(self, cursor: str) -> tuple[str, int, int]:
        """The section, start and length a window cursor holds (see :meth:`open`).

        Raises:
            CursorError: as :meth:`open`, or a field of the wrong type or out of range.
        """
        data = self._window(cursor)
        return data["c"], data["s"], data["n"]

    def window_budget(self, cursor: str) -> int | None:
        """The ``max_tokens`` a window cursor was made with (None: it carries none).

        Raises:
            CursorError: as :meth:`decode_window`.
        """
        return cast(int | None, self._window(cursor).get("t"))

    def _window(self, cursor: str) -> dict[str, Any]:
        data = self.open(cursor, SECTION)
        chunk_id, start, length = data.get("c"), data.get("s"), data.get("n")
        if (
            not isinstance(chunk_id, str)
            or not _int_in(length, 1, None)
            or not _int_in(start, 1, cast(int, length) - 1)
            or not _budget_valid(data)
        ):
            raise _malformed(SECTION, " (a field is out of range)")
        return data

    def offset_of(self, cursor: str, kind: str) -> int:
        """The offset a cursor of ``kind`` holds (a listing's cursor). Raises ``CursorError``."""
        offset = self.open(cursor, kind).get("o")
        if not _int_in(offset, 0, None):
            raise _malformed(kind, " (a field is out of range)")
        return cast(int, offset)


def _budget(max_tokens: int | None) -> dict[str, int]:
    return {"t": max_tokens} if max_tokens is not None else {}


def _budget_valid(data: Mapping[str, Any]) -> bool:
    """No budget (an older cursor), or one in the range a call may ask for."""
    return "t" not in data or _int_in(data["t"], MAX_TOKENS_MIN, MAX_TOKENS_MAX)


def _int_in(value: object, low: int, high: int | None) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and value >= low
        and (high is None or value <= high)
    )
