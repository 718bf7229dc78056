"""What each way of using the union (``DOCS_MCP_UNION``) does to merged answers, against asking every
library (``off``): recall and MRR of the labelled sets, first pages equal to ``off``'s, and the time
of one merged search in this process.

    python -m testkit.union_quality --claude-index OUT --claude-queries QUERIES \
        (--sdk-index OUT | --sdk-slices DIR)

``--sdk-index``: the two-library hub (claude-docs and the SDK corpora, as ``testkit.library_set``);
``--sdk-slices``: claude-docs and one library per index folder of ``DIR``, named after it
(``benchmarks/test_libraries.py`` builds these slices: ``dub-python-3`` holds files of
``dub/python``), the hub of 100 distinct libraries; a slice's hits count as the SDK set's sections.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from docs_mcp.server.hub.union import UNION_MODES, UnionMode
from docs_mcp.server.tools.hub_tools import HubTools
from testkit.library_set import LabelledSet, labelled_sets, union_ready, union_set

SDKS = "sdks"


def _as_sdk(hit: dict[str, Any]) -> dict[str, Any]:
    """A slice's hit as the SDK corpora's index names it (``dub-python-3`` -> ``dub/python/``)."""
    library = hit["library"]
    if library in ("claude-docs", SDKS):
        return hit
    prefix = library.rsplit("-", 1)[0].replace("-", "/") + "/"
    return {**hit, "library": SDKS, "chunk_id": prefix + hit["chunk_id"], "file": prefix + hit["file"]}


def measured(tools: HubTools, sets: list[LabelledSet], mode: UnionMode) -> dict[str, Any]:
    """Per set (and ``all``) recall and MRR, each question's first page and its time, in ``mode``."""
    totals: dict[str, list[float]] = {}
    pages: list[list[tuple[str, str]]] = []
    seconds: list[float] = []
    with union_set(mode):
        for labelled in sets:
            for query in labelled.queries:
                arguments = {"query": query.query, "limit": labelled.k, **query.filters}
                started = time.perf_counter()
                hits = tools.search_docs(arguments)[0]["hits"]
                seconds.append(time.perf_counter() - started)
                pages.append([(h["library"], h["chunk_id"]) for h in hits])
                recall, rr = labelled.scorer(query, [_as_sdk(h) for h in hits])
                for name in (labelled.name, "all"):
                    row = totals.setdefault(name, [0, 0.0, 0.0])
                    row[0] += 1
                    row[1] += recall
                    row[2] += rr
    return {
        "figures": {name: (row[1] / row[0], row[2] / row[0]) for name, row in totals.items()},
        "pages": pages,
        "p50_ms": statistics.median(seconds) * 1000,
    }


def main(argv: list[str] | None = None) -> int:
    from docs_mcp.server.hub.opening import open_hub
    from docs_mcp.server.hub.specs import parse_index_specs

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claude-index", type=Path, required=True)
    parser.add_argument("--claude-queries", type=Path, required=True)
    parser.add_argument("--sdk-index", type=Path)
    parser.add_argument("--sdk-slices", type=Path)
    parser.add_argument("--rounds", type=int, default=1, help="each mode's questions asked this often")
    args = parser.parse_args(argv)
    given = [f"claude-docs={args.claude_index}"]
    if args.sdk_index:
        given.append(f"{SDKS}={args.sdk_index}")
    else:
        given += [
            f"{folder.name}={folder}" for folder in sorted(args.sdk_slices.iterdir()) if folder.is_dir()
        ]
    ready = open_hub(parse_index_specs(given))
    try:
        view = union_ready(ready.hub)
        tools = HubTools(view)
        sets = labelled_sets(args.claude_queries, "claude-docs", SDKS)
        modes = ("off", *(mode for mode in UNION_MODES if mode != "off"))
        runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
        for _ in range(args.rounds):  # the modes' turns interleaved: a busy machine slows them alike
            for mode in modes:
                runs[mode].append(measured(tools, sets, mode))
    finally:
        ready.stop()
    exact = runs["off"][0]["pages"]
    for mode, done in runs.items():
        shown = "  ".join(f"{n} {r:.3f}/{m:.3f}" for n, (r, m) in sorted(done[0]["figures"].items()))
        same = sum(page == want for page, want in zip(done[0]["pages"], exact, strict=True))
        hits = sum(len(set(page) & set(want)) for page, want in zip(done[0]["pages"], exact, strict=True))
        times = ", ".join(f"{run['p50_ms']:.1f}" for run in done)
        print(
            f"{mode:8s} recall/MRR {shown}  first pages as off {same}/{len(exact)}"
            f" ({hits / max(1, sum(map(len, exact))):.3f} of hits)  p50 ms {times}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
