"""``docs-mcp pull``: fetch an index artifact by reference, verify it, and swap it into a folder."""

from __future__ import annotations

import argparse
import json

from docs_mcp.cli.paths import path_argument
from docs_mcp.cli.registry_options import add_registry_arguments, registry_arguments


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "pull",
        help="pull a published index from an OCI registry into a folder",
        description="Fetch the docs-mcp index at REF (a tag or @sha256: digest), verify every blob, "
        "unpack it safely and swap it into --out atomically: a failed or interrupted pull leaves the "
        "previous index in place. A digest already in the cache downloads nothing.",
    )
    parser.add_argument("reference", metavar="REF", help="[oci://]REGISTRY/REPOSITORY[:TAG|@sha256:DIGEST]")
    parser.add_argument(
        "--out", type=path_argument, required=True, help="the index folder to write (replaced atomically)"
    )
    add_registry_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from docs_mcp.artifact import pull

    result = pull(args.reference, args.out, **registry_arguments(args))
    manifest = result.manifest
    if args.json:
        document = {
            "digest": result.digest,
            "reference": str(result.reference),
            "path": str(result.path),
            "index": manifest.identity,
            "chunk_count": manifest.chunk_count,
            "layer": result.layer.to_json(),
            "downloaded_bytes": result.downloaded_bytes,
            "unchanged": result.unchanged,
            "seconds": round(result.seconds, 3),
        }
        print(json.dumps(document, sort_keys=True))
        return 0
    if result.unchanged:
        how = "already there: nothing written"
    elif result.downloaded_bytes:
        how = f"downloaded {result.downloaded_bytes / 2**20:.1f} MiB"
    else:
        how = "from the cache: nothing downloaded"
    print(
        f"pulled {result.reference} into {result.path}: index {manifest.identity} "
        f"({manifest.chunk_count} chunks), {how}, {result.seconds:.1f} s"
    )
    return 0
