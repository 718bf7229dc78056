"""``docs-mcp union``: one full-text index over several libraries' indexes, for merged searches."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from docs_mcp.cli.paths import path_argument
from docs_mcp.errors import UsageError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "union",
        help="make the union index a server's merged searches ask (serve makes it by itself)",
        description="Write one full-text index over the indexes NAME=FOLDER into --cache/KEY (KEY: a hash "
        "of the libraries' names and index identities), unless it is there. `serve` with several "
        "libraries runs this in the background and answers searches without `library` from it once "
        "ready; run it yourself to have it ready before the server starts.",
    )
    parser.add_argument("libraries", metavar="NAME=FOLDER", nargs="+", help="a library's index folder")
    parser.add_argument(
        "--cache", type=path_argument, required=True, help="the folder that holds unions, one per KEY"
    )
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from docs_mcp.indexing.union import union

    libraries: list[tuple[str, Path]] = []
    for given in args.libraries:
        name, sep, folder = str(given).partition("=")
        if not sep or not name or not folder or "/" in name:
            raise UsageError(
                f"union: {given!r} is not NAME=FOLDER (a library name without '/', then its index)"
            )
        libraries.append((name, Path(folder)))
    made = union(libraries, args.cache)
    if args.json:
        document = {"path": str(made.path), "chunks": made.chunks, "reused": made.reused}
        print(json.dumps(document, sort_keys=True))
    else:
        how = "already there" if made.reused else "written"
        print(f"union of {len(libraries)} libraries ({made.chunks} chunks) {how}: {made.path}")
    return 0
