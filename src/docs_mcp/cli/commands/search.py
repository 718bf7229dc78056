"""``docs-mcp search``: search a built index from the command line."""

from __future__ import annotations

import argparse
import json

from docs_mcp.cli.paths import path_argument
from docs_mcp.errors import ConfigError
from docs_mcp.search.types import SEARCH_MODES, SearchRequest


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "search",
        help="search an index",
        description="Search a built index, as the MCP search_docs tool does.",
    )
    parser.add_argument(
        "--index", type=path_argument, required=True, help="the folder docs-mcp build wrote (its --out)"
    )
    parser.add_argument("query", help="what to look for")
    parser.add_argument("--language", help="only this language (plus global guides, unless --scope is given)")
    parser.add_argument("--scope", help="only this scope")
    parser.add_argument(
        "--filter", action="append", default=[], metavar="FACET=VALUE", help="any facet filter; repeatable"
    )
    parser.add_argument("--limit", type=int, default=10, help="hits per page (default 10)")
    parser.add_argument("--offset", type=int, default=0, help="hits to skip (default 0)")
    parser.add_argument("--mode", choices=SEARCH_MODES, help="default: hybrid if the index has vectors")
    parser.add_argument("--json", action="store_true", help="print the result page as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    malformed = [item for item in args.filter if "=" not in item]
    if malformed:
        raise ConfigError(f"--filter takes FACET=VALUE, got {malformed[0]!r}")
    filters = dict(item.split("=", 1) for item in args.filter)
    from docs_mcp.search.index import DocsIndex  # imports lancedb: only when run

    index = DocsIndex.open(args.index)
    conventions = index.config.facets
    if args.language:
        filters[conventions.language] = args.language
    if args.scope:
        filters[conventions.scope] = args.scope
    page = index.search(
        SearchRequest(args.query, filters=filters, limit=args.limit, offset=args.offset, mode=args.mode)
    )
    if args.json:
        print(json.dumps(page.to_dict(), indent=2, ensure_ascii=False))
        return 0
    if page.fallback_reason:
        print(f"(full-text only: {page.fallback_reason})")
    if page.inferred_filters:
        named = " ".join(f"{k}={v}" for k, v in page.inferred_filters.items())
        print(f"(the query names {named}: its results come first)")
    for rank, hit in enumerate(page.hits, start=page.offset + 1):
        facets = " ".join(f"{k}={v}" for k, v in hit.facets.items())
        print(f"{rank}. {hit.chunk_id}  [{hit.score or 0:.3f}] {facets}".rstrip())
        print(f"   {' > '.join((*hit.breadcrumb, hit.heading))}")
        for variant in hit.also_in:
            print(f"   also {variant.facet}={variant.value}: {variant.chunk_id}")
        print(f"   {hit.snippet}")
    if not page.hits:
        print("no results")
    elif page.has_more:
        print(f"more: --offset {page.offset + page.limit}")
    return 0
