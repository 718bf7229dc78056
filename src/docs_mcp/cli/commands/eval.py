"""``docs-mcp eval``: retrieval quality of an index against labelled questions (recall@k, MRR@k)."""

from __future__ import annotations

import argparse
from pathlib import Path

from docs_mcp.eval.retrieval import evaluate
from docs_mcp.search.types import SEARCH_MODES


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "eval",
        help="measure retrieval quality",
        description="Search every question of a JSON-lines file ({id, query, relevant}) and score the top k.",
    )
    parser.add_argument(
        "--index", type=Path, required=True, help="the folder docs-mcp build wrote (its --out)"
    )
    parser.add_argument(
        "--queries", type=Path, required=True, help="labelled questions, one JSON object a line"
    )
    parser.add_argument("--k", type=int, default=3, help="how many top hits count (default 3)")
    parser.add_argument("--mode", choices=SEARCH_MODES, help="default: hybrid if vectors exist")
    parser.add_argument("--json", action="store_true", help="print the full report with per-query details")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    report = evaluate(args.index, args.queries, k=args.k, mode=args.mode)
    if args.json:
        print(report.to_json())
        return 0
    for result in report.queries:
        if result.reciprocal_rank == 0:
            print(f"miss {result.id}: {result.query}")
    reasons = f" (fallback: {'; '.join(report.fallback_reasons)})" if report.fallback_reasons else ""
    print(
        f"{len(report.queries)} queries, mode {report.mode}{reasons}: recall@{report.k} {report.recall:.3f}, "
        f"MRR@{report.k} {report.mrr:.3f}"
    )
    return 0
