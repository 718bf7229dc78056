"""Snippets: a window of a chunk's text, in its original case, centred on the query's terms."""

from __future__ import annotations

import re

from docs_mcp.core.textsplit import identifier_parts

_WORD = re.compile(r"[A-Za-z0-9]+")
_SPACE = re.compile(r"\s+")
# Terms this short or this common say little about where the answer is.
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
        "you",
        "your",
    ]
)
DEFAULT_WIDTH = 240


def _terms(query: str) -> set[str]:
    terms: set[str] = set()
    for word in _WORD.findall(query):
        for part in {word.lower(), *identifier_parts(word)}:
            if len(part) > 1 and part not in _STOP:
                terms.add(part)
    return terms


def _pattern(terms: set[str]) -> re.Pattern[str] | None:
    if not terms:
        return None
    # A shared stem is enough: "retries" matches "retry", "creating" matches "create".
    stems = sorted(
        {term[: max(4, len(term) - 2)] if len(term) > 4 else term for term in terms}, key=len, reverse=True
    )
    return re.compile(
        r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, stems)) + r")[A-Za-z0-9]*", re.IGNORECASE
    )


def make_snippet(text: str, query: str, width: int = DEFAULT_WIDTH) -> str:
    """About ``width`` characters of ``text`` around the densest cluster of query terms.

    Whitespace is collapsed, case kept; "…" marks a cut. With no term found, the text's start.
    """
    flat = _SPACE.sub(" ", text).strip()
    if len(flat) <= width:
        return flat
    pattern = _pattern(_terms(query))
    hits = [(m.start(), m.group(1).lower()) for m in pattern.finditer(flat)] if pattern else []
    start = 0
    if hits:
        # The window (3/4 of the width) starting at a hit that covers the most distinct terms.
        best, best_position, last = -1, 0, 0
        span = width * 3 // 4
        for i, (position, _) in enumerate(hits):
            last = max(last, i)
            while last + 1 < len(hits) and hits[last + 1][0] < position + span:
                last += 1
            covered = len({term for _, term in hits[i : last + 1]})
            if covered > best:
                best, best_position = covered, position
        start = max(0, best_position - width // 4)
    end = min(len(flat), start + width)
    start = max(0, end - width)
    if start > 0:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > end - 20 else end
    return ("…" if start > 0 else "") + flat[start:end] + ("…" if end < len(flat) else "")
