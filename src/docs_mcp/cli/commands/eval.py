"""``docs-mcp eval``: retrieval quality of an index through the MCP tools (recall, precision, MRR,
nDCG and hit rate at each k, latency, categories, baseline deltas)."""

from __future__ import annotations

import argparse
import json
import sys

from docs_mcp.cli.paths import path_argument
from docs_mcp.eval.matching import MATCHINGS
from docs_mcp.search.types import SEARCH_MODES


def _ks(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of numbers like 1,3,5,10") from error


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "eval",
        help="measure retrieval quality through the MCP tools",
        description=(
            "Run every labelled question of a JSON-lines file ({id, query, relevant, grades?, filters?, "
            "category?}) through search_docs, as an agent would, and score the top k hits."
        ),
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--index", help="the --out folder of docs-mcp build, or oci://REF to pull")
    where.add_argument(
        "--build", type=path_argument, metavar="DOCS_DIR", help="build DOCS_DIR into a temporary index"
    )
    parser.add_argument(
        "--queries", type=path_argument, required=True, help="labelled questions, one JSON object a line"
    )
    parser.add_argument("--k", type=_ks, default=[1, 3, 5, 10], help="cut-offs to score (default 1,3,5,10)")
    parser.add_argument(
        "--transport",
        default="inproc",
        metavar="inproc|stdio|http|URL",
        help="how to reach the server: in process (default), a spawned stdio or HTTP server, or a URL",
    )
    parser.add_argument("--mode", choices=SEARCH_MODES, help="force a search mode (inproc only)")
    parser.add_argument(
        "--match",
        choices=MATCHINGS,
        default="sections",
        help="sections (default): a section's -part-N parts and ancestor paths count; exact: ids only",
    )
    parser.add_argument(
        "--compare",
        type=_names,
        default=[],
        metavar="none,local,...",
        help="with --build: one index per embedding provider, scored side by side",
    )
    parser.add_argument(
        "--baseline", type=path_argument, help="an earlier --out report: show deltas and moved queries"
    )
    parser.add_argument("--out", type=path_argument, help="also write the JSON report to this file")
    parser.add_argument("--json", action="store_true", help="print the JSON report instead of tables")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from docs_mcp.eval import EvalOptions, evaluate
    from docs_mcp.eval.report_text import render

    report = evaluate(
        EvalOptions(
            queries=args.queries,
            index=args.index,
            build=args.build,
            compare=args.compare,
            ks=args.k,
            transport=args.transport,
            mode=args.mode,
            match=args.match,
            baseline=args.baseline,
        )
    )
    text = json.dumps(report.to_dict(), indent=2)
    if args.out is not None:
        try:
            args.out.write_text(text + "\n", encoding="utf-8")
        except OSError as error:
            print(f"docs-mcp: error: cannot write {args.out}: {error}", file=sys.stderr)
            return 1
    print(text if args.json else render(report))
    return 0
