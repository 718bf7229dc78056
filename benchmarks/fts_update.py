"""The full-text step of an update in place, measured: the commands behind docs/scaling.md's edits section.

    python -m benchmarks.fts_update cost INDEX WORK --share 0.01 [--ways segment,rebuild,merge]
    python -m benchmarks.fts_update drift WORK --share 0.05 [--share 0.10 ...]

``cost``: INDEX (a built index folder, only read) hard-linked into WORK once per way (Lance never
changes a file it wrote: ``indexing/in_place.py``); in each copy the rows of files taken in a seeded
order until SHARE of the rows are deleted and added again, then the full-text indexes brought up to
date one way: ``segment`` (``writer.extend_fts_indexes``, what an update does), ``rebuild`` (built
again over the table, what it did before) or ``merge`` (Lance's default ``optimize_indices``, the new
rows merged into the existing segment). Prints the step's wall and CPU seconds (this process's, Lance's
threads included), and the largest relative change of a top-20 score against INDEX for ten queries
(the rows added are the rows deleted: a full build's scores are INDEX's).

``drift``: the claude-docs labelled set built (full text), files edited (a line appended to each, in
a seeded order, until their rows are SHARE / 2 of the table: SHARE counts deleted plus added rows as
``incremental.MAX_REWRITTEN_SHARE`` does, whose bound is lifted here), the index updated in place and
the edited folder built in full; prints the drift of the scores both return and recall / MRR of both.
Needs ``DOCS_MCP_EVALDATA`` (or ``../shared/evaldata``).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any

import lancedb

from docs_mcp.eval.matching import Hit, judge
from docs_mcp.eval.metrics import mean_metrics, score
from docs_mcp.eval.queries import LabelledQuery, load_queries
from docs_mcp.indexing import incremental
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.indexing.writer import extend_fts_indexes, write_fts_indexes
from docs_mcp.search.config import SearchConfig
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.query import fulltext_query
from docs_mcp.search.types import SearchRequest
from docs_mcp.store.columns import LANCEDB_DIR, TABLE_NAME
from testkit.evaldata_sets import claude_docs_queries, stage_claude_docs

QUERIES = [
    "how do I configure authentication",
    "create a client with an api key",
    "pagination cursor next page",
    "stream responses from the chat completion",
    "error handling retry timeout",
    "upload a file",
    "delete a link by id",
    "list all workspaces",
    "embeddings model",
    "webhook signature verification",
]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _link_tree(source: Path, target: Path) -> None:
    for folder, _dirs, names in os.walk(source):
        place = target / Path(folder).relative_to(source)
        place.mkdir(parents=True, exist_ok=True)
        for name in names:
            os.link(Path(folder) / name, place / name)


def _scores(table: Any) -> dict[str, dict[str, float]]:
    config = SearchConfig()
    found = {}
    for query in QUERIES:
        read = table.search(fulltext_query(query, config), query_type="fts")
        read = read.select(["id", "_score"]).limit(20).to_arrow()
        found[query] = dict(zip(read["id"].to_pylist(), read["_score"].to_pylist(), strict=True))
    return found


def _rewrite(table: Any, share: float) -> int:
    """The rows of files taken in a seeded order until ``share`` of the rows, deleted and added again."""
    rows = Counter(table.search().select(["file_path"]).limit(None).to_arrow()["file_path"].to_pylist())
    files = sorted(rows)
    random.Random(34).shuffle(files)
    chosen: list[str] = []
    for path in files:
        if sum(rows[p] for p in chosen) >= share * rows.total():
            break
        chosen.append(path)
    for start in range(0, len(chosen), 500):
        paths = ", ".join("'" + p.replace("'", "''") + "'" for p in chosen[start : start + 500])
        where = f"file_path IN ({paths})"
        old = table.search().where(where).limit(None).to_arrow()
        table.delete(where)
        table.add(old)
    return sum(rows[p] for p in chosen)


def cost(index: Path, work: Path, share: float, ways: list[str]) -> None:
    """Print the full-text step's cost each way (see the module's docstring)."""
    reference = _scores(lancedb.connect(str(index / LANCEDB_DIR)).open_table(TABLE_NAME))
    for way in ways:
        copy = work / f"{way}-{share}"
        shutil.rmtree(copy, ignore_errors=True)
        _link_tree(index, copy)
        table = lancedb.connect(str(copy / LANCEDB_DIR)).open_table(TABLE_NAME)
        rewritten = _rewrite(table, share)
        started, cpu = time.perf_counter(), _cpu()
        if way == "segment":
            extend_fts_indexes(table)
        elif way == "rebuild":
            write_fts_indexes(table)
        else:
            names = [found.name for found in table.list_indices() if found.index_type == "FTS"]
            table.to_lance().optimize.optimize_indices(index_names=names)
        wall, cpu = time.perf_counter() - started, _cpu() - cpu
        table = lancedb.connect(str(copy / LANCEDB_DIR)).open_table(TABLE_NAME)
        got = _scores(table)
        drift = max(
            abs(got[q][cid] - reference[q][cid]) / reference[q][cid]
            for q in QUERIES
            for cid in got[q].keys() & reference[q].keys()
        )
        print(
            f"{way}: {rewritten} rows rewritten; wall {wall:.2f} s, CPU {cpu:.2f} s; score drift {drift:.2e}"
        )
        del table
        shutil.rmtree(copy)


def _evaluate(
    out: Path, queries: list[LabelledQuery]
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    index = DocsIndex.open(out)
    per_query, scores = [], {}
    for query in queries:
        hits = index.search(SearchRequest(query.query, limit=10, mode="fulltext")).hits
        scores[query.query] = {hit.chunk_id: hit.score or 0.0 for hit in hits}
        per_query.append(score(judge(query, [Hit(hit.chunk_id, hit.file_path) for hit in hits]), [5, 10]))
    return mean_metrics(per_query), scores


def drift(evaldata: Path, work: Path, share: float) -> None:
    """Print the drift of an update rewriting ``share`` of claude-docs' rows (see the docstring)."""
    queries = load_queries(claude_docs_queries(evaldata))
    incremental.MAX_REWRITTEN_SHARE = 1.0
    place = work / f"drift-{share}"
    shutil.rmtree(place, ignore_errors=True)
    docs = stage_claude_docs(evaldata, place / "docs")
    options = BuildOptions(docs_dir=docs, out=place / "out", cache_dir=place / "cache")
    total = build(options).chunk_count
    table = lancedb.connect(str(place / "out" / LANCEDB_DIR)).open_table(TABLE_NAME)
    rows = Counter(table.to_arrow()["file_path"].to_pylist())
    files = sorted(rows)
    random.Random(34).shuffle(files)
    edited = 0
    for path in files:
        if edited >= share / 2 * total:
            break
        page = docs / path
        text = page.read_text(encoding="utf-8")
        page.unlink()  # a staged page may be a hard link to the shared data
        page.write_text(text + "\nSee the overview for more.\n", encoding="utf-8")
        edited += rows[path]
    assert build(options).incremental, "the rebuild was not an update"
    build(BuildOptions(docs_dir=docs, out=place / "full", cache_dir=place / "full-cache"))
    (ours, our_scores), (theirs, their_scores) = (
        _evaluate(place / "out", queries),
        _evaluate(place / "full", queries),
    )
    drifts = sorted(
        abs(our_scores[q][cid] - their_scores[q][cid]) / their_scores[q][cid]
        for q in our_scores
        for cid in our_scores[q].keys() & their_scores[q].keys()
    )
    top5 = sum(list(our_scores[q])[:5] != list(their_scores[q])[:5] for q in our_scores)
    print(
        f"share {2 * edited / total:.3f} of {total} rows: score drift median {drifts[len(drifts) // 2]:.2e}, "
        f"p95 {drifts[int(len(drifts) * 0.95)]:.2e}, max {drifts[-1]:.2e}; "
        f"top 5 differs {top5}/{len(queries)}"
    )
    for name, figures in (("update", ours), ("full build", theirs)):
        print(
            f"  {name}: "
            + ", ".join(f"{key} {figures[key]:.4f}" for key in ("recall@5", "mrr@5", "recall@10"))
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    measured = commands.add_parser("cost")
    measured.add_argument("index", type=Path)
    measured.add_argument("work", type=Path)
    measured.add_argument("--share", type=float, default=0.01)
    measured.add_argument("--ways", default="segment,rebuild")
    drifted = commands.add_parser("drift")
    drifted.add_argument("work", type=Path)
    drifted.add_argument("--share", type=float, action="append", required=True)
    args = parser.parse_args()
    if args.command == "cost":
        cost(args.index, args.work, args.share, args.ways.split(","))
    else:
        evaldata = Path(os.environ.get("DOCS_MCP_EVALDATA", "../shared/evaldata"))
        for share in args.share:
            drift(evaldata, args.work, share)


if __name__ == "__main__":
    main()
