"""Where a merged search's time goes: per-stage timers around one library's search and the merged
searches of a hub (``rescore`` and ``rank``), in this process.

    python -m testkit.merged_stages --claude-index OUT --claude-queries QUERIES --sdk-slices DIR \
        [--same-index OUT]

The hub is claude-docs (``lib0``) and one library per index folder of ``DIR``, as
``benchmarks/test_libraries.py`` builds the 100 distinct libraries. ``--same-index``: one index of the
same docs (claude-docs and every slice's folder in one docs folder), asked alone in a hub of its own:
what the same rows cost as one library, apart from how many libraries hold them. Each stage's
function is wrapped with a timer (``time.perf_counter_ns``); a full-text leg is named by its filter:
the leads' (main), the copies that lead nothing (standouts), the kinds the prior lowers left out
(prior-others), the libraries ranked first (preferred). Printed per question: ms (mean) and calls,
each kind's questions asked twice, the kinds' turns interleaved. Stages nest: a leg's time is
within ``lance.run``.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from docs_mcp.search import lance, ranking, rescore, snippets
from docs_mcp.server.hub.union import UnionMode
from docs_mcp.server.tools import hub_tools
from testkit.evaldata_sets import question_texts
from testkit.library_set import SDK_QUERIES, union_ready, union_set

_SPENT: defaultdict[str, int] = defaultdict(int)
_CALLS: defaultdict[str, int] = defaultdict(int)


def _count(label: str, started: int) -> None:
    _SPENT[label] += time.perf_counter_ns() - started
    _CALLS[label] += 1


def _timed(owner: Any, name: str, label: str) -> None:
    """``owner.name`` replaced by the same function counting its time under ``label``."""
    function: Callable[..., Any] = getattr(owner, name)
    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def waited(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter_ns()
            try:
                return await function(*args, **kwargs)
            finally:
                _count(label, started)

        setattr(owner, name, waited)
        return

    @functools.wraps(function)
    def called(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter_ns()
        try:
            return function(*args, **kwargs)
        finally:
            _count(label, started)

    setattr(owner, name, called)


def _leg_kind(where: str | None) -> str:
    found = where or ""
    if "NOT copy_lead" in found:
        return "standouts"
    if "NOT IN" in found:
        return "prior-others"
    return "preferred" if "library IN" in found else "main"


def _instrument() -> None:
    text_leg = lance.text_leg

    async def leg(table: Any, query: Any, where: str | None, *rest: Any) -> Any:
        started = time.perf_counter_ns()
        try:
            return await text_leg(table, query, where, *rest)
        finally:
            _count("lance.text_leg (query and read)", started)
            _count(f"  leg {_leg_kind(where)}", started)

    setattr(lance, "text_leg", leg)  # noqa: B010 (a wrapper of another signature)
    _timed(lance, "read_ids", "lance.read_ids")
    _timed(lance, "run", "lance.run (every leg)")
    _timed(rescore, "rescored", "rescoring (numpy)")
    _timed(ranking.Ranker, "folded", "Ranker.folded")
    _timed(ranking.Ranker, "_weighed", "kind prior")
    _timed(ranking.Ranker, "_standouts", "copies standing out")
    _timed(ranking.Ranker, "_rescoring", "rescoring set-up")
    _timed(hub_tools, "own_words", "own_words (per library)")
    _timed(hub_tools, "ranked_first", "ranked_first")
    _timed(hub_tools, "fitted_page", "fitted_page (shaping)")
    _timed(snippets, "make_snippet", "snippets")
    _timed(hub_tools.HubTools, "search_docs", "search_docs (total)")


def main(argv: list[str] | None = None) -> int:
    from docs_mcp.server.hub.opening import open_hub
    from docs_mcp.server.hub.specs import parse_index_specs

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claude-index", type=Path, required=True)
    parser.add_argument("--claude-queries", type=Path, required=True)
    parser.add_argument("--sdk-slices", type=Path, required=True)
    parser.add_argument("--same-index", type=Path)
    args = parser.parse_args(argv)
    folders = [args.claude_index, *sorted(p for p in args.sdk_slices.iterdir() if p.is_dir())]
    _instrument()
    questions = question_texts(args.claude_queries) + question_texts(SDK_QUERIES)
    rows: dict[str, dict[str, tuple[float, float]]] = {}
    with ExitStack() as stack:
        ready = open_hub(parse_index_specs([f"lib{n}={folder}" for n, folder in enumerate(folders)]))
        stack.callback(ready.stop)
        tools = hub_tools.HubTools(union_ready(ready.hub))
        # (label, union mode, the tools asked, the library named: None for a merged search)
        kinds: list[tuple[str, UnionMode, hub_tools.HubTools, str | None]] = [
            ("one library", "rescore", tools, "lib0"),
            ("100 rescore", "rescore", tools, None),
            ("100 rank", "rank", tools, None),
        ]
        if args.same_index:
            same = open_hub(parse_index_specs([f"same={args.same_index}"]))
            stack.callback(same.stop)
            kinds.append(("same docs, one", "rescore", hub_tools.HubTools(same.hub.view()), None))
        for turn in range(3):  # the first turn warms the caches: not shown
            for label, mode, asked_tools, library in kinds:
                _SPENT.clear()
                _CALLS.clear()
                with union_set(mode):
                    for question in questions:
                        asked = (
                            {"query": question}
                            if library is None
                            else {"query": question, "library": library}
                        )
                        asked_tools.search_docs(asked)
                if turn:
                    spent = {
                        k: (_SPENT[k] / len(questions) / 1e6, _CALLS[k] / len(questions)) for k in _SPENT
                    }
                    rows[f"{label} #{turn}"] = spent
    order = rows["100 rescore #1"]
    stages = sorted({k for row in rows.values() for k in row}, key=lambda k: -order.get(k, (0.0, 0.0))[0])
    print(f"{'ms per question (calls)':34s}" + "".join(f"{name:>18s}" for name in rows))
    for stage in stages:
        cells = (row.get(stage, (0.0, 0.0)) for row in rows.values())
        print(f"{stage:34s}" + "".join(f"{ms:11.2f} ({calls:.1f})" for ms, calls in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
