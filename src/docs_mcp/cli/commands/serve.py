"""``docs-mcp serve``: answer MCP clients from a built index over stdio or Streamable HTTP."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from docs_mcp.server.serve import DEFAULT_HOST, DEFAULT_PORT


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve a built index to MCP clients (tools search_docs and get_doc)",
        description="Serve a built index to MCP clients over stdio (default) or Streamable HTTP at /mcp.",
    )
    parser.add_argument(
        "--index",
        required=True,
        help="the --out folder of `docs-mcp build` (reopened when rebuilt), or oci://REGISTRY/REPO:TAG",
    )
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"HTTP bind address (default {DEFAULT_HOST})")
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"HTTP port; 0 picks a free one (default {DEFAULT_PORT})",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST[:PORT|:*]",
        help="accept this Host header on /mcp besides loopback (repeatable; needed behind a proxy)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="accept browser requests from this Origin besides loopback, e.g. https://app.example.com",
    )
    parser.add_argument(
        "--refresh-interval",
        type=float,
        metavar="SECONDS",
        help="with --index oci://REF:TAG, poll the tag this often and swap to each new digest",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        help="artifact cache (default $XDG_CACHE_HOME/docs-mcp or ~/.cache/docs-mcp)",
    )
    parser.add_argument(
        "--insecure", action="store_true", help="plain HTTP to the registry (default only for localhost)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # serve() imports the server stack itself, with the collector paused (docs_mcp.server.startup).
    from docs_mcp.server.serve import HttpOptions, RegistryOptions, serve

    options = HttpOptions(
        host=args.host, port=args.port, allowed_hosts=args.allow_host, allowed_origins=args.allow_origin
    )
    serve(
        args.index,
        transport=args.transport,
        http=options,
        announce=lambda message: print(f"docs-mcp: {message}", file=sys.stderr, flush=True),
        registry=RegistryOptions(
            cache_dir=args.cache_dir,
            insecure=True if args.insecure else None,
            refresh_interval=args.refresh_interval,
        ),
    )
    return 0
