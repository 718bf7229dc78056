"""Snippets: a window of a chunk's text, in its original case, centred on the query's terms."""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import islice

from docs_mcp.search.terms import STOP_WORDS, WORD
from docs_mcp.store.identifiers import identifier_parts

_SPACE = re.compile(r"\s+")
DEFAULT_WIDTH = 240
# Bounds on the work per snippet: long chunks (generated model tables reach ~100 KB) are only
# scanned this far, and only this many term occurrences are weighed.
_SCAN_LIMIT = 20_000
_MAX_HITS = 64


def _terms(query: str) -> set[str]:
    terms: set[str] = set()
    for word in WORD.findall(query):
        for part in {word.lower(), *identifier_parts(word)}:
            if len(part) > 1 and part not in STOP_WORDS:
                terms.add(part)
    return terms


@lru_cache(maxsize=256)
def query_pattern(query: str) -> re.Pattern[str] | None:
    """The compiled pattern of ``query``'s terms (cached: every hit of a page uses the same one)."""
    terms = _terms(query)
    if not terms:
        return None
    # A shared stem is enough: "retries" matches "retry", "creating" matches "create".
    stems = sorted(
        {term[: max(4, len(term) - 2)] if len(term) > 4 else term for term in terms}, key=len, reverse=True
    )
    return re.compile(
        r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, stems)) + r")[A-Za-z0-9]*", re.IGNORECASE
    )


def _best_start(hits: list[tuple[int, str]], span: int) -> int:
    """Where the window of ``span`` characters covering the most distinct terms starts (a hit)."""
    best, best_position = -1, 0
    counts: dict[str, int] = {}
    last = -1
    for i, (position, _) in enumerate(hits):
        # Grow the window [i, last] to every hit within the span of hit i; drop hit i-1 behind us.
        while last + 1 < len(hits) and hits[last + 1][0] < position + span:
            last += 1
            term = hits[last][1]
            counts[term] = counts.get(term, 0) + 1
        if len(counts) > best:
            best, best_position = len(counts), position
        term = hits[i][1]
        counts[term] -= 1
        if not counts[term]:
            del counts[term]
    return best_position


def make_snippet(text: str, query: str, width: int = DEFAULT_WIDTH) -> str:
    """About ``width`` characters of ``text`` around the densest cluster of query terms.

    Whitespace is collapsed, case kept; "…" marks a cut. With no term found, the text's start.
    """
    if len(text) <= width:
        return _SPACE.sub(" ", text).strip()
    pattern = query_pattern(query)
    hits = (
        [(m.start(), m.group(1).lower()) for m in islice(pattern.finditer(text, 0, _SCAN_LIMIT), _MAX_HITS)]
        if pattern is not None
        else []
    )
    # Collapse whitespace only in a raw slice around the best hit, with room for what collapsing removes.
    best = _best_start(hits, width * 3 // 4) if hits else 0
    origin = max(0, best - width // 2)
    stop = min(len(text), best + width * 2)
    head = _SPACE.sub(" ", text[origin:best])
    tail = _SPACE.sub(" ", text[best:stop])
    if origin == 0:
        head = head.lstrip()
        tail = tail if head else tail.lstrip()
    if stop == len(text):
        tail = tail.rstrip()
    flat = head + tail
    cut_before, cut_after = origin > 0, stop < len(text)
    start = max(0, len(head) - width // 4) if hits else 0
    end = min(len(flat), start + width)
    start = max(0, end - width)
    if start > 0 or cut_before:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    if end < len(flat) or cut_after:
        space = flat.rfind(" ", start, end)
        end = space if space > end - 20 else end
    before = "…" if start > 0 or cut_before else ""
    after = "…" if end < len(flat) or cut_after else ""
    return before + flat[start:end] + after
