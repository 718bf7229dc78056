"""Retrieval figures of a server with several libraries: each labelled set asked of its own library, and
of every library at once (no ``library``: one merged ranking), for each way of merging.

    python -m testkit.library_set --claude-index OUT --claude-queries QUERIES --sdk-index OUT \
        [--example-index OUT]

Both sets are scored as ``./dev quality`` scores claude-docs (``docs_mcp.eval``: recall@k and MRR@k,
section matching), claude-docs at k=3 and the SDK set (``tests/data/sdk_queries.jsonl``) at k=5. A
hit of another library than the set's never counts, so a merged ranking that puts another library's
sections first loses.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.eval.matching import Hit, judge
from docs_mcp.eval.metrics import score as metric_score
from docs_mcp.eval.queries import LabelledQuery, load_queries
from docs_mcp.search.types import SearchRequest
from docs_mcp.server.hub.libraries import Hub, HubView
from docs_mcp.server.hub.union import UNION_ENV, UnionMode
from docs_mcp.server.tools.hub_merge import Fusion
from docs_mcp.server.tools.hub_tools import HubTools
from docs_mcp.server.tools.hub_union import union_for

FUSIONS: tuple[Fusion, ...] = ("score", "max", "rrf")
Scorer = Callable[[LabelledQuery, list[dict[str, Any]]], tuple[float, float]]


SDK_QUERIES = Path(__file__).resolve().parents[1] / "tests" / "data" / "sdk_queries.jsonl"


def scorer(library: str, k: int) -> Scorer:
    """(recall@k, MRR@k) of one query's hits; hits of another library never match."""

    def scored(query: LabelledQuery, hits: list[dict[str, Any]]) -> tuple[float, float]:
        own = [
            Hit(h["chunk_id"], h["file"]) if h["library"] == library else Hit(f"{h['library']}:", "")
            for h in hits[:k]
        ]
        figures = metric_score(judge(query, own), [k])
        return figures[f"recall@{k}"], figures[f"mrr@{k}"]

    return scored


@dataclass(frozen=True)
class LabelledSet:
    name: str
    library: str
    queries: Sequence[LabelledQuery]
    scorer: Scorer
    k: int


def labelled_sets(claude_queries: Path, claude_library: str, sdk_library: str) -> list[LabelledSet]:
    return [
        LabelledSet(
            "claude-docs", claude_library, load_queries(claude_queries), scorer(claude_library, 3), 3
        ),
        LabelledSet("sdk", sdk_library, load_queries(SDK_QUERIES), scorer(sdk_library, 5), 5),
    ]


def figures(tools: HubTools, sets: Sequence[LabelledSet], *, merged: bool) -> dict[str, tuple[float, float]]:
    """(recall, MRR) per set and over their union (``all``, each query weighted once), asking each
    set's library (``merged`` False) or no library."""
    totals: dict[str, list[float]] = {}
    for labelled in sets:
        for query in labelled.queries:
            arguments: dict[str, Any] = {"query": query.query, "limit": labelled.k, **query.filters}
            if not merged:
                arguments["library"] = labelled.library
            hits = tools.search_docs(arguments)[0]["hits"]
            recall, rr = labelled.scorer(query, hits)
            for name in (labelled.name, "all"):
                row = totals.setdefault(name, [0, 0.0, 0.0])
                row[0] += 1
                row[1] += recall
                row[2] += rr
    return {name: (row[1] / row[0], row[2] / row[0]) for name, row in totals.items()}


@contextmanager
def union_set(mode: UnionMode) -> Iterator[None]:
    """Merged searches use the union as ``mode`` says (``server.hub.union``; "off": each library's
    index is asked, as before the union)."""
    before = os.environ.get(UNION_ENV)
    os.environ[UNION_ENV] = mode
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(UNION_ENV, None)
        else:
            os.environ[UNION_ENV] = before


def merged_figures(
    view: HubView, sets: Sequence[LabelledSet], modes: Sequence[UnionMode]
) -> dict[UnionMode, dict[str, tuple[float, float]]]:
    """``figures`` of merged searches (no library) over ``sets``, the union used as each of ``modes``
    says, asked of the same hub one mode after the other."""
    found: dict[UnionMode, dict[str, tuple[float, float]]] = {}
    for mode in modes:
        with union_set(mode):
            found[mode] = figures(HubTools(view), sets, merged=True)
    return found


def union_ready(hub: Hub, timeout: float = 600.0) -> HubView:
    """The hub's view once its union is made and open (raises ``TimeoutError`` after ``timeout``)."""
    assert hub.union is not None, "a hub of one library has no union"
    deadline = time.monotonic() + timeout
    while True:
        view = hub.view()
        if union_for(view, SearchRequest(query="ready"), exact_only=False) is not None:
            return view
        if time.monotonic() > deadline:
            raise TimeoutError(f"no union after {timeout} s: {hub.union.status}")
        time.sleep(0.1)


def main(argv: list[str] | None = None) -> int:
    from docs_mcp.server.hub.opening import open_hub
    from docs_mcp.server.hub.specs import parse_index_specs

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claude-index", type=Path, required=True)
    parser.add_argument("--claude-queries", type=Path, required=True)
    parser.add_argument("--sdk-index", type=Path, required=True)
    parser.add_argument("--example-index", type=Path)
    args = parser.parse_args(argv)
    given = [f"claude-docs={args.claude_index}", f"sdks={args.sdk_index}"]
    if args.example_index:
        given.append(f"example={args.example_index}")
    ready = open_hub(parse_index_specs(given))
    view = ready.hub.view()
    sets = labelled_sets(args.claude_queries, "claude-docs", "sdks")
    rows = {"per library": figures(HubTools(view), sets, merged=False)}
    with union_set("off"):  # each library's own index asked (exact), as before the union
        for fusion in FUSIONS:
            rows[f"merged ({fusion})"] = figures(HubTools(view, fusion), sets, merged=True)
            rows[f"  {fusion}, unnamed"] = figures(
                HubTools(view, fusion, named_first=False), sets, merged=True
            )
    view = union_ready(ready.hub)
    for mode in ("rank", "route"):
        with union_set(mode):
            rows[f"union ({mode})"] = figures(HubTools(view), sets, merged=True)
            rows[f"  {mode}, unnamed"] = figures(HubTools(view, named_first=False), sets, merged=True)
    for label, by_set in rows.items():
        shown = "  ".join(f"{name} {r:.3f}/{m:.3f}" for name, (r, m) in sorted(by_set.items()))
        print(f"{label:16s} recall/MRR  {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
