"""``docs-mcp publish``: push a built index to an OCI registry; print its digest and pinned reference."""

from __future__ import annotations

import argparse
import json
import sys

from docs_mcp.cli.paths import path_argument
from docs_mcp.cli.registry_options import add_registry_arguments, registry_arguments


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "publish",
        help="publish a built index to an OCI registry",
        description="Push the index folder as an OCI artifact (type application/vnd.docs-mcp.index.v1) to "
        "REF, e.g. ghcr.io/acme/docs-index:v1. Content-addressed: an index the repository already "
        "holds uploads nothing and only moves the tags. Prints the digest and REF@sha256:...",
    )
    parser.add_argument(
        "reference", metavar="REF", help="[oci://]REGISTRY/REPOSITORY[:TAG] (tag default latest)"
    )
    parser.add_argument(
        "--index", type=path_argument, required=True, help="the --out folder of `docs-mcp build`"
    )
    parser.add_argument(
        "--tag", action="append", default=[], metavar="TAG", help="also tag the artifact TAG (repeatable)"
    )
    parser.add_argument(
        "--source", help="URL of the docs' repository (annotation org.opencontainers.image.source)"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="pack and print the OCI manifest; contact no registry"
    )
    add_registry_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from docs_mcp.artifact import publish

    result = publish(
        args.index,
        args.reference,
        tags=args.tag,
        source=args.source,
        dry_run=args.dry_run,
        **registry_arguments(args),
    )
    if args.dry_run and not args.json:
        print(json.dumps(json.loads(result.oci_manifest), indent=2, sort_keys=True))
        return 0
    if args.json:
        print(json.dumps(_as_json(result), sort_keys=True))
        return 0
    manifest = result.manifest
    if result.reused:
        what = "the repository already held this index: nothing uploaded"
    else:
        what = f"uploaded {result.uploaded_bytes / 2**20:.1f} MiB"
    print(
        f"published index {manifest.identity} ({manifest.chunk_count} chunks, layer "
        f"{result.layer.size / 2**20:.1f} MiB): {what}; tags {', '.join(result.tags)} "
        f"in {result.seconds:.1f} s",
        file=sys.stderr,
    )
    print(result.digest)
    print(result.reference)
    return 0


def _as_json(result: object) -> dict[str, object]:
    from docs_mcp.artifact import PublishResult

    assert isinstance(result, PublishResult)
    return {
        "digest": result.digest,
        "reference": str(result.reference),
        "tags": result.tags,
        "index": result.manifest.identity,
        "chunk_count": result.manifest.chunk_count,
        "config": result.config.to_json(),
        "layer": result.layer.to_json(),
        "content_digest": result.content_digest,
        "uploaded_bytes": result.uploaded_bytes,
        "reused": result.reused,
        "dry_run": result.dry_run,
        "seconds": round(result.seconds, 3),
    }
