"""Heading slugs for chunk ids (spec "Chunk Identity Scheme", plus Unicode support).

The spec's algorithm: lower-case; keep only ``[a-z0-9 -]``; spaces become hyphens; collapse runs of
hyphens. We add: trim leading and trailing hyphens, and an empty slug becomes ``section``.

For non-ASCII text we do better than dropping every character (which turns all CJK headings into
``section``): accents are removed by NFKD decomposition (``Café`` -> ``cafe``, full-width letters ->
ASCII), and letters and digits of other scripts are kept (``快速开始`` stays ``快速开始``). Pure ASCII
input gives exactly the spec's result, because for ASCII only ``[a-z0-9 -]`` survives either way.
"""

from __future__ import annotations

import re
import unicodedata

EMPTY_SLUG = "section"
_HYPHENS = re.compile(r"-{2,}")


def _strip_marks(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _keep(ch: str) -> bool:
    if ch.isascii():
        return ch in " -" or ("a" <= ch <= "z") or ("0" <= ch <= "9")
    return ch.isalnum()


def slugify(heading: str) -> str:
    """The slug of one heading text: ``"Backoff Strategy"`` -> ``"backoff-strategy"``.

    Never empty: a heading with no letters or digits gives ``"section"``. Raises nothing.
    """
    # Lower-casing can itself produce combining marks ("İ" -> "i̇"), so strip marks after it too.
    text = _strip_marks(_strip_marks(heading).lower())
    kept = "".join(ch for ch in text if _keep(ch))
    slug = _HYPHENS.sub("-", kept.replace(" ", "-")).strip("-")
    return slug or EMPTY_SLUG
