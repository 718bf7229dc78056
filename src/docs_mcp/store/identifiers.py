"""Identifier splitting, shared by indexing and queries.

SDK documentation names things the way code does: ``createLink``, ``create_link``, ``links.create``,
``CreateLinkRequest``. People search for "create link". The full-text tokenizer splits on punctuation
(so ``links.create`` and ``create_link`` already become words) but keeps ``createLink`` as the single
token ``createlink``. We therefore index, beside the original text, the *parts* of every compound
identifier, and add the same parts to a query, so both spellings meet in the middle:

    "createLink"          -> "create link"
    "CreateLinkRequest"   -> "create link request"
    "HTTPClient"          -> "http client"
    "create link"         -> ""            (nothing to add: already plain words)
"""

from __future__ import annotations

import re

from docs_mcp.limits import MAX_IDENTIFIER_LENGTH

# A whole run of letters and digits with a camelCase hump (lower/digit then upper: ``createLink``,
# ``v2Beta``) or an acronym followed by a word (``HTTPClient``). Matching these directly keeps indexing
# fast on prose. Linear time: a match starts only where a run starts (the look-behind) and the lazy
# look-ahead scans that run once for a hump; ``[A-Za-z0-9]*(?:hump)[A-Za-z0-9]*`` was tried at every
# position of a run and backtracked over it, quadratic in its length (34 s for 190 KB of hex words).
_COMPOUND = re.compile(r"(?<![A-Za-z0-9])(?=[A-Za-z0-9]*?(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z]))[A-Za-z0-9]+")
# camelCase / PascalCase / acronym boundaries: "HTTPClient" -> HTTP, Client; "v2Beta" -> v2, Beta.
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_SEPARATORS = re.compile(r"[_.\-]+")


def identifier_parts(token: str) -> list[str]:
    """The lower-case words of one identifier: ``CreateLinkRequest`` -> ``["create", "link", "request"]``.

    A plain word gives itself (``["link"]``).
    """
    parts: list[str] = []
    for piece in _SEPARATORS.split(token):
        parts.extend(match.group(0).lower() for match in _CAMEL_PART.finditer(piece))
    return parts


def split_identifiers(text: str) -> str:
    """The extra words hidden in ``text``'s compound identifiers, space separated, in text order.

    Only identifiers whose camelCase humps hide words produce output, so ordinary prose yields ""
    and the column stays small; runs over ``MAX_IDENTIFIER_LENGTH`` characters are skipped. Linear
    time; never raises.
    """
    words: list[str] = []
    for match in _COMPOUND.finditer(text):
        token = match.group(0)
        if len(token) <= MAX_IDENTIFIER_LENGTH:  # longer runs are data (hashes, base64), not names
            words.extend(identifier_parts(token))
    return " ".join(words)


def expand_query(query: str) -> str:
    """``query`` plus the parts of its compound identifiers, for matching the split column.

    ``"createLink"`` -> ``"createLink create link"``; a plain query comes back unchanged.
    """
    extra = split_identifiers(query)
    return f"{query} {extra}" if extra else query
