"""CPU a search takes, source trees compared paired: the command behind the cost figures of
docs/ranking.md ("What the other kinds' leg costs").

    git archive main src | tar -x -C /tmp/main    # the tree to compare with
    python -m benchmarks.search_cpu --index OUT main=/tmp/main/src this=src [--workload sdk|gate]

Each round runs every tree once, in turn (the order rotates), in a process of its own whose
``PYTHONPATH`` is that tree: it opens ``OUT``, answers the workload once (warm-up), then times
``--passes`` more passes (2 of the SDK questions, 40 of the gate's five) with ``time.process_time``
(every thread's CPU: LanceDB queries on its own).
Printed per tree: the median over rounds of the CPU a search (each round's the median of its passes),
its median ratio to the first tree's within a round (the load of a shared machine moves both), the
full-text queries a search sent, and how many of the workload's pages differ from the first tree's.
Workloads: ``sdk``, the SDK questions as ``benchmarks.sdk_set`` sends them (their filters, top 5);
``gate``, the five queries of ``benchmarks/test_search.py::test_search_corpora_fulltext`` (limit 10,
no filter), ``gate-language`` with its language filter, ``gate-unfolded`` with folding off (as
``test_search_corpora_fulltext_unfolded``). Also printed: the median over rounds of each round's wall
time p50 a search.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.test_search import QUERIES as GATE_QUERIES
from docs_mcp.search.types import SearchMode

REPO = Path(__file__).resolve().parents[1]


def _requests(index: Any, workload: str, mode: SearchMode) -> list[Any]:
    from benchmarks import sdk_set
    from docs_mcp.search.types import SearchRequest

    if workload.startswith("gate"):
        filters = {"language": "python"} if workload == "gate-language" else {}
        return [SearchRequest(query, filters=filters, limit=10, mode=mode) for query in GATE_QUERIES]
    return [
        SearchRequest(
            q.query, filters={k: v for k, v in q.filters.items() if k in index.facets}, limit=5, mode=mode
        )
        for q in sdk_set.load_set()
    ]


def child(index_dir: Path, workload: str, mode: SearchMode, passes: int) -> dict[str, Any]:
    """One tree's figures (run in the tree's own process)."""
    from docs_mcp.search import lance
    from docs_mcp.search.index import DocsIndex

    sent = [0]
    text_leg = lance.text_leg

    async def counted(*args: Any, **kwargs: Any) -> Any:
        sent[0] += 1
        return await text_leg(*args, **kwargs)

    lance.text_leg = counted
    from docs_mcp.search.config import SearchConfig

    index = DocsIndex.open(
        index_dir, config=SearchConfig(fold=False) if workload == "gate-unfolded" else None
    )
    requests = _requests(index, workload, mode)
    pages = [[hit.chunk_id for hit in index.search(request).hits] for request in requests]
    sent[0] = 0
    cpu, wall = [], []
    for _ in range(passes):
        start = time.process_time()
        for request in requests:
            began = time.perf_counter()
            index.search(request)
            wall.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - start) / len(requests) * 1000)
    return {
        "cpu_ms": statistics.median(cpu),
        "wall_ms": statistics.median(wall),
        "queries": sent[0] / passes / len(requests),
        "pages": pages,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument(
        "--workload", choices=["sdk", "gate", "gate-unfolded", "gate-language"], default="sdk"
    )
    parser.add_argument("--mode", choices=["fulltext", "hybrid"], default="fulltext")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--passes", type=int, help="passes timed a round (default: 2 sdk, 40 gate)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("trees", nargs="*", help="NAME=SRC: a source tree holding docs_mcp")
    args = parser.parse_args(argv)
    args.passes = args.passes or (40 if args.workload.startswith("gate") else 2)
    if args.child:
        print(json.dumps(child(args.index, args.workload, args.mode, args.passes)))
        return 0
    trees = dict(tree.split("=", 1) for tree in args.trees)
    names = list(trees)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for round_ in range(args.rounds):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(trees[name]).resolve()), str(REPO)])}
            command = [sys.executable, "-m", "benchmarks.search_cpu", "--child", "--index", str(args.index)]
            command += ["--workload", args.workload, "--mode", args.mode, "--passes", str(args.passes)]
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=True, cwd=REPO)
            runs[name].append(json.loads(done.stdout.splitlines()[-1]))
    first = runs[names[0]]
    print(f"{args.index} {args.workload} {args.mode}: {args.rounds} rounds x {args.passes} passes")
    for name in names:
        cpu = [run["cpu_ms"] for run in runs[name]]
        wall = statistics.median(run["wall_ms"] for run in runs[name])
        ratio = statistics.median(
            run["cpu_ms"] / base["cpu_ms"] for run, base in zip(runs[name], first, strict=True)
        )
        differ = sum(a != b for a, b in zip(runs[name][-1]["pages"], first[-1]["pages"], strict=True))
        print(
            f"  {name:10s} CPU a search {statistics.median(cpu):6.2f} ms "
            f"(rounds {[round(c, 2) for c in cpu]}), "
            f"/{names[0]} {ratio:.3f}; wall p50 {wall:.2f} ms; "
            f"full-text queries a search {runs[name][-1]['queries']:.3f}; "
            f"pages differing {differ} of {len(first[-1]['pages'])}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
