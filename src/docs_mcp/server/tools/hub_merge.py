"""A search across libraries: which libraries to ask, and their hits merged into one ranking.

Each library's hits are scored by its own index; the merged list ranks them by score (see
:data:`FUSION`), the libraries the query names first. A library is asked only when its hits could
reach the page: libraries are asked best bound first (``DocsIndex.plan``: the highest score a
full-text search of it can give), until the page's last hit scores above the next library's bound.
Since every hit of a library scores at most its bound, the page, and whether more follow, are those
asking every library would give (tests/server/test_library_cutoff.py compares them on the labelled sets).
"""

from __future__ import annotations

import heapq
import re
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Literal

from docs_mcp.search.types import LIMIT_MAX, SearchPlan, SearchRequest, Section
from docs_mcp.server.hub.libraries import Served

__all__ = [
    "ASK_EVERY_LIBRARY_ENV",
    "FUSION",
    "Found",
    "Fusion",
    "Hit",
    "asked",
    "merge",
    "named_libraries",
    "own",
    "ranked_first",
    "top",
]

# How merged lists are ranked: "score" keeps each index's own scores, "max" divides them by the
# library's best score for the query, "rrf" ranks by 1 / (60 + rank within the library); hits of a
# library the query names come first in each (named_libraries). Measured on the union of the
# claude-docs and SDK labelled sets (python -m testkit.library_set; README, Measured): raw scores
# lose least against asking each set's own library; "max" and "rrf" put every library's best hit at
# the top, so a question about one library gets the others' best guesses among its answers.
Fusion = Literal["score", "max", "rrf"]
FUSION: Fusion = "score"
_RRF_K = 60
_PAGE = LIMIT_MAX  # one library's hits are read in pages of this size
# Set (to anything): a merged search asks every library, as before score bounds (what the benchmark
# compares with, benchmarks/test_libraries.py).
ASK_EVERY_LIBRARY_ENV = "DOCS_MCP_TEST_ASK_EVERY_LIBRARY"
_BOUND_MARGIN = 1e-4  # relative: a bound is in 64-bit floats, LanceDB's scores in 32


@dataclass(frozen=True)
class Hit:
    served: Served
    section: Section
    rank: int  # 1-based, within its library
    fused: float


def merge(
    lists: Sequence[tuple[Served, list[Section]]], fusion: Fusion = FUSION, first: Sequence[str] = ()
) -> list[Hit]:
    """One ranking of every library's best-first hits, the hits of the libraries in ``first`` ahead.
    Each fused score depends only on the hit's own list up to it, so a page read deeper merges to
    the same order as a shallower one."""
    hits: list[Hit] = []
    for served, sections in lists:
        best = max((s.score or 0.0 for s in sections), default=0.0) or 1.0
        for rank, section in enumerate(sections, 1):
            score = section.score or 0.0
            fused = {"score": score, "max": score / best, "rrf": 1.0 / (_RRF_K + rank)}[fusion]
            hits.append(Hit(served, section, rank, fused))
    hits.sort(key=lambda h: (h.served.name not in first, -h.fused, h.rank, h.served.name, h.section.chunk_id))
    return hits


# Words of a library's name too general to say the query is about it ("acme-docs": "acme" names it).
_GENERIC = {"api", "apis", "doc", "docs", "documentation", "guide", "guides", "reference", "sdk", "sdks"}
_WORD = re.compile(r"[a-z0-9]+")


def named_libraries(query: str, names: Sequence[str]) -> list[str]:
    """The libraries whose name the query says (the whole name, or a distinctive word of it, e.g.
    'claude' for claude-docs): their hits rank first, as facet values a query names do."""
    words = set(_WORD.findall(query.lower()))
    text = " ".join(_WORD.findall(query.lower()))
    named = []
    for name in names:
        parts = [w for w in _WORD.findall(name) if w not in _GENERIC and len(w) > 2]
        if " ".join(_WORD.findall(name)) in text or any(part in words for part in parts):
            named.append(name)
    return named


def ranked_first(
    query: str, targets: Sequence[Served], values_named: Mapping[str, Mapping[str, str]]
) -> list[str]:
    """The libraries of ``targets`` whose hits a merged search ranks first: those the query names;
    else, when only some do, the libraries holding the most facet values it names (``values_named``:
    per library, what its index found the query to name), as in "the dub sdk for go": their
    searches spent those words on filters, so their raw scores would lose to libraries that merely
    contain the words."""
    named = named_libraries(query, [served.name for served in targets])
    counts = {name: len(values) for name, values in values_named.items() if values}
    if not named and counts and len(counts) < len(targets):
        most = max(counts.values())
        named = [served.name for served in targets if counts.get(served.name) == most]
    return named


def asked(
    targets: list[Served],
    plans: Mapping[str, SearchPlan],
    request: SearchRequest,
    wanted: int,
    first: Sequence[str],
    fusion: Fusion = FUSION,
    cutoff: bool = True,
) -> dict[str, Found]:
    """The best ``wanted`` hits of each library a merged page needs, by library name: every library
    ranked ``first`` or without a bound; then the others by their bound, best first, while the
    ``wanted``-th hit merged so far does not score above the next one's bound (once it does, no hit
    of that library or of any after it could reach the first ``wanted``). A library whose bound is 0
    holds no word of the query. With a ``fusion`` other than raw scores, or ``cutoff`` off, every
    library is asked."""
    bounded = cutoff and fusion == "score"
    must = [s for s in targets if not bounded or s.name in first or plans[s.name].bound is None]
    asked_first = {s.name for s in must}
    rest = sorted(
        (s for s in targets if s.name not in asked_first and (plans[s.name].bound or 0.0) > 0.0),
        key=lambda s: (-(plans[s.name].bound or 0.0), s.name),
    )
    found = _tops(must, plans, request, wanted)
    page = _PageEnd(wanted, first)
    for name, hits in found.items():
        page.add(name, hits.hits)
    # Up to four searches in flight, the next library sent as soon as one ends and only while its
    # bound could still reach the page (libraries are in bound order: none after it could either).
    pending: dict[Future[Found], Served] = {}
    queue = iter(rest)
    following = next(queue, None)
    while True:
        while following is not None and not page.beats(plans[following.name].bound or 0.0):
            if len(pending) >= _SEARCHES_AT_ONCE:
                break
            inferred = plans[following.name].inferred_filters
            pending[_searches().submit(top, following, request, wanted, inferred)] = following
            following = next(queue, None)
        if following is not None and page.beats(plans[following.name].bound or 0.0):
            following = None
        if not pending:
            return found
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            served = pending.pop(future)
            found[served.name] = future.result()
            page.add(served.name, found[served.name].hits)


class _PageEnd:
    """The ``wanted``-th hit of the merge of the lists added so far, as far as a bound needs it: the
    hits of the libraries ranked ``first`` come before any other; the others rank by score."""

    def __init__(self, wanted: int, first: Sequence[str]) -> None:
        self._wanted = wanted
        self._first = set(first)
        self._ranked_first = 0
        self._best: list[float] = []  # the best ``wanted`` scores of the others, a min-heap

    def add(self, library: str, hits: Sequence[Section]) -> None:
        if library in self._first:
            self._ranked_first += len(hits)
            return
        for hit in hits:
            score = hit.score or 0.0
            if len(self._best) < self._wanted:
                heapq.heappush(self._best, score)
            elif score > self._best[0]:
                heapq.heapreplace(self._best, score)

    def beats(self, bound: float) -> bool:
        """Whether the ``wanted``-th hit ranks before any hit scoring at most ``bound``."""
        others = self._wanted - self._ranked_first
        if others <= 0:
            return True
        if len(self._best) < others:
            return False
        # LanceDB scores in 32-bit floats and hits carry 6 decimals: a margin above both.
        return heapq.nlargest(others, self._best)[-1] > bound * (1 + _BOUND_MARGIN) + 1e-6


def _tops(
    libraries: list[Served], plans: Mapping[str, SearchPlan], request: SearchRequest, wanted: int
) -> dict[str, Found]:
    """:func:`top` of each library, by name. Each library's search waits mostly in LanceDB, which
    releases the GIL: they run side by side."""
    if len(libraries) == 1:
        only = libraries[0]
        return {only.name: top(only, request, wanted, plans[only.name].inferred_filters)}
    found = _searches().map(
        lambda served: top(served, request, wanted, plans[served.name].inferred_filters), libraries
    )
    return dict(zip((s.name for s in libraries), found, strict=True))


_POOL: list[ThreadPoolExecutor] = []
_POOL_LOCK = threading.Lock()
_SEARCHES_AT_ONCE = 4


def _searches() -> ThreadPoolExecutor:
    """The threads a merged search runs its libraries' searches on (made on first use, shared)."""
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(ThreadPoolExecutor(_SEARCHES_AT_ONCE, thread_name_prefix="docs-mcp-library"))
        return _POOL[0]


@dataclass(frozen=True)
class Found:
    """One library's best hits for a merged page, the mode that ran and its fallback reason."""

    hits: list[Section]
    mode: str
    fallback_reason: str | None


def own(served: Served, request: SearchRequest, limit: int) -> SearchRequest:
    """``request`` as one library runs it: only the filters of its facets, from the first hit."""
    own = {k: v for k, v in request.filters.items() if k in served.facets}
    return SearchRequest(request.query, own, min(_PAGE, limit), 0, request.mode)


def top(
    served: Served, request: SearchRequest, wanted: int, inferred: Mapping[str, str] | None = None
) -> Found:
    """The best ``wanted`` hits of one library (read in pages), the mode that ran and its fallback
    reason; ``inferred``: the facet values its plan found the query to name (not inferred again)."""
    filters = own(served, request, wanted).filters
    sections: list[Section] = []
    while True:
        page = served.state.index.search(
            SearchRequest(
                request.query, filters, min(_PAGE, wanted - len(sections)), len(sections), request.mode
            ),
            inferred=inferred,
        )
        sections += page.hits
        if not page.has_more or len(sections) >= wanted:
            return Found(sections, page.mode, page.fallback_reason)
