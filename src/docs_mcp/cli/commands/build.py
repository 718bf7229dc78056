"""``docs-mcp build``: validate, chunk, embed and write the index; exit 1 if the docs have errors."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from docs_mcp.cli.paths import path_argument
from docs_mcp.cli.progress import BuildProgressPrinter
from docs_mcp.embedding.provider import EmbeddingSettings, provider_names
from docs_mcp.errors import ValidationFailed


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "build",
        help="build the search index of a docs folder",
        description="Validate and chunk a docs folder, embed the chunks, and write OUT/.lancedb plus an "
        "index "
        "manifest. Refuses (exit 1, nothing written) when validation finds errors; replaces a previous "
        "index atomically.",
    )
    parser.add_argument("--docs-dir", type=path_argument, required=True, help="the markdown folder to index")
    parser.add_argument(
        "--out", type=path_argument, required=True, help="the index folder to write (replaced atomically)"
    )
    parser.add_argument(
        "--description",
        help="a one-line description of the corpus, recorded in the index (default: the site's name)",
    )
    parser.add_argument(
        "--site-config",
        type=path_argument,
        help="the site generator's config (mkdocs.yml, docusaurus.config.js|ts, Sphinx conf.py), read as "
        "data; default: the root manifest's site.config, else one found in or beside the docs folder",
    )
    parser.add_argument(
        "--version",
        dest="docs_version",
        metavar="VERSION",
        help="the version of the library these docs describe (e.g. 2.1), recorded in the index: "
        "`serve` offers several versions of one library under `version`",
    )
    parser.add_argument(
        "--embedding-provider",
        choices=provider_names(),
        help="vector embeddings (default: the root docs manifest's `embedding.provider`, else none)",
    )
    parser.add_argument("--embedding-model", help="the provider's model (default: the provider's own)")
    parser.add_argument(
        "--embedding-dimensions", type=int, help="vector width, when the model supports choosing"
    )
    parser.add_argument("--embedding-batch-size", type=int, help="chunks per embedding request (default 64)")
    parser.add_argument("--embedding-concurrency", type=int, help="embedding requests in flight at once")
    parser.add_argument("--embedding-base-url", help="an OpenAI-compatible server's base URL")
    parser.add_argument(
        "--cache-dir",
        type=path_argument,
        help="the rebuild cache: embeddings, chunked files and rows a rebuild reuses; not part of the index "
        "(default: a folder per docs folder under $DOCS_MCP_CACHE_DIR, else ~/.cache/docs-mcp/builds)",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="write the whole index anew; by default a rebuild into the OUT the last build wrote "
        "rewrites only the changed files' rows (and is a full one by itself once the rows rewritten "
        "since the last full build pass a bound: docs/scaling.md)",
    )
    parser.add_argument(
        "--calibrate",
        type=path_argument,
        metavar="QUERIES",
        help="labelled questions (the eval harness's JSON lines): after building, pick the hybrid "
        "fusion (full-text weight, meaning-only floor) that answers them best and record it in the index",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress, only the summary line")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from docs_mcp.indexing.pipeline import BuildOptions, build  # needs the build extra

    progress = None if args.quiet else BuildProgressPrinter(sys.stderr)
    options = BuildOptions(
        docs_dir=args.docs_dir,
        out=args.out,
        description=args.description,
        version=args.docs_version,
        site_config=args.site_config,
        embedding_provider=args.embedding_provider,
        embedding=EmbeddingSettings(
            model=args.embedding_model,
            dimensions=args.embedding_dimensions,
            batch_size=args.embedding_batch_size,
            concurrency=args.embedding_concurrency,
            base_url=args.embedding_base_url,
        ),
        cache_dir=args.cache_dir,
        full=args.full,
        progress=progress,
    )
    try:
        result = build(options)
    except ValidationFailed as failed:
        for finding in failed.findings:
            print(finding.format(), file=sys.stderr)
        raise
    finally:
        if progress is not None:
            progress.close()
    calibrated = None
    if args.calibrate is not None:
        from docs_mcp.eval.calibrate import calibrate

        calibrated = calibrate(result.out, args.calibrate)
    if args.json:
        data = result.to_dict()
        if calibrated is not None:
            data["calibration"] = dataclasses.asdict(calibrated)
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    embedding = result.manifest.embedding
    vectors = (
        f"{embedding.provider} {embedding.model} ({embedding.dimensions}-d)"
        if embedding
        else "full text only"
    )
    cache = (
        f", cache {result.cache_hits} hits / {result.cache_misses} misses"
        if result.cache_hits is not None
        else ""
    )
    updated = ", changed files' rows updated in place" if result.incremental else ""
    print(
        f"built {result.out}: {result.file_count} files, {result.chunk_count} chunks, {vectors}{cache}, "
        f"{len(result.warnings)} warnings, {result.seconds:.1f} s{updated}"
    )
    if calibrated is not None:
        print(
            f"calibrated hybrid fusion on {calibrated.questions} questions: text weight "
            f"{calibrated.text_weight}, meaning-only floor {calibrated.vector_floor} "
            f"(MRR@5 {calibrated.mrr:.3f}, hit@3 {calibrated.hit_at_3:.3f})"
        )
    return 0
