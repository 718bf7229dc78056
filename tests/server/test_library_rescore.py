"""A merged search answered from the union with each hit scored as its own library scores it
(``DOCS_MCP_UNION=rescore``, ``search.rescore``): through a real MCP client, on the claude-docs and
SDK labelled sets of the two-library hub (real indexes), its pages are those of asking every
library's own index (``off``), its scores each library's own, and its recall and MRR theirs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from client_support import structured
from library_fixtures import claude_index, sdk_index, union_hub
from mcp import Client

from docs_mcp.server.hub.opening import ReadyHub
from docs_mcp.server.tools.hub_tools import HubTools
from testkit.library_set import labelled_sets, merged_figures, union_set

__all__ = ["claude_index", "sdk_index"]  # fixtures used here

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def hub(claude_index: Path, sdk_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReadyHub]:
    """claude-docs and the SDK corpora served together, rescoring through their union once it is open."""
    specs = [f"claude-docs={claude_index}", f"sdks={sdk_index}"]
    with union_hub(specs, "rescore", tmp_path_factory.mktemp("rescore-cache")) as ready:
        yield ready


def _pages(hits: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(hit["library"], hit["chunk_id"]) for hit in hits]


@pytest.mark.anyio
async def test_over_mcp_rescored_pages_are_asking_every_librarys(hub: ReadyHub, evaldata_dir: Path) -> None:
    """Every labelled question's first page, served over MCP from the union: the hits (and their
    scores) of asking each library's own index. One question is known to differ: when the libraries
    ranked first for the facet values a query names hold fewer of those values' hits than the page,
    each library's own search fills its list with its best other hits before the merge, where the
    union ranks every library's best other hits together (docs/scaling.md)."""
    view = hub.hub.view()
    sets = labelled_sets(evaldata_dir / "claude-docs" / "queries.jsonl", "claude-docs", "sdks")
    asked = same = 0
    async with Client(hub.server) as client:
        for labelled in sets:
            for query in labelled.queries:
                arguments = {"query": query.query, "limit": labelled.k, **query.filters}
                served = await structured(client, "search_docs", arguments)
                with union_set("off"):
                    every = HubTools(view).search_docs(arguments)[0]
                asked += 1
                same += _pages(served["hits"]) == _pages(every["hits"])
                own = {(h["library"], h["chunk_id"]): h["score"] for h in every["hits"]}
                for hit in served["hits"]:  # a hit both show scores the same: its library's own score
                    key = (hit["library"], hit["chunk_id"])
                    if key in own:
                        assert hit["score"] == pytest.approx(own[key], rel=1e-5, abs=2e-6), (query.id, key)
    assert asked == 168 and same >= asked - 1, (same, asked)


def test_rescored_recall_and_mrr_keep_asking_every_librarys(hub: ReadyHub, evaldata_dir: Path) -> None:
    """No set loses more than 0.005 of recall or MRR against asking each library (the one page that
    differs, "install the dub sdk for go", puts the dub Go installation first: the SDK set's MRR
    gains 0.01)."""
    view = hub.hub.view()
    sets = labelled_sets(evaldata_dir / "claude-docs" / "queries.jsonl", "claude-docs", "sdks")
    by_mode = merged_figures(view, sets, ("off", "rescore"))
    exact, rescored = by_mode["off"], by_mode["rescore"]
    for name, (recall, mrr) in exact.items():
        assert rescored[name][0] >= recall - 0.005, (name, rescored, exact)
        assert rescored[name][1] >= mrr - 0.005, (name, rescored, exact)


def test_a_second_page_continues_the_rescored_ranking(hub: ReadyHub) -> None:
    tools = HubTools(hub.hub.view())
    with union_set("rescore"):
        first = tools.search_docs({"query": "retry configuration typescript", "limit": 5})[0]
        deeper = tools.search_docs({"query": "retry configuration typescript", "limit": 10})[0]
        second = tools.search_docs({"cursor": first["next_cursor"]})[0]
    assert first["mode"] == "fulltext" and first["next_cursor"]
    assert _pages(first["hits"] + second["hits"]) == _pages(deeper["hits"])
