"""``docs-mcp get``: print one chunk (and its neighbours) of a built index."""

from __future__ import annotations

import argparse
import json

from docs_mcp.cli.paths import path_argument


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "get", help="print a chunk by id", description="Print a chunk by id, as the MCP get_doc tool does."
    )
    parser.add_argument(
        "--index", type=path_argument, required=True, help="the folder docs-mcp build wrote (its --out)"
    )
    parser.add_argument("chunk_id", help="a chunk id, e.g. guides/retries.md#backoff")
    parser.add_argument("--context", type=int, default=0, help="neighbouring chunks to include each side")
    parser.add_argument("--json", action="store_true", help="print the window as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from docs_mcp.search.index import DocsIndex  # imports lancedb: only when run

    window = DocsIndex.open(args.index).get(args.chunk_id, context=args.context)
    if args.json:
        print(json.dumps(window.to_dict(), indent=2, ensure_ascii=False))
        return 0
    for view in window.chunks:
        marker = "*" if view.chunk_id == window.chunk_id else " "
        print(f"{marker} {view.chunk_id} ({view.position}/{view.total})")
        print((view.markdown or "").rstrip() + "\n")
    return 0
