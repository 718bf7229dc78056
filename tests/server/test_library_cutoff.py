"""A search across libraries skips the libraries whose score bound cannot reach its page (issue 34),
and answers what asking every library answers: real indexes of claude-docs, the dub and mistral SDKs,
the bundled example in two versions and a small SDK with resources."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import lancedb
import pytest
from client_support import structured
from library_fixtures import acme_index, claude_index, example_v1, example_v2, five_libraries, sdk_index
from mcp import Client
from server_support import CURSOR_KEY

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.types import SearchRequest
from docs_mcp.server.hub.opening import ReadyHub, open_hub
from docs_mcp.server.hub.specs import parse_index_specs
from docs_mcp.server.tools.hub_tools import HubTools
from testkit.evaldata_sets import stage_claude_docs
from testkit.library_set import labelled_sets

__all__ = [
    "acme_index",
    "claude_index",
    "example_v1",
    "example_v2",
    "five_libraries",
    "sdk_index",
]  # fixtures used here

pytestmark = pytest.mark.timeout(300)


def test_a_merged_search_skips_libraries_by_bound_and_answers_as_asking_every_one(
    hub: ReadyHub, evaldata_dir: Path
) -> None:
    """Every labelled question, first and second page, and several page sizes: the same answer with
    the cut-off as with every library asked; and each library's bound holds its best hit's score."""
    _assert_cut_answers_as_every_library(hub, evaldata_dir)


def _assert_cut_answers_as_every_library(
    hub: ReadyHub, evaldata_dir: Path, unbounded: frozenset[str] = frozenset()
) -> None:
    """Every labelled question of claude-docs and the SDKs, first and second page, and several page
    sizes: the same answer with the cut-off as with every library asked; each library's bound holds
    its best hit's score (those named in ``unbounded`` have none: always asked)."""
    sets = labelled_sets(evaldata_dir / "claude-docs" / "queries.jsonl", "claude-docs", "sdks")
    view = hub.hub.view()
    every = HubTools(view, cutoff=False)
    cut = HubTools(view)
    asked: list[int] = []
    counting = _CountingSearches(view)
    for labelled in sets:
        for query in labelled.queries:
            for limit in (1, labelled.k, 10):
                arguments = {"query": query.query, "limit": limit, **query.filters}
                with counting:
                    fast = cut.search_docs(arguments)[0]
                asked.append(counting.libraries)
                slow = every.search_docs(arguments)[0]
                assert fast == slow, (query.id, limit)
                if fast["next_cursor"]:
                    again = {"cursor": fast["next_cursor"]}
                    assert cut.search_docs(again)[0] == every.search_docs(again)[0], query.id
            for served in view.defaults():
                if not all(v in served.facets.get(k, ()) for k, v in query.filters.items()):
                    continue  # not searched by a merged search with these filters
                request = SearchRequest(query.query, dict(query.filters), 1)
                bound = served.state.index.plan(request).bound
                hits = served.state.index.search(request).hits
                if served.name in unbounded:
                    assert bound is None, query.id
                    continue
                assert bound is not None and (not hits or (hits[0].score or 0.0) <= bound * 1.0001), query.id
    # The cut-off does skip libraries: fewer than the 4 served are asked on average.
    print(f"\nlibraries asked per merged search: {sum(asked) / len(asked):.2f} of {len(view.defaults())}")
    assert sum(asked) / len(asked) < len(view.defaults()) - 0.5, sum(asked) / len(asked)


def test_an_index_updated_in_place_keeps_merged_answers_equal_to_asking_every_library(
    evaldata_dir: Path,
    tmp_path: Path,
    sdk_index: Path,
    example_v1: Path,
    example_v2: Path,
    acme_index: Path,
) -> None:
    """Issue 34: an edit updates claude-docs in place (``indexing/in_place.py``): its BM25 statistics
    are no longer those its bounds were computed from, so it has none and is always asked; the
    merged answers stay those of asking every library, and the others are still skipped by bound."""
    docs = stage_claude_docs(evaldata_dir, tmp_path / "docs")
    out = tmp_path / "out"
    options = BuildOptions(docs_dir=docs, out=out, description="Claude developer platform docs")
    build(options)
    page = min(
        docs.rglob("*.md"), key=lambda path: path.stat().st_size
    )  # a small share of the rows: an update
    text = page.read_text(encoding="utf-8")
    page.unlink()  # a staged page may be a hard link to the shared data
    page.write_text(f"{text}\n\n## Retries\n\nClaude retries a rate-limited request twice.\n")
    assert build(options).incremental
    specs = [f"claude-docs={out}", f"sdks={sdk_index}", f"example={example_v1}", f"example={example_v2}"]
    ready = open_hub(parse_index_specs([*specs, f"acme={acme_index}"]), key=CURSOR_KEY)
    try:
        _assert_cut_answers_as_every_library(ready, evaldata_dir, frozenset({"claude-docs"}))
    finally:
        ready.stop()


class _CountingSearches:
    """Counts the libraries whose index a merged search searched (a context per search)."""

    def __init__(self, view: Any) -> None:
        self._indexes = [served.state.index for served in view.defaults()]
        self.libraries = 0

    def __enter__(self) -> None:
        self._searched: set[int] = set()
        self._originals = [index.search for index in self._indexes]
        for n, index in enumerate(self._indexes):
            original = self._originals[n]

            def counted(request: SearchRequest, n: int = n, original: Any = original, **given: Any) -> Any:
                self._searched.add(n)
                return original(request, **given)

            index.search = counted

    def __exit__(self, *_: object) -> None:
        for index in self._indexes:
            del index.search  # the instance attribute: the class's method again
        self.libraries = len(self._searched)


def test_a_swapped_or_old_index_keeps_merged_answers_equal_to_asking_every_library(
    example_v2: Path, example_v1: Path, acme_index: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old"  # an index built before the impacts table: no bound, always asked
    shutil.copytree(acme_index, old)
    lancedb.connect(str(old / ".lancedb")).drop_table("impacts")
    ready = open_hub(parse_index_specs([f"example={example_v2}", f"acme={old}"]), key=CURSOR_KEY)
    queries = ["retries", "payment refund", "widget create", "exponential backoff jitter", "zzqqxxvv"]

    def same() -> None:
        view = ready.hub.view()
        for query in queries:
            for limit in (1, 3):
                arguments = {"query": query, "limit": limit}
                cut = HubTools(view).search_docs(arguments)[0]
                assert cut == HubTools(view, cutoff=False).search_docs(arguments)[0], query

    same()
    assert (
        ready.hub.view().resolve("acme", None).state.index.plan(SearchRequest("widget", {}, 3)).bound is None
    )
    ready.hub.libraries[0].live.replace(example_v1)  # what a refresh does: the new index's own bounds
    same()
    assert (
        ready.hub.view().resolve("example", None).identity != ready.hub.view().resolve("acme", None).identity
    )
    ready.stop()


@pytest.mark.anyio
async def test_over_mcp_the_served_merged_search_answers_as_asking_every_library(
    hub: ReadyHub, evaldata_dir: Path
) -> None:
    every = HubTools(hub.hub.view(), cutoff=False)
    sets = labelled_sets(evaldata_dir / "claude-docs" / "queries.jsonl", "claude-docs", "sdks")
    async with Client(hub.server) as client:
        for labelled in sets:
            for query in labelled.queries[::5]:
                arguments = {"query": query.query, "limit": labelled.k, **query.filters}
                served = await structured(client, "search_docs", arguments)
                expected = every.search_docs(arguments)[0]
                assert served["hits"] == expected["hits"], query.id
                assert (served["next_cursor"] is None) == (expected["next_cursor"] is None), query.id
